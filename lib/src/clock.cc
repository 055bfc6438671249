#include "cairn/clock.h"

#include <algorithm>

namespace cairn {

void Wakeup::Notify() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    notified_ = true;
  }
  cv_.notify_all();
}

void Wakeup::Poke() {
  // Taking the mutex orders this call after a waiter's check of `expired()`: the waiter is
  // either about to check again or already waiting, so the notification is not lost.
  { std::lock_guard<std::mutex> lock(mu_); }
  cv_.notify_all();
}

bool Wakeup::WaitFor(const std::function<bool()>& expired,
                     std::chrono::steady_clock::time_point until) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_until(lock, until, [&] { return notified_ || expired(); });
  const bool was_notified = notified_;
  notified_ = false;
  return was_notified;
}

bool Clock::WaitUntil(Wakeup& wakeup, std::int64_t deadline_ms) const {
  // Loop because the clock may step backwards while we wait (then the deadline is not reached).
  while (true) {
    const std::int64_t remaining = deadline_ms - NowMs();
    if (remaining <= 0) return false;
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(remaining);
    if (wakeup.WaitFor([&] { return NowMs() >= deadline_ms; }, until)) return true;
  }
}

std::int64_t SystemClock::NowMs() const {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  return duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::shared_ptr<Clock> DefaultClock() {
  static const std::shared_ptr<Clock> clock = std::make_shared<SystemClock>();
  return clock;
}

bool ManualClock::WaitUntil(Wakeup& wakeup, std::int64_t deadline_ms) const {
  {
    std::lock_guard<std::mutex> lock(waiters_mu_);
    waiters_.insert(&wakeup);
  }
  const bool notified = wakeup.WaitFor([&] { return NowMs() >= deadline_ms; },
                                       std::chrono::steady_clock::time_point::max());
  std::lock_guard<std::mutex> lock(waiters_mu_);
  waiters_.erase(&wakeup);
  return notified;
}

void ManualClock::Set(std::int64_t now_ms) {
  now_ms_.store(now_ms, std::memory_order_release);
  PokeWaiters();
}

void ManualClock::Advance(std::int64_t delta_ms) {
  now_ms_.fetch_add(delta_ms, std::memory_order_acq_rel);
  PokeWaiters();
}

std::size_t ManualClock::waiters() const {
  std::lock_guard<std::mutex> lock(waiters_mu_);
  return waiters_.size();
}

void ManualClock::PokeWaiters() {
  // Holding waiters_mu_ keeps every registered Wakeup alive while it is poked: a waiter
  // unregisters (under this mutex) before its Wakeup can be destroyed.
  std::lock_guard<std::mutex> lock(waiters_mu_);
  for (Wakeup* wakeup : waiters_) wakeup->Poke();
}

}  // namespace cairn
