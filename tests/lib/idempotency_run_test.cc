// IdempotencyStore::Run, the whole lifecycle in one call: concurrent duplicates run the side
// effect once and all receive its outcome; waits end on completion, lock expiry or the settle
// timeout (with a manual clock, never by sleeping); errors are classified; a run that outlives
// its lock never reports success.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "cairn/idempotency.h"
#include "support/temp_dir.h"

namespace cairn {
namespace {

using test::OpenOrDie;
using test::TempDir;
using test::TestOptions;

IdempotencyKey Key(std::string_view k) { return *IdempotencyKey::Make("shop", "1", k); }

Outcome Body(std::string body) {
  Outcome o;
  o.status_code = 200;
  o.body = std::move(body);
  return o;
}

// Blocks until `n` threads wait on the clock (they are parked, not spinning).
void AwaitWaiters(const ManualClock& clock, std::size_t n) {
  while (clock.waiters() < n) std::this_thread::yield();
}

class IdempotencyRunTest : public ::testing::Test {
 protected:
  IdempotencyRunTest() : clock_(std::make_shared<ManualClock>()) {
    store_ = OpenOrDie(TestOptions(dir_.path(), clock_));
    idem_ = std::make_unique<IdempotencyStore>(*store_);
  }

  TempDir dir_;
  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<IdempotencyStore> idem_;
  const Fingerprint fp_ = Fingerprint::OfBytes("charge 10 EUR");
};

TEST_F(IdempotencyRunTest, ThirtyTwoConcurrentDuplicatesRunTheSideEffectOnce) {
  constexpr int kThreads = 32;
  std::atomic<int> side_effects{0};
  std::atomic<bool> release{false};
  std::vector<Result<Outcome>> results(kThreads, Result<Outcome>(Status::Internal("not run")));
  std::vector<std::thread> threads;
  RunOptions options;
  options.settle_timeout_ms = 60'000;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      results[t] = idem_->Run(
          Key("charge-1"), fp_,
          [&](const Claimed&) -> Result<Outcome> {
            const int n = ++side_effects;
            // Hold the claim until every other caller is parked on it, so that all of them
            // really are concurrent duplicates.
            while (!release.load()) std::this_thread::yield();
            return Body("charged once, run #" + std::to_string(n));
          },
          options);
    });
  }
  AwaitWaiters(*clock_, kThreads - 1);
  release = true;
  for (auto& th : threads) th.join();
  EXPECT_EQ(side_effects.load(), 1);
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_TRUE(results[t].ok()) << t << ": " << results[t].status().ToString();
    EXPECT_EQ(results[t]->body, "charged once, run #1") << t;
  }
}

TEST_F(IdempotencyRunTest, SequentialDuplicatesGetTheStoredOutcome) {
  int runs = 0;
  auto fn = [&](const Claimed&) -> Result<Outcome> { return Body("r" + std::to_string(++runs)); };
  EXPECT_EQ(idem_->Run(Key("k"), fp_, fn)->body, "r1");
  EXPECT_EQ(idem_->Run(Key("k"), fp_, fn)->body, "r1");
  EXPECT_EQ(runs, 1);
}

TEST_F(IdempotencyRunTest, DifferentRequestIsRefusedWithoutRunning) {
  int runs = 0;
  auto fn = [&](const Claimed&) -> Result<Outcome> { return ++runs, Body("ok"); };
  ASSERT_TRUE(idem_->Run(Key("k"), fp_, fn).ok());
  auto other = idem_->Run(Key("k"), Fingerprint::OfBytes("charge 99 EUR"), fn);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), StatusCode::kMismatch);
  EXPECT_EQ(runs, 1);
}

TEST_F(IdempotencyRunTest, DuplicateGivesUpWithConflictAfterTheSettleTimeout) {
  auto held = idem_->Claim(Key("k"), fp_, 60'000);  // Another process holds it for a minute.
  ASSERT_TRUE(held.ok() && std::holds_alternative<Claimed>(*held));
  RunOptions options;
  options.settle_timeout_ms = 2000;
  bool ran = false;
  Result<Outcome> result(Status::Internal("not run"));
  std::thread dup([&] {
    result = idem_->Run(
        Key("k"), fp_, [&](const Claimed&) -> Result<Outcome> { return ran = true, Body("x"); },
        options);
  });
  AwaitWaiters(*clock_, 1);
  clock_->Advance(1999);  // Still inside the timeout: the waiter looks again and waits on.
  AwaitWaiters(*clock_, 1);
  clock_->Advance(1);
  dup.join();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kConflict);
  EXPECT_NE(result.status().message().find("still in progress"), std::string::npos);
  EXPECT_FALSE(ran);
}

TEST_F(IdempotencyRunTest, WaiterTakesOverWhenTheOwnersLockLapses) {
  auto held = idem_->Claim(Key("k"), fp_, 500);  // An owner that will crash.
  ASSERT_TRUE(held.ok() && std::holds_alternative<Claimed>(*held));
  std::uint32_t attempt = 0;
  Result<Outcome> result(Status::Internal("not run"));
  std::thread dup([&] {
    result = idem_->Run(Key("k"), fp_, [&](const Claimed& c) -> Result<Outcome> {
      attempt = c.attempt;
      return Body("recovered");
    });
  });
  AwaitWaiters(*clock_, 1);
  clock_->Advance(500);
  dup.join();
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->body, "recovered");
  EXPECT_EQ(attempt, 2u);
}

TEST_F(IdempotencyRunTest, RunThatOutlivesItsLockReportsNotOwner) {
  RunOptions options;
  options.lock_ttl_ms = 1000;
  auto result = idem_->Run(
      Key("k"), fp_,
      [&](const Claimed&) -> Result<Outcome> {
        clock_->Advance(1000);                           // The work took longer than the lock...
        auto thief = idem_->Claim(Key("k"), fp_, 1000);  // ...and a retry took over.
        EXPECT_TRUE(thief.ok() && std::holds_alternative<Claimed>(*thief));
        return Body("too late");
      },
      options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kNotOwner);
  auto record = idem_->Get(Key("k"));
  EXPECT_EQ((*record)->state, IdempotencyState::kInProgress) << "the late result was not stored";
  EXPECT_EQ((*record)->attempt, 2u);
}

TEST_F(IdempotencyRunTest, TransientErrorIsReturnedAndTheNextRunRetries) {
  int runs = 0;
  auto flaky = [&](const Claimed& c) -> Result<Outcome> {
    ++runs;
    if (c.attempt == 1) return Status::IOError("upstream timed out");
    return Body("second time lucky");
  };
  auto first = idem_->Run(Key("k"), fp_, flaky);
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.status().code(), StatusCode::kIOError);
  EXPECT_EQ((*idem_->Get(Key("k")))->state, IdempotencyState::kReleased);
  auto second = idem_->Run(Key("k"), fp_, flaky);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->body, "second time lucky");
  EXPECT_EQ(runs, 2);
}

TEST_F(IdempotencyRunTest, PermanentErrorIsStoredAndReturnedToDuplicates) {
  int runs = 0;
  auto declined = [&](const Claimed&) -> Result<Outcome> {
    ++runs;
    return Status::InvalidArgument("card declined");
  };
  auto first = idem_->Run(Key("k"), fp_, declined);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->kind, Outcome::Kind::kPermanentFailure);
  EXPECT_NE(first->body.find("card declined"), std::string::npos);
  auto second = idem_->Run(Key("k"), fp_, declined);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, *first);
  EXPECT_EQ(runs, 1);
}

TEST_F(IdempotencyRunTest, CustomClassifierDecides) {
  RunOptions options;
  options.classify = [](const Status&) { return FailureKind::kPermanent; };
  auto r = idem_->Run(
      Key("k"), fp_, [](const Claimed&) -> Result<Outcome> { return Status::IOError("disk"); },
      options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kind, Outcome::Kind::kPermanentFailure);
}

TEST_F(IdempotencyRunTest, BadOptionsAreRejectedBeforeRunning) {
  bool ran = false;
  auto fn = [&](const Claimed&) -> Result<Outcome> { return ran = true, Body("x"); };
  RunOptions options;
  options.settle_timeout_ms = -1;
  EXPECT_EQ(idem_->Run(Key("k"), fp_, fn, options).status().code(), StatusCode::kInvalidArgument);
  options = RunOptions();
  options.lock_ttl_ms = 0;
  EXPECT_EQ(idem_->Run(Key("k"), fp_, fn, options).status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(ran);
}

}  // namespace
}  // namespace cairn
