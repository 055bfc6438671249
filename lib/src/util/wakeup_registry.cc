#include "util/wakeup_registry.h"

#include <algorithm>

namespace cairn::internal {

WakeupRegistry::Entry::Entry(WakeupRegistry& registry, std::string key, Wakeup* wakeup)
    : registry_(registry), key_(std::move(key)), wakeup_(wakeup) {
  std::lock_guard<std::mutex> lock(registry_.mu_);
  registry_.waiters_[key_].push_back(wakeup_);
}

WakeupRegistry::Entry::~Entry() {
  std::lock_guard<std::mutex> lock(registry_.mu_);
  auto it = registry_.waiters_.find(key_);
  if (it == registry_.waiters_.end()) return;
  std::deque<Wakeup*>& waiters = it->second;
  const bool was_first = !waiters.empty() && waiters.front() == wakeup_;
  waiters.erase(std::remove(waiters.begin(), waiters.end(), wakeup_), waiters.end());
  if (waiters.empty()) {
    registry_.waiters_.erase(it);
  } else if (was_first) {
    waiters.front()->Notify();
  }
}

bool WakeupRegistry::Entry::first() const {
  std::lock_guard<std::mutex> lock(registry_.mu_);
  auto it = registry_.waiters_.find(key_);
  return it != registry_.waiters_.end() && !it->second.empty() && it->second.front() == wakeup_;
}

void WakeupRegistry::NotifyAll(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = waiters_.find(key);
  if (it == waiters_.end()) return;
  for (Wakeup* wakeup : it->second) wakeup->Notify();
}

void WakeupRegistry::NotifyFirst(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = waiters_.find(key);
  if (it != waiters_.end() && !it->second.empty()) it->second.front()->Notify();
}

}  // namespace cairn::internal
