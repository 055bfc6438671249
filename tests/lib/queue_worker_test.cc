// Worker: a pool that claims, runs a handler and records its verdict; keeps long handlers'
// leases alive; stops gracefully. On the manual clock: waits are Clock waits, so the test
// moves time itself and never sleeps.
#include "cairn/queue_worker.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "cairn/clock.h"
#include "cairn/queue.h"
#include "support/temp_dir.h"

namespace cairn {
namespace {

// Yields until cond() holds: the worker's threads are real threads, the clock is not.
template <typename Cond>
void AwaitTrue(Cond cond) {
  while (!cond()) std::this_thread::yield();
}

// A gate a handler blocks on until the test opens it.
class Gate {
 public:
  void Enter() {
    std::unique_lock<std::mutex> lock(mu_);
    ++inside_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return open_; });
  }
  void AwaitInside(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return inside_ >= n; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int inside_ = 0;
  bool open_ = false;
};

class QueueWorkerTest : public ::testing::Test {
 protected:
  QueueWorkerTest() : clock_(std::make_shared<ManualClock>(1'000'000)) {
    store_ = test::OpenOrDie(test::TestOptions(dir_.path(), clock_));
    queue_ = std::make_unique<Queue>(*store_);
    EXPECT_TRUE(*queue_->CreateGroup("q", "g"));
  }

  WorkerOptions Options(std::uint32_t threads) {
    WorkerOptions o;
    o.queue = "q";
    o.group = "g";
    o.consumer = "w";
    o.threads = threads;
    o.visibility_ms = 300;
    return o;
  }

  void Enqueue(const std::string& id, EnqueueOptions o = {}) {
    o.job_id = id;
    ASSERT_TRUE(queue_->Enqueue("q", "payload-" + id, o).ok());
  }

  GroupCounts Counts() { return (*queue_->Counts("q")).front(); }

  test::TempDir dir_;
  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Queue> queue_;
};

TEST_F(QueueWorkerTest, ProcessesEveryJobOnceAcrossThreads) {
  constexpr int kJobs = 500;
  std::mutex mu;
  std::map<std::string, int> seen;
  auto worker = Worker::Start(*queue_, Options(4), [&](const ClaimedJob& job) {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(job.payload, "payload-" + job.ref.job_id);
    ++seen[job.ref.job_id];
    return HandlerResult::Ack();
  });
  ASSERT_TRUE(worker.ok()) << worker.status().ToString();
  for (int i = 0; i < kJobs; ++i) Enqueue("j" + std::to_string(i));
  AwaitTrue([&] { return (*worker)->stats().acked == kJobs; });
  (*worker)->Stop();
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kJobs));
  for (const auto& [id, times] : seen) EXPECT_EQ(times, 1) << id;
  const GroupCounts c = Counts();
  EXPECT_EQ(c.ready + c.delayed + c.in_flight + c.dead, 0u);
  const WorkerStats stats = (*worker)->stats();
  EXPECT_EQ(stats.lost, 0u);
  EXPECT_EQ(stats.errors, 0u);
}

TEST_F(QueueWorkerTest, VerdictsRetryFailAndThrowFollowThePolicy) {
  EnqueueOptions policy;
  policy.max_attempts = 2;
  policy.backoff = Backoff::Fixed(1000);
  Enqueue("retry-then-ok", policy);
  Enqueue("fail", policy);
  Enqueue("throw", policy);
  auto worker = Worker::Start(*queue_, Options(1), [&](const ClaimedJob& job) {
    if (job.ref.job_id == "fail") return HandlerResult::Fail("bad input");
    if (job.ref.job_id == "throw") throw std::runtime_error("kaboom");
    return job.attempt == 1 ? HandlerResult::Retry("try later") : HandlerResult::Ack();
  });
  ASSERT_TRUE(worker.ok());
  // First round: one retry scheduled, one dead-lettered, the thrower retried.
  AwaitTrue(
      [&] { return (*worker)->stats().retried == 2 && (*worker)->stats().dead_lettered == 1; });
  EXPECT_EQ((*worker)->stats().acked, 0u);
  clock_->Advance(1000);  // Both retries are due: one acks, the thrower dies (2 of 2 attempts).
  AwaitTrue([&] { return (*worker)->stats().acked == 1 && (*worker)->stats().dead_lettered == 2; });
  (*worker)->Stop();

  auto dead = queue_->ListDead("q", "g");
  ASSERT_TRUE(dead.ok());
  ASSERT_EQ(dead->jobs.size(), 2u);
  std::map<std::string, DeadJob> by_id;
  for (DeadJob& job : dead->jobs) by_id[job.job_id] = job;
  ASSERT_EQ(by_id["fail"].errors.size(), 1u);
  EXPECT_EQ(by_id["fail"].errors[0].message, "bad input");
  EXPECT_EQ(by_id["fail"].errors[0].consumer, "w/0");
  ASSERT_EQ(by_id["throw"].errors.size(), 2u);
  EXPECT_EQ(by_id["throw"].errors[1].message, "handler threw: kaboom");
  EXPECT_EQ(by_id["throw"].errors[1].attempt, 2u);
  auto done = queue_->GetJob("q", "retry-then-ok");
  ASSERT_TRUE(done.ok() && done->has_value());
  EXPECT_TRUE((*done)->completed);
}

TEST_F(QueueWorkerTest, KeepsTheLeaseOfALongHandler) {
  Gate gate;
  auto worker = Worker::Start(*queue_, Options(1), [&](const ClaimedJob&) {
    gate.Enter();
    return HandlerResult::Ack();
  });
  ASSERT_TRUE(worker.ok());
  Enqueue("long");
  gate.AwaitInside(1);
  // Ten times the visibility passes in steps of visibility/3; each step, the keeper extends.
  for (int step = 0; step < 30; ++step) {
    clock_->Advance(100);
    const std::int64_t extended_to = clock_->NowMs() + 300;
    AwaitTrue([&] {
      auto info = queue_->GetJob("q", "long");
      return info.ok() && info->has_value() && !(*info)->deliveries.empty() &&
             (*info)->deliveries[0].at_ms == extended_to;
    });
    auto other = queue_->Claim("q", "g", "thief");
    ASSERT_TRUE(other.ok());
    EXPECT_TRUE(other->empty()) << "the lease was lost at step " << step;
  }
  gate.Open();
  AwaitTrue([&] { return (*worker)->stats().acked == 1; });
  (*worker)->Stop();
  EXPECT_EQ((*worker)->stats().lost, 0u);
}

TEST_F(QueueWorkerTest, AVerdictAfterTheLeaseWasLostIsRefused) {
  Gate gate;
  WorkerOptions options = Options(1);
  options.extend_leases = false;
  auto worker = Worker::Start(*queue_, options, [&](const ClaimedJob& job) {
    if (job.attempt == 1) gate.Enter();
    return HandlerResult::Ack();
  });
  ASSERT_TRUE(worker.ok());
  EnqueueOptions o;
  o.backoff = Backoff::Fixed(0);
  Enqueue("slow", o);
  gate.AwaitInside(1);
  clock_->Advance(300);  // The lease lapses; another consumer takes the job.
  auto taken = queue_->Claim("q", "g", "other");
  ASSERT_TRUE(taken.ok());
  ASSERT_EQ(taken->size(), 1u);
  EXPECT_EQ((*taken)[0].attempt, 2u);
  gate.Open();
  AwaitTrue([&] { return (*worker)->stats().lost == 1; });
  (*worker)->Stop();
  EXPECT_EQ((*worker)->stats().acked, 0u);
  EXPECT_EQ(*queue_->Ack((*taken)[0].ref), OwnerResult::kDone);
}

TEST_F(QueueWorkerTest, StopFinishesRunningHandlersAndClaimsNoMore) {
  Gate gate;
  std::atomic<int> started{0};
  auto worker = Worker::Start(*queue_, Options(2), [&](const ClaimedJob&) {
    ++started;
    gate.Enter();
    return HandlerResult::Ack();
  });
  ASSERT_TRUE(worker.ok());
  Enqueue("a");
  Enqueue("b");
  gate.AwaitInside(2);
  (*worker)->RequestStop();
  for (int i = 0; i < 5; ++i) Enqueue("later" + std::to_string(i));

  std::atomic<bool> stopped{false};
  std::thread stopper([&] {
    (*worker)->Stop();
    stopped = true;
  });
  // Stop waits for the two running handlers (a Stop that did not wait would return here).
  for (int i = 0; i < 1000; ++i) std::this_thread::yield();
  EXPECT_FALSE(stopped.load());
  gate.Open();
  stopper.join();
  EXPECT_EQ((*worker)->stats().acked, 2u);
  EXPECT_EQ(started.load(), 2);
  const GroupCounts c = Counts();
  EXPECT_EQ(c.ready, 5u) << "jobs enqueued after RequestStop stay in the queue";
  EXPECT_EQ(c.in_flight, 0u);
}

TEST_F(QueueWorkerTest, StopWakesIdleClaimers) {
  auto worker =
      Worker::Start(*queue_, Options(3), [](const ClaimedJob&) { return HandlerResult::Ack(); });
  ASSERT_TRUE(worker.ok());
  AwaitTrue([&] { return clock_->waiters() >= 3; });  // All three wait in Claim.
  (*worker)->Stop();                                  // Returns without the clock moving.
  EXPECT_EQ((*worker)->stats().acked, 0u);
}

TEST_F(QueueWorkerTest, RefusesBadOptions) {
  auto handler = [](const ClaimedJob&) { return HandlerResult::Ack(); };
  WorkerOptions missing = Options(1);
  missing.group = "nope";
  EXPECT_EQ(Worker::Start(*queue_, missing, handler).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(Worker::Start(*queue_, Options(0), handler).status().code(),
            StatusCode::kInvalidArgument);
  WorkerOptions no_lease = Options(1);
  no_lease.visibility_ms = 0;
  EXPECT_EQ(Worker::Start(*queue_, no_lease, handler).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Worker::Start(*queue_, Options(1), nullptr).status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace cairn
