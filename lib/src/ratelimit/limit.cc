#include <cmath>
#include <string>

#include "cairn/ratelimit.h"
#include "util/range_check.h"

namespace cairn {
namespace {

// Products of capacity and period are kept below this so that bucket arithmetic in 64 bits
// cannot overflow.
constexpr std::int64_t kMaxCapacityTimesPeriod = 4'000'000'000'000'000'000;
// Rates per second are expressed as thousandths of a request per 1000 s.
constexpr std::int64_t kPerSecondPeriodMs = 1'000'000;

Status CheckCount(std::int64_t v, const char* what) {
  return internal::CheckRange(std::string("rate limit ") + what, v, 1, kMaxRateLimitCount);
}

Status CheckPeriod(std::int64_t ms, const char* what) {
  return internal::CheckRange(std::string("rate limit ") + what, ms, 1, kMaxRateLimitWindowMs,
                              " ms");
}

Status CheckProduct(std::int64_t capacity, std::int64_t period_ms) {
  if (capacity > kMaxCapacityTimesPeriod / period_ms) {
    return Status::InvalidArgument("rate limit capacity × period (" + std::to_string(capacity) +
                                   " × " + std::to_string(period_ms) + " ms) is too large");
  }
  return Status::Ok();
}

Status FirstError(std::initializer_list<Status> statuses) {
  for (const Status& s : statuses) {
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

// Converts a per-second rate to a count per kPerSecondPeriodMs, or reports why it cannot.
Status PerSecondRate(double per_second, std::int64_t* count) {
  if (!std::isfinite(per_second) || per_second < 0.001 ||
      per_second > static_cast<double>(kMaxRateLimitCount) / 1000) {
    return Status::InvalidArgument("rate per second must be a finite number between 0.001 and " +
                                   std::to_string(kMaxRateLimitCount / 1000) + ", got " +
                                   std::to_string(per_second));
  }
  *count = std::llround(per_second * 1000);
  return Status::Ok();
}

}  // namespace

Limit::Limit(Kind kind, std::int64_t capacity, std::int64_t period_ms, std::int64_t rate_count)
    : kind_(kind), capacity_(capacity), period_ms_(period_ms), rate_count_(rate_count) {}

Limit Limit::FixedWindow(std::int64_t limit, std::int64_t window_ms) {
  Limit l(Kind::kFixedWindow, limit, window_ms, 0);
  l.validity_ = FirstError({CheckCount(limit, "limit"), CheckPeriod(window_ms, "window")});
  return l;
}

Limit Limit::SlidingWindow(std::int64_t limit, std::int64_t window_ms) {
  Limit l(Kind::kSlidingWindow, limit, window_ms, 0);
  l.validity_ = FirstError({CheckCount(limit, "limit"), CheckPeriod(window_ms, "window")});
  return l;
}

Limit Limit::TokenBucket(std::int64_t capacity, std::int64_t refill_tokens,
                         std::int64_t refill_period_ms) {
  Limit l(Kind::kTokenBucket, capacity, refill_period_ms, refill_tokens);
  l.validity_ =
      FirstError({CheckCount(capacity, "capacity"), CheckCount(refill_tokens, "refill tokens"),
                  CheckPeriod(refill_period_ms, "refill period")});
  if (l.validity_.ok()) l.validity_ = CheckProduct(capacity, refill_period_ms);
  return l;
}

Limit Limit::TokenBucketPerSecond(std::int64_t capacity, double tokens_per_second) {
  return PerSecond(tokens_per_second, [&](std::int64_t count, std::int64_t period_ms) {
    return TokenBucket(capacity, count, period_ms);
  });
}

Limit Limit::Gcra(std::int64_t rate_count, std::int64_t period_ms, std::int64_t burst) {
  Limit l(Kind::kGcra, burst, period_ms, rate_count);
  l.validity_ = FirstError({CheckCount(rate_count, "rate"), CheckPeriod(period_ms, "period"),
                            CheckCount(burst, "burst")});
  if (l.validity_.ok()) l.validity_ = CheckProduct(burst, period_ms);
  return l;
}

Limit Limit::GcraPerSecond(double requests_per_second, std::int64_t burst) {
  return PerSecond(requests_per_second, [&](std::int64_t count, std::int64_t period_ms) {
    return Gcra(count, period_ms, burst);
  });
}

Limit Limit::PerSecond(double per_second,
                       const std::function<Limit(std::int64_t, std::int64_t)>& make) {
  std::int64_t count = 0;
  Status rate = PerSecondRate(per_second, &count);
  if (rate.ok()) return make(count, kPerSecondPeriodMs);
  Limit invalid = make(1, kPerSecondPeriodMs);  // The shape of the limit, marked invalid.
  invalid.validity_ = rate;
  return invalid;
}

std::int64_t RetryAfterSeconds(const Decision& decision) {
  if (decision.allowed) return 0;
  return std::max<std::int64_t>(1, (decision.retry_after_ms + 999) / 1000);
}

}  // namespace cairn
