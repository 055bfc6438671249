#include "scripting/script_cache.h"

namespace cairn::server::scripting {
namespace {

std::uint64_t NextEpoch() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1);
}

}  // namespace

ScriptCache::ScriptCache() : epoch_(NextEpoch()) {}

void ScriptCache::Add(const std::string& sha, std::string_view body, bool loaded) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, added] = bodies_.try_emplace(sha);
  if (added) {
    it->second.body = std::make_shared<const std::string>(body);
    it->second.loaded = loaded;
    body_bytes_ += body.size();
    if (!loaded) {
      eval_order_.push_back(sha);
      ++eval_count_;
      eval_bytes_ += body.size();
      EvictOldEvalScripts();
    }
  } else if (loaded && !it->second.loaded) {
    // SCRIPT LOAD of a script EVAL added: it stays from now on. Its name stays in the order
    // until eviction reaches it, which then skips it.
    it->second.loaded = true;
    --eval_count_;
    eval_bytes_ -= it->second.body->size();
  }
}

void ScriptCache::EvictOldEvalScripts() {
  // The newest script stays whatever its size: the EVAL that added it is about to run it.
  while ((eval_count_ > kEvalScripts || eval_bytes_ > kEvalScriptBytes) && eval_count_ > 1) {
    const std::string oldest = std::move(eval_order_.front());
    eval_order_.pop_front();
    auto it = bodies_.find(oldest);
    if (it == bodies_.end() || it->second.loaded) continue;
    --eval_count_;
    eval_bytes_ -= it->second.body->size();
    body_bytes_ -= it->second.body->size();
    bodies_.erase(it);
    evictions_.fetch_add(1, std::memory_order_release);
  }
}

std::shared_ptr<const std::string> ScriptCache::Find(std::string_view sha) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = bodies_.find(std::string(sha));
  return it == bodies_.end() ? nullptr : it->second.body;
}

bool ScriptCache::Contains(std::string_view sha) const { return Find(sha) != nullptr; }

void ScriptCache::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  bodies_.clear();
  eval_order_.clear();
  eval_count_ = 0;
  eval_bytes_ = 0;
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
