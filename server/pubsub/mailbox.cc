#include "pubsub/mailbox.h"

#include <utility>

namespace cairn::server::pubsub {

bool Mailbox::OverLimit(std::size_t bytes, const OutputBufferLimit& limit, std::int64_t now_ms) {
  const auto n = static_cast<std::int64_t>(bytes);
  if (limit.hard_bytes > 0 && n >= limit.hard_bytes) return true;
  if (limit.soft_bytes <= 0 || n < limit.soft_bytes) {
    soft_since_ms_ = -1;  // Back under it: the soft limit's clock starts again next time.
    return false;
  }
  if (soft_since_ms_ < 0) {
    soft_since_ms_ = now_ms;
    return false;
  }
  return now_ms - soft_since_ms_ > limit.soft_seconds * 1000;
}

bool Mailbox::Push(Message& message, const OutputBufferLimit& limit, std::int64_t now_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  if (closed_) return false;
  const std::string& frame = message.Frame(protocol_);
  if (OverLimit(unsent_ + frame.size(), limit, now_ms)) {
    closed_ = true;
    std::string().swap(queued_);  // The memory goes now, not when the connection closes.
    pending_.store(false, std::memory_order_relaxed);
    lock.unlock();
    overflow_();
    return false;
  }
  queued_ += frame;
  unsent_ += frame.size();
  pending_.store(true, std::memory_order_release);
  const bool wake = !std::exchange(woken_, true);
  lock.unlock();
  if (wake) wake_();
  return true;
}

void Mailbox::SetProtocol(int protocol) {
  std::lock_guard<std::mutex> lock(mu_);
  protocol_ = protocol;
}

bool Mailbox::TakeInto(std::string* out) {
  if (!pending_.load(std::memory_order_acquire)) return false;
  std::lock_guard<std::mutex> lock(mu_);
  woken_ = false;
  pending_.store(false, std::memory_order_relaxed);
  if (queued_.empty()) return false;
  taken_ += queued_.size();
  if (out->empty()) {
    out->swap(queued_);  // No copy; queued_ gets the empty buffer.
  } else {
    out->append(queued_);
    queued_.clear();
  }
  return true;
}

void Mailbox::Drop() {
  if (!pending_.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(mu_);
  woken_ = false;
  pending_.store(false, std::memory_order_relaxed);
  unsent_ -= queued_.size();
  queued_.clear();
}

void Mailbox::Sent() {
  if (taken_ == 0) return;  // Only the owner's thread changes taken_: no lock needed to look.
  std::lock_guard<std::mutex> lock(mu_);
  unsent_ -= taken_;
  taken_ = 0;
}

void Mailbox::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  std::string().swap(queued_);
  unsent_ = taken_ = 0;
  pending_.store(false, std::memory_order_relaxed);
}

}  // namespace cairn::server::pubsub
