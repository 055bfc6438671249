// In-process waiters for leased resources, in arrival order. A waiter takes a Ticket (joining
// the tail of its resource's queue) and only the head tries to acquire; when the head leaves,
// the next one is woken, and a release wakes the head. Thread-safe.
#pragma once

#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>

#include "cairn/clock.h"

namespace cairn::internal {

class WaitQueue {
 public:
  class Ticket {
   public:
    Ticket(WaitQueue& queue, std::string resource, Wakeup* wakeup);
    ~Ticket();  // Leaves the queue; wakes the next head if this was the head.
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;

    bool at_head() const;

   private:
    WaitQueue& queue_;
    std::string resource_;
    Wakeup* wakeup_;
  };

  // Wakes the first waiter for resource, if any.
  void NotifyHead(const std::string& resource);

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::deque<Wakeup*>> queues_;
};

}  // namespace cairn::internal
