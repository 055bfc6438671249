// Durable job queues: delayed jobs, consumer groups, visibility leases, retries with backoff
// and a dead-letter queue.
//
// A queue holds jobs (a payload and its retry policy). Consumer groups read a queue
// independently: every group receives every job enqueued after it was created (or, by
// choice, every job the queue still holds), and within a group each job is handed to one
// consumer at a time. A delivery of a job to a group moves through:
//
//   ready/delayed ──Claim──▶ in flight (lease token, deadline) ──Ack──▶ done (removed)
//        ▲                        │ Fail(retry) or the lease lapses: attempt counted,
//        └──── backoff delay ─────┘ next attempt after the backoff delay
//                                 │ attempts exhausted, or Fail(retry = false)
//                                 ▼
//                            dead (the queue's dead-letter queue) ──Replay──▶ ready
//
// Claims are FIFO by due time, then by enqueue order. A lease that lapses without an ack is
// a failed attempt ("lease expired"), recovered by the next Claim of the group (or by the
// dead-letter calls, which settle lapsed leases first). Until then its holder may still ack,
// fail or extend it; once the lapse is recovered, the old token is refused
// (OwnerResult::kNotOwner / FailResult::kNotOwner) and nothing changes.
//
// When every group has acknowledged a job, the job is removed; its id stays reserved for
// `dedup_window_ms`, so a retried Enqueue with the same job_id within that window returns the
// existing job instead of adding a second one.
//
// Every call is one store transaction: an acknowledged job is never delivered again, and an
// unacknowledged one is delivered again after a crash and reopen once its lease has expired.
// Claim with wait_ms > 0 blocks in process, woken by an Enqueue (or Fail, Replay, …) through
// any Queue of the same store, or by a timer at the next due time on the store's Clock —
// never by polling. Thread-safe; any number of Queue objects may share a store.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cairn/ownership.h"
#include "cairn/result.h"
#include "cairn/store.h"

namespace cairn {

// Limits, enforced with kInvalidArgument.
// Queue and group names: 1..kMaxQueueNameBytes; consumer names: 0..kMaxQueueNameBytes.
inline constexpr std::size_t kMaxQueueNameBytes = 256;
inline constexpr std::size_t kMaxJobIdBytes = 512;
inline constexpr std::size_t kMaxJobPayloadBytes = 16 * 1024 * 1024;
inline constexpr std::uint32_t kMaxJobAttempts = 1000;
inline constexpr std::int64_t kMaxJobDelayMs = 10LL * 365 * 24 * 60 * 60 * 1000;  // 10 years.
inline constexpr std::int64_t kMaxVisibilityMs = 7LL * 24 * 60 * 60 * 1000;       // 7 days.
inline constexpr std::int64_t kMaxDedupWindowMs = 365LL * 24 * 60 * 60 * 1000;    // 1 year.
inline constexpr std::uint32_t kMaxClaimBatch = 1000;
// Queue::TryClaim's "no job falls due without a new write".
inline constexpr std::int64_t kNoDueTime = std::numeric_limits<std::int64_t>::max();
inline constexpr std::size_t kMaxEnqueueBatch = 10'000;
// Error messages are truncated to this many bytes; a job keeps its latest kMaxJobErrors.
inline constexpr std::size_t kMaxJobErrorBytes = 4096;
inline constexpr std::size_t kMaxJobErrors = 16;

// How long to wait before the next attempt of a failed job.
struct Backoff {
  enum class Kind : std::uint8_t { kFixed = 0, kExponential = 1 };
  Kind kind = Kind::kExponential;
  // Fixed: every delay. Exponential: the delay after the first failure, doubled after each
  // further one. Default: 1 s.
  std::int64_t base_ms = 1000;
  // Exponential: the longest delay. Default: 1 hour.
  std::int64_t max_ms = 60 * 60 * 1000;
  // 0..1. With jitter j, each delay d is drawn uniformly from [d·(1−j), d] (from the job's
  // lease token, so the draw is reproducible). Default: 0.
  double jitter = 0;

  static Backoff Fixed(std::int64_t delay_ms) { return {Kind::kFixed, delay_ms, delay_ms, 0}; }
  static Backoff Exponential(std::int64_t base_ms, std::int64_t max_ms, double jitter = 0) {
    return {Kind::kExponential, base_ms, max_ms, jitter};
  }

  // The delay (before jitter) after failed attempt number `attempt` (1 for the first).
  std::int64_t DelayAfter(std::uint32_t attempt) const;
};

struct EnqueueOptions {
  // Deduplication id. Enqueueing an id the queue still holds (or still reserves, within the
  // dedup window after completion) returns that job and adds nothing. Default: empty, a fresh
  // random id.
  std::string job_id;
  // Not claimable before now + delay_ms. Default: 0.
  std::int64_t delay_ms = 0;
  // Not claimable before this instant (ms since the epoch); overrides delay_ms when set.
  std::optional<std::int64_t> run_at_ms;
  // Deliveries per group before the job is dead-lettered. Default: 3.
  std::uint32_t max_attempts = 3;
  // Default: exponential from 1 s, at most 1 hour, no jitter.
  Backoff backoff;
  // How long the id stays reserved after every group acknowledged the job. 0: not at all.
  // Default: 24 hours.
  std::int64_t dedup_window_ms = 24LL * 60 * 60 * 1000;
};

struct NewJob {
  std::string payload;
  EnqueueOptions options;
};

struct EnqueueResult {
  std::string job_id;
  bool created = false;  // False: the id was already there; nothing was added.
};

// Which jobs a new consumer group receives.
enum class GroupStart : std::uint8_t {
  kNewJobs = 0,  // Jobs enqueued after the group was created.
  kAllJobs = 1,  // Also every job the queue holds now (not yet finished by every group).
};

struct ClaimOptions {
  // Most jobs to take in one call (1..kMaxClaimBatch). Default: 1.
  std::uint32_t max_jobs = 1;
  // The lease: a job not acked within it is delivered again. Default: 30 s.
  std::int64_t visibility_ms = 30'000;
  // How long to wait when no job is ready (0..kMaxVisibilityMs). Default: 0, return at once.
  std::int64_t wait_ms = 0;
  // When set (and wait_ms > 0), Claim returns empty-handed as soon as it finds *stop true —
  // even if jobs are ready — and a waiting Claim looks when woken, e.g. by
  // Queue::WakeWaiters. Lets a worker pool or a server connection stop waiting claimers.
  const std::atomic<bool>* stop = nullptr;
};

// One delivery of a job to a group: what Ack, Extend and Fail need.
struct JobRef {
  std::string queue;
  std::string group;
  std::string job_id;
  std::string token;  // The lease token of this delivery.
};

struct JobError {
  std::uint32_t attempt = 0;
  std::int64_t at_ms = 0;
  std::string consumer;
  std::string message;
  friend bool operator==(const JobError&, const JobError&) = default;
};

struct ClaimedJob {
  JobRef ref;
  std::string payload;
  std::uint32_t attempt = 0;  // 1 for the first delivery to this group.
  std::uint32_t max_attempts = 0;
  std::int64_t deadline_ms = 0;  // The lease ends here unless extended.
  std::int64_t enqueued_at_ms = 0;
  std::vector<JobError> errors;  // Earlier failed attempts, oldest first.
};

enum class FailResult {
  kRetryScheduled,  // The job will be claimable again after its backoff delay.
  kDeadLettered,    // Moved to the dead-letter queue.
  kNotOwner,        // The token no longer holds the job; nothing changed.
};

enum class JobState : std::uint8_t { kReady, kDelayed, kInFlight, kDead };

struct GroupCounts {
  std::string group;
  std::uint64_t ready = 0;
  std::uint64_t delayed = 0;
  std::uint64_t in_flight = 0;
  std::uint64_t dead = 0;
};

// A job's delivery to one group, as of now (a lapsed lease is shown as what recovering it
// will make of it).
struct DeliveryInfo {
  std::string group;
  JobState state = JobState::kReady;
  std::uint32_t attempts = 0;  // Deliveries so far.
  // Ready/delayed: when it becomes claimable. In flight: the lease deadline. Dead: when it died.
  std::int64_t at_ms = 0;
  std::string consumer;  // Who holds it (in flight) or held it last ("" if never claimed).
  std::vector<JobError> errors;
};

struct JobInfo {
  std::string job_id;
  // True when every group has acknowledged it and only its id is kept (dedup window); the
  // fields below are then empty.
  bool completed = false;
  std::string payload;
  std::int64_t enqueued_at_ms = 0;
  std::uint32_t max_attempts = 0;
  Backoff backoff;
  std::vector<DeliveryInfo> deliveries;  // Groups that have not finished it yet.
};

struct DeadJob {
  std::string job_id;
  std::string group;
  std::string payload;
  std::uint32_t attempts = 0;
  std::int64_t died_at_ms = 0;
  std::vector<JobError> errors;
};

struct DeadPage {
  std::vector<DeadJob> jobs;  // In enqueue order.
  std::string next_cursor;    // Empty when there are no more.
};

class Queue {
 public:
  // The store must outlive the queue.
  explicit Queue(Store& store);
  ~Queue();
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;

  // Adds a job. The queue needs no creation; groups created later with GroupStart::kAllJobs
  // receive it too. A job enqueued while the queue has no group waits for such a group: it
  // is kept (and its id reserved) until one finishes it. REQUIRES: queue
  // name 1..kMaxQueueNameBytes, payload within kMaxJobPayloadBytes, 1 <= max_attempts <=
  // kMaxJobAttempts, delays and backoff within kMaxJobDelayMs, 0 <= jitter <= 1.
  Result<EnqueueResult> Enqueue(std::string_view queue, std::string_view payload,
                                const EnqueueOptions& options = {});

  // Adds up to kMaxEnqueueBatch jobs in one transaction: all or none. Ids repeated within the
  // batch or already present are deduplicated as for Enqueue. Results in input order.
  Result<std::vector<EnqueueResult>> EnqueueBatch(std::string_view queue,
                                                  const std::vector<NewJob>& jobs);

  // Creates a consumer group. False (and nothing changes) if it already exists.
  Result<bool> CreateGroup(std::string_view queue, std::string_view group,
                           GroupStart start = GroupStart::kNewJobs);
  // The queue's groups, in creation order.
  Result<std::vector<std::string>> Groups(std::string_view queue);

  // Takes up to options.max_jobs jobs that are due for the group, leasing each to consumer
  // for options.visibility_ms. An empty vector when none is ready (after waiting up to
  // wait_ms). kNotFound if the group does not exist.
  Result<std::vector<ClaimedJob>> Claim(std::string_view queue, std::string_view group,
                                        std::string_view consumer,
                                        const ClaimOptions& options = {});

  // Claim's non-blocking form for a caller that waits itself (cairn-server's blocked clients):
  // claims as Claim with wait_ms 0 (options.wait_ms is ignored), and when it took nothing, sets
  // *next_due_ms to when the group may have a job due without a new write — a delayed job or a
  // retry falling due, a lease lapsing — on the store's clock, or kNoDueTime for never. An
  // Add, a Fail with retry or a Replay of the group's queue may make one due sooner.
  Result<std::vector<ClaimedJob>> TryClaim(std::string_view queue, std::string_view group,
                                           std::string_view consumer, const ClaimOptions& options,
                                           std::int64_t* next_due_ms);

  // The job is done for this group.
  Result<OwnerResult> Ack(const JobRef& job);
  // Moves the lease deadline to now + visibility_ms; the new deadline in *deadline_ms.
  Result<OwnerResult> Extend(const JobRef& job, std::int64_t visibility_ms,
                             std::int64_t* deadline_ms = nullptr);
  // Records a failed attempt with `error`; with retry and attempts left, the job is due again
  // after its backoff delay, otherwise it is dead-lettered.
  Result<FailResult> Fail(const JobRef& job, std::string_view error, bool retry = true);

  // Counts per state for every group of the queue (O(jobs of the queue)).
  Result<std::vector<GroupCounts>> Counts(std::string_view queue);
  // The job as stored now; nullopt if the queue does not hold (or reserve) the id.
  Result<std::optional<JobInfo>> GetJob(std::string_view queue, std::string_view job_id);

  // The dead-letter calls below first settle the group's lapsed leases (a lapse with no
  // attempts left is dead), and answer kNotFound when the group does not exist.

  // The group's dead-letter queue, a page of at most `limit` (1..1000) jobs from `cursor`
  // ("" = start).
  Result<DeadPage> ListDead(std::string_view queue, std::string_view group,
                            std::string_view cursor = {}, std::size_t limit = 100);
  // Puts a dead job back to ready with its attempts reset (errors kept). False if the job is
  // not in the group's dead-letter queue.
  Result<bool> Replay(std::string_view queue, std::string_view group, std::string_view job_id);
  // Removes a dead job for good (for this group). False if it is not dead in the group.
  Result<bool> Purge(std::string_view queue, std::string_view group, std::string_view job_id);
  // Removes every dead job of the group; how many.
  Result<std::uint64_t> PurgeAll(std::string_view queue, std::string_view group);

  Store& store() const;

  // Wakes every Claim waiting on the group (they look again, or return if told to stop).
  void WakeWaiters(std::string_view queue, std::string_view group);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cairn
