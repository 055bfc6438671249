// The seed pattern: a queue worker whose handler runs its side effect through the idempotency
// engine, keyed by the job id, so that a re-delivered job (a lost ack, a lapsed lease, a crash
// after the side effect) returns the stored result instead of sending the email twice.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "cairn/clock.h"
#include "cairn/fingerprint.h"
#include "cairn/idempotency.h"
#include "cairn/queue.h"
#include "cairn/queue_worker.h"
#include "support/temp_dir.h"

namespace cairn {
namespace {

template <typename Cond>
void AwaitTrue(Cond cond) {
  while (!cond()) std::this_thread::yield();
}

// The side effect: an outbox that counts every email it is asked to send.
class Outbox {
 public:
  Outcome Send(const std::string& payload) {
    std::lock_guard<std::mutex> lock(mu_);
    const int n = ++sent_[payload];
    return Outcome{Outcome::Kind::kSuccess, 250, "queued as #" + std::to_string(n), {}};
  }
  int SentCount(const std::string& payload) {
    std::lock_guard<std::mutex> lock(mu_);
    return sent_[payload];
  }

 private:
  std::mutex mu_;
  std::map<std::string, int> sent_;
};

class IdempotentWorkerTest : public ::testing::Test {
 protected:
  IdempotentWorkerTest() : clock_(std::make_shared<ManualClock>(1'000'000)) {
    store_ = test::OpenOrDie(test::TestOptions(dir_.path(), clock_));
    queue_ = std::make_unique<Queue>(*store_);
    idempotency_ = std::make_unique<IdempotencyStore>(*store_);
    EXPECT_TRUE(*queue_->CreateGroup("email", "email-workers"));
  }

  // The handler of the seed: idempotency.run(`idem:email:${jobId}`, sendEmail, fingerprint).
  Result<Outcome> SendOnce(const ClaimedJob& job) {
    Result<IdempotencyKey> key = IdempotencyKey::Make("email", "v1", job.ref.job_id);
    if (!key.ok()) return key.status();
    RunOptions run;
    run.lock_ttl_ms = 60'000;
    run.result_ttl_ms = 86'400'000;
    return idempotency_->Run(
        *key, Fingerprint::OfBytes(job.payload),
        [&](const Claimed&) -> Result<Outcome> { return outbox_.Send(job.payload); }, run);
  }

  WorkerOptions Options() {
    WorkerOptions o;
    o.queue = "email";
    o.group = "email-workers";
    o.threads = 2;
    o.visibility_ms = 1000;
    return o;
  }

  test::TempDir dir_;
  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Queue> queue_;
  std::unique_ptr<IdempotencyStore> idempotency_;
  Outbox outbox_;
};

TEST_F(IdempotentWorkerTest, ALostAckDoesNotSendTwice) {
  std::mutex mu;
  std::vector<std::string> replies;
  auto worker = Worker::Start(*queue_, Options(), [&](const ClaimedJob& job) {
    Result<Outcome> sent = SendOnce(job);
    if (!sent.ok()) return HandlerResult::Retry(sent.status().ToString());
    {
      std::lock_guard<std::mutex> lock(mu);
      replies.push_back(sent->body);
    }
    // The first delivery sends, then loses its connection before acking.
    if (job.attempt == 1) return HandlerResult::Retry("connection reset before the ack");
    return HandlerResult::Ack();
  });
  ASSERT_TRUE(worker.ok());
  EnqueueOptions o;
  o.job_id = "welcome:t1:u1";
  o.backoff = Backoff::Fixed(0);
  ASSERT_TRUE(queue_->Enqueue("email", R"({"tenant":"t1","user":"u1"})", o).ok());
  AwaitTrue([&] { return (*worker)->stats().acked == 1; });
  (*worker)->Stop();

  EXPECT_EQ(outbox_.SentCount(R"({"tenant":"t1","user":"u1"})"), 1);
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0], "queued as #1");
  EXPECT_EQ(replies[1], "queued as #1") << "the re-delivery got the stored result";
}

TEST_F(IdempotentWorkerTest, ALapsedLeaseDoesNotSendTwice) {
  WorkerOptions options = Options();
  options.extend_leases = false;  // A stalled process: its lease runs out.
  std::mutex mu;
  std::condition_variable cv;
  bool first_sent = false, release_first = false;
  auto worker = Worker::Start(*queue_, options, [&](const ClaimedJob& job) {
    Result<Outcome> sent = SendOnce(job);
    if (!sent.ok()) return HandlerResult::Retry(sent.status().ToString());
    if (job.attempt == 1) {
      std::unique_lock<std::mutex> lock(mu);
      first_sent = true;
      cv.notify_all();
      cv.wait(lock, [&] { return release_first; });  // Stalls past its lease.
    }
    return HandlerResult::Ack();
  });
  ASSERT_TRUE(worker.ok());
  EnqueueOptions o;
  o.job_id = "welcome:t1:u2";
  o.backoff = Backoff::Fixed(0);
  ASSERT_TRUE(queue_->Enqueue("email", "u2", o).ok());
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return first_sent; });
  }
  // The lease lapses; the other thread, waiting in Claim, is woken at the deadline and gets
  // attempt 2, whose handler finds the stored outcome and acks.
  clock_->Advance(1000);
  AwaitTrue([&] { return (*worker)->stats().acked == 1; });
  {
    std::lock_guard<std::mutex> lock(mu);
    release_first = true;
    cv.notify_all();
  }
  AwaitTrue([&] { return (*worker)->stats().lost == 1; });  // The stalled ack is refused.
  (*worker)->Stop();
  EXPECT_EQ(outbox_.SentCount("u2"), 1);
  auto job = queue_->GetJob("email", "welcome:t1:u2");
  ASSERT_TRUE(job.ok() && job->has_value());
  EXPECT_TRUE((*job)->completed);
}

}  // namespace
}  // namespace cairn
