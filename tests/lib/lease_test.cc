// Leases, semaphores and fenced writes with a manual clock: exclusion, expiry, owner checks,
// fencing across restarts, waiters woken by release and by expiry in arrival order.
#include "cairn/lease.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "lease/lease_row.h"
#include "store_core.h"
#include "support/temp_dir.h"
#include "transaction_core.h"

namespace cairn {
namespace {

using test::OpenOrDie;
using test::TempDir;
using test::TestOptions;

constexpr std::int64_t kTtl = 1000;

void AwaitWaiters(const ManualClock& clock, std::size_t n) {
  while (clock.waiters() < n) std::this_thread::yield();
}

class LeaseTest : public ::testing::Test {
 protected:
  LeaseTest() : clock_(std::make_shared<ManualClock>()) { Open(); }

  void Open() {
    leases_.reset();
    store_.reset();
    store_ = OpenOrDie(TestOptions(dir_.path(), clock_));
    leases_ = std::make_unique<LeaseManager>(*store_);
  }

  Lease MustAcquire(std::string_view resource, std::string_view owner, std::int64_t ttl = kTtl) {
    auto r = leases_->TryAcquire(resource, owner, ttl);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r.ok() && std::holds_alternative<Lease>(*r)) << "expected to get the lease";
    return r.ok() && std::holds_alternative<Lease>(*r) ? std::get<Lease>(*r) : Lease{};
  }

  TempDir dir_;
  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<LeaseManager> leases_;
};

// An acquisition that waits for the lease row's lock reads the clock once the lock is its own:
// its lease begins then and lasts the whole TTL, not from the instant it began to wait (before
// the release that let it in). The row is held here by a transaction of the test's own.
TEST_F(LeaseTest, AnAcquisitionThatWaitedForTheRowBeginsWhenItGetsIt) {
  internal::StoreCore& core = store_->core();
  internal::RowTransaction txn = core.BeginRows(internal::ColumnFamily::kLeases);
  internal::TransactionRows rows =
      internal::TransactionRowsOf(core, txn, internal::ColumnFamily::kLeases);
  std::int64_t locked_at = 0;
  ASSERT_TRUE(internal::LoadLeaseRow(rows, core.clock(), "r", &locked_at).ok());
  Result<AcquireResult> got(Status::Internal("not run"));
  std::thread acquirer([&] { got = leases_->TryAcquire("r", "b", kTtl); });
  // Time for the acquirer to reach the lock and wait there. Were it slower, it would read the
  // clock after the Advance below anyway: this can let the test pass wrongly, never fail it.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  clock_->Advance(400);
  ASSERT_TRUE(internal::CommitOrRelease(core, txn).ok());
  acquirer.join();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(std::holds_alternative<Lease>(*got));
  EXPECT_EQ(std::get<Lease>(*got).expires_at_ms, clock_->NowMs() + kTtl);
}

TEST_F(LeaseTest, HeldLeaseIsBusyForOthers) {
  Lease lease = MustAcquire("db-migration", "node-a");
  EXPECT_EQ(lease.token.size(), 32u);
  EXPECT_EQ(lease.expires_at_ms, clock_->NowMs() + kTtl);
  clock_->Advance(250);
  auto other = leases_->TryAcquire("db-migration", "node-b", kTtl);
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(std::holds_alternative<LeaseBusy>(*other));
  EXPECT_EQ(std::get<LeaseBusy>(*other).holder, "node-a");
  EXPECT_EQ(std::get<LeaseBusy>(*other).retry_after_ms, 750);
  MustAcquire("another-resource", "node-b");
}

TEST_F(LeaseTest, ExpiredLeaseIsFreeAndItsHolderIsNoLongerOwner) {
  Lease old = MustAcquire("r", "a");
  clock_->Advance(kTtl - 1);
  EXPECT_TRUE(std::holds_alternative<LeaseBusy>(*leases_->TryAcquire("r", "b", kTtl)));
  clock_->Advance(1);
  Lease fresh = MustAcquire("r", "b");
  EXPECT_GT(fresh.fencing, old.fencing);
  EXPECT_EQ(*leases_->Extend("r", old.token, kTtl), OwnerResult::kNotOwner);
  EXPECT_EQ(*leases_->Release("r", old.token), OwnerResult::kNotOwner);
  auto state = leases_->Inspect("r");
  ASSERT_EQ(state->holders.size(), 1u);
  EXPECT_EQ(state->holders[0].owner, "b") << "the stale calls changed nothing";
}

TEST_F(LeaseTest, OnlyTheHolderExtendsOrReleases) {
  Lease lease = MustAcquire("r", "a");
  EXPECT_EQ(*leases_->Extend("r", "not-the-token", kTtl), OwnerResult::kNotOwner);
  EXPECT_EQ(*leases_->Release("r", "not-the-token"), OwnerResult::kNotOwner);
  clock_->Advance(900);
  EXPECT_EQ(*leases_->Extend("r", lease.token, kTtl), OwnerResult::kDone);
  clock_->Advance(900);
  EXPECT_TRUE(std::holds_alternative<LeaseBusy>(*leases_->TryAcquire("r", "b", kTtl)))
      << "extended: still held";
  EXPECT_EQ(*leases_->Release("r", lease.token), OwnerResult::kDone);
  MustAcquire("r", "b");
}

TEST_F(LeaseTest, InspectShowsHolderFencingAndExpiry) {
  auto empty = leases_->Inspect("r");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->holders.empty());
  EXPECT_EQ(empty->highest_fencing, 0u);
  Lease lease = MustAcquire("r", "a");
  auto state = leases_->Inspect("r");
  ASSERT_EQ(state->holders.size(), 1u);
  EXPECT_EQ(state->holders[0].owner, "a");
  EXPECT_EQ(state->holders[0].fencing, lease.fencing);
  EXPECT_EQ(state->holders[0].expires_at_ms, lease.expires_at_ms);
  EXPECT_EQ(state->highest_fencing, lease.fencing);
}

TEST_F(LeaseTest, FencingIsStrictlyIncreasingAcrossExpiryReleaseAndRestart) {
  std::uint64_t last = 0;
  for (int i = 0; i < 5; ++i) {
    Lease lease = MustAcquire("r", "a");
    EXPECT_GT(lease.fencing, last);
    last = lease.fencing;
    if (i % 2 == 0) {
      ASSERT_EQ(*leases_->Release("r", lease.token), OwnerResult::kDone);
    } else {
      clock_->Advance(kTtl);
    }
  }
  Lease held = MustAcquire("r", "a");
  Open();  // Restart with the lease still held.
  auto state = leases_->Inspect("r");
  ASSERT_EQ(state->holders.size(), 1u) << "a lease survives a restart";
  EXPECT_EQ(state->holders[0].token, held.token);
  clock_->Advance(kTtl);
  Lease after = MustAcquire("r", "b");
  EXPECT_GT(after.fencing, held.fencing);
}

TEST_F(LeaseTest, StaleFencedWriteIsRefused) {
  Lease first = MustAcquire("orders-lock", "a");
  ASSERT_TRUE(leases_->FencedSet("orders-lock", first.fencing, "orders", "v1").ok());
  clock_->Advance(kTtl);  // `a` pauses past its TTL...
  Lease second = MustAcquire("orders-lock", "b");
  ASSERT_TRUE(leases_->FencedSet("orders-lock", second.fencing, "orders", "v2").ok());
  auto stale = leases_->FencedSet("orders-lock", first.fencing, "orders", "v1-late");
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), StatusCode::kStaleFence);
  EXPECT_EQ(*store_->Get("orders"), "v2") << "...and cannot overwrite b's data";
  // A released lease still fences: the number stays the newest until another is issued.
  ASSERT_EQ(*leases_->Release("orders-lock", second.token), OwnerResult::kDone);
  EXPECT_TRUE(leases_->FencedSet("orders-lock", second.fencing, "orders", "v3").ok());
  auto bogus = leases_->FencedSet("orders-lock", second.fencing + 1000, "orders", "x");
  EXPECT_EQ(bogus.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(leases_->FencedSet("never-leased", 1, "orders", "x").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(*store_->Get("orders"), "v3");
}

TEST_F(LeaseTest, WaiterIsWokenByRelease) {
  Lease held = MustAcquire("r", "a");
  Result<AcquireResult> got(Status::Internal("not run"));
  std::thread waiter([&] { got = leases_->Acquire("r", "b", kTtl, 60'000); });
  AwaitWaiters(*clock_, 1);
  const std::int64_t before = clock_->NowMs();
  ASSERT_EQ(*leases_->Release("r", held.token), OwnerResult::kDone);
  waiter.join();
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(std::holds_alternative<Lease>(*got)) << "woken by the release, not by time";
  EXPECT_EQ(clock_->NowMs(), before);
}

TEST_F(LeaseTest, WaiterIsWokenAtTheHoldersExpiry) {
  MustAcquire("r", "a");
  Result<AcquireResult> got(Status::Internal("not run"));
  std::thread waiter([&] { got = leases_->Acquire("r", "b", kTtl, 60'000); });
  AwaitWaiters(*clock_, 1);
  clock_->Advance(kTtl);
  waiter.join();
  ASSERT_TRUE(got.ok() && std::holds_alternative<Lease>(*got));
}

TEST_F(LeaseTest, WaiterGivesUpAtItsDeadline) {
  MustAcquire("r", "a", 60'000);
  Result<AcquireResult> got(Status::Internal("not run"));
  std::thread waiter([&] { got = leases_->Acquire("r", "b", kTtl, 500); });
  AwaitWaiters(*clock_, 1);
  clock_->Advance(500);
  waiter.join();
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(std::holds_alternative<LeaseBusy>(*got));
  EXPECT_EQ(std::get<LeaseBusy>(*got).holder, "a");
}

TEST_F(LeaseTest, WaitersAreServedInArrivalOrder) {
  Lease held = MustAcquire("r", "a");
  Result<AcquireResult> first(Status::Internal("not run")), second(Status::Internal("not run"));
  std::thread w1([&] { first = leases_->Acquire("r", "first", kTtl, 60'000); });
  AwaitWaiters(*clock_, 1);
  std::thread w2([&] { second = leases_->Acquire("r", "second", kTtl, 60'000); });
  AwaitWaiters(*clock_, 2);
  ASSERT_EQ(*leases_->Release("r", held.token), OwnerResult::kDone);
  w1.join();
  ASSERT_TRUE(first.ok() && std::holds_alternative<Lease>(*first));
  EXPECT_EQ(leases_->Inspect("r")->holders[0].owner, "first");
  AwaitWaiters(*clock_, 1);  // `second` waits on.
  ASSERT_EQ(*leases_->Release("r", std::get<Lease>(*first).token), OwnerResult::kDone);
  w2.join();
  ASSERT_TRUE(second.ok() && std::holds_alternative<Lease>(*second));
}

TEST_F(LeaseTest, StoppedWaitersGiveUpWhenWokenWithoutAcquiring) {
  MustAcquire("r", "a", 60'000);
  std::atomic<bool> stop{false};
  AcquireWaitOptions options;
  options.wait_ms = 60'000;
  options.stop = &stop;
  Result<AcquireResult> first(Status::Internal("not run")), second(Status::Internal("not run"));
  std::thread w1([&] { first = leases_->Acquire("r", "first", kTtl, options); });
  AwaitWaiters(*clock_, 1);
  std::thread w2([&] { second = leases_->Acquire("r", "second", kTtl, options); });
  AwaitWaiters(*clock_, 2);
  const std::int64_t before = clock_->NowMs();
  stop = true;
  leases_->WakeWaiters("r");
  w1.join();
  w2.join();
  // Both stopped on the wake, not at a deadline, and neither took the lease.
  EXPECT_EQ(clock_->NowMs(), before);
  ASSERT_TRUE(first.ok() && std::holds_alternative<LeaseBusy>(*first));
  ASSERT_TRUE(second.ok() && std::holds_alternative<LeaseBusy>(*second));
  EXPECT_EQ(std::get<LeaseBusy>(*second).holder, "a");
  ASSERT_EQ(leases_->Inspect("r")->holders.size(), 1u);
}

TEST_F(LeaseTest, WaitingSemaphoreAcquisitionTakesTheFreedSlot) {
  MustAcquire("s", "a");
  AcquireWaitOptions options;
  options.limit = 1;
  options.wait_ms = 60'000;
  Result<AcquireResult> got(Status::Internal("not run"));
  std::thread waiter([&] { got = leases_->Acquire("s", "b", kTtl, options); });
  AwaitWaiters(*clock_, 1);
  // A wake with nothing changed only makes the waiter look again.
  leases_->WakeWaiters("s");
  AwaitWaiters(*clock_, 1);
  clock_->Advance(kTtl);
  waiter.join();
  ASSERT_TRUE(got.ok() && std::holds_alternative<Lease>(*got));
}

TEST_F(LeaseTest, SemaphoreAdmitsUpToItsLimit) {
  std::vector<Lease> slots;
  for (int i = 0; i < 3; ++i) {
    auto r = leases_->TryAcquireSlot("pool", "w" + std::to_string(i), 3, kTtl);
    ASSERT_TRUE(r.ok() && std::holds_alternative<Lease>(*r));
    slots.push_back(std::get<Lease>(*r));
    clock_->Advance(10);
  }
  auto full = leases_->TryAcquireSlot("pool", "w3", 3, kTtl);
  ASSERT_TRUE(std::holds_alternative<LeaseBusy>(*full));
  EXPECT_EQ(std::get<LeaseBusy>(*full).holder, "w0") << "the slot that frees first";
  EXPECT_EQ(std::get<LeaseBusy>(*full).retry_after_ms, kTtl - 30);
  ASSERT_EQ(*leases_->Release("pool", slots[1].token), OwnerResult::kDone);
  EXPECT_TRUE(std::holds_alternative<Lease>(*leases_->TryAcquireSlot("pool", "w3", 3, kTtl)));
  clock_->Advance(kTtl - 20);  // w0 expires and frees its slot.
  EXPECT_TRUE(std::holds_alternative<Lease>(*leases_->TryAcquireSlot("pool", "w4", 3, kTtl)));
  EXPECT_EQ(leases_->Inspect("pool")->holders.size(), 3u);
}

TEST_F(LeaseTest, SemaphoreNeverExceedsItsLimitUnderSixteenThreads) {
  constexpr std::uint32_t kLimit = 4;
  std::atomic<int> inside{0}, max_inside{0}, entries{0}, errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        auto r = leases_->TryAcquireSlot("pool", "t" + std::to_string(t), kLimit, 60'000);
        if (!r.ok()) {
          ++errors;
          continue;
        }
        if (!std::holds_alternative<Lease>(*r)) continue;
        const int now_inside = ++inside;
        int seen = max_inside.load();
        while (now_inside > seen && !max_inside.compare_exchange_weak(seen, now_inside)) {
        }
        ++entries;
        --inside;
        if (*leases_->Release("pool", std::get<Lease>(*r).token) != OwnerResult::kDone) ++errors;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_GT(entries.load(), 0);
  EXPECT_LE(max_inside.load(), static_cast<int>(kLimit));
}

TEST_F(LeaseTest, GuardReleasesOnScopeExit) {
  {
    auto guard = leases_->Lock("r", "a", kTtl, 0);
    ASSERT_TRUE(guard.ok());
    auto busy = leases_->Lock("r", "b", kTtl, 0);
    EXPECT_EQ(busy.status().code(), StatusCode::kConflict);
  }
  EXPECT_TRUE(leases_->Lock("r", "b", kTtl, 0).ok());
}

TEST_F(LeaseTest, WithLockReleasesAndReportsSuccess) {
  bool ran = false;
  Status s = leases_->WithLock("r", "a", kTtl, [&](const Lease& lease) {
    ran = true;
    EXPECT_GT(lease.fencing, 0u);
    return Status::Ok();
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(ran);
  EXPECT_TRUE(leases_->Inspect("r")->holders.empty());
}

TEST_F(LeaseTest, WithLockReportsALostLeaseInsteadOfSuccess) {
  WithLockOptions no_renew;
  no_renew.renew = false;
  Status s = leases_->WithLock(
      "r", "a", kTtl,
      [&](const Lease&) {
        clock_->Advance(kTtl);  // fn outlived the lease...
        MustAcquire("r", "b");  // ...and someone else took it.
        return Status::Ok();
      },
      no_renew);
  EXPECT_EQ(s.code(), StatusCode::kNotOwner) << s.ToString();
  EXPECT_EQ(leases_->Inspect("r")->holders[0].owner, "b") << "b's lease was not released";
}

TEST_F(LeaseTest, WithLockRenewsWhileFnRuns) {
  Status s = leases_->WithLock("r", "a", 900, [&](const Lease& lease) {
    for (int i = 0; i < 5; ++i) {
      AwaitWaiters(*clock_, 1);  // The renewer is parked until now + ttl/3.
      const std::int64_t before = clock_->NowMs();
      clock_->Advance(300);  // ttl/3: the renewer wakes and extends.
      // Wait (without sleeping) until the renewer has extended past this step.
      while (true) {
        auto state = leases_->Inspect("r");
        if (!state.ok() || state->holders.empty()) return Status::Internal("lease lost");
        if (state->holders[0].expires_at_ms >= before + 300 + 900) break;
        std::this_thread::yield();
      }
    }
    EXPECT_GT(clock_->NowMs(), lease.expires_at_ms) << "the original TTL has long passed";
    return Status::Ok();
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_F(LeaseTest, BadInputIsRejected) {
  const auto code = [](const Result<AcquireResult>& r) { return r.status().code(); };
  EXPECT_EQ(code(leases_->TryAcquire("", "a", kTtl)), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(leases_->TryAcquire("r", "a", 0)), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(leases_->TryAcquire("r", "a", -5)), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(leases_->TryAcquire("r", "a", kMaxLeaseTtlMs + 1)), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(leases_->TryAcquire(std::string(kMaxResourceBytes + 1, 'r'), "a", kTtl)),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(code(leases_->TryAcquireSlot("r", "a", 0, kTtl)), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(leases_->Acquire("r", "a", kTtl, -1)), StatusCode::kInvalidArgument);
  auto msg = leases_->TryAcquire("r", "a", 0).status().message();
  EXPECT_NE(msg.find("lease TTL"), std::string::npos) << msg;
  EXPECT_TRUE(leases_->Inspect("r")->holders.empty()) << "nothing was written";
}

}  // namespace
}  // namespace cairn
