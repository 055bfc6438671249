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

KeyWaiters::Line& KeyWaiters::Queue::LineOf(const std::string& name) {
  for (Line& line : lines) {
    if (line.name == name) return line;
  }
  return lines.emplace_back(Line{name, {}});
}

void KeyWaiters::Add(const std::shared_ptr<KeyWaiter>& waiter) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::string& key : waiter->keys()) {
    Queue& queue = by_key_[KeyHash(key)];
    if (waiter->takes()) {
      queue.LineOf(waiter->line()).takers.push_back(waiter);
    } else {
      queue.readers.push_back(waiter);
    }
  }
  waiting_.fetch_add(1, std::memory_order_release);
}

void KeyWaiters::Remove(const std::shared_ptr<KeyWaiter>& waiter) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& key : waiter->keys()) {
      auto it = by_key_.find(KeyHash(key));
      if (it == by_key_.end()) continue;
      Queue& queue = it->second;
      if (waiter->takes()) {
        Line& line = queue.LineOf(waiter->line());
        std::erase(line.takers, waiter);
        if (line.takers.empty()) {
          std::erase_if(queue.lines, [](const Line& l) { return l.takers.empty(); });
        }
      } else {
        std::erase(queue.readers, waiter);
      }
      if (queue.lines.empty() && queue.readers.empty()) by_key_.erase(it);
    }
    waiting_.fetch_sub(1, std::memory_order_release);
  }
  // A reader's leaving frees nothing for the others, whom the same signals woke; a taker's
  // may leave something for the next in its line.
  if (!waiter->takes() || waiting_.load(std::memory_order_acquire) == 0) return;
  for (const std::string& key : waiter->keys()) SignalSlow(KeyHash(key), &waiter->line());
}

void KeyWaiters::SignalSlow(std::size_t key_hash, const std::string* line) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_key_.find(key_hash);
  if (it == by_key_.end()) return;
  for (const Line& l : it->second.lines) {
    if (line != nullptr && l.name != *line) continue;
    if (!l.takers.empty()) l.takers.front()->Wake();
  }
  if (line != nullptr) return;
  for (const std::shared_ptr<KeyWaiter>& reader : it->second.readers) reader->Wake();
}

void KeyWaiters::SignalAll() {
  if (waiting_.load(std::memory_order_acquire) == 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [hash, queue] : by_key_) {
    for (const Line& l : queue.lines) {
      if (!l.takers.empty()) l.takers.front()->Wake();
    }
    for (const std::shared_ptr<KeyWaiter>& reader : queue.readers) reader->Wake();
  }
}

}  // namespace cairn::server
