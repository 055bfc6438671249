#include "queue/lease_deadlines.h"

namespace cairn::internal {

Status LeaseDeadlines::EnsureLoaded(
    const std::string& scope,
    const std::function<Status(const std::function<void(Entry)>&)>& load) {
  std::lock_guard<std::mutex> lock(mu_);
  if (groups_.count(scope) != 0) return Status::Ok();
  std::set<Entry> entries;
  Status s = load([&](Entry e) { entries.insert(e); });
  if (!s.ok()) return s;
  groups_.emplace(scope, std::move(entries));
  return Status::Ok();
}

bool LeaseDeadlines::Add(const std::string& scope, Entry entry) {
  std::lock_guard<std::mutex> lock(mu_);
  auto group = groups_.find(scope);
  if (group == groups_.end()) return false;
  return group->second.insert(entry).first == group->second.begin();
}

void LeaseDeadlines::Remove(const std::string& scope, Entry entry) {
  std::lock_guard<std::mutex> lock(mu_);
  auto group = groups_.find(scope);
  if (group != groups_.end()) group->second.erase(entry);
}

void LeaseDeadlines::SettledThrough(const std::string& scope, std::int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  auto group = groups_.find(scope);
  if (group == groups_.end()) return;
  std::set<Entry>& entries = group->second;
  entries.erase(entries.begin(), entries.lower_bound(Entry{now_ms + 1, 0}));
}

std::optional<std::int64_t> LeaseDeadlines::Earliest(const std::string& scope) {
  std::lock_guard<std::mutex> lock(mu_);
  auto group = groups_.find(scope);
  if (group == groups_.end() || group->second.empty()) return std::nullopt;
  return group->second.begin()->first;
}

}  // namespace cairn::internal
