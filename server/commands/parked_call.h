// A blocking command (QUEUE.CLAIM … BLOCK, LEASE.ACQUIRE … BLOCK) that finds nothing to take
// now hands its connection a ParkedCall instead of a reply. The connection then runs no more
// of its commands (their replies must follow this one), runs `wait` on a thread of its own —
// a wait must not hold the io thread, which serves other connections — and sends what `wait`
// returns as the reply. The wait itself is the library's (Queue::Claim, LeaseManager::Acquire
// with a wait), so it is woken by the very write that satisfies it, or at the next due time.
//
// When the client goes away (or CLIENT KILL, or shutdown), the connection sets the stop flag
// and calls `wake`, so the wait ends at once instead of taking something for nobody.
#pragma once

#include <atomic>
#include <functional>
#include <string>

namespace cairn::server {

struct ParkedCall {
  // Waits as the command allows, or until `stop` is set, and returns the encoded reply. Runs
  // off the io thread: it may use the engines and the clock, not the session.
  std::function<std::string(const std::atomic<bool>& stop)> wait;
  // Makes a running `wait` look at its stop flag now. Callable from any thread.
  std::function<void()> wake;
};

}  // namespace cairn::server
