#include "storage/keyspace_gate.h"

#include <algorithm>
#include <string>

namespace cairn::internal {

Status KeyspaceGate::Enter() {
  if (open_) return Status::Ok();
  const std::thread::id me = std::this_thread::get_id();
  std::unique_lock<std::mutex> lock(mu_);
  if (depth_ > 0 && holder_ == me) {
    ++depth_;
    return Status::Ok();
  }
  if (depth_ == 0 && queue_.empty()) {
    holder_ = me;
    depth_ = 1;
    return Status::Ok();
  }
  Waiter waiter{me};
  queue_.push_back(&waiter);
  if (admitted_.wait_for(lock, timeout_, [&] { return waiter.admitted; })) return Status::Ok();
  queue_.erase(std::find(queue_.begin(), queue_.end(), &waiter));
  return Status::Busy("the keyspace was held by another thread for " +
                      std::to_string(timeout_.count()) +
                      " ms (Options::serialize_keyspace lets one thread in at a time)");
}

void KeyspaceGate::Leave() {
  if (open_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (--depth_ > 0) return;
  if (queue_.empty()) {
    holder_ = std::thread::id();
    return;
  }
  Waiter* next = queue_.front();
  queue_.pop_front();
  next->admitted = true;
  holder_ = next->thread;
  depth_ = 1;
  admitted_.notify_all();
}

Result<KeyspaceHold> KeyspaceHold::Enter(KeyspaceGate& gate) {
  if (!gate.serialized()) return KeyspaceHold();
  if (Status s = gate.Enter(); !s.ok()) return s;
  return KeyspaceHold(&gate);
}

}  // namespace cairn::internal
