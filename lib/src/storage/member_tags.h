// Which `members` rows belong to which kind of keyspace value: one table, read both by the
// members compaction filter (whose metadata decides whether a row is live) and by RENAME
// (which copies every member row of the value it moves).
#pragma once

#include <optional>
#include <span>

#include "storage/key_codec.h"
#include "storage/value_header.h"

namespace cairn::internal {

// The kind of value a member row's tag belongs to; nullopt for tags of no keyspace value.
inline std::optional<ValueType> OwnerType(RowTag tag) {
  switch (tag) {
    case RowTag::kHashField:
      return ValueType::kHash;
    case RowTag::kSetMember:
      return ValueType::kSet;
    case RowTag::kZSetMember:
    case RowTag::kZSetScore:
      return ValueType::kZSet;
    case RowTag::kListItem:
      return ValueType::kList;
    case RowTag::kStreamEntry:
    case RowTag::kStreamGroup:
    case RowTag::kStreamConsumer:
    case RowTag::kStreamPending:
      return ValueType::kStream;
    default:
      return std::nullopt;
  }
}

// Every tag of the member rows a value of `type` may have (none for a string).
inline std::span<const RowTag> MemberTags(ValueType type) {
  static constexpr RowTag kHash[] = {RowTag::kHashField};
  static constexpr RowTag kSet[] = {RowTag::kSetMember};
  static constexpr RowTag kZSet[] = {RowTag::kZSetMember, RowTag::kZSetScore};
  static constexpr RowTag kList[] = {RowTag::kListItem};
  static constexpr RowTag kStream[] = {RowTag::kStreamEntry, RowTag::kStreamGroup,
                                       RowTag::kStreamConsumer, RowTag::kStreamPending};
  switch (type) {
    case ValueType::kHash:
      return kHash;
    case ValueType::kSet:
      return kSet;
    case ValueType::kZSet:
      return kZSet;
    case ValueType::kList:
      return kList;
    case ValueType::kStream:
      return kStream;
    default:
      return {};
  }
}

}  // namespace cairn::internal
