// Row keys. Each row kind has a one-byte tag; the user key follows. A user key that is the
// last component of a row key is stored as is, so that a prefix of user keys is a prefix of
// row keys and scans by prefix are plain range scans. Member rows (member_key.h), which put
// more after the user key, length-prefix it.
#pragma once

#include <string>
#include <string_view>

namespace cairn::internal {

enum class RowTag : char {
  kKeyspace = 'k',     // records: the keyspace of Records (strings today, Redis types later).
  kIdempotency = 'i',  // records: idempotency records, keyed by IdempotencyKey::encoded().
  kLease = 'l',        // leases: one row per resource (holders and highest fencing number).
  kBucket = 'b',       // buckets: rate-limit state, one row per key.
  kMeta = 'm',         // meta: schema version and monotonic counters.
  // queues (queue/queue_keys.h): a queue's groups, its jobs, each group's deliveries, and
  // each group's ready index by due time, lease index by deadline and dead-letter list.
  kQueueMeta = 'q',
  kJob = 'j',
  kDelivery = 'd',
  kReadyIndex = 'r',
  kLeaseIndex = 'w',
  kDeadIndex = 'x',
  // members (member_key.h): the fields of composite keyspace values.
  kHashField = 'h',
  kSetMember = 's',
  kZSetMember = 'z',   // a sorted set's member → its score
  kZSetScore = 'Z',    // its score index: score (score_codec.h) then member
  kListItem = 'L',     // a list's item: its index (list_meta.h) → its value
  kStreamEntry = 'X',  // a stream's entry: its id (stream_meta.h) → its fields
  // a stream's consumer groups (stream_group_rows.h): each group, each group's consumers,
  // and its pending entries by id.
  kStreamGroup = 'G',
  kStreamConsumer = 'C',
  kStreamPending = 'P',
};

inline std::string EncodeRowKey(RowTag tag, std::string_view user_key) {
  std::string out;
  out.reserve(1 + user_key.size());
  out.push_back(static_cast<char>(tag));
  out.append(user_key);
  return out;
}

// The user key of a row key written by EncodeRowKey.
inline std::string_view DecodeRowKey(std::string_view row_key) { return row_key.substr(1); }

}  // namespace cairn::internal
