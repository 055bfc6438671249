#include "execution/watch_registry.h"

namespace cairn::server {

std::uint64_t WatchRegistry::Watch(std::string_view key) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry& e = keys_[std::string(key)];
  if (e.watchers++ == 0) followed_.fetch_add(1, std::memory_order_acq_rel);
  return e.version;
}

void WatchRegistry::Unwatch(std::string_view key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = keys_.find(std::string(key));
  if (it == keys_.end()) return;
  if (--it->second.watchers == 0) {
    keys_.erase(it);
    followed_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

std::uint64_t WatchRegistry::Version(std::string_view key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = keys_.find(std::string(key));
  return it == keys_.end() ? 0 : it->second.version;
}

void WatchRegistry::TouchSlow(std::string_view key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = keys_.find(std::string(key));
  if (it != keys_.end()) ++it->second.version;
}

void WatchRegistry::TouchAll() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [key, entry] : keys_) ++entry.version;
}

}  // namespace cairn::server
