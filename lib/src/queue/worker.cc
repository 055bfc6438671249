#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "cairn/queue_worker.h"
#include "queue/lease_keeper.h"
#include "util/range_check.h"
#include "util/status_macros.h"

namespace cairn {
namespace {

constexpr std::uint32_t kMaxWorkerThreads = 256;
// A claim waits this long at most before looking again (Stop wakes it earlier).
constexpr std::int64_t kClaimWaitMs = 60'000;
// After a failed store call, wait this long before the next one.
constexpr std::int64_t kErrorPauseMs = 100;
// A verdict that fails with kBusy (lock contention) is retried this many times.
constexpr int kVerdictTries = 3;

}  // namespace

class Worker::Impl {
 public:
  Impl(Queue& queue, WorkerOptions options, JobHandler handler)
      : queue_(queue),
        clock_(*queue.store().options().clock),
        options_(std::move(options)),
        handler_(std::move(handler)),
        keeper_(queue, clock_, options_.visibility_ms),
        pauses_(options_.threads) {}

  void Start() {
    if (options_.extend_leases) {
      keeper_thread_ = std::thread([this] { keeper_.Run(); });
      pthread_setname_np(keeper_thread_.native_handle(), "cairn-keeper");
    }
    for (std::uint32_t i = 0; i < options_.threads; ++i) {
      threads_.emplace_back([this, i] { Consume(i); });
      pthread_setname_np(threads_.back().native_handle(), "cairn-worker");
    }
  }

  void RequestStop() {
    stopping_ = true;
    queue_.WakeWaiters(options_.queue, options_.group);
    for (Wakeup& pause : pauses_) pause.Notify();
  }

  void Stop() {
    std::lock_guard<std::mutex> lock(stop_mu_);
    if (stopped_) return;
    RequestStop();
    for (std::thread& t : threads_) t.join();
    keeper_.Stop();
    if (keeper_thread_.joinable()) keeper_thread_.join();
    stopped_ = true;
  }

  WorkerStats stats() const {
    return {acked_.load(), retried_.load(), dead_lettered_.load(), lost_.load(), errors_.load()};
  }

 private:
  void Consume(std::uint32_t index) {
    const std::string consumer = options_.consumer + "/" + std::to_string(index);
    ClaimOptions claim;
    claim.max_jobs = 1;
    claim.visibility_ms = options_.visibility_ms;
    claim.wait_ms = kClaimWaitMs;
    claim.stop = &stopping_;
    while (!stopping_.load()) {
      Result<std::vector<ClaimedJob>> claimed =
          queue_.Claim(options_.queue, options_.group, consumer, claim);
      if (!claimed.ok()) {
        ++errors_;
        clock_.WaitUntil(pauses_[index], clock_.NowMs() + kErrorPauseMs);
        continue;
      }
      for (const ClaimedJob& job : *claimed) Process(job);
    }
  }

  void Process(const ClaimedJob& job) {
    if (options_.extend_leases) keeper_.Track(job.ref);
    HandlerResult verdict;
    try {
      verdict = handler_(job);
    } catch (const std::exception& e) {
      verdict = HandlerResult::Retry(std::string("handler threw: ") + e.what());
    } catch (...) {
      verdict = HandlerResult::Retry("handler threw a non-standard exception");
    }
    if (options_.extend_leases) keeper_.Untrack(job.ref);
    for (int attempt = 1; attempt <= kVerdictTries; ++attempt) {
      const Status recorded = Record(job.ref, verdict);
      if (recorded.ok()) return;
      ++errors_;
      if (recorded.code() != StatusCode::kBusy) return;
    }
  }

  Status Record(const JobRef& ref, const HandlerResult& verdict) {
    if (verdict.kind == HandlerResult::Kind::kAck) {
      CAIRN_ASSIGN_OR_RETURN(OwnerResult acked, queue_.Ack(ref));
      ++(acked == OwnerResult::kDone ? acked_ : lost_);
      return Status::Ok();
    }
    const bool retry = verdict.kind == HandlerResult::Kind::kRetry;
    CAIRN_ASSIGN_OR_RETURN(FailResult failed, queue_.Fail(ref, verdict.error, retry));
    switch (failed) {
      case FailResult::kRetryScheduled:
        ++retried_;
        break;
      case FailResult::kDeadLettered:
        ++dead_lettered_;
        break;
      case FailResult::kNotOwner:
        ++lost_;
        break;
    }
    return Status::Ok();
  }

  Queue& queue_;
  const Clock& clock_;
  const WorkerOptions options_;
  const JobHandler handler_;
  internal::LeaseKeeper keeper_;
  std::vector<Wakeup> pauses_;  // One per thread: its pause after an error, cut short by Stop.
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> threads_;
  std::thread keeper_thread_;
  std::mutex stop_mu_;
  bool stopped_ = false;
  std::atomic<std::uint64_t> acked_{0}, retried_{0}, dead_lettered_{0}, lost_{0}, errors_{0};
};

Result<std::unique_ptr<Worker>> Worker::Start(Queue& queue, WorkerOptions options,
                                              JobHandler handler) {
  CAIRN_RETURN_IF_ERROR(
      internal::CheckRange("worker threads", options.threads, 1, kMaxWorkerThreads));
  CAIRN_RETURN_IF_ERROR(internal::CheckRange("visibility timeout", options.visibility_ms, 1,
                                             kMaxVisibilityMs, " ms"));
  if (!handler) return Status::InvalidArgument("worker handler is empty");
  Result<std::vector<std::string>> groups = queue.Groups(options.queue);
  if (!groups.ok()) return groups.status();
  if (std::find(groups->begin(), groups->end(), options.group) == groups->end()) {
    return Status::NotFound("consumer group '" + options.group + "' of queue '" + options.queue +
                            "' does not exist; create it with Queue::CreateGroup");
  }
  auto impl = std::make_unique<Impl>(queue, std::move(options), std::move(handler));
  impl->Start();
  return std::unique_ptr<Worker>(new Worker(std::move(impl)));
}

Worker::Worker(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Worker::~Worker() { Stop(); }
void Worker::RequestStop() { impl_->RequestStop(); }
void Worker::Stop() { impl_->Stop(); }
WorkerStats Worker::stats() const { return impl_->stats(); }

}  // namespace cairn
