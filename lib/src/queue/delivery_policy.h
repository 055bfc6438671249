// What happens to a delivery when an attempt fails or its lease lapses: the retry policy,
// as pure functions of the stored rows and a time, so that Claim, Fail, Counts and GetJob
// all decide alike (and tests can check the schedule without a store).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "cairn/queue.h"
#include "queue/queue_rows.h"

namespace cairn::internal {

inline constexpr std::string_view kLeaseExpiredError = "lease expired before the job was acked";

// The backoff delay after failed attempt `attempt`, with the job's jitter drawn from `token`
// (the failed delivery's lease token), so the same failure always gives the same delay.
std::int64_t RetryDelay(const Backoff& backoff, std::uint32_t attempt, std::string_view token);

// Appends an error (message truncated to kMaxJobErrorBytes), keeping the latest kMaxJobErrors.
void RecordError(DeliveryRow& delivery, JobError error);

enum class AfterFailure { kRetry, kDead };

// Records the failure of the in-flight delivery's current attempt at at_ms and decides what
// follows: pending again at at_ms + retry delay, or dead (attempts exhausted or !retry). The
// lease token is cleared either way, so the failed holder can no longer ack.
AfterFailure ApplyFailure(DeliveryRow& delivery, const JobRow& job, std::int64_t at_ms,
                          std::string_view message, bool retry);

// True when an in-flight delivery's lease has passed without an ack at now_ms.
inline bool Lapsed(const DeliveryRow& delivery, std::int64_t now_ms) {
  return delivery.stage == DeliveryStage::kInFlight && delivery.at_ms <= now_ms;
}

// A lapsed lease is a failed attempt, dated at its deadline.
inline AfterFailure ApplyLapse(DeliveryRow& delivery, const JobRow& job) {
  return ApplyFailure(delivery, job, delivery.at_ms, kLeaseExpiredError, /*retry=*/true);
}

// The delivery as a caller sees it at now_ms: a lapsed lease shown as what recovering it will
// make of it. `job` is needed only for lapsed leases.
DeliveryRow ViewAt(const DeliveryRow& delivery, const JobRow& job, std::int64_t now_ms);
JobState StateAt(const DeliveryRow& viewed, std::int64_t now_ms);

}  // namespace cairn::internal
