// The rate-limit algorithms as pure functions: exact admissions at window edges, exactly
// sufficient retry-after values (a take at now + retry_after is admitted, one ms earlier is
// not), long idle periods without overflow, and limit changes that grant nothing new.
#include "ratelimit/bucket_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace cairn::internal {
namespace {

constexpr std::int64_t kT0 = 1'700'000'000'000;  // A window-aligned moment (multiple of 1000).

// Applies takes like the store does: state changes only when a take is admitted.
struct Key {
  Limit limit;
  std::optional<BucketState> state;

  Decision Take(std::int64_t now, std::int64_t cost = 1) {
    Evaluation e = Evaluate(state, limit, now, cost);
    if (e.decision.allowed) state = e.next;
    return e.decision;
  }
  Decision Peek(std::int64_t now, std::int64_t cost = 1) const {
    return Evaluate(state, limit, now, cost).decision;
  }
};

TEST(FixedWindowMathTest, AdmitsExactlyLimitPerWindowAndResetsOnTheBoundary) {
  Key k{Limit::FixedWindow(3, 1000), std::nullopt};
  EXPECT_TRUE(k.Take(kT0).allowed);
  EXPECT_TRUE(k.Take(kT0 + 10).allowed);
  Decision third = k.Take(kT0 + 999);
  EXPECT_TRUE(third.allowed);
  EXPECT_EQ(third.remaining, 0);
  Decision refused = k.Take(kT0 + 999);
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.retry_after_ms, 1);
  EXPECT_EQ(refused.reset_after_ms, 1);
  Decision boundary = k.Take(kT0 + 1000);  // Exactly on the boundary: a new window.
  EXPECT_TRUE(boundary.allowed);
  EXPECT_EQ(boundary.remaining, 2);
}

TEST(SlidingWindowMathTest, WeighsThePreviousWindow) {
  Key k{Limit::SlidingWindow(10, 1000), std::nullopt};
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(k.Take(kT0 + 500).allowed);
  EXPECT_FALSE(k.Take(kT0 + 999).allowed);
  // 250 ms into the next window the previous 10 weigh 7.5: two more fit (7.5 + 2 <= 10).
  EXPECT_TRUE(k.Take(kT0 + 1250).allowed);
  EXPECT_TRUE(k.Take(kT0 + 1250).allowed);
  EXPECT_FALSE(k.Take(kT0 + 1250).allowed);
  // Two windows later everything has aged out.
  EXPECT_EQ(k.Take(kT0 + 3000).remaining, 9);
}

TEST(TokenBucketMathTest, RefillsContinuouslyAndCapsAtCapacity) {
  Key k{Limit::TokenBucket(5, 1, 100), std::nullopt};  // 10 tokens per second.
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(k.Take(kT0).allowed);
  Decision empty = k.Take(kT0);
  EXPECT_FALSE(empty.allowed);
  EXPECT_EQ(empty.retry_after_ms, 100);
  EXPECT_EQ(empty.reset_after_ms, 500);
  EXPECT_FALSE(k.Take(kT0 + 99).allowed);
  EXPECT_TRUE(k.Take(kT0 + 100).allowed);
  // A year idle: full again, not more, and no overflow.
  Decision idle = k.Peek(kT0 + 366LL * 24 * 3600 * 1000);
  EXPECT_TRUE(idle.allowed);
  EXPECT_EQ(idle.remaining, 4);
}

TEST(GcraMathTest, AllowsBurstThenPacesAtTheRate) {
  Key k{Limit::Gcra(10, 1000, 3), std::nullopt};  // 10/s, bursts of 3.
  EXPECT_TRUE(k.Take(kT0).allowed);
  EXPECT_TRUE(k.Take(kT0).allowed);
  Decision third = k.Take(kT0);
  EXPECT_TRUE(third.allowed);
  EXPECT_EQ(third.remaining, 0);
  Decision fourth = k.Take(kT0);
  EXPECT_FALSE(fourth.allowed);
  EXPECT_EQ(fourth.retry_after_ms, 100);
  EXPECT_EQ(fourth.reset_after_ms, 300);
  EXPECT_FALSE(k.Take(kT0 + 99).allowed);
  EXPECT_TRUE(k.Take(kT0 + 100).allowed);
}

TEST(GcraMathTest, FractionalEmissionIntervalsStayExact) {
  Key single{Limit::Gcra(3, 1000, 1), std::nullopt};  // One per 333.33 ms, no burst.
  ASSERT_TRUE(single.Take(kT0).allowed);
  Decision next = single.Take(kT0);
  EXPECT_EQ(next.retry_after_ms, 334);
  EXPECT_FALSE(single.Take(kT0 + 333).allowed);
  EXPECT_TRUE(single.Take(kT0 + 334).allowed);

  // With a burst of 2 the fractions do not accumulate: a caller that always comes back after
  // retry_after gets request n (from 0) at ceil((n - 1) * 333.33) ms — the 300th at 99,334 ms.
  Key paced{Limit::Gcra(3, 1000, 2), std::nullopt};
  std::int64_t now = kT0;
  for (int n = 0; n < 300; ++n) {
    Decision d = paced.Take(now);
    if (!d.allowed) {
      now += d.retry_after_ms;
      ASSERT_TRUE(paced.Take(now).allowed) << n;
    }
  }
  EXPECT_EQ(now, kT0 + 99'334);
}

// For every algorithm and random sequences of takes: a refusal's retry_after is exactly the
// earliest admitted moment.
TEST(BucketMathTest, RetryAfterIsExactlySufficient) {
  const Limit limits[] = {Limit::FixedWindow(7, 1000),         Limit::SlidingWindow(7, 1000),
                          Limit::TokenBucket(7, 3, 1000),      Limit::Gcra(7, 1000, 4),
                          Limit::TokenBucketPerSecond(5, 2.5), Limit::GcraPerSecond(1.7, 2)};
  std::mt19937_64 rng(42);
  for (const Limit& limit : limits) {
    Key k{limit, std::nullopt};
    std::int64_t now = kT0 + static_cast<std::int64_t>(rng() % 1000);
    int refusals = 0;
    for (int i = 0; i < 400; ++i) {
      now += static_cast<std::int64_t>(rng() % 120);
      const std::int64_t cost = 1 + static_cast<std::int64_t>(rng() % limit.capacity());
      Decision d = k.Peek(now, cost);
      if (d.allowed) {
        EXPECT_EQ(d.retry_after_ms, 0);
        k.Take(now, cost);
        continue;
      }
      ++refusals;
      ASSERT_GT(d.retry_after_ms, 0);
      EXPECT_FALSE(k.Peek(now + d.retry_after_ms - 1, cost).allowed)
          << "kind " << static_cast<int>(limit.kind()) << " at step " << i;
      EXPECT_TRUE(k.Peek(now + d.retry_after_ms, cost).allowed)
          << "kind " << static_cast<int>(limit.kind()) << " at step " << i;
    }
    EXPECT_GT(refusals, 10) << "the sequence must exercise refusals";
  }
}

TEST(BucketMathTest, ChangingTheLimitGrantsNothingNew) {
  // Token bucket drained under capacity 10, upgraded to 1000: still empty, refills at its rate.
  Key tb{Limit::TokenBucket(10, 1, 1000), std::nullopt};
  ASSERT_TRUE(tb.Take(kT0, 10).allowed);
  tb.limit = Limit::TokenBucket(1000, 1, 1000);
  EXPECT_FALSE(tb.Peek(kT0).allowed);
  // Downgraded below the tokens held: capped at the new capacity.
  Key full{Limit::TokenBucket(100, 1, 1000), std::nullopt};
  ASSERT_TRUE(full.Take(kT0, 1).allowed);
  full.limit = Limit::TokenBucket(10, 1, 1000);
  EXPECT_EQ(full.Peek(kT0).remaining, 9);
  // A window keeps its count.
  Key fw{Limit::FixedWindow(100, 1000), std::nullopt};
  ASSERT_TRUE(fw.Take(kT0, 60).allowed);
  fw.limit = Limit::FixedWindow(50, 1000);
  EXPECT_FALSE(fw.Peek(kT0).allowed);
  EXPECT_EQ(fw.Peek(kT0).remaining, 0);
  // GCRA keeps its arrival time when the rate changes.
  Key g{Limit::Gcra(1, 1000, 1), std::nullopt};
  ASSERT_TRUE(g.Take(kT0).allowed);
  g.limit = Limit::Gcra(2, 1000, 1);
  EXPECT_FALSE(g.Peek(kT0 + 999).allowed);
}

TEST(LimitTest, RejectsBadSpecs) {
  EXPECT_FALSE(Limit::FixedWindow(0, 1000).validity().ok());
  EXPECT_FALSE(Limit::FixedWindow(10, 0).validity().ok());
  EXPECT_FALSE(Limit::SlidingWindow(-1, 1000).validity().ok());
  EXPECT_FALSE(Limit::TokenBucket(10, 0, 1000).validity().ok());
  EXPECT_FALSE(Limit::TokenBucketPerSecond(10, std::nan("")).validity().ok());
  EXPECT_FALSE(Limit::TokenBucketPerSecond(10, INFINITY).validity().ok());
  EXPECT_FALSE(Limit::GcraPerSecond(-2, 1).validity().ok());
  EXPECT_FALSE(Limit::Gcra(1, 1000, 0).validity().ok());
  EXPECT_FALSE(Limit::TokenBucket(kMaxRateLimitCount, 1, kMaxRateLimitWindowMs).validity().ok());
  const Status s = Limit::FixedWindow(10, -5).validity();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("window"), std::string::npos) << s.message();
  EXPECT_TRUE(Limit::GcraPerSecond(0.5, 1).validity().ok());
}

TEST(RetryAfterSecondsTest, RoundsUpAndIsNeverZeroWhenRefused) {
  EXPECT_EQ(RetryAfterSeconds(Decision{.allowed = true}), 0);
  EXPECT_EQ(RetryAfterSeconds(Decision{.allowed = false, .retry_after_ms = 1}), 1);
  EXPECT_EQ(RetryAfterSeconds(Decision{.allowed = false, .retry_after_ms = 1000}), 1);
  EXPECT_EQ(RetryAfterSeconds(Decision{.allowed = false, .retry_after_ms = 1001}), 2);
  EXPECT_EQ(RetryAfterSeconds(Decision{.allowed = false, .retry_after_ms = 0}), 1);
}

}  // namespace
}  // namespace cairn::internal
