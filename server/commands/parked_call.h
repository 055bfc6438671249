// A blocking command that finds nothing to take now hands its connection a ParkedCall instead
// of a reply. The connection then runs no more of its commands (their replies must follow this
// one) and sends the parked call's reply when it comes.
//
// Two forms. The commands that wait on keys (BLPOP & co., XREAD(GROUP) BLOCK: blocking.h) and
// LEASE.ACQUIRE … BLOCK set `start`: a waiter entry on the keyspace executor (key_waiters.h),
// no thread, served by the write that satisfies it before any other command runs.
// QUEUE.CLAIM … BLOCK sets `wait`, the library's own wait, run on a thread of its own
// (net/parked_threads.h), woken by the very write that satisfies it, or at the next due time.
//
// When the client goes away (or CLIENT KILL, or shutdown), the connection cancels the entry
// (or sets the stop flag and calls `wake`), so the wait ends at once instead of taking
// something for nobody.
#pragma once

#include <atomic>
#include <functional>
#include <string>

namespace cairn::server {

struct ParkedCall {
  // Takes the encoded reply; called once, on the executor.
  using Answer = std::function<void(std::string reply)>;
  // On the executor: starts the wait, which ends with one call of `answer` (unless cancelled
  // first), and returns the cancel, which the connection runs on the executor too.
  std::function<std::function<void()>(Answer answer)> start;

  // Or: waits as the command allows, or until `stop` is set, and returns the encoded reply.
  // Runs on a thread of its own: it may use the engines and the clock, not the session.
  std::function<std::string(const std::atomic<bool>& stop)> wait;
  // Makes a running `wait` look at its stop flag now. Callable from any thread.
  std::function<void()> wake;
};

}  // namespace cairn::server
