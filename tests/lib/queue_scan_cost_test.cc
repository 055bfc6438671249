// How much of its indexes a claim reads, counted by RocksDB's perf context (entries, not
// time). Acks and claims delete index entries, which stay as tombstones until compaction; a
// claim must not step over the tombstones of recently acked leases or the whole ready
// backlog, or its cost grows with the queue's traffic instead of with what it takes.
#include <gtest/gtest.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cairn/queue.h"
#include "support/temp_dir.h"

namespace cairn {
namespace {

using test::OpenOrDie;
using test::TempDir;
using test::TestOptions;

constexpr std::string_view kQ = "q";
constexpr std::string_view kG = "g";
constexpr std::int64_t kVis = 60'000;
constexpr int kJobs = 3000;
// Far below kJobs, far above what one claim's own bookkeeping reads.
constexpr std::uint64_t kFew = 100;

struct Reads {
  std::uint64_t tombstones = 0;        // Deleted keys stepped over.
  std::uint64_t memtable_entries = 0;  // Entries stepped over (all rows here are in memory).
};

Reads Count(const std::function<void()>& fn) {
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
  rocksdb::get_perf_context()->Reset();
  fn();
  const rocksdb::PerfContext& perf = *rocksdb::get_perf_context();
  Reads reads{perf.internal_delete_skipped_count, perf.next_on_memtable_count};
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
  return reads;
}

class QueueScanCostTest : public ::testing::Test {
 protected:
  QueueScanCostTest() : clock_(std::make_shared<ManualClock>()) {
    store_ = OpenOrDie(TestOptions(dir_.path(), clock_));
    queue_ = std::make_unique<Queue>(*store_);
    EXPECT_TRUE(queue_->CreateGroup(kQ, kG).ok());
  }

  void EnqueueMany(int n, const EnqueueOptions& options = {}) {
    std::vector<NewJob> batch;
    for (int i = 0; i < n; ++i) batch.push_back({"payload", options});
    for (std::size_t at = 0; at < batch.size(); at += kMaxEnqueueBatch) {
      const std::size_t end = std::min(batch.size(), at + kMaxEnqueueBatch);
      ASSERT_TRUE(queue_
                      ->EnqueueBatch(kQ, {batch.begin() + static_cast<std::ptrdiff_t>(at),
                                          batch.begin() + static_cast<std::ptrdiff_t>(end)})
                      .ok());
    }
  }

  std::vector<ClaimedJob> ClaimUpTo(std::uint32_t n) {
    ClaimOptions o;
    o.max_jobs = n;
    o.visibility_ms = kVis;
    Result<std::vector<ClaimedJob>> r = queue_->Claim(kQ, kG, "c", o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : std::vector<ClaimedJob>();
  }

  // A worker's steady state, kJobs times: a job arrives, is claimed and acked, and a
  // millisecond passes. The lease index is left with kJobs tombstones, at deadlines spread
  // over the coming visibility timeout.
  void ClaimAndAckOneAtATime(int n = kJobs) {
    for (int i = 0; i < n; ++i) {
      EnqueueMany(1);
      std::vector<ClaimedJob> jobs = ClaimUpTo(1);
      ASSERT_EQ(jobs.size(), 1u);
      ASSERT_EQ(queue_->Ack(jobs[0].ref).value(), OwnerResult::kDone);
      clock_->Advance(1);
    }
  }

  TempDir dir_;
  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Queue> queue_;
};

TEST_F(QueueScanCostTest, EmptyClaimsBetweenAcksStepOverFewTombstones) {
  ClaimAndAckOneAtATime();
  for (int i = 0; i < 3; ++i) {
    ClaimAndAckOneAtATime(1);
    const Reads reads = Count([&] { EXPECT_TRUE(ClaimUpTo(1).empty()); });
    EXPECT_LT(reads.tombstones, kFew) << "claim " << i;
  }
}

TEST_F(QueueScanCostTest, TombstonesOfAckedLeasesAreSteppedOverOnceAfterTheirDeadlines) {
  ClaimAndAckOneAtATime();
  clock_->Advance(kVis);  // Every acked lease's deadline has passed.
  (void)Count([&] { EXPECT_TRUE(ClaimUpTo(1).empty()); });
  const Reads second = Count([&] { EXPECT_TRUE(ClaimUpTo(1).empty()); });
  EXPECT_LT(second.tombstones, kFew);
}

TEST_F(QueueScanCostTest, WaitingClaimerWithManyAckedLeasesStepsOverFewTombstones) {
  ClaimAndAckOneAtATime();
  // A waiting claim that times out: it looks, sets its timer, wakes at its deadline and looks
  // again; none of that walks the acked leases.
  const Reads reads = Count([&] {
    ClaimOptions o;
    o.visibility_ms = kVis;
    o.wait_ms = 1;
    std::thread advance([&] {
      while (clock_->waiters() == 0) std::this_thread::yield();
      clock_->Advance(1);
    });
    Result<std::vector<ClaimedJob>> r = queue_->Claim(kQ, kG, "c", o);
    advance.join();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r->empty());
  });
  EXPECT_LT(reads.tombstones, kFew);
}

TEST_F(QueueScanCostTest, DeadLetterCallsDoNotReadTheReadyBacklog) {
  EnqueueMany(kJobs);
  const Reads reads = Count([&] {
    Result<DeadPage> page = queue_->ListDead(kQ, kG, "", 10);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    EXPECT_TRUE(page->jobs.empty());
  });
  EXPECT_LT(reads.memtable_entries, kFew);
}

TEST_F(QueueScanCostTest, ClaimReadsAboutWhatItTakes) {
  ClaimAndAckOneAtATime();
  EnqueueMany(kJobs, {.delay_ms = 1000});  // A delayed backlog behind the acked leases.
  const Reads reads = Count([&] { EXPECT_TRUE(ClaimUpTo(10).empty()); });
  EXPECT_LT(reads.memtable_entries, kFew);
  clock_->Advance(1000);
  const Reads taking = Count([&] { EXPECT_EQ(ClaimUpTo(10).size(), 10u); });
  EXPECT_LT(taking.memtable_entries, kFew);
}

}  // namespace
}  // namespace cairn
