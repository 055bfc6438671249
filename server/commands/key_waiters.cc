#include "commands/key_waiters.h"

#include <algorithm>
#include <utility>

namespace cairn::server {

bool KeyWaiter::TakeWakeup() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(woken_, false);
}

void KeyWaiter::WaitUntil(std::chrono::steady_clock::time_point until) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_until(lock, until, [&] { return woken_ || interrupted_; });
}

void KeyWaiter::Interrupt() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    interrupted_ = true;
  }
  cv_.notify_all();
}

bool KeyWaiter::interrupted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return interrupted_;
}

bool KeyWaiter::Wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (woken_) return false;
    woken_ = true;
  }
  cv_.notify_all();
  return true;
}

void KeyWaiters::Add(const std::shared_ptr<KeyWaiter>& waiter) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::string& key : waiter->keys()) by_key_[KeyHash(key)].push_back(waiter);
  waiting_.fetch_add(1, std::memory_order_release);
}

void KeyWaiters::Remove(const std::shared_ptr<KeyWaiter>& waiter) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& key : waiter->keys()) {
      auto it = by_key_.find(KeyHash(key));
      if (it == by_key_.end()) continue;
      std::erase(it->second, waiter);
      if (it->second.empty()) by_key_.erase(it);
    }
    waiting_.fetch_sub(1, std::memory_order_release);
  }
  if (waiter->TakeWakeup()) Signal(waiter->keys());
}

void KeyWaiters::SignalSlow(std::size_t key_hash) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_key_.find(key_hash);
  if (it == by_key_.end()) return;
  for (const std::shared_ptr<KeyWaiter>& waiter : it->second) {
    if (waiter->Wake()) return;
  }
}

}  // namespace cairn::server
