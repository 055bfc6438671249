// StoreHealth: whether a store takes writes, and if not, why (Store::Health).
//
// A store stops taking writes when its storage fails — the disk is full, a write or an fsync
// failed (EIO), the file system went read-only — or when free disk space falls below
// Options::min_free_disk_bytes. Reads go on. The store tries again once a second and takes
// writes again on its own as soon as the cause is gone; before it does, it makes everything it
// had accepted durable (see docs/DURABILITY.md).
#pragma once

#include <cstdint>
#include <optional>

#include "cairn/status.h"

namespace cairn {

struct StoreHealth {
  // OK while the store takes writes; otherwise why not (kIOError). A write refused meanwhile
  // fails with this status.
  Status write_status;
  // When writes last stopped and last resumed, in ms since the Unix epoch by the store's
  // clock; 0 if they never did.
  std::int64_t stopped_at_ms = 0;
  std::int64_t resumed_at_ms = 0;
  // Times writes stopped since the store opened.
  std::uint64_t stops = 0;
  // Free space on the data directory's file system at the last check (once a second);
  // nullopt if the file system does not say.
  std::optional<std::uint64_t> free_disk_bytes;
  // Writes cannot resume while the store stays open, only after it is reopened: a write to the
  // write-ahead log failed while nothing was in memory to flush, and RocksDB 7.8 leaves a
  // failed log only by flushing into a new one. Rare: the store keeps something in memory
  // for this (Store::CheckHealth). Reads go on; reopening the store (restarting the server)
  // brings writes back.
  bool needs_reopen = false;

  bool writable() const { return write_status.ok(); }
};

}  // namespace cairn
