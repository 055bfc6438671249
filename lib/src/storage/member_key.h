// Keys of `members` rows: the members of composite keyspace values (hash fields, set members).
//
// Layout: tag (1 byte) · user key length (big-endian uint32) · user key · version (big-endian
// uint64) · member. Every member of one incarnation of a key shares the prefix before the
// member, so its members are one range scan, in byte order of the member. The version comes
// from the key's metadata row in `records` (composite_meta.h); a key deleted or expired and
// created again gets a new version, so the rows of the old one are unreachable at once and
// the members compaction filter (member_filter.h) removes them later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/big_endian.h"
#include "storage/key_codec.h"

namespace cairn::internal {

// The prefix shared by every member row of (key, version).
inline std::string EncodeMemberPrefix(RowTag tag, std::string_view key, std::uint64_t version) {
  std::string out;
  out.reserve(1 + 4 + key.size() + 8);
  out.push_back(static_cast<char>(tag));
  AppendBigEndian32(&out, static_cast<std::uint32_t>(key.size()));
  out.append(key);
  AppendBigEndian64(&out, version);
  return out;
}

struct MemberKey {
  RowTag tag;
  std::string_view key;
  std::uint64_t version = 0;
  std::string_view member;
};

// Splits a member row key; nullopt when it is not one (too short, or a length that overruns).
inline std::optional<MemberKey> DecodeMemberKey(std::string_view row) {
  if (row.size() < 1 + 4 + 8) return std::nullopt;
  const std::uint32_t length = ReadBigEndian32(row.data() + 1);
  if (row.size() - (1 + 4 + 8) < length) return std::nullopt;
  MemberKey out{static_cast<RowTag>(row[0]), row.substr(5, length), 0, {}};
  out.version = ReadBigEndian64(row.data() + 5 + length);
  out.member = row.substr(5 + length + 8);
  return out;
}

}  // namespace cairn::internal
