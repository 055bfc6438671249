#include "idempotency/settle_board.h"

#include <algorithm>

namespace cairn::internal {

SettleBoard::Registration::Registration(SettleBoard& board, std::string key, Wakeup* wakeup)
    : board_(board), key_(std::move(key)), wakeup_(wakeup) {
  std::lock_guard<std::mutex> lock(board_.mu_);
  board_.waiters_[key_].push_back(wakeup_);
}

SettleBoard::Registration::~Registration() {
  std::lock_guard<std::mutex> lock(board_.mu_);
  auto it = board_.waiters_.find(key_);
  if (it == board_.waiters_.end()) return;
  std::vector<Wakeup*>& list = it->second;
  list.erase(std::remove(list.begin(), list.end(), wakeup_), list.end());
  if (list.empty()) board_.waiters_.erase(it);
}

void SettleBoard::NotifyAll(const std::string& key) {
  // Holding mu_ keeps every registered Wakeup alive while it is notified: a Registration is
  // removed under mu_ before its Wakeup can go away.
  std::lock_guard<std::mutex> lock(mu_);
  auto it = waiters_.find(key);
  if (it == waiters_.end()) return;
  for (Wakeup* wakeup : it->second) wakeup->Notify();
}

}  // namespace cairn::internal
