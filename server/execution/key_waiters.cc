#include "execution/key_waiters.h"

#include <algorithm>

namespace cairn::server {

KeyWaiters::Id KeyWaiters::Add(Waiter waiter) {
  const Id id = next_id_++;
  Entry& entry = entries_[id];
  entry.waiter = std::move(waiter);
  const Waiter& w = entry.waiter;
  std::vector<std::size_t> hashes = w.key_hashes;
  // A key named twice (BLPOP k k) waits once.
  std::sort(hashes.begin(), hashes.end());
  hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
  for (std::size_t hash : hashes) {
    Queue& queue = by_key_[hash];
    std::list<Id>* list = &queue.readers;
    if (w.takes) {
      auto line = std::find_if(queue.lines.begin(), queue.lines.end(),
                               [&](const Line& l) { return l.name == w.line; });
      if (line == queue.lines.end()) line = queue.lines.insert(queue.lines.end(), Line{w.line, {}});
      list = &line->takers;
    }
    entry.places.emplace_back(hash, list->insert(list->end(), id));
  }
  Schedule(entry, id, Clock::time_point::min());
  waiting_.fetch_add(1, std::memory_order_relaxed);
  return id;
}

void KeyWaiters::Schedule(Entry& entry, Id id, Clock::time_point not_before) {
  Clock::time_point at = entry.waiter.deadline;
  if (entry.waiter.retry_at) at = std::min(at, std::max(entry.waiter.retry_at(), not_before));
  const bool earliest = deadlines_.empty() || at < deadlines_.begin()->first;
  entry.deadline = deadlines_.emplace(at, id);
  if (earliest && at != Clock::time_point::max() && on_earlier_deadline_) on_earlier_deadline_(at);
}

void KeyWaiters::Unlink(std::size_t key_hash, bool takes, const std::string& line,
                        std::list<Id>::iterator place) {
  auto queue = by_key_.find(key_hash);
  if (queue == by_key_.end()) return;
  Queue& q = queue->second;
  if (takes) {
    auto l =
        std::find_if(q.lines.begin(), q.lines.end(), [&](const Line& x) { return x.name == line; });
    if (l == q.lines.end()) return;
    l->takers.erase(place);
    if (l->takers.empty()) q.lines.erase(l);
  } else {
    q.readers.erase(place);
  }
  if (q.lines.empty() && q.readers.empty()) by_key_.erase(queue);
}

void KeyWaiters::Remove(Id id) {
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  Entry& entry = it->second;
  for (const auto& [hash, place] : entry.places) {
    Unlink(hash, entry.waiter.takes, entry.waiter.line, place);
  }
  deadlines_.erase(entry.deadline);
  entries_.erase(it);
  waiting_.fetch_sub(1, std::memory_order_relaxed);
}

std::list<KeyWaiters::Id>* KeyWaiters::ListOf(std::size_t key_hash, bool takes,
                                              const std::string& line) {
  auto queue = by_key_.find(key_hash);
  if (queue == by_key_.end()) return nullptr;
  if (!takes) return &queue->second.readers;
  for (Line& l : queue->second.lines) {
    if (l.name == line) return &l.takers;
  }
  return nullptr;
}

bool KeyWaiters::TryOne(Id id) {
  auto it = entries_.find(id);
  if (it == entries_.end()) return true;
  // Copied: a try may signal keys, but never adds or removes waiters itself; the copy keeps
  // the callable alive should the entry go while it runs.
  const std::function<bool()> try_serve = it->second.waiter.try_serve;
  if (!try_serve()) {
    // Its retry time may have moved (a new holder's expiry).
    it = entries_.find(id);
    if (it != entries_.end() && it->second.waiter.retry_at) {
      deadlines_.erase(it->second.deadline);
      // Not now again: a retry time already past waits for the clock to move on.
      Schedule(it->second, id, Clock::now() + std::chrono::milliseconds(1));
    }
    return false;
  }
  Remove(id);
  return true;
}

void KeyWaiters::Serve(std::size_t key_hash) {
  auto queue = by_key_.find(key_hash);
  if (queue == by_key_.end()) return;
  // The lists change as waiters leave: walk copies, and look each list up again.
  const std::vector<Id> readers(queue->second.readers.begin(), queue->second.readers.end());
  std::vector<std::string> lines;
  for (const Line& l : queue->second.lines) lines.push_back(l.name);
  for (Id id : readers) TryOne(id);
  for (const std::string& line : lines) {
    while (true) {
      std::list<Id>* takers = ListOf(key_hash, true, line);
      if (takers == nullptr || takers->empty()) break;
      // The oldest first; once one finds nothing, those behind it would find nothing either.
      if (!TryOne(takers->front())) break;
    }
  }
}

bool KeyWaiters::AnyWaitsOn(const std::vector<std::size_t>& key_hashes) const {
  if (entries_.empty()) return false;
  for (std::size_t hash : key_hashes) {
    if (by_key_.count(hash) > 0) return true;
  }
  return false;
}

void KeyWaiters::Signal(const std::vector<std::size_t>& key_hashes) {
  if (entries_.empty()) return;
  pending_.insert(pending_.end(), key_hashes.begin(), key_hashes.end());
  if (serving_) return;  // The outer Signal serves them next.
  serving_ = true;
  while (!pending_.empty()) {
    const std::size_t hash = pending_.front();
    pending_.pop_front();
    Serve(hash);
  }
  serving_ = false;
}

void KeyWaiters::Signal(const std::vector<std::string>& keys) {
  if (entries_.empty()) return;
  std::vector<std::size_t> hashes;
  hashes.reserve(keys.size());
  for (const std::string& key : keys) hashes.push_back(KeyHash(key));
  Signal(hashes);
}

void KeyWaiters::SignalAll() {
  std::vector<std::size_t> hashes;
  hashes.reserve(by_key_.size());
  for (const auto& [hash, queue] : by_key_) hashes.push_back(hash);
  Signal(hashes);
}

void KeyWaiters::Expire(Clock::time_point now) {
  // The entries due now; a retry that does not serve files itself later (TryOne).
  std::vector<Id> due;
  for (auto it = deadlines_.begin(); it != deadlines_.end() && it->first <= now; ++it) {
    due.push_back(it->second);
  }
  for (Id id : due) {
    auto it = entries_.find(id);
    if (it == entries_.end()) continue;  // Served by an earlier one's try.
    if (it->second.waiter.deadline <= now) {
      std::function<void()> time_out = std::move(it->second.waiter.time_out);
      Remove(id);
      if (time_out) time_out();
    } else {
      TryOne(id);
    }
  }
}

KeyWaiters::Clock::time_point KeyWaiters::NextDeadline() const {
  return deadlines_.empty() ? Clock::time_point::max() : deadlines_.begin()->first;
}

}  // namespace cairn::server
