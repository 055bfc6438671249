#include "records/stream_entries.h"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "storage/member_key.h"
#include "storage/rocks_status.h"
#include "storage/stream_fields.h"
#include "storage/value_header.h"
#include "util/printable.h"
#include "util/status_macros.h"

namespace cairn::internal {

Result<StreamState> LoadStream(Rows& records, std::int64_t now_ms, std::string_view key) {
  return LoadComposite<StreamMeta>(
      records, now_ms, key, ValueType::kStream, "stream",
      [](std::string_view payload) { return DecodeStreamMeta(payload); });
}

Status WriteStreamMeta(Rows& records, std::string_view key, const StreamState& state,
                       const StreamMeta& meta) {
  rocksdb::Status s = records.Write(
      state.row_key, EncodeValue(ValueType::kStream, state.expires_at_ms, EncodeStreamMeta(meta)));
  if (s.ok()) return Status::Ok();
  return FromRocks(s, "write stream '" + Printable(key) + "'");
}

std::optional<StreamId> Successor(StreamId id) {
  if (id.seq != UINT64_MAX) return StreamId{id.ms, id.seq + 1};
  if (id.ms != UINT64_MAX) return StreamId{id.ms + 1, 0};
  return std::nullopt;
}

StreamEntries::StreamEntries(Keyspace& ks, std::string_view key, const StreamMeta& meta)
    : rows_(ks.members),
      meta_(meta),
      key_(key),
      prefix_(EncodeMemberPrefix(RowTag::kStreamEntry, key, meta.version)) {}

std::string StreamEntries::Row(StreamId id) const {
  std::string row = prefix_;
  AppendStreamId(&row, id);
  return row;
}

Status StreamEntries::Write(StreamId id, std::span<const HashField> fields) {
  return Written(
      rows_.Write(Row(id), EncodeValue(ValueType::kMember, 0, EncodeStreamFields(fields))));
}

Status StreamEntries::Remove(StreamId id) { return Written(rows_.Remove(Row(id))); }

Result<bool> StreamEntries::Exists(StreamId id) {
  if (!Live(id)) return false;
  std::string stored;
  rocksdb::Status s = rows_.ReadUnlocked(Row(id), &stored);
  if (s.IsNotFound()) return false;
  if (!s.ok()) return FromRocks(s, "read an entry of stream '" + Printable(key_) + "'");
  return true;
}

Result<std::optional<StreamEntry>> StreamEntries::Get(StreamId id) {
  if (!Live(id)) return std::optional<StreamEntry>();
  std::string stored;
  rocksdb::Status s = rows_.ReadUnlocked(Row(id), &stored);
  if (s.IsNotFound()) return std::optional<StreamEntry>();
  if (!s.ok()) return FromRocks(s, "read an entry of stream '" + Printable(key_) + "'");
  CAIRN_ASSIGN_OR_RETURN(StreamEntry entry, Decode(id, stored));
  return std::optional<StreamEntry>(std::move(entry));
}

Status StreamEntries::Walk(StreamId from, bool reverse,
                           const std::function<bool(StreamId, std::string_view)>& visit) {
  if (meta_.length == 0) return Status::Ok();
  // Forward walks start at the first live entry, not among the dead rows before it.
  if (!reverse) from = std::max(from, meta_.first_id);
  std::unique_ptr<rocksdb::Iterator> it = rows_.NewPrefixIterator(prefix_);
  reverse ? it->SeekForPrev(Row(from)) : it->Seek(Row(from));
  for (; it->Valid(); reverse ? it->Prev() : it->Next()) {
    const std::string_view row(it->key().data(), it->key().size());
    if (row.size() != prefix_.size() + kStreamIdBytes || !row.starts_with(prefix_)) break;
    const StreamId id = ReadStreamId(row.data() + prefix_.size());
    if (id < meta_.first_id) break;  // Walking back into the trimmed rows.
    if (!visit(id, std::string_view(it->value().data(), it->value().size()))) {
      return Status::Ok();
    }
  }
  return FromRocks(it->status(), "read the entries of stream '" + Printable(key_) + "'");
}

Result<StreamEntry> StreamEntries::Decode(StreamId id, std::string_view stored) const {
  CAIRN_RETURN_IF_ERROR(DecodeHeader(stored, key_).status());
  std::optional<std::vector<HashEntry>> fields = DecodeStreamFields(Payload(stored));
  if (!fields) {
    return Status::Corruption("stream '" + Printable(key_) + "' has an unreadable entry");
  }
  return StreamEntry{id, std::move(*fields)};
}

Status StreamEntries::Written(const rocksdb::Status& s) const {
  return s.ok() ? Status::Ok() : FromRocks(s, "write stream '" + Printable(key_) + "'");
}

}  // namespace cairn::internal
