#include "queue/delivery_policy.h"

#include <xxhash.h>

#include <algorithm>

namespace cairn {

std::int64_t Backoff::DelayAfter(std::uint32_t attempt) const {
  if (kind == Kind::kFixed || attempt <= 1) return base_ms;
  // base · 2^(attempt−1), capped at max_ms without overflowing.
  std::int64_t delay = base_ms;
  for (std::uint32_t i = 1; i < attempt && delay < max_ms; ++i) {
    delay = delay > max_ms / 2 ? max_ms : delay * 2;
  }
  return std::min(delay, max_ms);
}

namespace internal {

std::int64_t RetryDelay(const Backoff& backoff, std::uint32_t attempt, std::string_view token) {
  const std::int64_t delay = backoff.DelayAfter(attempt);
  if (backoff.jitter <= 0 || delay <= 0) return delay;
  // A uniform draw in [0, 1) from the token: 53 bits of its hash.
  const std::uint64_t bits = XXH3_64bits(token.data(), token.size()) >> 11;
  const double unit = static_cast<double>(bits) / static_cast<double>(1ULL << 53);
  const auto cut = static_cast<std::int64_t>(static_cast<double>(delay) * backoff.jitter * unit);
  return delay - std::clamp<std::int64_t>(cut, 0, delay);
}

void RecordError(DeliveryRow& delivery, JobError error) {
  if (error.message.size() > kMaxJobErrorBytes) error.message.resize(kMaxJobErrorBytes);
  delivery.errors.push_back(std::move(error));
  if (delivery.errors.size() > kMaxJobErrors) {
    delivery.errors.erase(delivery.errors.begin(),
                          delivery.errors.end() - static_cast<std::ptrdiff_t>(kMaxJobErrors));
  }
}

AfterFailure ApplyFailure(DeliveryRow& delivery, const JobRow& job, std::int64_t at_ms,
                          std::string_view message, bool retry) {
  RecordError(delivery,
              JobError{delivery.attempts, at_ms, delivery.consumer, std::string(message)});
  const std::string token = std::move(delivery.token);
  delivery.token.clear();
  if (retry && delivery.attempts < job.max_attempts) {
    delivery.stage = DeliveryStage::kPending;
    delivery.at_ms = at_ms + RetryDelay(job.backoff, delivery.attempts, token);
    return AfterFailure::kRetry;
  }
  delivery.stage = DeliveryStage::kDead;
  delivery.at_ms = at_ms;
  return AfterFailure::kDead;
}

DeliveryRow ViewAt(const DeliveryRow& delivery, const JobRow& job, std::int64_t now_ms) {
  DeliveryRow viewed = delivery;
  if (Lapsed(viewed, now_ms)) ApplyLapse(viewed, job);
  return viewed;
}

JobState StateAt(const DeliveryRow& viewed, std::int64_t now_ms) {
  switch (viewed.stage) {
    case DeliveryStage::kPending:
      return viewed.at_ms <= now_ms ? JobState::kReady : JobState::kDelayed;
    case DeliveryStage::kInFlight:
      return JobState::kInFlight;
    case DeliveryStage::kDead:
      break;
  }
  return JobState::kDead;
}

}  // namespace internal
}  // namespace cairn
