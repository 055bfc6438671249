// Keyspace: what an operation on keys of every kind works with — the keyspace rows in
// `records`, the member rows of composite values in `members`, and the counter their
// versions come from. Over a transaction both Rows belong to the same one, so an operation
// that writes metadata and members commits them together.
#pragma once

#include "records/rows.h"
#include "storage/monotonic_counter.h"

namespace cairn::internal {

struct Keyspace {
  Rows& records;
  Rows& members;
  MonotonicCounter& versions;
};

}  // namespace cairn::internal
