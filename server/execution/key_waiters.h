// The clients blocked on keys (BLPOP, BLMOVE, BZPOPMIN, XREAD BLOCK, XREADGROUP BLOCK, …):
// waiter entries, not threads. They live on the keyspace executor (net/server.h) and are used
// only on its thread, which is also the only thread that writes keys, so a write and the
// tries it allows never race.
//
// Every write command's keys are signalled once its writes are committed (the connection does
// it at the end of its execution phase: net/connection.cc), and the signal serves the waiters
// on those keys then and there, before the executor runs any other client's command — so the
// client a push wakes is the client that gets the element, as in Redis. On a key, takers are
// served oldest first for as long as their tries succeed (one LPUSH of three elements serves
// three BLPOPs); readers (XREAD), which take nothing, are each tried.
//
// Takers wait in lines: the waiters of one line take from the same pool, those of different
// lines from pools of their own, so a signal serves the takers of every line. BLPOP & co. share
// one line; XREADGROUP waits in its consumer group's line, since an entry one group delivers
// is still new to every other group.
//
// A served try may write keys others wait on (BLMOVE's destination); it signals them, and they
// are served after the current ones, still before anything else runs. Keys are known by their
// hashes, so that noting a write's keys allocates nothing; two keys that share a hash only
// cost a waiter a needless try. Each waiter has a deadline; Expire answers those past it, and
// the executor's timer calls it at NextDeadline (set_on_earlier_deadline).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cairn::server {

class KeyWaiters {
 public:
  using Clock = std::chrono::steady_clock;
  using Id = std::uint64_t;

  struct Waiter {
    std::vector<std::size_t> key_hashes;  // KeyHash of each key it waits on.
    // A served try removes what it found (BLPOP), so it is tried in its line's turn; false for
    // readers (XREAD), which leave it for everyone.
    bool takes = true;
    std::string line;  // The takers' line it waits in (see above).
    Clock::time_point deadline = Clock::time_point::max();
    // Tries to serve the client: true when it is done with — served, or answered otherwise
    // (an error) — and leaves; false to wait on.
    std::function<bool()> try_serve;
    // Its deadline passed: answers the client (it has left by then).
    std::function<void()> time_out;
    // When set: after a try that did not serve, when to try again without a signal (LEASE.ACQUIRE:
    // the holder's expiry), if before the deadline.
    std::function<Clock::time_point()> retry_at;
  };

  KeyWaiters() = default;
  KeyWaiters(const KeyWaiters&) = delete;
  KeyWaiters& operator=(const KeyWaiters&) = delete;

  static std::size_t KeyHash(std::string_view key) { return std::hash<std::string_view>()(key); }
  // Now plus `ms` as a deadline; none (max) for 0 or less, as BLOCK 0 and a timeout of 0 wait
  // without limit, and past what the clock can count (about 292 years).
  static Clock::time_point After(std::int64_t ms) {
    constexpr std::int64_t kLongest = 100LL * 365 * 24 * 3600 * 1000;  // A hundred years.
    if (ms <= 0 || ms > kLongest) return Clock::time_point::max();
    return Clock::now() + std::chrono::milliseconds(ms);
  }

  // Queues the waiter on each of its keys, behind those already there.
  Id Add(Waiter waiter);
  // Takes the waiter off its keys without answering it (its client went away); nothing if it
  // has left already.
  void Remove(Id id);

  // Whether a client waits on one of the keys.
  bool AnyWaitsOn(const std::vector<std::size_t>& key_hashes) const;

  // Writes to the keys were committed: serves the waiters they may satisfy (see above).
  void Signal(const std::vector<std::size_t>& key_hashes);
  void Signal(const std::vector<std::string>& keys);
  // Every key may have changed (FLUSHALL, FLUSHDB): every waiter tries again.
  void SignalAll();

  // Times out every waiter whose deadline is at or before `now`, and tries those whose retry
  // time has come.
  void Expire(Clock::time_point now);
  // The earliest deadline (or retry time) of a waiter; Clock::time_point::max() when none has one.
  Clock::time_point NextDeadline() const;
  // Called with a new waiter's deadline when it is earlier than every other (the executor arms
  // its timer for it).
  void set_on_earlier_deadline(std::function<void(Clock::time_point)> fn) {
    on_earlier_deadline_ = std::move(fn);
  }

  // How many clients are blocked on keys. Any thread.
  std::size_t waiting() const { return waiting_.load(std::memory_order_relaxed); }

 private:
  struct Line {
    std::string name;
    std::list<Id> takers;  // In arrival order.
  };
  struct Queue {
    std::vector<Line> lines;  // Few: usually one.
    std::list<Id> readers;
  };
  struct Entry {
    Waiter waiter;
    // Where it waits on each key: the key's hash and its place in that key's list.
    std::vector<std::pair<std::size_t, std::list<Id>::iterator>> places;
    std::multimap<Clock::time_point, Id>::iterator deadline;  // Its deadline or retry time.
  };

  // Files the entry under the earlier of its deadline and its retry time (not before
  // `not_before`), and tells on_earlier_deadline_ when that is the earliest.
  void Schedule(Entry& entry, Id id, Clock::time_point not_before);

  void Serve(std::size_t key_hash);
  // Tries the waiter; true when it has left (served, answered, or gone already).
  bool TryOne(Id id);
  std::list<Id>* ListOf(std::size_t key_hash, bool takes, const std::string& line);
  void Unlink(std::size_t key_hash, bool takes, const std::string& line,
              std::list<Id>::iterator place);

  std::unordered_map<Id, Entry> entries_;
  std::unordered_map<std::size_t, Queue> by_key_;
  std::multimap<Clock::time_point, Id> deadlines_;
  Id next_id_ = 1;
  std::deque<std::size_t> pending_;  // Keys signalled while serving, served next.
  bool serving_ = false;
  std::function<void(Clock::time_point)> on_earlier_deadline_;
  std::atomic<std::size_t> waiting_{0};
};

}  // namespace cairn::server
