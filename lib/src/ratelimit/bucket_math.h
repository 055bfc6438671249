// The four rate-limit algorithms as pure functions of (state, limit, now, cost): no storage,
// no clock, integer arithmetic only (128-bit where products could overflow), so that every
// admission and every retry-after is exact and testable on its own.
#pragma once

#include <cstdint>
#include <optional>

#include "cairn/ratelimit.h"

namespace cairn::internal {

// What a key's row holds. Fields a, b, c mean, by kind:
//   fixed / sliding window: window start (ms), count in it, count in the previous window
//   token bucket:           level (1 token = period_ms units), time of the last refill (ms)
//   GCRA:                   theoretical arrival time as a_ms + b / rate_count ms
struct BucketState {
  Limit::Kind kind = Limit::Kind::kFixedWindow;
  std::int64_t capacity = 0, period_ms = 0, rate_count = 0;  // The limit that wrote it.
  std::int64_t a = 0, b = 0, c = 0;
};

struct Evaluation {
  Decision decision;
  // The state to store if the take is applied (allowed and not a dry run).
  BucketState next;
  // When `next` stops mattering; at or before now: nothing needs storing.
  std::int64_t expires_at_ms = 0;
};

// REQUIRES: limit valid, 1 <= cost <= limit.capacity(), now_ms >= 0.
Evaluation Evaluate(const std::optional<BucketState>& stored, const Limit& limit,
                    std::int64_t now_ms, std::int64_t cost);

}  // namespace cairn::internal
