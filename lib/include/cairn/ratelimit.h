// Rate limits: fixed window, sliding window, token bucket and GCRA, with dry runs and exact
// retry-after times.
//
// Every limit is defined with integers (counts and milliseconds), so that admissions and
// retry-after values are exact: a refused Take tells how long to wait, and a Take at
// now + retry_after_ms is admitted while one a millisecond earlier is not (for a key nobody else
// takes from meanwhile). Rates given per second as doubles (TokenBucket::PerSecond,
// Gcra::PerSecond) are rounded to a thousandth of a request per second.
//
// State lives in the store's `buckets` column family, one row per key, with a TTL equal to the
// time after which it no longer matters: idle keys disappear by themselves. Each Take is one
// transaction (the key's row is locked), so limits hold under any concurrency. A refused Take
// consumes nothing; a dry run answers the same question and changes nothing.
//
// Changing a key's limit (a plan upgrade) takes effect on its next Take. The state is carried
// over into the new limit without granting new allowance: a window keeps its count, a bucket
// keeps its tokens (capped at the new capacity), GCRA keeps its theoretical arrival time.
// Switching a key to another algorithm starts it afresh.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "cairn/result.h"
#include "cairn/store.h"

namespace cairn {

// Largest count, capacity or burst, and longest window or period.
inline constexpr std::int64_t kMaxRateLimitCount = 1'000'000'000;
inline constexpr std::int64_t kMaxRateLimitWindowMs = 366LL * 24 * 60 * 60 * 1000;
inline constexpr std::size_t kMaxRateLimitKeyBytes = 1024;

class Limit {
 public:
  enum class Kind : std::uint8_t { kFixedWindow = 1, kSlidingWindow, kTokenBucket, kGcra };

  // At most `limit` per window; windows are aligned to the epoch.
  static Limit FixedWindow(std::int64_t limit, std::int64_t window_ms);
  // At most about `limit` per rolling window, estimated from the current and previous aligned
  // windows (the previous one weighted by how much of it still overlaps). Error bound: never
  // more than `limit` admitted within one aligned window, never more than 2 × limit within any
  // rolling window (reached only if the previous window's requests all came at its very end).
  static Limit SlidingWindow(std::int64_t limit, std::int64_t window_ms);
  // A bucket of `capacity` tokens refilled continuously at refill_tokens per refill_period_ms.
  static Limit TokenBucket(std::int64_t capacity, std::int64_t refill_tokens,
                           std::int64_t refill_period_ms);
  static Limit TokenBucketPerSecond(std::int64_t capacity, double tokens_per_second);
  // The generic cell rate algorithm: `rate_count` requests per `period_ms` on average, with
  // bursts of up to `burst` at once. Its whole state is one timestamp.
  static Limit Gcra(std::int64_t rate_count, std::int64_t period_ms, std::int64_t burst);
  static Limit GcraPerSecond(double requests_per_second, std::int64_t burst);

  Kind kind() const { return kind_; }
  // The most a single Take may cost: limit, capacity or burst.
  std::int64_t capacity() const { return capacity_; }
  // Window (fixed, sliding) or period (token bucket, GCRA).
  std::int64_t period_ms() const { return period_ms_; }
  // Tokens per period (token bucket) or requests per period (GCRA); 0 for windows.
  std::int64_t rate_count() const { return rate_count_; }
  // Set by the factories when an argument breaks a rule; Take reports it as kInvalidArgument.
  const Status& validity() const { return validity_; }

 private:
  Limit(Kind kind, std::int64_t capacity, std::int64_t period_ms, std::int64_t rate_count);
  // Converts a per-second rate to a count per period and builds the limit with make(count,
  // period_ms); an invalid rate yields make's limit marked invalid with the reason.
  static Limit PerSecond(double per_second,
                         const std::function<Limit(std::int64_t, std::int64_t)>& make);
  Kind kind_;
  std::int64_t capacity_;
  std::int64_t period_ms_;
  std::int64_t rate_count_;
  Status validity_;
};

struct Decision {
  bool allowed = false;
  // What is left after this take (or, when refused, what is available now).
  std::int64_t remaining = 0;
  // The limit's capacity (limit, capacity or burst).
  std::int64_t limit = 0;
  // Until the key's state is back to full allowance.
  std::int64_t reset_after_ms = 0;
  // When refused: the exact wait before the same take would be admitted; 0 when allowed.
  std::int64_t retry_after_ms = 0;
};

// The value of an HTTP Retry-After header for a decision: whole seconds, rounded up, at least 1
// when refused; 0 when allowed.
std::int64_t RetryAfterSeconds(const Decision& decision);

class RateLimiter {
 public:
  // The store must outlive the limiter. Limiters over one store share its state.
  explicit RateLimiter(Store& store);
  ~RateLimiter();
  RateLimiter(const RateLimiter&) = delete;
  RateLimiter& operator=(const RateLimiter&) = delete;

  // Takes `cost` units for key under limit. REQUIRES: 1 <= cost <= limit.capacity() (a cost
  // that could never be admitted is kInvalidArgument); key non-empty.
  Result<Decision> Take(std::string_view key, const Limit& limit, std::int64_t cost = 1,
                        bool dry_run = false);

  // The decision a Take of cost 1 would get, without changing anything.
  Result<Decision> Peek(std::string_view key, const Limit& limit);

  // Forgets key's state. True if there was any.
  Result<bool> Reset(std::string_view key);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cairn
