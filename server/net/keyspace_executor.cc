#include "net/keyspace_executor.h"

namespace cairn::server {

thread_local KeyspaceExecutor* KeyspaceExecutor::held_here_ = nullptr;
thread_local boost::asio::io_context* KeyspaceExecutor::this_thread_io_ = nullptr;

void KeyspaceExecutor::ServeOn(boost::asio::io_context* io) { this_thread_io_ = io; }

boost::asio::io_context& KeyspaceExecutor::ThisThreadIo() const {
  return this_thread_io_ != nullptr ? *this_thread_io_ : home_;
}

void KeyspaceExecutor::Post(std::function<void()> fn) {
  boost::asio::post(ThisThreadIo(),
                    [this, fn = std::move(fn)]() mutable { Dispatch(std::move(fn)); });
}

std::function<void()> KeyspaceExecutor::TakeQueuedLocked() {
  if (queue_.empty()) return nullptr;
  std::function<void()> next = std::move(queue_.front());
  queue_.pop_front();
  return next;
}

bool KeyspaceExecutor::RunOneQueued() {
  std::function<void()> next;
  {
    std::lock_guard<std::mutex> lock(mu_);
    next = TakeQueuedLocked();
  }
  if (!next) return false;
  next();
  return true;
}

void KeyspaceExecutor::RunQueuedAndLeave() {
  bool more_left = false;
  for (int ran = 0;; ++ran) {
    std::function<void()> next;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (ran < kTurnBudget) next = TakeQueuedLocked();
      if (!next) {
        more_left = !queue_.empty();
        held_ = false;
        break;
      }
    }
    next();
  }
  held_here_ = nullptr;
  // Whoever takes the turn next runs the rest; this makes sure somebody does.
  if (more_left) boost::asio::post(ThisThreadIo(), [this] { Dispatch([] {}); });
}

}  // namespace cairn::server
