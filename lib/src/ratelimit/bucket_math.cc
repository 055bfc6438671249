#include "ratelimit/bucket_math.h"

#include <algorithm>

namespace cairn::internal {
namespace {

__extension__ typedef __int128 Wide;  // Products of counts and ms can exceed 64 bits.

Wide CeilDiv(Wide num, Wide den) { return num <= 0 ? 0 : (num + den - 1) / den; }

bool SameLimit(const BucketState& s, const Limit& l) {
  return s.kind == l.kind() && s.capacity == l.capacity() && s.period_ms == l.period_ms() &&
         s.rate_count == l.rate_count();
}

BucketState Blank(const Limit& limit) {
  BucketState s;
  s.kind = limit.kind();
  s.capacity = limit.capacity();
  s.period_ms = limit.period_ms();
  s.rate_count = limit.rate_count();
  return s;
}

Evaluation FixedWindow(const BucketState* stored, const Limit& limit, std::int64_t now,
                       std::int64_t cost) {
  const std::int64_t w = limit.period_ms(), cap = limit.capacity();
  const std::int64_t start = now - now % w;
  std::int64_t count = stored && stored->a == start ? stored->b : 0;
  Evaluation e;
  e.decision.limit = cap;
  e.decision.reset_after_ms = start + w - now;
  e.decision.allowed = count + cost <= cap;
  if (e.decision.allowed) {
    count += cost;
  } else {
    e.decision.retry_after_ms = start + w - now;  // The next window starts empty.
  }
  e.decision.remaining = cap - count;
  e.next = Blank(limit);
  e.next.a = start;
  e.next.b = count;
  e.expires_at_ms = start + w;
  return e;
}

Evaluation SlidingWindow(const BucketState* stored, const Limit& limit, std::int64_t now,
                         std::int64_t cost) {
  const std::int64_t w = limit.period_ms(), cap = limit.capacity();
  const std::int64_t start = now - now % w, elapsed = now - start;
  std::int64_t cur = 0, prev = 0;
  if (stored && stored->a == start) {
    cur = stored->b;
    prev = stored->c;
  } else if (stored && stored->a == start - w) {
    prev = stored->b;
  }
  // Counts scaled by w: the previous window weighs (w - elapsed) / w.
  const auto used = [&](std::int64_t current) {
    return Wide(prev) * (w - elapsed) + Wide(current) * w;
  };
  Evaluation e;
  e.decision.limit = cap;
  e.decision.allowed = used(cur + cost) <= Wide(cap) * w;
  if (e.decision.allowed) {
    cur += cost;
  } else {
    // The earliest moment the same take fits, if nobody else takes meanwhile.
    Wide best = Wide(start) + 2 * w - now;  // Two windows on, both counts have aged out.
    if (cur + cost <= cap && prev > 0) {    // Later in this window, as `prev` weighs less.
      const Wide t = CeilDiv(used(cur + cost) - Wide(cap) * w, prev);
      if (elapsed + t < w) best = std::min(best, t);
    }
    // In the next window, where `cur` becomes the previous count: offset e2 must satisfy
    // cur * (w - e2) + cost * w <= cap * w.
    const Wide e2 = cur == 0 ? 0 : std::max<Wide>(0, w - (Wide(cap - cost) * w) / cur);
    if (e2 < w) best = std::min(best, Wide(start) + w + e2 - now);
    e.decision.retry_after_ms = static_cast<std::int64_t>(best);
  }
  const Wide left = Wide(cap) * w - used(cur);
  e.decision.remaining = left <= 0 ? 0 : static_cast<std::int64_t>(left / w);
  e.decision.reset_after_ms = cur > 0 ? start + 2 * w - now : prev > 0 ? start + w - now : 0;
  e.next = Blank(limit);
  e.next.a = start;
  e.next.b = cur;
  e.next.c = prev;
  e.expires_at_ms = cur > 0 ? start + 2 * w : start + w;
  return e;
}

Evaluation TokenBucket(const BucketState* stored, const Limit& limit, std::int64_t now,
                       std::int64_t cost) {
  // Units: one token is `period` units; refill adds `rate` units per ms.
  const std::int64_t period = limit.period_ms(), rate = limit.rate_count();
  const Wide full = Wide(limit.capacity()) * period;
  Wide level = full;
  std::int64_t last = now;
  if (stored && stored->kind == Limit::Kind::kTokenBucket) {
    // A changed limit keeps the tokens the key had (rounded down, capped at the new size).
    level =
        SameLimit(*stored, limit) ? Wide(stored->a) : Wide(stored->a) * period / stored->period_ms;
    level = std::min(level, full);
    last = std::min(stored->b, now);  // A clock that stepped back refills nothing.
  }
  level = std::min(full, level + Wide(now - last) * rate);
  const Wide need = Wide(cost) * period;
  Evaluation e;
  e.decision.limit = limit.capacity();
  e.decision.allowed = level >= need;
  if (e.decision.allowed) {
    level -= need;
  } else {
    e.decision.retry_after_ms = static_cast<std::int64_t>(CeilDiv(need - level, rate));
  }
  e.decision.remaining = static_cast<std::int64_t>(level / period);
  e.decision.reset_after_ms = static_cast<std::int64_t>(CeilDiv(full - level, rate));
  e.next = Blank(limit);
  e.next.a = static_cast<std::int64_t>(level);
  e.next.b = now;
  e.expires_at_ms = now + e.decision.reset_after_ms;
  return e;
}

Evaluation Gcra(const BucketState* stored, const Limit& limit, std::int64_t now,
                std::int64_t cost) {
  // Units of 1/rate ms: the emission interval is `period` units, now is now * rate units.
  const std::int64_t rate = limit.rate_count(), period = limit.period_ms();
  const Wide now_u = Wide(now) * rate;
  const Wide tolerance = Wide(limit.capacity()) * period;
  Wide tat = now_u;
  if (stored && stored->kind == Limit::Kind::kGcra) {
    // A changed limit keeps the arrival time, rounded up to a whole ms.
    tat = SameLimit(*stored, limit) ? Wide(stored->a) * rate + stored->b
                                    : (Wide(stored->a) + (stored->b > 0 ? 1 : 0)) * rate;
    tat = std::max(tat, now_u);
  }
  const Wide next_tat = tat + Wide(cost) * period;
  Evaluation e;
  e.decision.limit = limit.capacity();
  e.decision.allowed = next_tat - now_u <= tolerance;
  const Wide after = e.decision.allowed ? next_tat : tat;
  if (!e.decision.allowed) {
    e.decision.retry_after_ms =
        static_cast<std::int64_t>(CeilDiv(next_tat - now_u - tolerance, rate));
  }
  e.decision.remaining = static_cast<std::int64_t>((tolerance - (after - now_u)) / period);
  e.decision.reset_after_ms = static_cast<std::int64_t>(CeilDiv(after - now_u, rate));
  e.next = Blank(limit);
  e.next.a = static_cast<std::int64_t>(after / rate);
  e.next.b = static_cast<std::int64_t>(after % rate);
  e.expires_at_ms = now + e.decision.reset_after_ms;
  return e;
}

}  // namespace

Evaluation Evaluate(const std::optional<BucketState>& stored, const Limit& limit,
                    std::int64_t now_ms, std::int64_t cost) {
  // State written under another algorithm means nothing here: start afresh.
  const BucketState* usable = stored && stored->kind == limit.kind() ? &*stored : nullptr;
  Evaluation e;
  switch (limit.kind()) {
    case Limit::Kind::kFixedWindow:
      e = FixedWindow(usable, limit, now_ms, cost);
      break;
    case Limit::Kind::kSlidingWindow:
      e = SlidingWindow(usable, limit, now_ms, cost);
      break;
    case Limit::Kind::kTokenBucket:
      e = TokenBucket(usable, limit, now_ms, cost);
      break;
    case Limit::Kind::kGcra:
      e = Gcra(usable, limit, now_ms, cost);
      break;
  }
  // State carried over from a larger limit can exceed the new one: nothing is left then.
  e.decision.remaining = std::max<std::int64_t>(0, e.decision.remaining);
  return e;
}

}  // namespace cairn::internal
