#include "execution/scan_cursors.h"

#include <random>

namespace cairn::server {

std::uint64_t ScanCursors::Put(std::string resume_key) {
  std::lock_guard<std::mutex> lock(mu_);
  if (next_ == 0) {
    // Start at a random point so that cursors of an earlier run are not mistaken for ours.
    std::random_device rd;
    next_ = ((static_cast<std::uint64_t>(rd()) << 20) ^ rd()) | 1;
  }
  const std::uint64_t n = next_++;
  bytes_ += resume_key.size();
  keys_.emplace(n, std::move(resume_key));
  order_.push_back(n);
  while (order_.size() > kMaxEntries || (bytes_ > kMaxBytes && order_.size() > 1)) {
    auto it = keys_.find(order_.front());
    if (it != keys_.end()) {
      bytes_ -= it->second.size();
      keys_.erase(it);
    }
    order_.pop_front();
  }
  return n;
}

std::optional<std::string> ScanCursors::Get(std::uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = keys_.find(n);
  if (it == keys_.end()) return std::nullopt;
  return it->second;
}

}  // namespace cairn::server
