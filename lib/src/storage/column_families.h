// The column families of a Cairn store: one per kind of data, so that each can have its own
// compaction filter and tuning.
//
// Every row in a column family with a TTL filter begins with the value header
// (value_header.h); the filter drops rows whose expiry has passed by the store's clock.
// `meta` has no filter: the schema version and monotonic counters never expire.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace cairn::internal {

enum class ColumnFamily : std::size_t {
  kRecords = 0,  // keyspace values and idempotency records
  kMembers,      // fields of hashes, sets, sorted sets, lists, streams
  kLeases,
  kBuckets,  // rate-limit state
  kQueues,   // queue logs and their indexes
  kMeta,     // schema version, monotonic counters; no TTL
};

inline constexpr std::size_t kColumnFamilyCount = 6;

inline constexpr std::array<std::string_view, kColumnFamilyCount> kColumnFamilyNames = {
    "records", "members", "leases", "buckets", "queues", "meta"};

inline std::string_view ColumnFamilyName(ColumnFamily cf) {
  return kColumnFamilyNames[static_cast<std::size_t>(cf)];
}

inline bool HasTtlFilter(ColumnFamily cf) { return cf != ColumnFamily::kMeta; }

// The keyspace: keys of every Redis kind and idempotency records, with their members.
inline bool IsKeyspace(ColumnFamily cf) {
  return cf == ColumnFamily::kRecords || cf == ColumnFamily::kMembers;
}

// Files older than this are recompacted even if nothing else would touch them, so that the
// TTL filter also reaches cold data. Hours: often enough to reclaim space
// within a day, rare enough to cost little.
inline constexpr std::uint64_t kPeriodicCompactionSeconds = 12 * 60 * 60;

}  // namespace cairn::internal
