// The stored row of a leased resource: its live holders and the newest fencing number ever
// issued for it. The value header carries type kLease and no expiry (the row must outlive its
// holders so that fencing checks stay exact); the payload is a cereal portable-binary archive
// with an explicit class version.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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
// kCorruption when the stored bytes do not decode. Expired holders are pruned.
Result<LeaseRow> LoadLeaseRow(Rows& rows, std::int64_t now_ms, std::string_view resource);

Status StoreLeaseRow(Rows& rows, std::string_view resource, const LeaseRow& row);

}  // namespace cairn::internal
