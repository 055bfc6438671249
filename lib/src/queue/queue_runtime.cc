#include "queue/queue_runtime.h"

#include "store_core.h"

namespace cairn::internal {

QueueRuntime::QueueRuntime(StoreCore& core)
    : sequence_(core.db(), core.cf(ColumnFamily::kMeta), "queue_seq", 4096) {}

std::mutex& QueueRuntime::ClaimMutex(const std::string& scope) {
  std::lock_guard<std::mutex> lock(mu_);
  std::unique_ptr<std::mutex>& mu = claim_mutexes_[scope];
  if (!mu) mu = std::make_unique<std::mutex>();
  return *mu;
}

}  // namespace cairn::internal
