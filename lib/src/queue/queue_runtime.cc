#include "queue/queue_runtime.h"

#include <algorithm>

#include "store_core.h"

namespace cairn::internal {

const std::string& ReadyHints::End() {
  static const std::string end(17, '\xff');  // Positions are 16 bytes.
  return end;
}

ReadyHints::Snapshot ReadyHints::Begin(const std::string& scope) {
  std::lock_guard<std::mutex> lock(mu_);
  const Hint& hint = hints_[scope];
  return {hint.start, hint.epoch};
}

void ReadyHints::Raise(const std::string& scope, const Snapshot& snapshot,
                       const std::string& position) {
  std::lock_guard<std::mutex> lock(mu_);
  Hint& hint = hints_[scope];
  // Writes since the snapshot may have added entries the claim did not see; they lowered
  // the hint already, so only move it down.
  hint.start = hint.epoch == snapshot.epoch ? position : std::min(hint.start, position);
}

void ReadyHints::Lower(const std::string& scope, const std::string& position) {
  std::lock_guard<std::mutex> lock(mu_);
  Hint& hint = hints_[scope];
  hint.start = std::min(hint.start, position);
  ++hint.epoch;
}

QueueRuntime::QueueRuntime(StoreCore& core)
    : sequence_(core.db(), core.cf(ColumnFamily::kMeta), "queue_seq", 4096) {}

std::mutex& QueueRuntime::ClaimMutex(const std::string& scope) {
  std::lock_guard<std::mutex> lock(mu_);
  std::unique_ptr<std::mutex>& mu = claim_mutexes_[scope];
  if (!mu) mu = std::make_unique<std::mutex>();
  return *mu;
}

}  // namespace cairn::internal
