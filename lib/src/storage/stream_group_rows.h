// The `members` rows of a stream's consumer groups, all under the stream's version (so that
// deleting or expiring the stream drops them with its entries, member_tags.h):
//
//   kStreamGroup           · group                          → last id · entries read ·
//                                                             pending · consumers ·
//                                                             highest pending id
//   kStreamConsumer        · group part · consumer          → seen at · pending
//   kStreamPending         · group part · id                → delivered at · deliveries ·
//                                                             consumer
//
// where a part is a big-endian 32-bit length and the name, so that one group's rows share a
// prefix and sort by consumer name or by id. The pending rows are the group's pending entries
// list; a consumer's are found among them (an index by consumer, a row per entry written on
// delivery and deleted on acknowledgement, cost a third of the CPU of a delivery and its
// acknowledgement). The counters in the group and consumer rows are kept in step with the
// pending rows in the transaction that changes them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/big_endian.h"
#include "storage/stream_meta.h"

namespace cairn::internal {

// A name as a length-prefixed part of a row key.
inline void AppendNamePart(std::string* out, std::string_view name) {
  AppendBigEndian32(out, static_cast<std::uint32_t>(name.size()));
  out->append(name);
}

inline constexpr std::uint64_t kUnknownEntriesRead = UINT64_MAX;

struct GroupRow {
  StreamId last_id;
  std::optional<std::uint64_t> entries_read;  // nullopt: unknown.
  std::uint64_t pending = 0;
  std::uint64_t consumers = 0;
  // No id above this was ever pending in the group, so a delivery of a new entry above it
  // need not look for a pending row to take over (there is one only after XGROUP SETID moved
  // the group back, or XCLAIM FORCE claimed ahead of it).
  StreamId highest_pending;
};

inline constexpr std::size_t kGroupRowBytes = 2 * kStreamIdBytes + 24;

inline std::string EncodeGroupRow(const GroupRow& row) {
  std::string out;
  out.reserve(kGroupRowBytes);
  AppendStreamId(&out, row.last_id);
  AppendBigEndian64(&out, row.entries_read.value_or(kUnknownEntriesRead));
  AppendBigEndian64(&out, row.pending);
  AppendBigEndian64(&out, row.consumers);
  AppendStreamId(&out, row.highest_pending);
  return out;
}

inline std::optional<GroupRow> DecodeGroupRow(std::string_view payload) {
  if (payload.size() != kGroupRowBytes) return std::nullopt;
  const char* p = payload.data();
  GroupRow row;
  row.last_id = ReadStreamId(p);
  const std::uint64_t read = ReadBigEndian64(p + kStreamIdBytes);
  if (read != kUnknownEntriesRead) row.entries_read = read;
  row.pending = ReadBigEndian64(p + kStreamIdBytes + 8);
  row.consumers = ReadBigEndian64(p + kStreamIdBytes + 16);
  row.highest_pending = ReadStreamId(p + kStreamIdBytes + 24);
  return row;
}

struct ConsumerRow {
  std::int64_t seen_at_ms = 0;
  std::uint64_t pending = 0;
};

inline std::string EncodeConsumerRow(const ConsumerRow& row) {
  std::string out;
  out.reserve(16);
  AppendBigEndian64(&out, static_cast<std::uint64_t>(row.seen_at_ms));
  AppendBigEndian64(&out, row.pending);
  return out;
}

inline std::optional<ConsumerRow> DecodeConsumerRow(std::string_view payload) {
  if (payload.size() != 16) return std::nullopt;
  return ConsumerRow{static_cast<std::int64_t>(ReadBigEndian64(payload.data())),
                     ReadBigEndian64(payload.data() + 8)};
}

struct PendingRow {
  std::int64_t delivered_at_ms = 0;
  std::uint64_t deliveries = 0;
  std::string consumer;
};

inline std::string EncodePendingRow(const PendingRow& row) {
  std::string out;
  out.reserve(16 + row.consumer.size());
  AppendBigEndian64(&out, static_cast<std::uint64_t>(row.delivered_at_ms));
  AppendBigEndian64(&out, row.deliveries);
  out.append(row.consumer);
  return out;
}

inline std::optional<PendingRow> DecodePendingRow(std::string_view payload) {
  if (payload.size() < 16) return std::nullopt;
  return PendingRow{static_cast<std::int64_t>(ReadBigEndian64(payload.data())),
                    ReadBigEndian64(payload.data() + 8), std::string(payload.substr(16))};
}

}  // namespace cairn::internal
