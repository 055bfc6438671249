#include "queue/index_hints.h"

#include <algorithm>

namespace cairn::internal {

const std::string& IndexHints::End() {
  static const std::string end(17, '\xff');  // Positions are 16 bytes.
  return end;
}

IndexHints::Snapshot IndexHints::Begin(const std::string& scope) {
  std::lock_guard<std::mutex> lock(mu_);
  const Hint& hint = hints_[scope];
  return {hint.start, hint.epoch};
}

void IndexHints::Raise(const std::string& scope, const Snapshot& snapshot,
                       const std::string& position) {
  std::lock_guard<std::mutex> lock(mu_);
  Hint& hint = hints_[scope];
  // Writes since the snapshot may have added entries the scan did not see; they lowered the
  // hint already, so only move it down.
  hint.start = hint.epoch == snapshot.epoch ? position : std::min(hint.start, position);
}

void IndexHints::Lower(const std::string& scope, const std::string& position) {
  std::lock_guard<std::mutex> lock(mu_);
  Hint& hint = hints_[scope];
  hint.start = std::min(hint.start, position);
  ++hint.epoch;
}

}  // namespace cairn::internal
