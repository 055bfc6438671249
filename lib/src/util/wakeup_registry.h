// Threads waiting on named things (an idempotency key to settle, a lease to free), in arrival
// order. A waiter registers its Wakeup for a key (an Entry) before it looks at the state it
// waits on; whoever changes that state notifies the key's waiters after the commit — all of
// them (NotifyAll) or the first (NotifyFirst). Because a Wakeup remembers a notification, a
// change between the look and the wait is not missed. When the first waiter leaves, the next
// one is woken, so a queue served one at a time never stalls. Thread-safe.
#pragma once

#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>

#include "cairn/clock.h"

namespace cairn::internal {

class WakeupRegistry {
 public:
  // Registers wakeup for key for the lifetime of this object, behind earlier entries.
  class Entry {
   public:
    Entry(WakeupRegistry& registry, std::string key, Wakeup* wakeup);
    ~Entry();  // Leaves; wakes the next waiter if this one was first.
    Entry(const Entry&) = delete;
    Entry& operator=(const Entry&) = delete;

    // True while no earlier entry for the key remains.
    bool first() const;

   private:
    WakeupRegistry& registry_;
    std::string key_;
    Wakeup* wakeup_;
  };

  void NotifyAll(const std::string& key);
  void NotifyFirst(const std::string& key);

 private:
  // Under mu_, so no Wakeup is destroyed while notified: an Entry leaves under mu_ first.
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::deque<Wakeup*>> waiters_;
};

}  // namespace cairn::internal
