// RateLimiter on a store: atomic under concurrency, dry runs and refusals change nothing,
// state survives reopen and expires by itself, Reset, bad input.
#include "cairn/ratelimit.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include "support/temp_dir.h"

namespace cairn {
namespace {

using test::OpenOrDie;
using test::TempDir;
using test::TestOptions;

class RateLimiterTest : public ::testing::Test {
 protected:
  RateLimiterTest() : clock_(std::make_shared<ManualClock>(1'700'000'000'000)) { Open(); }

  void Open() {
    limiter_.reset();
    store_.reset();
    store_ = OpenOrDie(TestOptions(dir_.path(), clock_));
    limiter_ = std::make_unique<RateLimiter>(*store_);
  }

  Decision Take(std::string_view key, const Limit& limit, std::int64_t cost = 1, bool dry = false) {
    auto d = limiter_->Take(key, limit, cost, dry);
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    return d.ok() ? *d : Decision{};
  }

  TempDir dir_;
  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<RateLimiter> limiter_;
};

TEST_F(RateLimiterTest, EightThreadsAdmitExactlyTheLimit) {
  const Limit limit = Limit::FixedWindow(100, 60'000);
  std::atomic<int> admitted{0}, errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        auto d = limiter_->Take("api:user-1", limit);
        if (!d.ok()) {
          ++errors;
        } else if (d->allowed) {
          ++admitted;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(admitted.load(), 100);
}

TEST_F(RateLimiterTest, DryRunAndPeekChangeNothing) {
  const Limit limit = Limit::TokenBucket(3, 1, 1000);
  for (int i = 0; i < 5; ++i) {
    Decision dry = Take("k", limit, 1, /*dry=*/true);
    EXPECT_TRUE(dry.allowed);
    EXPECT_EQ(dry.remaining, 2);
  }
  EXPECT_EQ(limiter_->Peek("k", limit)->remaining, 2) << "what a take of 1 would leave";
  EXPECT_EQ(Take("k", limit, 3).remaining, 0);
  Decision refused = Take("k", limit);
  EXPECT_FALSE(refused.allowed);
  clock_->Advance(refused.retry_after_ms);
  EXPECT_TRUE(Take("k", limit).allowed) << "the refusal consumed nothing";
}

TEST_F(RateLimiterTest, StateSurvivesReopen) {
  const Limit limit = Limit::Gcra(1, 1000, 2);
  EXPECT_TRUE(Take("k", limit).allowed);
  EXPECT_TRUE(Take("k", limit).allowed);
  Open();
  Decision d = Take("k", limit);
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.retry_after_ms, 1000);
}

TEST_F(RateLimiterTest, IdleStateExpiresAndResetForgets) {
  const Limit limit = Limit::FixedWindow(1, 1000);
  EXPECT_TRUE(Take("k", limit).allowed);
  EXPECT_FALSE(Take("k", limit).allowed);
  EXPECT_TRUE(*limiter_->Reset("k"));
  EXPECT_FALSE(*limiter_->Reset("k"));
  EXPECT_TRUE(Take("k", limit).allowed);
  clock_->Advance(1000);  // The window is over: the row has expired.
  EXPECT_FALSE(*limiter_->Reset("k")) << "nothing live was left to forget";
}

TEST_F(RateLimiterTest, BadInputIsRejectedWithAMessage) {
  auto huge = limiter_->Take("k", Limit::TokenBucket(5, 1, 1000), 6);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(huge.status().message().find("could never be admitted"), std::string::npos);
  EXPECT_EQ(limiter_->Take("k", Limit::FixedWindow(5, 1000), 0).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(limiter_->Take("", Limit::FixedWindow(5, 1000)).status().code(),
            StatusCode::kInvalidArgument);
  auto bad_limit = limiter_->Take("k", Limit::SlidingWindow(0, 1000));
  ASSERT_FALSE(bad_limit.ok());
  EXPECT_NE(bad_limit.status().message().find("limit must be between"), std::string::npos);
  EXPECT_EQ(limiter_->Take("k", Limit::GcraPerSecond(std::nan(""), 1)).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(RateLimiterTest, SwitchingAlgorithmStartsAfresh) {
  EXPECT_TRUE(Take("k", Limit::FixedWindow(1, 60'000)).allowed);
  EXPECT_FALSE(Take("k", Limit::FixedWindow(1, 60'000)).allowed);
  EXPECT_TRUE(Take("k", Limit::TokenBucket(1, 1, 60'000)).allowed);
}

}  // namespace
}  // namespace cairn
