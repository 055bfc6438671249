// Where in-process duplicates wait for an idempotency key to settle. A waiter registers its
// Wakeup for a key before it looks at the record; whoever completes, fails, releases or deletes
// the record notifies every Wakeup registered for the key after the commit. Because a Wakeup
// remembers a notification, a settle between the look and the wait is not missed.
// Thread-safe.
#pragma once

#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cairn/clock.h"

namespace cairn::internal {

class SettleBoard {
 public:
  // Registers wakeup for key for the lifetime of this object.
  class Registration {
   public:
    Registration(SettleBoard& board, std::string key, Wakeup* wakeup);
    ~Registration();
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;

   private:
    SettleBoard& board_;
    std::string key_;
    Wakeup* wakeup_;
  };

  void NotifyAll(const std::string& key);

 private:
  std::mutex mu_;
  std::unordered_map<std::string, std::vector<Wakeup*>> waiters_;
};

}  // namespace cairn::internal
