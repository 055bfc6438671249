// The metadata row of a composite keyspace value (a hash or a set), kept in `records` under the
// key's keyspace row, after the value header: version (big-endian uint64) · member count
// (big-endian uint64) · packed members (a small hash's fields, packed_members.h; absent when
// they are member rows). The header carries the type and the key's expiry, so every keyspace
// command that only looks at headers (EXISTS, TTL, EXPIRE, PERSIST, DEL) treats composite keys
// as it treats strings, and deleting or expiring a key of any size is one row.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/big_endian.h"

namespace cairn::internal {

inline constexpr std::size_t kCompositeMetaBytes = 16;

struct CompositeMeta {
  std::uint64_t version = 0;  // Tells this incarnation's member rows from older ones.
  std::uint64_t size = 0;     // How many members it has (never 0: an empty value is deleted).
  std::string packed;         // A small hash's fields (packed_members.h); empty: member rows.
};

inline std::string EncodeCompositeMeta(const CompositeMeta& meta) {
  std::string out;
  out.reserve(kCompositeMetaBytes + meta.packed.size());
  AppendBigEndian64(&out, meta.version);
  AppendBigEndian64(&out, meta.size);
  out.append(meta.packed);
  return out;
}

// nullopt when the payload is not a metadata payload.
inline std::optional<CompositeMeta> DecodeCompositeMeta(std::string_view payload) {
  if (payload.size() < kCompositeMetaBytes) return std::nullopt;
  return CompositeMeta{ReadBigEndian64(payload.data()), ReadBigEndian64(payload.data() + 8),
                       std::string(payload.substr(kCompositeMetaBytes))};
}

}  // namespace cairn::internal
