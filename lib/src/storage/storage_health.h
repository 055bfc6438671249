// StorageHealth: whether the store takes writes now, and why not. Two causes stop them: a
// storage error RocksDB reported (its listener, below, tells us), and free disk space below
// Options::min_free_disk_bytes (measured by StoreCore's health check). Every commit asks
// writable() — an atomic load — before it writes.
#pragma once

#include <rocksdb/listener.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "cairn/clock.h"
#include "cairn/store_health.h"

namespace cairn::internal {

class StorageHealth {
 public:
  StorageHealth(std::shared_ptr<Clock> clock, std::uint64_t min_free_bytes,
                std::function<void(const StoreHealth&)> on_change);

  bool writable() const { return writable_.load(std::memory_order_acquire); }
  // OK, or why writes are refused.
  Status WriteStatus() const;
  // The same for a RocksDB write about to be made: OK (one atomic load when writable), or
  // IOError naming why.
  rocksdb::Status CheckWrite() const;
  StoreHealth Snapshot() const;
  // RocksDB reported an error that stops writes (and has not yet recovered from it).
  bool storage_failed() const;

  // RocksDB stopped writes on `cause`; `log_write` when it was a write (or fsync) of the
  // write-ahead log in the write path.
  void StorageFailed(const Status& cause, bool log_write);
  // The failure was a write of the write-ahead log (since the last recovery).
  bool log_failed() const;
  // Writes cannot resume until the store is reopened (StoreHealth::needs_reopen).
  void NeedsReopen();
  // RocksDB takes writes again.
  void StorageRecovered();
  // The free space just measured (nullopt: unknown, which does not trip the guard).
  void FreeSpaceMeasured(std::optional<std::uint64_t> free_bytes);
  std::uint64_t min_free_bytes() const { return min_free_bytes_; }

  // Reports RocksDB's background errors and recoveries to `health`.
  static std::shared_ptr<rocksdb::EventListener> NewListener(StorageHealth* health);

 private:
  // Recomputes writable_ after a change (mu_ held by `lock`); calls on_change_, unlocked, when
  // it flipped.
  void Changed(std::unique_lock<std::mutex>& lock);
  Status WriteStatusLocked() const;
  StoreHealth SnapshotLocked() const;

  const std::shared_ptr<Clock> clock_;
  const std::uint64_t min_free_bytes_;
  const std::function<void(const StoreHealth&)> on_change_;
  std::atomic<bool> writable_{true};
  mutable std::mutex mu_;
  Status storage_error_;
  bool log_failed_ = false;
  std::optional<std::uint64_t> free_bytes_;
  StoreHealth state_;  // write_status and free_disk_bytes are filled in by Snapshot.
};

}  // namespace cairn::internal
