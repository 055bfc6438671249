// Options for Store::Open.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "cairn/clock.h"
#include "cairn/result.h"

namespace cairn {

// When an acknowledged write becomes durable. Named after Redis's appendfsync choices.
enum class Durability {
  // fsync before a write is acknowledged. Concurrent writers share one fsync (group commit).
  kAlways,
  // Writes reach the operating system before they are acknowledged, so they survive a crash of
  // the process; a background thread fsyncs once a second, so a power loss costs at most ~1 s.
  kEverySec,
  // Writes reach the operating system before they are acknowledged (they survive a process
  // crash); the operating system decides when they reach the disk.
  kNone,
};

// "always", "everysec" or "none".
std::string_view DurabilityName(Durability durability);
// Parses "always" / "everysec" / "none" (case-insensitive); InvalidArgument otherwise.
Result<Durability> ParseDurability(std::string_view name);

struct Options {
  // Directory that holds the store's files. REQUIRED: must be non-empty.
  std::string data_dir;

  // Create the directory and an empty store when none exists. Default: true.
  bool create_if_missing = true;

  // Default: kEverySec.
  Durability durability = Durability::kEverySec;

  // Bytes of RocksDB block cache shared by all column families. Default: 64 MiB. Must be > 0.
  std::size_t block_cache_bytes = 64 * 1024 * 1024;

  // Bytes of memory for recently read keyspace rows, so that a hot key is read without a
  // RocksDB lookup (whose cost grows with the writes since the last flush). Every write keeps
  // it exact. Default: 32 MiB. 0 turns it off.
  std::size_t row_cache_bytes = 32 * 1024 * 1024;

  // How long a transaction waits for a key locked by another transaction before it fails with
  // kBusy. Default: 1000 ms. Must be in [1, 60000].
  std::int64_t lock_timeout_ms = 1000;

  // Source of time for expiry and the compaction filters. Default (null): DefaultClock().
  std::shared_ptr<Clock> clock;
};

}  // namespace cairn
