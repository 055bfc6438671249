// Reading back, through the library, everything the model expects after a kill, and judging it
// one thread at a time by cut points: cut c means "the thread's calls 1..c happened, the later
// ones did not". Each entity's found state allows the cuts at which the model says it held that
// state; the thread is consistent when one cut is allowed by all its entities.
//   strict (after SIGKILL in any mode, after a power cut under `always`): the cut may not lie
//     before the last acknowledged call, so every acknowledged call is there, and the call in
//     flight happened whole or not at all;
//   lossy (after a power cut under `everysec` or `none`): any cut since the last verification,
//     so what survived is a prefix of the thread's calls: nothing later survived where
//     something earlier was lost, and a transaction is all or nothing.
// Then the model takes what was found as the new base, forgets finished jobs and raises the
// fencing floor (the next fencing numbers must be above it) to the highest fencing number the
// store shows or the child was given, whatever the mode.
#pragma once

#include <cstdint>

#include "cairn/store.h"
#include "crash/findings.h"
#include "crash/library/model.h"

namespace cairn::crash::library {

struct VerifyStats {
  std::uint64_t entities = 0;     // every entity read back, of every kind
  std::uint64_t resolved = 0;     // calls in flight at the kill, now resolved
  std::uint64_t applied = 0;      // … found to have happened
  std::uint64_t rolled_back = 0;  // lossy: acknowledged calls a power cut undid
};

// False (with findings) on any loss or inconsistency.
bool Verify(Store& store, Model& model, bool strict, Findings& findings, VerifyStats* stats);

}  // namespace cairn::crash::library
