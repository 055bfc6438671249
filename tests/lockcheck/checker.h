// Checks a lock-check history (history.h) against what leases and fenced writes promise. Only
// what the history proves counts; every bound below is sound on one shared wall clock:
//
//   - a command ran on the server at some instant between its invoked and answered times;
//   - an acquisition's instant is exact: the server gave expires_at_ms = its now + ttl_ms;
//   - a lease is surely held from that instant until its expiry (at least: the last
//     successful LEASE.EXTEND's invoked time + its TTL, or the acquisition's expiry), or, when
//     released with OK, until at least the release was invoked.
//
// Findings (each a broken promise):
//   exclusion   — more holders of a resource at once than its limit (1 for a lease);
//   fencing     — a fencing number issued twice, or not greater than one issued by an
//                 acquisition that had finished before this one began, or an acquisition at an
//                 earlier instant with a larger number;
//   stale write — LEASE.FENCEDSET accepted after a newer number for its resource had been
//                 issued to an acquisition that had answered before the write was sent;
//   wrong refusal — a write refused as stale naming a number no acquisition of that resource
//                 got, or one that began only after the refusal; an EXTEND or RELEASE refused
//                 (NOTOWNER) while its lease could not yet have expired;
//   lost write  — a resource's data key at the end is not the last accepted write of its
//                 newest writer;
//   error       — any reply the protocol does not allow.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lockcheck/history.h"

namespace cairn::lockcheck {

struct CheckStats {
  std::int64_t acquisitions = 0;  // Acquired: each is a holder checked for overlap.
  std::int64_t busy = 0;
  std::int64_t extends = 0;
  std::int64_t releases = 0;
  std::int64_t not_owner = 0;  // EXTEND/RELEASE refused: a holder that had lost its lease.
  std::int64_t writes = 0;     // Accepted fenced writes.
  std::int64_t stale_refused = 0;
  std::int64_t most_holders_at_once = 0;  // Over all resources, from the sure intervals.
};

struct CheckResult {
  CheckStats stats;
  std::vector<std::string> findings;
};

struct ResourceSpec {
  int limit = 1;                     // LEASE.ACQUIRE … LIMIT (1: a lease).
  std::optional<std::string> final;  // Its data key's value read at the end (nullopt: nil).
};

// `resources[i]` describes resource i; events may come in any order.
CheckResult Check(const std::vector<Event>& events, const std::vector<ResourceSpec>& resources);

}  // namespace cairn::lockcheck
