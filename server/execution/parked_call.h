// A blocking command that finds nothing to take now hands its connection a ParkedCall instead
// of a reply. The connection then runs no more of its commands (their replies must follow this
// one) and sends the parked call's reply when it comes.
//
// The wait is a waiter entry on the keyspace executor (key_waiters.h), holding no thread:
// BLPOP & co. and XREAD(GROUP) BLOCK (blocking.h), LEASE.ACQUIRE … BLOCK and QUEUE.CLAIM …
// BLOCK. It is served by the write that satisfies it before any other command runs, or at its
// retry time (a lease's expiry, a job falling due), or answered at its timeout.
//
// When the client goes away (or CLIENT KILL, or shutdown), the connection cancels the entry,
// so the wait ends at once instead of taking something for nobody.
#pragma once

#include <functional>
#include <string>
#include <utility>

#include "execution/key_waiters.h"

namespace cairn::server {

struct ParkedCall {
  // Takes the encoded reply; called once, on the executor.
  using Answer = std::function<void(std::string reply)>;
  // On the executor: starts the wait, which ends with one call of `answer` (unless cancelled
  // first), and returns the cancel, which the connection runs on the executor too.
  std::function<std::function<void()>(Answer answer)> start;
};

// The ParkedCall of a waiter entry: when the connection parks, `make` builds the entry around
// the client's answer and it joins `waiters`; the cancel takes it off again.
inline ParkedCall ParkAsWaiter(KeyWaiters& waiters,
                               std::function<KeyWaiters::Waiter(ParkedCall::Answer)> make) {
  ParkedCall parked;
  parked.start = [&waiters, make = std::move(make)](ParkedCall::Answer answer) {
    const KeyWaiters::Id id = waiters.Add(make(std::move(answer)));
    return std::function<void()>([&waiters, id] { waiters.Remove(id); });
  };
  return parked;
}

}  // namespace cairn::server
