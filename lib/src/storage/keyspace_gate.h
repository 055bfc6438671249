// The turns threads take at the keyspace (the `records` and `members` column families) of a
// store opened with Options::serialize_keyspace. A call, or an open transaction from its
// begin to its commit or rollback, holds the gate; a thread that holds it may enter again
// (a call made while its own transaction is open). Others queue and are let in first come,
// first served: the thread that just left cannot overtake them, which matters when one
// thread (an event loop) takes the gate again the moment it leaves. Without
// serialize_keyspace the gate lets everyone through at once and costs nothing: row locks do
// the work.
//
// Why turns instead of row locks: a keyspace used from one thread at a time needs no row
// locks (RocksDB's lock table, taken and released for every key a transaction touches, was
// a tenth of the server's time under small scripts), and rows may be rewritten in place in
// the memtable (no reader can be in the middle of one), so a hot key keeps one memtable
// entry instead of adding a version per write.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

#include "cairn/result.h"
#include "cairn/status.h"

namespace cairn::internal {

class KeyspaceGate {
 public:
  // `caller_serializes` (Options::caller_serializes_keyspace): the program keeps the calls
  // from overlapping, from whichever threads; the gate then only says that the keyspace is
  // serialized (no row locks) and lets every Enter through.
  KeyspaceGate(bool serialized, bool caller_serializes, std::int64_t timeout_ms)
      : serialized_(serialized), open_(!serialized || caller_serializes), timeout_(timeout_ms) {}
  KeyspaceGate(const KeyspaceGate&) = delete;
  KeyspaceGate& operator=(const KeyspaceGate&) = delete;

  bool serialized() const { return serialized_; }

  // Waits for this thread's turn (at once when it holds the gate already). kBusy when another
  // thread held it for the whole timeout (Options::lock_timeout_ms, as for a row lock).
  Status Enter();
  // Ends one Enter. The last one of the holder lets the longest waiter in.
  void Leave();

 private:
  struct Waiter {
    std::thread::id thread;
    bool admitted = false;
  };

  const bool serialized_;
  const bool open_;  // Enter never waits: not serialized, or the caller serializes.
  const std::chrono::milliseconds timeout_;
  std::mutex mu_;
  std::condition_variable admitted_;
  std::thread::id holder_;
  int depth_ = 0;  // Enters of the holder not yet left; 0 when the gate is free.
  std::deque<Waiter*> queue_;
};

// One Enter of a gate, left when released or destroyed. Empty (holds nothing) when the gate
// is not serialized.
class KeyspaceHold {
 public:
  KeyspaceHold() = default;
  static Result<KeyspaceHold> Enter(KeyspaceGate& gate);

  KeyspaceHold(KeyspaceHold&& other) noexcept : gate_(std::exchange(other.gate_, nullptr)) {}
  KeyspaceHold& operator=(KeyspaceHold&& other) noexcept {
    if (this != &other) {
      Release();
      gate_ = std::exchange(other.gate_, nullptr);
    }
    return *this;
  }
  KeyspaceHold(const KeyspaceHold&) = delete;
  KeyspaceHold& operator=(const KeyspaceHold&) = delete;
  ~KeyspaceHold() { Release(); }

  void Release() {
    if (gate_ != nullptr) std::exchange(gate_, nullptr)->Leave();
  }

 private:
  explicit KeyspaceHold(KeyspaceGate* gate) : gate_(gate) {}
  KeyspaceGate* gate_ = nullptr;
};

}  // namespace cairn::internal
