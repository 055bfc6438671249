#include "records/list_ops.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <utility>

#include "records/composite_row.h"
#include "records/record_validation.h"
#include "storage/key_codec.h"
#include "storage/list_meta.h"
#include "storage/member_key.h"
#include "storage/rocks_status.h"
#include "storage/value_header.h"
#include "util/printable.h"
#include "util/status_macros.h"

namespace cairn::internal::list_ops {
namespace {

// A list's keyspace row, read (and, in a transaction, locked).
using ListState = CompositeState<ListMeta>;

// Whether the metadata describes a list whose indexes head … head + size all fit in int64
// (the one past the tail included, which bounds scans).
bool Consistent(const ListMeta& meta) {
  std::int64_t end = 0;
  return meta.size > 0 && meta.size <= static_cast<std::uint64_t>(INT64_MAX) &&
         !__builtin_add_overflow(meta.head, static_cast<std::int64_t>(meta.size), &end);
}

// Reads the keyspace row of key: kWrongType when it holds another kind, kCorruption when its
// metadata does not decode.
Result<ListState> Load(Rows& records, std::int64_t now_ms, std::string_view key) {
  return LoadComposite<ListMeta>(records, now_ms, key, ValueType::kList, "list",
                                 [](std::string_view payload) -> std::optional<ListMeta> {
                                   std::optional<ListMeta> meta = DecodeListMeta(payload);
                                   if (meta && !Consistent(*meta)) return std::nullopt;
                                   return meta;
                                 });
}

// Writes the metadata, or deletes the key when the list is empty.
Status WriteMeta(Rows& records, std::string_view key, const ListState& state,
                 const ListMeta& meta) {
  rocksdb::Status s =
      meta.size == 0
          ? records.Remove(state.row_key)
          : records.Write(state.row_key,
                          EncodeValue(ValueType::kList, state.expires_at_ms, EncodeListMeta(meta)));
  if (s.ok()) return Status::Ok();
  return FromRocks(s, "write list '" + Printable(key) + "'");
}

// For a new list: a fresh version (rows left by an earlier value of this key are not ours),
// no expiry.
Status StartNew(Keyspace& ks, ListState& state, ListMeta& meta) {
  CAIRN_ASSIGN_OR_RETURN(meta.version, ks.versions.Next());
  meta.size = 0;
  meta.head = 0;
  state.expires_at_ms = 0;
  return Status::Ok();
}

Status ValidateItem(std::string_view value) { return ValidateValue(value, "list item"); }

Status Full(std::string_view key) {
  return Status::OutOfRange("list '" + Printable(key) + "' has no index left to grow into");
}

// Runs of up to this many items are read by key rather than with an iterator. A list whose
// items come and go (a queue's active list: pushed at one end, removed from the middle) piles
// up versions and tombstones of the same rows in the memtable, which an iterator steps over
// one by one and a point read does not; and the row cache answers point reads of recent
// items. Setting up an iterator also costs more than a few lookups.
constexpr std::int64_t kPointReadRun = 16;

// The item rows of one incarnation of a list, by absolute index.
class Items {
 public:
  Items(Keyspace& ks, std::string_view key, std::uint64_t version)
      : rows_(ks.members),
        key_(key),
        prefix_(EncodeMemberPrefix(RowTag::kListItem, key, version)) {}

  std::string Row(std::int64_t index) const {
    std::string row = prefix_;
    AppendListIndex(&row, index);
    return row;
  }

  Result<std::string> Read(std::int64_t index) {
    std::string stored;
    rocksdb::Status s = rows_.ReadUnlocked(Row(index), &stored);
    if (s.IsNotFound()) return Missing(index);
    if (!s.ok()) return FromRocks(s, "read an item of list '" + Printable(key_) + "'");
    CAIRN_RETURN_IF_ERROR(DecodeHeader(stored, key_).status());
    stored.erase(0, kValueHeaderBytes);
    return stored;
  }

  Status Write(std::int64_t index, std::string_view value) {
    return Written(rows_.Write(Row(index), EncodeValue(ValueType::kMember, 0, value)));
  }

  Status Remove(std::int64_t index) { return Written(rows_.Remove(Row(index))); }

  // Calls visit(index, value) for the items at indexes first … last (both included),
  // ascending, or descending from last when `reverse`, until visit returns false. A short
  // run is read item by item; a longer one with one seek, then a scan. REQUIRES: first <=
  // last < INT64_MAX.
  Status Walk(std::int64_t first, std::int64_t last, bool reverse,
              const std::function<bool(std::int64_t, std::string_view)>& visit) {
    if (last - first < kPointReadRun) {
      for (std::int64_t i = reverse ? last : first; i >= first && i <= last;
           i += reverse ? -1 : 1) {
        CAIRN_ASSIGN_OR_RETURN(std::string value, Read(i));
        if (!visit(i, value)) break;
      }
      return Status::Ok();
    }
    std::unique_ptr<rocksdb::Iterator> it = rows_.NewIterator(Row(last + 1));
    reverse ? it->SeekForPrev(Row(last)) : it->Seek(Row(first));
    std::int64_t expected = reverse ? last : first;
    for (; it->Valid(); reverse ? it->Prev() : it->Next()) {
      const std::string_view row(it->key().data(), it->key().size());
      if (row.size() != prefix_.size() + kListIndexBytes || !row.starts_with(prefix_) ||
          DecodeListIndex(row.data() + prefix_.size()) != expected) {
        break;
      }
      const std::string_view stored(it->value().data(), it->value().size());
      CAIRN_RETURN_IF_ERROR(DecodeHeader(stored, key_).status());
      if (!visit(expected, Payload(stored))) return Status::Ok();
      if (expected == (reverse ? first : last)) return Status::Ok();
      expected += reverse ? -1 : 1;
    }
    CAIRN_RETURN_IF_ERROR(
        FromRocks(it->status(), "read the items of list '" + Printable(key_) + "'"));
    return Missing(expected);
  }

  // The values at indexes first … last, in order.
  Result<std::vector<std::string>> ReadRun(std::int64_t first, std::int64_t last) {
    std::vector<std::string> out;
    out.reserve(static_cast<std::size_t>(last - first + 1));
    CAIRN_RETURN_IF_ERROR(Walk(first, last, false, [&](std::int64_t, std::string_view value) {
      out.emplace_back(value);
      return true;
    }));
    return out;
  }

 private:
  Status Missing(std::int64_t index) const {
    return Status::Corruption("list '" + Printable(key_) + "' lacks its item at index " +
                              std::to_string(index));
  }
  Status Written(const rocksdb::Status& s) const {
    return s.ok() ? Status::Ok() : FromRocks(s, "write list '" + Printable(key_) + "'");
  }

  Rows& rows_;
  std::string_view key_;
  std::string prefix_;
};

// The absolute index of item i (0: the head). REQUIRES: i < meta.size.
std::int64_t At(const ListMeta& meta, std::uint64_t i) {
  return meta.head + static_cast<std::int64_t>(i);
}

// The items from start to stop as Redis's LRANGE and LTRIM clamp them: negative indexes count
// from the tail; nullopt when the range holds no item.
struct Span {
  std::uint64_t first;
  std::uint64_t last;  // Included.
};
std::optional<Span> Clamp(std::int64_t start, std::int64_t stop, std::uint64_t size) {
  const auto n = static_cast<std::int64_t>(size);
  if (start < 0) start += n;
  if (stop < 0) stop += n;
  if (start < 0) start = 0;
  if (start > stop || start >= n) return std::nullopt;
  if (stop >= n) stop = n - 1;
  return Span{static_cast<std::uint64_t>(start), static_cast<std::uint64_t>(stop)};
}

// The item an index (negative: from the tail) names, or nullopt.
std::optional<std::uint64_t> Resolve(std::int64_t index, std::uint64_t size) {
  const auto n = static_cast<std::int64_t>(size);
  if (index < 0) index += n;
  if (index < 0 || index >= n) return std::nullopt;
  return static_cast<std::uint64_t>(index);
}

Status PushOne(Items& items, ListMeta& meta, ListEnd end, std::string_view value,
               std::string_view key) {
  std::int64_t at = 0;
  if (end == ListEnd::kHead) {
    if (meta.head == INT64_MIN) return Full(key);
    at = meta.head - 1;
    meta.head = at;
  } else {
    // The index past the new tail must fit too (Consistent).
    if (__builtin_add_overflow(meta.head, static_cast<std::int64_t>(meta.size), &at) ||
        at == INT64_MAX) {
      return Full(key);
    }
  }
  CAIRN_RETURN_IF_ERROR(items.Write(at, value));
  ++meta.size;
  return Status::Ok();
}

// Removes and returns the item at `end`. REQUIRES: meta.size > 0.
Result<std::string> PopOne(Items& items, ListMeta& meta, ListEnd end) {
  const std::int64_t at = end == ListEnd::kHead ? meta.head : At(meta, meta.size - 1);
  CAIRN_ASSIGN_OR_RETURN(std::string value, items.Read(at));
  CAIRN_RETURN_IF_ERROR(items.Remove(at));
  if (end == ListEnd::kHead) ++meta.head;
  --meta.size;
  return value;
}

// Replaces items from … to - 1 with `replacement` (of any length), moving the items on the
// shorter side of the change rather than the longer: O(replaced + min(from, size - to)) rows
// read and written. REQUIRES: from <= to <= meta.size.
Status Splice(Items& items, ListMeta& meta, std::uint64_t from, std::uint64_t to,
              const std::vector<std::string>& replacement, std::string_view key) {
  const std::uint64_t new_size = meta.size - (to - from) + replacement.size();
  if (meta.size - to <= from) {
    // Keep the head in place; move the items after the change.
    std::int64_t new_end = 0;
    if (__builtin_add_overflow(meta.head, static_cast<std::int64_t>(new_size), &new_end)) {
      return Full(key);
    }
    std::vector<std::string> after;
    if (to < meta.size) {
      CAIRN_ASSIGN_OR_RETURN(after, items.ReadRun(At(meta, to), At(meta, meta.size - 1)));
    }
    std::int64_t at = At(meta, from);
    for (const std::string& value : replacement) CAIRN_RETURN_IF_ERROR(items.Write(at++, value));
    for (const std::string& value : after) CAIRN_RETURN_IF_ERROR(items.Write(at++, value));
    const std::int64_t old_end = meta.head + static_cast<std::int64_t>(meta.size);
    for (; at < old_end; ++at) CAIRN_RETURN_IF_ERROR(items.Remove(at));
  } else {
    // Keep the tail in place; move the items before the change.
    const auto grown = static_cast<std::int64_t>(new_size) - static_cast<std::int64_t>(meta.size);
    std::int64_t new_head = 0;
    if (__builtin_sub_overflow(meta.head, grown, &new_head)) return Full(key);
    std::vector<std::string> before;
    if (from > 0) {
      CAIRN_ASSIGN_OR_RETURN(before, items.ReadRun(meta.head, At(meta, from - 1)));
    }
    std::int64_t at = new_head;
    for (const std::string& value : before) CAIRN_RETURN_IF_ERROR(items.Write(at++, value));
    for (const std::string& value : replacement) CAIRN_RETURN_IF_ERROR(items.Write(at++, value));
    for (std::int64_t gone = meta.head; gone < new_head; ++gone) {
      CAIRN_RETURN_IF_ERROR(items.Remove(gone));
    }
    meta.head = new_head;
  }
  meta.size = new_size;
  return Status::Ok();
}

}  // namespace

Result<std::uint64_t> Push(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                           std::span<const std::string_view> values, ListEnd end,
                           bool only_if_exists) {
  if (values.empty()) return Status::InvalidArgument("a list push needs at least one item");
  for (std::string_view value : values) CAIRN_RETURN_IF_ERROR(ValidateItem(value));
  CAIRN_ASSIGN_OR_RETURN(ListState state, Load(ks.records, now_ms, key));
  ListMeta meta;
  if (state.meta) {
    meta = *state.meta;
  } else {
    if (only_if_exists) return std::uint64_t{0};
    CAIRN_RETURN_IF_ERROR(StartNew(ks, state, meta));
  }
  Items items(ks, key, meta.version);
  for (std::string_view value : values) {
    CAIRN_RETURN_IF_ERROR(PushOne(items, meta, end, value, key));
  }
  CAIRN_RETURN_IF_ERROR(WriteMeta(ks.records, key, state, meta));
  return meta.size;
}

Result<std::optional<std::vector<std::string>>> Pop(Keyspace& ks, std::int64_t now_ms,
                                                    std::string_view key, ListEnd end,
                                                    std::uint64_t count) {
  CAIRN_ASSIGN_OR_RETURN(ListState state, Load(ks.records, now_ms, key));
  if (!state.meta) return std::optional<std::vector<std::string>>();
  ListMeta meta = *state.meta;
  const std::uint64_t n = std::min(count, meta.size);
  std::vector<std::string> popped;
  if (n == 0) return std::optional<std::vector<std::string>>(std::move(popped));
  popped.reserve(static_cast<std::size_t>(n));
  Items items(ks, key, meta.version);
  const bool from_head = end == ListEnd::kHead;
  const std::int64_t first = from_head ? meta.head : At(meta, meta.size - n);
  const std::int64_t last = first + static_cast<std::int64_t>(n) - 1;
  CAIRN_RETURN_IF_ERROR(items.Walk(first, last, !from_head, [&](std::int64_t, std::string_view v) {
    popped.emplace_back(v);
    return true;
  }));
  meta.size -= n;
  if (from_head) meta.head += static_cast<std::int64_t>(n);
  // A list popped empty is deleted whole, its rows left to the compaction filter as DEL's are.
  if (meta.size > 0) {
    for (std::int64_t at = first; at <= last; ++at) CAIRN_RETURN_IF_ERROR(items.Remove(at));
  }
  CAIRN_RETURN_IF_ERROR(WriteMeta(ks.records, key, state, meta));
  return std::optional<std::vector<std::string>>(std::move(popped));
}

Result<std::uint64_t> Length(Keyspace& ks, std::int64_t now_ms, std::string_view key) {
  CAIRN_ASSIGN_OR_RETURN(ListState state, Load(ks.records, now_ms, key));
  return state.meta ? state.meta->size : 0;
}

Result<std::vector<std::string>> Range(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                       std::int64_t start, std::int64_t stop) {
  CAIRN_ASSIGN_OR_RETURN(ListState state, Load(ks.records, now_ms, key));
  if (!state.meta) return std::vector<std::string>();
  const std::optional<Span> span = Clamp(start, stop, state.meta->size);
  if (!span) return std::vector<std::string>();
  Items items(ks, key, state.meta->version);
  return items.ReadRun(At(*state.meta, span->first), At(*state.meta, span->last));
}

Result<std::optional<std::string>> Index(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                         std::int64_t index) {
  CAIRN_ASSIGN_OR_RETURN(ListState state, Load(ks.records, now_ms, key));
  if (!state.meta) return std::optional<std::string>();
  const std::optional<std::uint64_t> i = Resolve(index, state.meta->size);
  if (!i) return std::optional<std::string>();
  Items items(ks, key, state.meta->version);
  CAIRN_ASSIGN_OR_RETURN(std::string value, items.Read(At(*state.meta, *i)));
  return std::optional<std::string>(std::move(value));
}

Result<ListSetOutcome> Set(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                           std::int64_t index, std::string_view value) {
  CAIRN_RETURN_IF_ERROR(ValidateItem(value));
  CAIRN_ASSIGN_OR_RETURN(ListState state, Load(ks.records, now_ms, key));
  if (!state.meta) return ListSetOutcome::kNoSuchKey;
  const std::optional<std::uint64_t> i = Resolve(index, state.meta->size);
  if (!i) return ListSetOutcome::kOutOfRange;
  Items items(ks, key, state.meta->version);
  CAIRN_RETURN_IF_ERROR(items.Write(At(*state.meta, *i), value));
  return ListSetOutcome::kSet;
}

// O(n): walks the list for matches, then closes the gaps by moving the shorter side.
Result<std::uint64_t> Remove(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                             std::int64_t count, std::string_view value) {
  CAIRN_RETURN_IF_ERROR(ValidateItem(value));
  CAIRN_ASSIGN_OR_RETURN(ListState state, Load(ks.records, now_ms, key));
  if (!state.meta) return std::uint64_t{0};
  ListMeta meta = *state.meta;
  Items items(ks, key, meta.version);
  const bool from_tail = count < 0;
  // |count| without overflow for INT64_MIN; 0 means every match.
  const std::uint64_t limit = count == 0 ? UINT64_MAX
                                         : (from_tail ? 0 - static_cast<std::uint64_t>(count)
                                                      : static_cast<std::uint64_t>(count));
  std::vector<std::uint64_t> matches;  // Positions from the head.
  CAIRN_RETURN_IF_ERROR(items.Walk(
      meta.head, At(meta, meta.size - 1), from_tail, [&](std::int64_t at, std::string_view item) {
        if (item == value) {
          matches.push_back(static_cast<std::uint64_t>(at - meta.head));
        }
        return matches.size() < limit;
      }));
  if (matches.empty()) return std::uint64_t{0};
  if (from_tail) std::reverse(matches.begin(), matches.end());
  const std::uint64_t removed = matches.size();
  if (removed == meta.size) {
    // Every item goes: the list goes whole, its rows left to the compaction filter.
    meta.size = 0;
  } else {
    // The items between the first and the last match that stay.
    std::vector<std::string> kept;
    std::size_t next = 0;
    CAIRN_RETURN_IF_ERROR(items.Walk(At(meta, matches.front()), At(meta, matches.back()), false,
                                     [&](std::int64_t at, std::string_view item) {
                                       const auto i = static_cast<std::uint64_t>(at - meta.head);
                                       if (next < matches.size() && matches[next] == i) {
                                         ++next;
                                       } else {
                                         kept.emplace_back(item);
                                       }
                                       return true;
                                     }));
    CAIRN_RETURN_IF_ERROR(Splice(items, meta, matches.front(), matches.back() + 1, kept, key));
  }
  CAIRN_RETURN_IF_ERROR(WriteMeta(ks.records, key, state, meta));
  return removed;
}

Result<std::uint64_t> Trim(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                           std::int64_t start, std::int64_t stop) {
  CAIRN_ASSIGN_OR_RETURN(ListState state, Load(ks.records, now_ms, key));
  if (!state.meta) return std::uint64_t{0};
  ListMeta meta = *state.meta;
  const std::optional<Span> span = Clamp(start, stop, meta.size);
  if (!span) {
    // Nothing stays: the list goes whole, its rows left to the compaction filter.
    meta.size = 0;
    CAIRN_RETURN_IF_ERROR(WriteMeta(ks.records, key, state, meta));
    return std::uint64_t{0};
  }
  if (span->first == 0 && span->last == meta.size - 1) return meta.size;
  Items items(ks, key, meta.version);
  for (std::uint64_t i = 0; i < span->first; ++i) CAIRN_RETURN_IF_ERROR(items.Remove(At(meta, i)));
  for (std::uint64_t i = span->last + 1; i < meta.size; ++i) {
    CAIRN_RETURN_IF_ERROR(items.Remove(At(meta, i)));
  }
  meta.head = At(meta, span->first);
  meta.size = span->last - span->first + 1;
  CAIRN_RETURN_IF_ERROR(WriteMeta(ks.records, key, state, meta));
  return meta.size;
}

// O(n): walks to the pivot, then moves the shorter side by one.
Result<std::int64_t> Insert(Keyspace& ks, std::int64_t now_ms, std::string_view key, bool before,
                            std::string_view pivot, std::string_view value) {
  CAIRN_RETURN_IF_ERROR(ValidateValue(pivot, "pivot"));
  CAIRN_RETURN_IF_ERROR(ValidateItem(value));
  CAIRN_ASSIGN_OR_RETURN(ListState state, Load(ks.records, now_ms, key));
  if (!state.meta) return std::int64_t{0};
  ListMeta meta = *state.meta;
  Items items(ks, key, meta.version);
  std::optional<std::uint64_t> found;
  CAIRN_RETURN_IF_ERROR(items.Walk(meta.head, At(meta, meta.size - 1), false,
                                   [&](std::int64_t at, std::string_view item) {
                                     if (item != pivot) return true;
                                     found = static_cast<std::uint64_t>(at - meta.head);
                                     return false;
                                   }));
  if (!found) return std::int64_t{-1};
  const std::uint64_t at = before ? *found : *found + 1;
  CAIRN_RETURN_IF_ERROR(Splice(items, meta, at, at, {std::string(value)}, key));
  CAIRN_RETURN_IF_ERROR(WriteMeta(ks.records, key, state, meta));
  return static_cast<std::int64_t>(meta.size);
}

Result<std::vector<std::uint64_t>> Position(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                            std::string_view value,
                                            const ListPositionOptions& options) {
  if (options.rank == 0 || options.rank == INT64_MIN) {
    return Status::InvalidArgument("a list position rank must be nonzero and above INT64_MIN");
  }
  CAIRN_RETURN_IF_ERROR(ValidateValue(value, "list item"));
  CAIRN_ASSIGN_OR_RETURN(ListState state, Load(ks.records, now_ms, key));
  std::vector<std::uint64_t> found;
  if (!state.meta) return found;
  const ListMeta& meta = *state.meta;
  const bool from_tail = options.rank < 0;
  std::uint64_t skip = static_cast<std::uint64_t>(from_tail ? -options.rank : options.rank) - 1;
  std::uint64_t compared = 0;
  Items items(ks, key, meta.version);
  CAIRN_RETURN_IF_ERROR(items.Walk(
      meta.head, At(meta, meta.size - 1), from_tail, [&](std::int64_t at, std::string_view item) {
        ++compared;
        if (item == value) {
          if (skip > 0) {
            --skip;
          } else {
            found.push_back(static_cast<std::uint64_t>(at - meta.head));
            if (options.count != 0 && found.size() >= options.count) {
              return false;
            }
          }
        }
        return options.max_len == 0 || compared < options.max_len;
      }));
  return found;
}

Result<std::optional<std::string>> Move(Keyspace& ks, std::int64_t now_ms, std::string_view source,
                                        std::string_view destination, ListEnd from_end,
                                        ListEnd to_end) {
  CAIRN_RETURN_IF_ERROR(ValidateKey(destination));
  CAIRN_ASSIGN_OR_RETURN(ListState from, Load(ks.records, now_ms, source));
  if (!from.meta) return std::optional<std::string>();
  ListMeta from_meta = *from.meta;
  Items from_items(ks, source, from_meta.version);
  if (source == destination) {
    // A rotation: one list, one metadata write.
    CAIRN_ASSIGN_OR_RETURN(std::string value, PopOne(from_items, from_meta, from_end));
    CAIRN_RETURN_IF_ERROR(PushOne(from_items, from_meta, to_end, value, source));
    CAIRN_RETURN_IF_ERROR(WriteMeta(ks.records, source, from, from_meta));
    return std::optional<std::string>(std::move(value));
  }
  // The destination is read (and locked) before anything is written, so that a destination of
  // another kind leaves both keys as they were.
  CAIRN_ASSIGN_OR_RETURN(ListState to, Load(ks.records, now_ms, destination));
  ListMeta to_meta;
  if (to.meta) {
    to_meta = *to.meta;
  } else {
    CAIRN_RETURN_IF_ERROR(StartNew(ks, to, to_meta));
  }
  CAIRN_ASSIGN_OR_RETURN(std::string value, PopOne(from_items, from_meta, from_end));
  Items to_items(ks, destination, to_meta.version);
  CAIRN_RETURN_IF_ERROR(PushOne(to_items, to_meta, to_end, value, destination));
  CAIRN_RETURN_IF_ERROR(WriteMeta(ks.records, source, from, from_meta));
  CAIRN_RETURN_IF_ERROR(WriteMeta(ks.records, destination, to, to_meta));
  return std::optional<std::string>(std::move(value));
}

}  // namespace cairn::internal::list_ops
