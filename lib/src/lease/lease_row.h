// The stored row of a leased resource: its live holders and the newest fencing number ever
// issued for it. The value header carries type kLease and no expiry (the row must outlive its
// holders so that fencing checks stay exact); the payload is a cereal portable-binary archive
// with an explicit class version.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cairn/clock.h"
#include "cairn/lease.h"
#include "records/rows.h"

namespace cairn::internal {

struct LeaseRow {
  std::uint64_t highest_fencing = 0;
  std::vector<LeaseHolder> holders;

  // Drops holders whose lease has expired at now_ms. True if any was dropped.
  bool Prune(std::int64_t now_ms);
  // The live holder with this token, or nullptr.
  LeaseHolder* Find(std::string_view token);
};

std::string LeaseRowKey(std::string_view resource);

// Reads (in a transaction: locks) the row of resource; an empty row if there is none.
// kCorruption when the stored bytes do not decode. Then reads the clock into *now_ms and prunes
// the holders expired by then. The instant is taken once the lock is granted: one read before
// it would be stale by the wait, and a holder acquired with it would seem to begin before the
// release that let it in (tools/lockcheck found this with 4 io threads), an extension would
// end early, and a lease that ran out during the wait could still be extended.
Result<LeaseRow> LoadLeaseRow(Rows& rows, const Clock& clock, std::string_view resource,
                              std::int64_t* now_ms);

Status StoreLeaseRow(Rows& rows, std::string_view resource, const LeaseRow& row);

}  // namespace cairn::internal
