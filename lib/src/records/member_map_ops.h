// Member maps — hashes (field → value) and sets (member → nothing) — and Rename, which moves
// keys of every kind. Written once against Keyspace so that Store and Transaction share them,
// and once for both kinds, which differ only in their type, row tag and names.
//
// A member map is a metadata row in `records` (its type, the key's expiry, version and member
// count: composite_meta.h) and one `members` row per member under that version
// (member_key.h). Writes lock the metadata row, which serializes every writer of one key;
// member rows are then read without locks of their own.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "cairn/records.h"
#include "records/keyspace.h"
#include "storage/composite_meta.h"
#include "storage/key_codec.h"
#include "storage/value_header.h"

namespace cairn::internal::member_map_ops {

struct MapKind {
  ValueType type;                                  // Of the metadata row.
  RowTag tag;                                      // Of the member rows.
  std::string_view noun;                           // "hash", in messages.
  std::string_view member_noun;                    // "field".
  std::optional<RowTag> index_tag = std::nullopt;  // Of a second set of rows (zset_ops.h).
};
inline constexpr MapKind kHashKind{ValueType::kHash, RowTag::kHashField, "hash", "field"};
inline constexpr MapKind kSetKind{ValueType::kSet, RowTag::kSetMember, "set", "member"};
// A sorted set's member rows hold scores; its score index is zset_ops.h's.
inline constexpr MapKind kZSetKind{ValueType::kZSet, RowTag::kZSetMember, "sorted set", "member",
                                   RowTag::kZSetScore};

// A member map's keyspace row, read (and, in a transaction, locked).
struct MapState {
  std::string row_key;
  std::int64_t expires_at_ms = 0;
  std::optional<CompositeMeta> meta;  // nullopt: no live value under the key.
};

// Reads the keyspace row of key: kWrongType when it holds another kind, kCorruption when its
// metadata does not decode.
Result<MapState> LoadMap(const MapKind& kind, Rows& records, std::int64_t now_ms,
                         std::string_view key);
// Writes the metadata (deletes the key when meta.size is 0).
Status WriteMeta(const MapKind& kind, Rows& records, std::string_view key, const MapState& state,
                 const CompositeMeta& meta);
// A member row's value (the transaction's own writes included); nullopt when absent.
Result<std::optional<std::string>> ReadMember(Rows& members, std::string_view key,
                                              const std::string& row_key);
Status ValidateMember(const MapKind& kind, std::string_view member);
Status ValidateMemberScan(const MemberScanRequest& request);
// For a new value: a fresh version, no expiry.
Status StartNew(Keyspace& ks, MapState& state, CompositeMeta& meta);

// The kind whose metadata has this type, or nullptr (a string).
const MapKind* KindOf(ValueType type);

// The value stored with a member (a set's members store ""), or nullopt.
Result<std::optional<std::string>> Get(const MapKind& kind, Keyspace& ks, std::int64_t now_ms,
                                       std::string_view key, std::string_view member);
// The values stored with several members, in their order.
Result<std::vector<std::optional<std::string>>> GetMany(const MapKind& kind, Keyspace& ks,
                                                        std::int64_t now_ms, std::string_view key,
                                                        std::span<const std::string_view> members);
// Writes the members in order and returns how many were new.
Result<std::size_t> Put(const MapKind& kind, Keyspace& ks, std::int64_t now_ms,
                        std::string_view key, std::span<const HashField> members);
// Removes the members and returns how many were present; removing the last deletes the key.
Result<std::size_t> Remove(const MapKind& kind, Keyspace& ks, std::int64_t now_ms,
                           std::string_view key, std::span<const std::string_view> members);
Result<std::uint64_t> Size(const MapKind& kind, Keyspace& ks, std::int64_t now_ms,
                           std::string_view key);
Result<HashPage> Scan(const MapKind& kind, Keyspace& ks, std::int64_t now_ms, std::string_view key,
                      const MemberScanRequest& request);

// Sets through the shared operations: members stored with "" as their value.
Result<std::size_t> AddToSet(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                             std::span<const std::string_view> members);
Result<bool> SetContains(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                         std::string_view member);
Result<SetPage> ScanSet(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                        const MemberScanRequest& request);

Result<RenameOutcome> Rename(Keyspace& ks, std::int64_t now_ms, std::string_view from,
                             std::string_view to, bool only_if_absent);

}  // namespace cairn::internal::member_map_ops
