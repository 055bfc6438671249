// The clients blocked on keys (BLPOP, BLMOVE, BZPOPMIN, …), and the wake-ups that writes to
// those keys send them.
//
// Every write command's keys are signalled once its writes are committed (the connection
// does it before sending the replies: net/connection.cc). A signal wakes the oldest waiter on
// the key, which then tries again in a transaction of its own; a waiter leaving the queue —
// served, timed out or gone — signals its keys in turn, so an element it did not take reaches
// the next waiter. Waiters are thus served in arrival order, and a write wakes one waiter
// (then one more per element taken), not all of them. Readers (XREAD), which take nothing,
// are the exception: a signal wakes every reader on the key besides the oldest taker, and a
// reader leaving signals nobody.
//
// Takers wait in lines: the waiters of one line take from the same pool, those of different
// lines from pools of their own, so a signal wakes the oldest taker of every line. BLPOP & co.
// share one line; XREADGROUP waits in its consumer group's line, since an entry one group
// delivers is still new to every other group.
//
// Keys are known by their hashes, so that noting a write's keys allocates nothing; two keys
// that share a hash only cost a waiter a needless try. No wake-up is lost: a waiter registers
// before its first try and clears its wake-up before each try, so a write committed after a
// try began leaves the wake-up set and the waiter tries again rather than sleeping.
// Thread-safe; a write with nobody waiting costs one atomic load.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cairn::server {

class KeyWaiter {
 public:
  // `takes`: a served try removes what it found (BLPOP), so the next waiter must not be
  // woken for it; false for readers (XREAD), which leave it for everyone.
  // `line`: the takers' line it waits in (see above).
  explicit KeyWaiter(std::vector<std::string> keys, bool takes = true, std::string line = {})
      : keys_(std::move(keys)), takes_(takes), line_(std::move(line)) {}

  const std::vector<std::string>& keys() const { return keys_; }
  bool takes() const { return takes_; }
  const std::string& line() const { return line_; }

  // Whether a wake-up arrived since the last call; clears it.
  bool TakeWakeup();
  // Sleeps until a wake-up, an interruption or `until`.
  void WaitUntil(std::chrono::steady_clock::time_point until);
  // Ends the wait for good (the client went away, CLIENT KILL, shutdown). Waits for a try
  // under way, so that once it returns no try can serve the client.
  void Interrupt();
  bool interrupted() const;
  // Runs a try unless the wait was interrupted; false when it was.
  bool TryUnlessInterrupted(const std::function<void()>& attempt);

 private:
  friend class KeyWaiters;
  void Wake();

  const std::vector<std::string> keys_;
  const bool takes_;
  const std::string line_;
  std::mutex try_mu_;  // Held by a try, and by Interrupt; taken before mu_.
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool woken_ = false;
  bool interrupted_ = false;
};

class KeyWaiters {
 public:
  // Queues the waiter on each of its keys, behind those already there.
  void Add(const std::shared_ptr<KeyWaiter>& waiter);
  // Takes the waiter off its keys and, if it takes, signals them for the waiters behind it in
  // its line.
  void Remove(const std::shared_ptr<KeyWaiter>& waiter);
  static std::size_t KeyHash(std::string_view key) { return std::hash<std::string_view>()(key); }
  // Writes to the keys (by KeyHash) were committed: wakes the oldest taker of each line and
  // every reader on each.
  void Signal(const std::vector<std::size_t>& key_hashes) {
    if (waiting_.load(std::memory_order_acquire) == 0) return;
    for (std::size_t hash : key_hashes) SignalSlow(hash);
  }
  void Signal(const std::vector<std::string>& keys) {
    if (waiting_.load(std::memory_order_acquire) == 0) return;
    for (const std::string& key : keys) SignalSlow(KeyHash(key));
  }
  // Every key may have changed (FLUSHALL, FLUSHDB): wakes the oldest taker of every line and
  // every reader, on every key, so that each tries again and finds out.
  void SignalAll();
  // How many clients are blocked on keys.
  std::size_t waiting() const { return waiting_.load(std::memory_order_relaxed); }

 private:
  // Wakes the oldest taker of `line` only, or of every line (nullptr) and every reader.
  void SignalSlow(std::size_t key_hash, const std::string* line = nullptr);

  std::atomic<std::size_t> waiting_{0};
  std::mutex mu_;
  struct Line {
    std::string name;
    std::deque<std::shared_ptr<KeyWaiter>> takers;  // In arrival order.
  };
  struct Queue {
    std::vector<Line> lines;  // Few: usually one.
    std::vector<std::shared_ptr<KeyWaiter>> readers;
    Line& LineOf(const std::string& name);
  };
  std::unordered_map<std::size_t, Queue> by_key_;
};

}  // namespace cairn::server
