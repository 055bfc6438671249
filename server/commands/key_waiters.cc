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
    std::lock_guard<std::mutex> no_try(try_mu_);
    std::lock_guard<std::mutex> lock(mu_);
    interrupted_ = true;
  }
  cv_.notify_all();
}

bool KeyWaiter::TryUnlessInterrupted(const std::function<void()>& attempt) {
  std::lock_guard<std::mutex> no_interrupt(try_mu_);
  if (interrupted()) return false;
  attempt();
  return true;
}

bool KeyWaiter::interrupted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return interrupted_;
}

void KeyWaiter::Wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    woken_ = true;
  }
  cv_.notify_all();
}

void KeyWaiters::Add(const std::shared_ptr<KeyWaiter>& waiter) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::string& key : waiter->keys()) {
    Queue& queue = by_key_[KeyHash(key)];
    waiter->takes() ? queue.takers.push_back(waiter) : queue.readers.push_back(waiter);
  }
  waiting_.fetch_add(1, std::memory_order_release);
}

void KeyWaiters::Remove(const std::shared_ptr<KeyWaiter>& waiter) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& key : waiter->keys()) {
      auto it = by_key_.find(KeyHash(key));
      if (it == by_key_.end()) continue;
      waiter->takes() ? std::erase(it->second.takers, waiter)
                      : std::erase(it->second.readers, waiter);
      if (it->second.takers.empty() && it->second.readers.empty()) by_key_.erase(it);
    }
    waiting_.fetch_sub(1, std::memory_order_release);
  }
  // A reader's leaving frees nothing for the others, whom the same signals woke.
  if (waiter->takes()) Signal(waiter->keys());
}

void KeyWaiters::SignalSlow(std::size_t key_hash) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_key_.find(key_hash);
  if (it == by_key_.end()) return;
  if (!it->second.takers.empty()) it->second.takers.front()->Wake();
  for (const std::shared_ptr<KeyWaiter>& reader : it->second.readers) reader->Wake();
}

}  // namespace cairn::server
