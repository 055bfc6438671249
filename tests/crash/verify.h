// Reading back everything a mode's model expects, after a restart, and judging it.
//
// Strict (after a process crash in any mode, or a power cut under `always`): every
// acknowledged write is there. Each entity must hold its modelled state, or, if an op on it was
// in flight, the state that op would have left. After a power cut, "acknowledged" means before
// the POWERCUT was sent (KillPoint); a later acknowledgement counts as in flight.
//
// Lossy (a power cut under `everysec` or `none`, which may lose recent writes): nothing is
// required to survive past the last verification, but what is there must make sense. Each
// entity must hold a state it had since then, and all entities of one client thread must hold
// the states after one same prefix of that thread's ops (one cut point explains them all: no
// later write survived where an earlier one was lost; a MULTI or a script is all or nothing).
//
// Leases: the highest fencing number of each resource never goes below one acknowledged
// (strict); after any restart, new fencing numbers must be above what the store shows.
// Queue jobs: an added, unacked job is present, with its payload, claimable by the group (not
// dead); a job whose ACK was acknowledged is finished; an acknowledged claim still holds its
// lease (strict).
//
// Afterwards the model holds what was found (ops of unknown outcome resolved), and every
// history starts over.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "crash/findings.h"
#include "crash/model.h"
#include "server/support/resp_client.h"

namespace cairn::crash {

// The kill the verification follows.
struct KillPoint {
  std::int64_t sent_ns = 0;  // when the killer started it (SteadyNs); 0: none (a clean stop)
  // Strict: acknowledgements that arrived before this instant must all be there. A simulated
  // power cut lets the server run on for a moment after the kill is sent, and an io thread may
  // still send the reply of a sync that the cut voided: a real machine without power sends
  // nothing. So for a power cut this is the instant the POWERCUT was sent (later replies
  // count as in flight); for a process crash, kNoCut.
  std::int64_t must_survive_before_ns = kNoCut;
};

struct VerifyStats {
  std::size_t entities = 0;       // keys, pairs, records and jobs compared
  std::size_t resolved = 0;       // ops of unknown outcome resolved
  std::size_t applied = 0;        // … of which had happened
  std::size_t late_lost = 0;      // acknowledged after the POWERCUT was sent, and not there
  std::vector<std::string> late;  // which (the first few)
  std::size_t rolled_back = 0;    // lossy: found older than their last acknowledged state
};

// False if the connection failed (a finding says so).
bool Verify(test::RespClient& client, ModeModel& mode, bool strict, const KillPoint& kill,
            Findings& findings, VerifyStats* stats);

}  // namespace cairn::crash
