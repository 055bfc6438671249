#include "scripting/script_cache.h"

namespace cairn::server::scripting {
namespace {

std::uint64_t NextEpoch() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1);
}

}  // namespace

ScriptCache::ScriptCache() : epoch_(NextEpoch()) {}

void ScriptCache::Add(const std::string& sha, std::string_view body) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, added] = bodies_.try_emplace(sha);
  if (added) {
    it->second = std::make_shared<const std::string>(body);
    body_bytes_ += body.size();
  }
}

std::shared_ptr<const std::string> ScriptCache::Find(std::string_view sha) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = bodies_.find(std::string(sha));
  return it == bodies_.end() ? nullptr : it->second;
}

bool ScriptCache::Contains(std::string_view sha) const { return Find(sha) != nullptr; }

void ScriptCache::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  bodies_.clear();
  body_bytes_ = 0;
  epoch_.store(NextEpoch(), std::memory_order_release);
}

std::size_t ScriptCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bodies_.size();
}

std::size_t ScriptCache::body_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return body_bytes_;
}

std::string NormalizeSha(std::string_view sha) {
  std::string out(sha);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace cairn::server::scripting
