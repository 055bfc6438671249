#include "lease/wait_queue.h"

#include <algorithm>

namespace cairn::internal {

WaitQueue::Ticket::Ticket(WaitQueue& queue, std::string resource, Wakeup* wakeup)
    : queue_(queue), resource_(std::move(resource)), wakeup_(wakeup) {
  std::lock_guard<std::mutex> lock(queue_.mu_);
  queue_.queues_[resource_].push_back(wakeup_);
}

WaitQueue::Ticket::~Ticket() {
  std::lock_guard<std::mutex> lock(queue_.mu_);
  auto it = queue_.queues_.find(resource_);
  if (it == queue_.queues_.end()) return;
  std::deque<Wakeup*>& waiters = it->second;
  const bool was_head = !waiters.empty() && waiters.front() == wakeup_;
  waiters.erase(std::remove(waiters.begin(), waiters.end(), wakeup_), waiters.end());
  if (waiters.empty()) {
    queue_.queues_.erase(it);
  } else if (was_head) {
    waiters.front()->Notify();
  }
}

bool WaitQueue::Ticket::at_head() const {
  std::lock_guard<std::mutex> lock(queue_.mu_);
  auto it = queue_.queues_.find(resource_);
  return it != queue_.queues_.end() && !it->second.empty() && it->second.front() == wakeup_;
}

void WaitQueue::NotifyHead(const std::string& resource) {
  // Under mu_, so the Wakeup cannot be destroyed while it is notified (a Ticket leaves the
  // queue under mu_ before its Wakeup goes away).
  std::lock_guard<std::mutex> lock(mu_);
  auto it = queues_.find(resource);
  if (it != queues_.end() && !it->second.empty()) it->second.front()->Notify();
}

}  // namespace cairn::internal
