// The metadata row of a keyspace stream, kept in `records` under the key's keyspace row, after
// the value header: version · length · last id · first id · max deleted id · entries added,
// each number big-endian (an id is two: milliseconds, sequence). Version first, as in
// composite_meta.h and list_meta.h, so that the members filter finds it where it finds theirs.
//
// Entries are `members` rows (member_key.h, tag kStreamEntry) whose member part is the id
// (AppendStreamId), so that they sort by id; the value is the entry's fields
// (stream_fields.h). Unlike the other kinds, a stream lives on with no entries: it is deleted
// only by DEL or expiry, and keeps its last id so that ids stay increasing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cairn/records.h"
#include "storage/big_endian.h"

namespace cairn::internal {

inline constexpr std::size_t kStreamIdBytes = 16;
inline constexpr std::size_t kStreamMetaBytes = 8 + 8 + 3 * kStreamIdBytes + 8;

struct StreamMeta {
  std::uint64_t version = 0;        // Tells this incarnation's entry rows from older ones.
  std::uint64_t length = 0;         // How many entries it has.
  StreamId last_id;                 // The greatest id ever added (0-0: none yet).
  StreamId first_id;                // The first entry's id (0-0 when empty), where walks start.
  StreamId max_deleted_id;          // The greatest id XDEL removed (0-0: none).
  std::uint64_t entries_added = 0;  // How many entries were ever added.
};

inline void AppendStreamId(std::string* out, const StreamId& id) {
  AppendBigEndian64(out, id.ms);
  AppendBigEndian64(out, id.seq);
}

inline StreamId ReadStreamId(const char* p) {
  return StreamId{ReadBigEndian64(p), ReadBigEndian64(p + 8)};
}

inline std::string EncodeStreamMeta(const StreamMeta& meta) {
  std::string out;
  out.reserve(kStreamMetaBytes);
  AppendBigEndian64(&out, meta.version);
  AppendBigEndian64(&out, meta.length);
  AppendStreamId(&out, meta.last_id);
  AppendStreamId(&out, meta.first_id);
  AppendStreamId(&out, meta.max_deleted_id);
  AppendBigEndian64(&out, meta.entries_added);
  return out;
}

// nullopt when the payload is not a stream's metadata.
inline std::optional<StreamMeta> DecodeStreamMeta(std::string_view payload) {
  if (payload.size() != kStreamMetaBytes) return std::nullopt;
  const char* p = payload.data();
  StreamMeta meta;
  meta.version = ReadBigEndian64(p);
  meta.length = ReadBigEndian64(p + 8);
  meta.last_id = ReadStreamId(p + 16);
  meta.first_id = ReadStreamId(p + 16 + kStreamIdBytes);
  meta.max_deleted_id = ReadStreamId(p + 16 + 2 * kStreamIdBytes);
  meta.entries_added = ReadBigEndian64(p + 16 + 3 * kStreamIdBytes);
  return meta;
}

}  // namespace cairn::internal
