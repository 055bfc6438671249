#include "records/member_map_ops.h"

#include <algorithm>
#include <memory>
#include <unordered_set>
#include <vector>

#include "cairn/limits.h"
#include "records/composite_row.h"
#include "records/record_validation.h"
#include "storage/composite_meta.h"
#include "storage/key_codec.h"
#include "storage/list_meta.h"
#include "storage/member_key.h"
#include "storage/member_tags.h"
#include "storage/packed_members.h"
#include "storage/rocks_status.h"
#include "storage/stream_meta.h"
#include "storage/value_header.h"
#include "util/printable.h"
#include "util/status_macros.h"

namespace cairn::internal::member_map_ops {

Result<MapState> LoadMap(const MapKind& kind, Rows& records, std::int64_t now_ms,
                         std::string_view key) {
  CAIRN_ASSIGN_OR_RETURN(CompositeRow row, ReadCompositeRow(records, now_ms, key, kind.type));
  MapState state{std::move(row.row_key), row.expires_at_ms, std::nullopt};
  if (!row.payload) return state;
  state.meta = DecodeCompositeMeta(*row.payload);
  if (!state.meta || (!state.meta->packed.empty() && kind.type != ValueType::kHash)) {
    return Status::Corruption(std::string(kind.noun) + " '" + Printable(key) +
                              "' has metadata of " + std::to_string(row.payload->size()) +
                              " bytes; refusing to use or overwrite it");
  }
  return state;
}

namespace {

bool FieldLess(const HashField& a, const HashField& b) { return a.field < b.field; }

// The first of sorted `entries` whose field is not below `field`.
std::vector<HashField>::iterator LowerBound(std::vector<HashField>& entries,
                                            std::string_view field) {
  return std::lower_bound(entries.begin(), entries.end(), HashField{field, {}}, FieldLess);
}

// A packed hash's fields (views into meta.packed); kCorruption when they do not decode or their
// number is not the hash's size.
Result<std::vector<HashField>> Unpack(const MapKind& kind, std::string_view key,
                                      const CompositeMeta& meta) {
  std::optional<std::vector<HashField>> entries = DecodePacked(meta.packed);
  if (!entries || entries->size() != meta.size) {
    return Status::Corruption(std::string(kind.noun) + " '" + Printable(key) +
                              "' has unreadable packed fields; refusing to use or overwrite it");
  }
  return std::move(*entries);
}

// The entry of `field` in sorted `entries`, or nullptr.
const HashField* FindPacked(std::vector<HashField>& entries, std::string_view field) {
  auto it = LowerBound(entries, field);
  return it != entries.end() && it->field == field ? &*it : nullptr;
}

// A new hash, or one still packed: merges `fields` (the last value of a field named twice wins)
// and keeps the result packed if it fits, else writes every field as a member row under the
// hash's version (which has none yet) for good. Returns how many fields were new.
Result<std::size_t> PutPacked(const MapKind& kind, Keyspace& ks, std::string_view key,
                              const MapState& state, CompositeMeta& meta,
                              std::span<const HashField> fields) {
  std::vector<HashField> entries;
  if (!meta.packed.empty()) {
    CAIRN_ASSIGN_OR_RETURN(entries, Unpack(kind, key, meta));
  }
  std::vector<HashField> incoming(fields.begin(), fields.end());
  const bool packable = std::all_of(fields.begin(), fields.end(),
                                    [](const HashField& f) { return Packable(f.field, f.value); });
  std::stable_sort(incoming.begin(), incoming.end(), FieldLess);
  std::vector<HashField> merged;
  merged.reserve(entries.size() + incoming.size());
  std::size_t added = 0;
  auto old = entries.begin();
  for (std::size_t i = 0; i < incoming.size(); ++i) {
    if (i + 1 < incoming.size() && incoming[i + 1].field == incoming[i].field) continue;
    while (old != entries.end() && old->field < incoming[i].field) merged.push_back(*old++);
    if (old != entries.end() && old->field == incoming[i].field) {
      ++old;
    } else {
      ++added;
    }
    merged.push_back(incoming[i]);
  }
  merged.insert(merged.end(), old, entries.end());
  meta.size = merged.size();
  if (packable && merged.size() <= kPackedMaxEntries) {
    meta.packed = EncodePacked(merged);  // merged views meta.packed: encoded before it goes.
  } else {
    const std::string prefix = EncodeMemberPrefix(kind.tag, key, meta.version);
    std::string row;
    for (const HashField& e : merged) {
      row.assign(prefix).append(e.field);
      rocksdb::Status s = ks.members.Write(row, EncodeValue(ValueType::kMember, 0, e.value));
      if (!s.ok()) return FromRocks(s, "write a member of '" + Printable(key) + "'");
    }
    meta.packed.clear();
  }
  CAIRN_RETURN_IF_ERROR(WriteMeta(kind, ks.records, key, state, meta));
  return added;
}

// Removes fields from a packed hash; returns how many were present.
Result<std::size_t> RemovePacked(const MapKind& kind, Keyspace& ks, std::string_view key,
                                 const MapState& state, CompositeMeta& meta,
                                 std::span<const std::string_view> fields) {
  CAIRN_ASSIGN_OR_RETURN(std::vector<HashField> entries, Unpack(kind, key, meta));
  std::size_t removed = 0;
  for (std::string_view field : fields) {
    auto it = LowerBound(entries, field);
    if (it == entries.end() || it->field != field) continue;
    entries.erase(it);
    ++removed;
  }
  if (removed == 0) return removed;
  meta.size = entries.size();
  meta.packed = EncodePacked(entries);
  CAIRN_RETURN_IF_ERROR(WriteMeta(kind, ks.records, key, state, meta));
  return removed;
}

}  // namespace

Status ValidateMember(const MapKind& kind, std::string_view member) {
  if (member.size() > kMaxKeyBytes) {
    return Status::InvalidArgument(std::string(kind.noun) + " " + std::string(kind.member_noun) +
                                   " is " + std::to_string(member.size()) +
                                   " bytes; the limit is " + std::to_string(kMaxKeyBytes));
  }
  return Status::Ok();
}

Status WriteMeta(const MapKind& kind, Rows& records, std::string_view key, const MapState& state,
                 const CompositeMeta& meta) {
  rocksdb::Status s = meta.size == 0
                          ? records.Remove(state.row_key)
                          : records.Write(state.row_key, EncodeValue(kind.type, state.expires_at_ms,
                                                                     EncodeCompositeMeta(meta)));
  if (s.ok()) return Status::Ok();
  return FromRocks(s, "write " + std::string(kind.noun) + " '" + Printable(key) + "'");
}

// Reads a member row (the transaction's own writes included); nullopt when absent.
Result<std::optional<std::string>> ReadMember(Rows& members, std::string_view key,
                                              const std::string& row_key) {
  std::string stored;
  rocksdb::Status s = members.ReadUnlocked(row_key, &stored);
  if (s.IsNotFound()) return std::optional<std::string>();
  if (!s.ok()) return FromRocks(s, "read a member of '" + Printable(key) + "'");
  CAIRN_RETURN_IF_ERROR(DecodeHeader(stored, key).status());
  stored.erase(0, kValueHeaderBytes);
  return std::optional<std::string>(std::move(stored));
}

Status ValidateMemberScan(const MemberScanRequest& request) {
  if (request.count == 0 || request.count > kMaxScanCount) {
    return Status::InvalidArgument("member scan count must be between 1 and " +
                                   std::to_string(kMaxScanCount) + ", got " +
                                   std::to_string(request.count));
  }
  // A cursor is a member followed by one more byte.
  if (request.cursor.size() > kMaxKeyBytes + 1) {
    return Status::InvalidArgument(
        "member scan cursor is " + std::to_string(request.cursor.size()) +
        " bytes; no cursor is longer than " + std::to_string(kMaxKeyBytes + 1));
  }
  return Status::Ok();
}

Status StartNew(Keyspace& ks, MapState& state, CompositeMeta& meta) {
  // A new incarnation: rows left by an earlier value of this key are not ours.
  CAIRN_ASSIGN_OR_RETURN(meta.version, ks.versions.Next());
  meta.size = 0;
  state.expires_at_ms = 0;
  return Status::Ok();
}

// Writes a copy of every row under `source` under `target` instead.
Status CopyRows(Rows& members, const std::string& source, const std::string& target,
                std::string_view to) {
  std::unique_ptr<rocksdb::Iterator> it = members.NewPrefixIterator(source);
  std::string row;
  for (it->Seek(source); it->Valid(); it->Next()) {
    row.assign(target).append(it->key().data() + source.size(), it->key().size() - source.size());
    rocksdb::Status s = members.Write(row, it->value());
    if (!s.ok()) return FromRocks(s, "write a member of '" + Printable(to) + "'");
  }
  return FromRocks(it->status(), "copy the members of '" + Printable(to) + "'");
}

const MapKind* KindOf(ValueType type) {
  switch (type) {
    case ValueType::kHash:
      return &kHashKind;
    case ValueType::kSet:
      return &kSetKind;
    case ValueType::kZSet:
      return &kZSetKind;
    default:
      return nullptr;
  }
}

Result<std::optional<std::string>> Get(const MapKind& kind, Keyspace& ks, std::int64_t now_ms,
                                       std::string_view key, std::string_view field) {
  CAIRN_ASSIGN_OR_RETURN(
      std::vector<std::optional<std::string>> values,
      GetMany(kind, ks, now_ms, key, std::span<const std::string_view>(&field, 1)));
  return std::move(values.front());
}

Result<std::vector<std::optional<std::string>>> GetMany(const MapKind& kind, Keyspace& ks,
                                                        std::int64_t now_ms, std::string_view key,
                                                        std::span<const std::string_view> fields) {
  for (std::string_view field : fields) CAIRN_RETURN_IF_ERROR(ValidateMember(kind, field));
  CAIRN_ASSIGN_OR_RETURN(MapState state, LoadMap(kind, ks.records, now_ms, key));
  std::vector<std::optional<std::string>> values(fields.size());
  if (!state.meta) return values;
  if (!state.meta->packed.empty()) {
    CAIRN_ASSIGN_OR_RETURN(std::vector<HashField> entries, Unpack(kind, key, *state.meta));
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (const HashField* e = FindPacked(entries, fields[i])) values[i] = std::string(e->value);
    }
    return values;
  }
  const std::string prefix = EncodeMemberPrefix(kind.tag, key, state.meta->version);
  std::string row;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    row.assign(prefix).append(fields[i]);
    CAIRN_ASSIGN_OR_RETURN(values[i], ReadMember(ks.members, key, row));
  }
  return values;
}

Result<std::size_t> Put(const MapKind& kind, Keyspace& ks, std::int64_t now_ms,
                        std::string_view key, std::span<const HashField> fields) {
  if (fields.empty()) {
    return Status::InvalidArgument("a " + std::string(kind.noun) + " write needs at least one " +
                                   std::string(kind.member_noun));
  }
  for (const HashField& f : fields) {
    CAIRN_RETURN_IF_ERROR(ValidateMember(kind, f.field));
    CAIRN_RETURN_IF_ERROR(ValidateValue(f.value, "hash value"));
  }
  CAIRN_ASSIGN_OR_RETURN(MapState state, LoadMap(kind, ks.records, now_ms, key));
  CompositeMeta meta;
  const bool fresh = !state.meta;
  if (state.meta) {
    meta = *state.meta;
  } else {
    CAIRN_RETURN_IF_ERROR(StartNew(ks, state, meta));
  }
  if (kind.type == ValueType::kHash && (fresh || !meta.packed.empty())) {
    return PutPacked(kind, ks, key, state, meta, fields);
  }
  const std::string prefix = EncodeMemberPrefix(kind.tag, key, meta.version);
  std::string row;
  std::size_t added = 0;
  // A value just created has no rows under its new version: what is new is told without
  // reading (only a member named twice in this call is not).
  std::unordered_set<std::string_view> named;
  for (const HashField& f : fields) {
    row.assign(prefix).append(f.field);
    if (fresh) {
      added += named.insert(f.field).second ? 1 : 0;
    } else {
      std::string ignored;
      rocksdb::Status found = ks.members.ReadUnlocked(row, &ignored);
      if (found.IsNotFound()) {
        ++added;
      } else if (!found.ok()) {
        return FromRocks(found, "read a member of '" + Printable(key) + "'");
      }
    }
    rocksdb::Status s = ks.members.Write(row, EncodeValue(ValueType::kMember, 0, f.value));
    if (!s.ok()) return FromRocks(s, "write a member of '" + Printable(key) + "'");
  }
  if (added > 0) {
    meta.size += added;
    CAIRN_RETURN_IF_ERROR(WriteMeta(kind, ks.records, key, state, meta));
  }
  return added;
}

Result<std::size_t> Remove(const MapKind& kind, Keyspace& ks, std::int64_t now_ms,
                           std::string_view key, std::span<const std::string_view> fields) {
  for (std::string_view field : fields) CAIRN_RETURN_IF_ERROR(ValidateMember(kind, field));
  CAIRN_ASSIGN_OR_RETURN(MapState state, LoadMap(kind, ks.records, now_ms, key));
  if (!state.meta) return std::size_t{0};
  CompositeMeta meta = *state.meta;
  if (!meta.packed.empty()) return RemovePacked(kind, ks, key, state, meta, fields);
  const std::string prefix = EncodeMemberPrefix(kind.tag, key, meta.version);
  std::string row;
  std::size_t removed = 0;
  for (std::string_view field : fields) {
    row.assign(prefix).append(field);
    std::string ignored;
    rocksdb::Status found = ks.members.ReadUnlocked(row, &ignored);
    if (found.IsNotFound()) continue;
    if (!found.ok()) return FromRocks(found, "read a member of '" + Printable(key) + "'");
    rocksdb::Status s = ks.members.Remove(row);
    if (!s.ok()) return FromRocks(s, "delete a member of '" + Printable(key) + "'");
    ++removed;
  }
  if (removed > 0) {
    if (removed > meta.size) {
      return Status::Corruption(std::string(kind.noun) + " '" + Printable(key) + "' counts " +
                                std::to_string(meta.size) + " members but held more");
    }
    meta.size -= removed;
    CAIRN_RETURN_IF_ERROR(WriteMeta(kind, ks.records, key, state, meta));
  }
  return removed;
}

Result<std::uint64_t> Size(const MapKind& kind, Keyspace& ks, std::int64_t now_ms,
                           std::string_view key) {
  CAIRN_ASSIGN_OR_RETURN(MapState state, LoadMap(kind, ks.records, now_ms, key));
  return state.meta ? state.meta->size : 0;
}

Result<HashPage> Scan(const MapKind& kind, Keyspace& ks, std::int64_t now_ms, std::string_view key,
                      const MemberScanRequest& request) {
  CAIRN_RETURN_IF_ERROR(ValidateMemberScan(request));
  CAIRN_ASSIGN_OR_RETURN(MapState state, LoadMap(kind, ks.records, now_ms, key));
  HashPage page;
  if (!state.meta) return page;
  if (!state.meta->packed.empty()) {
    CAIRN_ASSIGN_OR_RETURN(std::vector<HashField> entries, Unpack(kind, key, *state.meta));
    for (auto it = LowerBound(entries, request.cursor); it != entries.end(); ++it) {
      if (page.entries.size() == request.count) {
        page.cursor = page.entries.back().field;
        page.cursor.push_back('\0');
        break;
      }
      page.entries.push_back(HashEntry{std::string(it->field), std::string(it->value)});
    }
    return page;
  }
  const std::string prefix = EncodeMemberPrefix(kind.tag, key, state.meta->version);
  std::unique_ptr<rocksdb::Iterator> it = ks.members.NewPrefixIterator(prefix);
  std::string start = prefix;
  start.append(request.cursor);
  for (it->Seek(start); it->Valid(); it->Next()) {
    const std::string_view field =
        std::string_view(it->key().data(), it->key().size()).substr(prefix.size());
    if (page.entries.size() == request.count) {
      // More follow: resume at the least field after the last one returned.
      page.cursor = page.entries.back().field;
      page.cursor.push_back('\0');
      break;
    }
    const std::string_view stored(it->value().data(), it->value().size());
    CAIRN_RETURN_IF_ERROR(DecodeHeader(stored, key).status());
    page.entries.push_back(HashEntry{std::string(field), std::string(Payload(stored))});
  }
  CAIRN_RETURN_IF_ERROR(
      FromRocks(it->status(), "scan " + std::string(kind.noun) + " '" + Printable(key) + "'"));
  return page;
}

Result<std::size_t> AddToSet(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                             std::span<const std::string_view> members) {
  std::vector<HashField> fields;
  fields.reserve(members.size());
  for (std::string_view member : members) fields.push_back({member, {}});
  return Put(kSetKind, ks, now_ms, key, fields);
}

Result<bool> SetContains(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                         std::string_view member) {
  CAIRN_ASSIGN_OR_RETURN(std::optional<std::string> found, Get(kSetKind, ks, now_ms, key, member));
  return found.has_value();
}

Result<SetPage> ScanSet(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                        const MemberScanRequest& request) {
  CAIRN_ASSIGN_OR_RETURN(HashPage fields, Scan(kSetKind, ks, now_ms, key, request));
  SetPage page;
  page.members.reserve(fields.entries.size());
  for (HashEntry& e : fields.entries) page.members.push_back(std::move(e.field));
  page.cursor = std::move(fields.cursor);
  return page;
}

namespace {

// Copies every member row of (from, version), of each tag a value of `type` has, under
// (to, moved).
Status CopyMembers(Rows& members, ValueType type, std::string_view from, std::uint64_t version,
                   std::string_view to, std::uint64_t moved) {
  for (RowTag tag : MemberTags(type)) {
    CAIRN_RETURN_IF_ERROR(CopyRows(members, EncodeMemberPrefix(tag, from, version),
                                   EncodeMemberPrefix(tag, to, moved), to));
  }
  return Status::Ok();
}

// A kind whose metadata starts with its version.
struct SequenceKind {
  std::string_view noun;
  bool (*valid)(std::string_view payload);
};

std::optional<SequenceKind> SequenceKindOf(ValueType type) {
  switch (type) {
    case ValueType::kList:
      return SequenceKind{"list", [](std::string_view p) { return DecodeListMeta(p).has_value(); }};
    case ValueType::kStream:
      return SequenceKind{"stream",
                          [](std::string_view p) { return DecodeStreamMeta(p).has_value(); }};
    default:
      return std::nullopt;
  }
}

}  // namespace

Result<RenameOutcome> Rename(Keyspace& ks, std::int64_t now_ms, std::string_view from,
                             std::string_view to, bool only_if_absent) {
  CAIRN_RETURN_IF_ERROR(ValidateKey(from));
  CAIRN_RETURN_IF_ERROR(ValidateKey(to));
  const std::string from_row = EncodeRowKey(RowTag::kKeyspace, from);
  const std::string to_row = EncodeRowKey(RowTag::kKeyspace, to);
  std::string stored;
  rocksdb::Status s = ks.records.Read(from_row, &stored);
  if (s.IsNotFound()) return RenameOutcome::kNoSuchKey;
  if (!s.ok()) return FromRocks(s, "read '" + Printable(from) + "'");
  CAIRN_ASSIGN_OR_RETURN(ValueHeader header, DecodeHeader(stored, from));
  if (IsExpired(header.expires_at_ms, now_ms)) return RenameOutcome::kNoSuchKey;
  if (only_if_absent) {
    std::string target;
    s = ks.records.Read(to_row, &target);
    if (s.ok()) {
      CAIRN_ASSIGN_OR_RETURN(ValueHeader target_header, DecodeHeader(target, to));
      if (!IsExpired(target_header.expires_at_ms, now_ms)) return RenameOutcome::kTargetExists;
    } else if (!s.IsNotFound()) {
      return FromRocks(s, "read '" + Printable(to) + "'");
    }
  }
  if (from == to) return RenameOutcome::kRenamed;

  if (const std::optional<SequenceKind> sequence = SequenceKindOf(header.type)) {
    // A list's items and a stream's rows are member rows too: copied under a new version,
    // the rest of the metadata kept.
    std::string payload(Payload(stored));
    if (!sequence->valid(payload)) {
      return Status::Corruption(std::string(sequence->noun) + " '" + Printable(from) +
                                "' has unreadable metadata");
    }
    const std::uint64_t version = ReadBigEndian64(payload.data());
    CAIRN_ASSIGN_OR_RETURN(std::uint64_t moved, ks.versions.Next());
    CAIRN_RETURN_IF_ERROR(CopyMembers(ks.members, header.type, from, version, to, moved));
    std::string moved_version;
    AppendBigEndian64(&moved_version, moved);
    payload.replace(0, moved_version.size(), moved_version);
    stored = EncodeValue(header.type, header.expires_at_ms, payload);
  } else if (const MapKind* kind = KindOf(header.type)) {
    std::optional<CompositeMeta> meta = DecodeCompositeMeta(Payload(stored));
    if (!meta) {
      return Status::Corruption(std::string(kind->noun) + " '" + Printable(from) +
                                "' has unreadable metadata");
    }
    CompositeMeta moved = *meta;  // Packed fields, if any, go with it.
    CAIRN_ASSIGN_OR_RETURN(moved.version, ks.versions.Next());
    CAIRN_RETURN_IF_ERROR(
        CopyMembers(ks.members, header.type, from, meta->version, to, moved.version));
    stored = EncodeValue(header.type, header.expires_at_ms, EncodeCompositeMeta(moved));
  }
  s = ks.records.Write(to_row, stored);
  if (!s.ok()) return FromRocks(s, "write '" + Printable(to) + "'");
  s = ks.records.Remove(from_row);
  if (!s.ok()) return FromRocks(s, "delete '" + Printable(from) + "'");
  return RenameOutcome::kRenamed;
}

}  // namespace cairn::internal::member_map_ops
