// Worker: a pool of threads that consume one consumer group of a queue.
//
// Each thread claims a job (waiting for one when the queue is empty, never polling), runs the
// handler, and records its verdict: Ack, Fail with retry (the backoff policy decides when the
// job runs again), or Fail without retry (straight to the dead-letter queue). A handler that
// throws is a retry with the exception's message. While handlers run, one keeper thread
// extends their leases every visibility/3, so a long handler keeps its job; if a lease is
// lost anyway (the process stalled past it), the verdict is refused and the job's next
// delivery decides.
//
// Stop (and the destructor) stops claiming, lets running handlers finish, records their
// verdicts and joins the threads. Delivery is at least once: a crash between the handler's
// side effect and its Ack repeats the job, so handlers with side effects should be idempotent
// (see IdempotencyStore::Run).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "cairn/queue.h"
#include "cairn/result.h"

namespace cairn {

struct HandlerResult {
  enum class Kind : std::uint8_t { kAck, kRetry, kFail };
  Kind kind = Kind::kAck;
  std::string error;  // For kRetry and kFail: recorded in the job's error history.

  static HandlerResult Ack() { return {}; }
  static HandlerResult Retry(std::string error) { return {Kind::kRetry, std::move(error)}; }
  static HandlerResult Fail(std::string error) { return {Kind::kFail, std::move(error)}; }
};

using JobHandler = std::function<HandlerResult(const ClaimedJob&)>;

struct WorkerOptions {
  std::string queue;
  std::string group;
  // The consumer name shown in job inspection; threads add "/<n>". Default: "worker".
  std::string consumer = "worker";
  // Handler threads, 1..256. Default: 1.
  std::uint32_t threads = 1;
  // Lease per claimed job. Default: 30 s.
  std::int64_t visibility_ms = 30'000;
  // Extend leases of running handlers every visibility/3. Default: true.
  bool extend_leases = true;
};

struct WorkerStats {
  std::uint64_t acked = 0;
  std::uint64_t retried = 0;        // Failed with a retry scheduled.
  std::uint64_t dead_lettered = 0;  // Failed into the dead-letter queue.
  std::uint64_t lost = 0;           // Verdicts refused: the lease had been lost.
  std::uint64_t errors = 0;         // Store calls that failed (the worker keeps going).
};

class Worker {
 public:
  // Starts the threads. kNotFound if the group does not exist; kInvalidArgument for bad
  // options. The queue (and its store) must outlive the worker.
  static Result<std::unique_ptr<Worker>> Start(Queue& queue, WorkerOptions options,
                                               JobHandler handler);
  ~Worker();  // Stop().
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Claims no more jobs; returns at once (running handlers go on). E.g. from a signal-handling
  // thread, before Stop.
  void RequestStop();
  // RequestStop, then waits for running handlers and records their verdicts. Idempotent.
  void Stop();

  WorkerStats stats() const;

 private:
  class Impl;
  explicit Worker(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cairn
