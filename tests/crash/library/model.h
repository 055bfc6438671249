// The parent's expected state of the library-mode run, built only from the child's lines.
//
// Each child thread owns its entities (keys, pairs, leases, jobs, idempotency records; see
// protocol.h), so each entity's history is the thread's sequence of calls on it. An entity
// holds its state as the last verification found it (the base) and, for the current cycle,
// one Step per call that changed or may have changed it: the call's sequence number and the
// state it left. A call in flight at the kill is a Step too (acked false): whether it happened
// is for the verification to find out.
//
// While lines arrive, every answer the library gave is checked against the history (a Delete
// says whether the key existed, a pop returns the head, a claim delivers a live job, a repeated
// idempotency claim returns the stored outcome, a fencing number is above every one before).
//
// States are canonical strings, compared with what the store holds after the restart:
//   string: the value or "-"          pair: "<a>|<b>"            hash: "f0=v,f3=v" or "-"
//   set: "m1,m4" or "-"               list: "v,v,v" or "-"       lease: the highest fencing
//   idempotency record: "none", "in_progress" or "completed|<body>"
//   job: "absent", "live" (added, not acked), "done" (acked) or "dead" (never expected)
//   sorted set: "m1=2.5,m4=-3" (by member) or "-"   stream: "3-17=v2.16,4-2=v3.1" or "-"
//   rate limit bucket: the tokens taken since its last reset ("0": none, no row)
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "crash/findings.h"
#include "crash/library/protocol.h"

namespace cairn::crash::library {

enum class Kind {
  kString,
  kPair,
  kHash,
  kSet,
  kList,
  kLease,
  kIdem,
  kJob,
  kZSet,
  kStream,
  kBucket
};

// What an entity may hold after a call: a state, or, for a lease acquisition whose answer never
// came, any fencing number above `fence_above`.
struct Expect {
  std::string state;
  std::int64_t fence_above = -1;  // >= 0: the wildcard

  bool Matches(const std::string& found) const;
  std::string Text() const;
};

// An idempotency record is read back after this many restarts (each mode's, with the default
// rotation), then forgotten: no later call touches it, and the model stays small.
inline constexpr int kRecordVerifications = 3;

struct Step {
  std::uint32_t seq = 0;
  Expect after;
  bool acked = true;
};

struct Entity {
  Kind kind = Kind::kString;
  std::string base;         // as the last verification found it
  std::vector<Step> steps;  // this cycle's, in order
  int verifications = 0;    // restarts it was read back after

  // The state after the last acknowledged call.
  const std::string& Current() const { return steps.empty() ? base : steps.back().after.state; }
};

struct ThreadModel {
  std::map<std::string, Entity> entities;  // by name (s0, p1, j12.40, …)
  std::set<std::string> done_jobs;         // verified acked, and forgotten from entities
  std::uint32_t last_seq = 0;              // this cycle's last announced call
  std::uint32_t last_acked = 0;            // … and last acknowledged one
  std::vector<std::string> pending;        // the words of the call announced and not answered
  std::uint64_t acked = 0;                 // acknowledged calls this cycle
};

class Model {
 public:
  explicit Model(int threads);

  // A new child: sequence numbers start over.
  void StartCycle();
  // One line of the child. `killed`: the parent has started the kill (a failed call before
  // that is a finding).
  void Apply(const Line& line, bool killed, Findings& findings);
  // The child is gone: every call announced and not answered is in flight.
  void EndCycle();

  std::vector<ThreadModel>& threads() { return threads_; }
  std::uint64_t acked() const;
  std::uint64_t in_flight() const;
  // Every fencing number issued from now on must be above this (raised by verifications).
  std::int64_t fence_floor = 0;
  // The highest fencing number acknowledged so far.
  std::int64_t fence_acked = 0;

 private:
  // Adds the effect of call `words` of thread t, answered `answer` (nullptr: in flight), and
  // checks the answer.
  void Effect(int t, std::uint32_t seq, const std::vector<std::string>& words,
              const std::vector<std::string>* answer, Findings& findings);

  std::vector<ThreadModel> threads_;
  std::set<std::int64_t> fences_;  // fencing numbers acknowledged this cycle
};

// The kind of an entity, from its name's first letter.
Kind KindOfName(const std::string& name);
// The state of an entity nothing was written to.
std::string EmptyState(Kind kind);

}  // namespace cairn::crash::library
