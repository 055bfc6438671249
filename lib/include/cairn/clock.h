// Clock: where Cairn reads the time, and how it waits for a time to come.
//
// Nothing in Cairn reads the wall clock directly: record expiry, the TTL compaction filters and
// every engine ask the Clock given in Options. Tests pass a ManualClock and move time by hand,
// so expiry and timed waits are tested without sleeping. Implementations must be thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>

namespace cairn {

// A doorbell for one waiting thread. Notify() from any thread ends the owner's current wait, or
// its next one if it is not waiting yet (a notification is remembered until a wait consumes it),
// so a waiter that registers its Wakeup before checking a condition never misses the event.
class Wakeup {
 public:
  void Notify();

  // For Clock implementations: blocks until notified, `expired()` is true, or real time reaches
  // `until`; consumes the notification and returns true if there was one.
  bool WaitFor(const std::function<bool()>& expired, std::chrono::steady_clock::time_point until);
  // For Clock implementations: makes a waiter re-check `expired()` now.
  void Poke();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool notified_ = false;
};

class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds since the Unix epoch. Expiry times in Cairn are absolute values of this clock.
  virtual std::int64_t NowMs() const = 0;

  // Blocks until `wakeup` is notified or this clock reaches deadline_ms. True if notified.
  // The default waits in real time, which suits any clock that moves with real time.
  virtual bool WaitUntil(Wakeup& wakeup, std::int64_t deadline_ms) const;
};

// The system's real-time clock.
class SystemClock final : public Clock {
 public:
  std::int64_t NowMs() const override;
};

// A shared SystemClock; the default for Options::clock.
std::shared_ptr<Clock> DefaultClock();

// A clock that moves only when told to. Waits end when Set or Advance reach their deadline.
// Thread-safe.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(std::int64_t start_ms = 1'700'000'000'000) : now_ms_(start_ms) {}

  std::int64_t NowMs() const override { return now_ms_.load(std::memory_order_acquire); }
  bool WaitUntil(Wakeup& wakeup, std::int64_t deadline_ms) const override;

  void Set(std::int64_t now_ms);
  void Advance(std::int64_t delta_ms);

  // Threads currently blocked in WaitUntil (lets a test advance time once they are parked).
  std::size_t waiters() const;

 private:
  void PokeWaiters();

  std::atomic<std::int64_t> now_ms_;
  mutable std::mutex waiters_mu_;
  mutable std::set<Wakeup*> waiters_;
};

}  // namespace cairn
