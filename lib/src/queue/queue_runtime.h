// What every Queue over one store shares (StoreCore::Shared<QueueRuntime>): the enqueue
// sequence, the registry of waiting claimers, one claim mutex per group, and per group the
// hints of where its ready and lease indexes start and its lease deadlines. Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "queue/index_hints.h"
#include "queue/lease_deadlines.h"
#include "storage/monotonic_counter.h"
#include "util/wakeup_registry.h"

namespace cairn::internal {

class StoreCore;

class QueueRuntime {
 public:
  explicit QueueRuntime(StoreCore& core);

  MonotonicCounter& sequence() { return sequence_; }
  WakeupRegistry& waiters() { return waiters_; }
  IndexHints& ready_hints() { return ready_hints_; }
  IndexHints& lease_hints() { return lease_hints_; }
  LeaseDeadlines& leases() { return leases_; }
  // Claims of one group run one at a time in this process: they would otherwise all lock
  // the same first rows of the index and wait on each other inside RocksDB.
  std::mutex& ClaimMutex(const std::string& scope);

 private:
  MonotonicCounter sequence_;
  WakeupRegistry waiters_;
  IndexHints ready_hints_;
  IndexHints lease_hints_;
  LeaseDeadlines leases_;
  std::mutex mu_;
  std::unordered_map<std::string, std::unique_ptr<std::mutex>> claim_mutexes_;
};

}  // namespace cairn::internal
