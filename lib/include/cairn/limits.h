// The documented limits of the record store. Every operation checks its input against these
// before anything is written and answers kInvalidArgument with a message naming the limit.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cairn {

// Longest key, in bytes. Empty keys are allowed, as in Redis.
inline constexpr std::size_t kMaxKeyBytes = 64 * 1024;

// Largest value, in bytes. Smaller than Redis's 512 MiB because a value is one RocksDB value,
// written whole on every update; large blobs belong elsewhere.
inline constexpr std::size_t kMaxValueBytes = 64 * 1024 * 1024;

// Longest TTL, in milliseconds (100 years of 365 days). A TTL must also be positive.
inline constexpr std::int64_t kMaxTtlMs = 100LL * 365 * 24 * 60 * 60 * 1000;

// Largest count hint a single Scan call accepts.
inline constexpr std::size_t kMaxScanCount = 100'000;

// A Scan call visits at most count * kScanVisitFactor rows (expired ones included) before it
// returns, so a prefix full of expired records cannot make one call unbounded.
inline constexpr std::size_t kScanVisitFactor = 10;

}  // namespace cairn
