// What every Queue over one store shares (StoreCore::Shared<QueueRuntime>): the enqueue
// sequence, the registry of waiting claimers, one claim mutex per group, and per group the
// hint of where its claim index may start.
//
// Why the hint: a claim takes the first entries of its group's claim index and deletes them,
// so the front of the index fills with tombstones until compaction. Seeking from the prefix
// every time would step over all of them. Instead each group remembers a position before
// which it holds no live entry. Claims raise it to where they stopped; every write that adds
// an entry lowers it after its commit. A claim that raced with such a write keeps the lower
// of the two (the epoch tells), so an entry is never hidden. Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "storage/monotonic_counter.h"
#include "util/wakeup_registry.h"

namespace cairn::internal {

class StoreCore;

class ReadyHints {
 public:
  struct Snapshot {
    std::string start;  // Index position (queue_keys.h) to seek to; "" = the beginning.
    std::uint64_t epoch = 0;
  };
  // Greater than every index position.
  static const std::string& End();

  Snapshot Begin(const std::string& scope);
  // A claim that began at `snapshot` found nothing live before `position`.
  void Raise(const std::string& scope, const Snapshot& snapshot, const std::string& position);
  // A committed write added an entry at `position`.
  void Lower(const std::string& scope, const std::string& position);

 private:
  struct Hint {
    std::string start;
    std::uint64_t epoch = 0;
  };
  std::mutex mu_;
  std::unordered_map<std::string, Hint> hints_;
};

class QueueRuntime {
 public:
  explicit QueueRuntime(StoreCore& core);

  MonotonicCounter& sequence() { return sequence_; }
  WakeupRegistry& waiters() { return waiters_; }
  ReadyHints& hints() { return hints_; }
  // Claims of one group run one at a time in this process: they would otherwise all lock
  // the same first rows of the index and wait on each other inside RocksDB.
  std::mutex& ClaimMutex(const std::string& scope);

 private:
  MonotonicCounter sequence_;
  WakeupRegistry waiters_;
  ReadyHints hints_;
  std::mutex mu_;
  std::unordered_map<std::string, std::unique_ptr<std::mutex>> claim_mutexes_;
};

}  // namespace cairn::internal
