// The history of a lock-check run: one Event per command a client sent, with the instants it
// was sent and answered on the wall clock the server's leases also use (CLOCK_REALTIME, as
// std::chrono::system_clock), and what the reply said. Each client process writes its own
// events to a file, one line each, so that a client the pauser stops (SIGSTOP) loses nothing.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace cairn::lockcheck {

enum class Op {
  kAcquire,  // LEASE.ACQUIRE resource owner ttl [LIMIT n] [BLOCK ms]
  kExtend,   // LEASE.EXTEND resource token ttl
  kRelease,  // LEASE.RELEASE resource token
  kWrite,    // LEASE.FENCEDSET resource fencing key value
};

enum class Outcome {
  kOk,        // Acquired, extended, released, written.
  kBusy,      // Acquire: held by others (or BLOCK ran out).
  kNotOwner,  // Extend, release: -NOTOWNER.
  kStale,     // Write: -STALEFENCE (`issued` is the newer number the error named).
  kError,     // Any other reply: always a finding.
};

struct Event {
  int client = 0;
  Op op = Op::kAcquire;
  Outcome outcome = Outcome::kOk;
  int resource = 0;
  std::int64_t invoked_us = 0;   // Wall clock, just before the command was sent.
  std::int64_t answered_us = 0;  // Wall clock, just after its reply was read.
  // The lease the command acted for (acquire: the one it got; 0 when busy).
  std::int64_t fencing = 0;
  std::int64_t ttl_ms = 0;         // Acquire, extend: the TTL asked for.
  std::int64_t expires_at_ms = 0;  // Acquire: the expiry the server gave.
  std::int64_t issued = 0;         // Write refused as stale: the newer number the server named.
  std::string value;               // Write: the (unique) value; error: the reply.

  std::int64_t invoked_ms() const { return invoked_us / 1000; }
  std::int64_t answered_ms() const { return answered_us / 1000; }
};

const char* OpName(Op op);
const char* OutcomeName(Outcome outcome);

// One line per event; Parse reads what Format wrote (nullopt for a line it cannot read).
std::string Format(const Event& e);
std::optional<Event> Parse(const std::string& line);
// A short rendering for findings.
std::string Describe(const Event& e);

// Wall-clock microseconds.
std::int64_t NowUs();

}  // namespace cairn::lockcheck
