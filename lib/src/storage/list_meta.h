// The metadata row of a keyspace list, kept in `records` under the key's keyspace row, after
// the value header: version (big-endian uint64) · item count (big-endian uint64) · head index
// (int64, big-endian two's complement). Version first, as in composite_meta.h, so that the
// members filter finds it where it finds a hash's.
//
// Items are `members` rows (member_key.h) whose member part is their index (ListIndexKey):
// item i of the list (0 = the head) is at index head + i. Pushing at the head lowers `head`;
// pushing at the tail writes at head + size; neither moves an existing row.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/big_endian.h"

namespace cairn::internal {

inline constexpr std::size_t kListMetaBytes = 24;
inline constexpr std::size_t kListIndexBytes = 8;

struct ListMeta {
  std::uint64_t version = 0;  // Tells this incarnation's item rows from older ones.
  std::uint64_t size = 0;     // How many items it has (never 0: an empty list is deleted).
  std::int64_t head = 0;      // The index of item 0.
};

inline std::string EncodeListMeta(const ListMeta& meta) {
  std::string out;
  out.reserve(kListMetaBytes);
  AppendBigEndian64(&out, meta.version);
  AppendBigEndian64(&out, meta.size);
  AppendBigEndian64(&out, static_cast<std::uint64_t>(meta.head));
  return out;
}

// nullopt when the payload is not a list's metadata.
inline std::optional<ListMeta> DecodeListMeta(std::string_view payload) {
  if (payload.size() != kListMetaBytes) return std::nullopt;
  return ListMeta{ReadBigEndian64(payload.data()), ReadBigEndian64(payload.data() + 8),
                  static_cast<std::int64_t>(ReadBigEndian64(payload.data() + 16))};
}

// An item index as the member part of its row: big-endian with the sign bit flipped, so that
// byte order is numeric order for negative indexes too.
inline void AppendListIndex(std::string* out, std::int64_t index) {
  AppendBigEndian64(out, static_cast<std::uint64_t>(index) ^ (1ull << 63));
}

inline std::int64_t DecodeListIndex(const char* p) {
  return static_cast<std::int64_t>(ReadBigEndian64(p) ^ (1ull << 63));
}

}  // namespace cairn::internal
