#include "records/consumer_group.h"

#include <algorithm>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "storage/member_key.h"
#include "storage/rocks_status.h"
#include "storage/value_header.h"
#include "util/printable.h"
#include "util/status_macros.h"

namespace cairn::internal {
namespace {

// How many rows a walk reads before it visits them (bounds its memory).
constexpr std::size_t kWalkChunk = 256;

struct Row {
  std::string key;
  std::string value;
};

// Up to `limit` rows whose keys start with `prefix`, from `seek` on (included), ascending or
// descending.
Status CollectRows(Rows& rows, const std::string& prefix, const std::string& seek, bool reverse,
                   std::size_t limit, std::vector<Row>* out) {
  out->clear();
  std::unique_ptr<rocksdb::Iterator> it = rows.NewPrefixIterator(prefix);
  reverse ? it->SeekForPrev(seek) : it->Seek(seek);
  for (; it->Valid() && out->size() < limit; reverse ? it->Prev() : it->Next()) {
    if (!it->key().starts_with(prefix)) break;
    out->push_back({it->key().ToString(), it->value().ToString()});
  }
  return FromRocks(it->status(), "read a consumer group");
}

// Calls visit(row) for the rows under `prefix` whose keys are prefix + `suffix_bytes` bytes
// (any length: 0), from `seek` on, ascending or descending, until visit returns false or they
// run out. Reads a chunk of rows at a time, with no iterator open while it visits them, so
// visit may write rows (the next chunk is read from where the last one ended).
Status WalkRows(Rows& rows, const std::string& prefix, std::string seek, bool reverse,
                std::size_t suffix_bytes, const std::function<bool(const Row&)>& visit) {
  std::vector<Row> chunk;
  std::optional<std::string> last;  // The last row visited: a resumed read starts at it.
  while (true) {
    CAIRN_RETURN_IF_ERROR(CollectRows(rows, prefix, seek, reverse, kWalkChunk, &chunk));
    for (const Row& row : chunk) {
      if (last && row.key == *last) continue;
      if (suffix_bytes != 0 && row.key.size() != prefix.size() + suffix_bytes) continue;
      if (!visit(row)) return Status::Ok();
    }
    if (chunk.size() < kWalkChunk) return Status::Ok();
    seek = chunk.back().key;
    last = seek;
  }
}

// A group's row of `key`'s stream decoded by `decode` (a Decode…Row of stream_group_rows.h):
// kCorruption, naming the row by `what`, when its payload does not decode.
template <typename Decode>
auto DecodeGroupMember(std::string_view stored, std::string_view key, Decode decode,
                       const std::string& what)
    -> Result<typename std::invoke_result_t<Decode, std::string_view>::value_type> {
  CAIRN_RETURN_IF_ERROR(DecodeHeader(stored, key).status());
  auto row = decode(Payload(stored));
  if (!row) {
    return Status::Corruption(what + " of stream '" + Printable(key) + "' is unreadable");
  }
  return std::move(*row);
}

}  // namespace

ConsumerGroup::ConsumerGroup(Keyspace& ks, std::string_view key, std::uint64_t version,
                             std::string_view name, GroupRow row)
    : members_(&ks.members), key_(key), version_(version), name_(name), row_(row) {}

Result<std::optional<ConsumerGroup>> ConsumerGroup::Open(Keyspace& ks, std::string_view key,
                                                         std::uint64_t version,
                                                         std::string_view name) {
  ConsumerGroup group(ks, key, version, name, GroupRow{});
  std::string stored;
  rocksdb::Status s = ks.members.ReadUnlocked(group.GroupRowKey(), &stored);
  if (s.IsNotFound()) return std::optional<ConsumerGroup>();
  if (!s.ok()) return group.Failed(s, "read");
  CAIRN_ASSIGN_OR_RETURN(group.row_, DecodeGroupMember(stored, key, DecodeGroupRow,
                                                       "consumer group '" + Printable(name) + "'"));
  return std::optional<ConsumerGroup>(std::move(group));
}

ConsumerGroup ConsumerGroup::Create(Keyspace& ks, std::string_view key, std::uint64_t version,
                                    std::string_view name, const GroupRow& row) {
  return ConsumerGroup(ks, key, version, name, row);
}

Status ConsumerGroup::WalkGroups(
    Keyspace& ks, std::string_view key, std::uint64_t version,
    const std::function<bool(std::string_view, const GroupRow&)>& visit) {
  const std::string prefix = EncodeMemberPrefix(RowTag::kStreamGroup, key, version);
  Status decoded = Status::Ok();
  CAIRN_RETURN_IF_ERROR(WalkRows(ks.members, prefix, prefix, false, 0, [&](const Row& row) {
    const std::string_view name = std::string_view(row.key).substr(prefix.size());
    Result<GroupRow> group = DecodeGroupMember(row.value, key, DecodeGroupRow,
                                               "consumer group '" + Printable(name) + "'");
    decoded = group.status();
    return decoded.ok() && visit(name, *group);
  }));
  return decoded;
}

std::string ConsumerGroup::GroupRowKey() const {
  std::string out = EncodeMemberPrefix(RowTag::kStreamGroup, key_, version_);
  out.append(name_);
  return out;
}

std::string ConsumerGroup::ConsumerRowKey(std::string_view consumer) const {
  std::string out = EncodeMemberPrefix(RowTag::kStreamConsumer, key_, version_);
  AppendNamePart(&out, name_);
  out.append(consumer);
  return out;
}

std::string ConsumerGroup::PendingRowKey(StreamId id) const {
  std::string out = EncodeMemberPrefix(RowTag::kStreamPending, key_, version_);
  AppendNamePart(&out, name_);
  AppendStreamId(&out, id);
  return out;
}

std::string ConsumerGroup::ConsumerNoun(std::string_view consumer) const {
  return "consumer '" + Printable(consumer) + "' of group '" + Printable(name_) + "'";
}

std::string ConsumerGroup::PendingNoun() const {
  return "a pending entry of group '" + Printable(name_) + "'";
}

Status ConsumerGroup::Failed(const rocksdb::Status& s, std::string_view what) const {
  return FromRocks(s, std::string(what) + " consumer group '" + Printable(name_) + "' of stream '" +
                          Printable(key_) + "'");
}

Result<ConsumerRow*> ConsumerGroup::FindConsumer(std::string_view consumer) {
  auto it = consumers_.find(consumer);
  if (it == consumers_.end()) {
    CachedConsumer cached;
    std::string stored;
    rocksdb::Status s = members_->ReadUnlocked(ConsumerRowKey(consumer), &stored);
    if (s.ok()) {
      CAIRN_ASSIGN_OR_RETURN(
          cached.row, DecodeGroupMember(stored, key_, DecodeConsumerRow, ConsumerNoun(consumer)));
    } else if (!s.IsNotFound()) {
      return Failed(s, "read");
    }
    it = consumers_.emplace(std::string(consumer), std::move(cached)).first;
  }
  return it->second.row ? &*it->second.row : nullptr;
}

Result<ConsumerRow*> ConsumerGroup::Touch(std::string_view consumer, std::int64_t seen_at_ms,
                                          bool* created) {
  CAIRN_ASSIGN_OR_RETURN(ConsumerRow * row, FindConsumer(consumer));
  CachedConsumer& cached = consumers_.find(consumer)->second;
  if (created != nullptr) *created = row == nullptr;
  if (row == nullptr) {
    cached.row = ConsumerRow{};
    ++row_.consumers;
  }
  cached.row->seen_at_ms = seen_at_ms;
  cached.dirty = true;
  return &*cached.row;
}

Result<std::uint64_t> ConsumerGroup::DeleteConsumer(std::string_view consumer) {
  CAIRN_ASSIGN_OR_RETURN(ConsumerRow * row, FindConsumer(consumer));
  if (row == nullptr) return std::uint64_t{0};
  std::uint64_t removed = 0;
  Status status = Status::Ok();
  CAIRN_RETURN_IF_ERROR(
      WalkConsumerPending(consumer, StreamId{}, [&](StreamId id, const PendingRow& pending) {
        status = RemovePending(id, pending);
        removed += status.ok() ? 1 : 0;
        return status.ok();
      }));
  CAIRN_RETURN_IF_ERROR(status);
  CachedConsumer& cached = consumers_.find(consumer)->second;
  cached.row.reset();
  cached.dirty = true;
  row_.consumers -= std::min<std::uint64_t>(row_.consumers, 1);
  return removed;
}

Result<std::optional<PendingRow>> ConsumerGroup::GetPending(StreamId id) {
  std::string stored;
  rocksdb::Status s = members_->ReadUnlocked(PendingRowKey(id), &stored);
  if (s.IsNotFound()) return std::optional<PendingRow>();
  if (!s.ok()) return Failed(s, "read");
  CAIRN_ASSIGN_OR_RETURN(PendingRow row,
                         DecodeGroupMember(stored, key_, DecodePendingRow, PendingNoun()));
  return std::optional<PendingRow>(std::move(row));
}

Status ConsumerGroup::AdjustConsumer(std::string_view consumer, bool add) {
  CAIRN_ASSIGN_OR_RETURN(ConsumerRow * row, FindConsumer(consumer));
  if (row == nullptr) return Status::Ok();  // Deleted with its pending rows already.
  row->pending = add ? row->pending + 1 : row->pending - std::min<std::uint64_t>(row->pending, 1);
  consumers_.find(consumer)->second.dirty = true;
  return Status::Ok();
}

Status ConsumerGroup::SetPending(StreamId id, const PendingRow& row,
                                 const std::optional<PendingRow>& old) {
  row_.highest_pending = std::max(row_.highest_pending, id);
  rocksdb::Status s =
      members_->Write(PendingRowKey(id), EncodeValue(ValueType::kMember, 0, EncodePendingRow(row)));
  if (!s.ok()) return Failed(s, "write");
  if (old && old->consumer == row.consumer) return Status::Ok();
  CAIRN_RETURN_IF_ERROR(AdjustConsumer(row.consumer, true));
  if (!old) {
    ++row_.pending;
    return Status::Ok();
  }
  return AdjustConsumer(old->consumer, false);
}

Status ConsumerGroup::RemovePending(StreamId id, const PendingRow& old) {
  rocksdb::Status s = members_->Remove(PendingRowKey(id));
  if (!s.ok()) return Failed(s, "write");
  row_.pending -= std::min<std::uint64_t>(row_.pending, 1);
  return AdjustConsumer(old.consumer, false);
}

Status ConsumerGroup::WalkPending(StreamId from, bool reverse,
                                  const std::function<bool(StreamId, const PendingRow&)>& visit) {
  std::string prefix = EncodeMemberPrefix(RowTag::kStreamPending, key_, version_);
  AppendNamePart(&prefix, name_);
  std::string seek = prefix;
  AppendStreamId(&seek, from);
  Status decoded = Status::Ok();
  CAIRN_RETURN_IF_ERROR(
      WalkRows(*members_, prefix, seek, reverse, kStreamIdBytes, [&](const Row& row) {
        Result<PendingRow> pending =
            DecodeGroupMember(row.value, key_, DecodePendingRow, PendingNoun());
        decoded = pending.status();
        return decoded.ok() && visit(ReadStreamId(row.key.data() + prefix.size()), *pending);
      }));
  return decoded;
}

Status ConsumerGroup::WalkConsumerPending(
    std::string_view consumer, StreamId from,
    const std::function<bool(StreamId, const PendingRow&)>& visit) {
  CAIRN_ASSIGN_OR_RETURN(ConsumerRow * row, FindConsumer(consumer));
  if (row == nullptr || row->pending == 0) return Status::Ok();
  // The consumer's entries are found among the group's (there is no index by consumer: it
  // cost more on every delivery and acknowledgement than it saved here). A walk from the
  // first id ends at the last of them, which the consumer's pending count tells.
  const bool from_start = from <= StreamId{0, 1};  // No entry has the id 0-0.
  std::uint64_t left = row->pending;
  return WalkPending(from, false, [&](StreamId id, const PendingRow& pending) {
    if (pending.consumer != consumer) return true;
    const bool more = visit(id, pending);
    return more && (!from_start || --left > 0);
  });
}

Status ConsumerGroup::WalkConsumers(
    const std::function<bool(std::string_view, const ConsumerRow&)>& visit) {
  std::string prefix = EncodeMemberPrefix(RowTag::kStreamConsumer, key_, version_);
  AppendNamePart(&prefix, name_);
  Status decoded = Status::Ok();
  CAIRN_RETURN_IF_ERROR(WalkRows(*members_, prefix, prefix, false, 0, [&](const Row& row) {
    const std::string_view consumer = std::string_view(row.key).substr(prefix.size());
    // This operation's own changes, not yet saved, come first.
    if (auto it = consumers_.find(consumer); it != consumers_.end() && it->second.dirty) {
      return !it->second.row || visit(consumer, *it->second.row);
    }
    Result<ConsumerRow> decoded_row =
        DecodeGroupMember(row.value, key_, DecodeConsumerRow, ConsumerNoun(consumer));
    decoded = decoded_row.status();
    return decoded.ok() && visit(consumer, *decoded_row);
  }));
  return decoded;
}

Status ConsumerGroup::Save() {
  rocksdb::Status s =
      members_->Write(GroupRowKey(), EncodeValue(ValueType::kMember, 0, EncodeGroupRow(row_)));
  if (!s.ok()) return Failed(s, "write");
  for (auto& [consumer, cached] : consumers_) {
    if (!cached.dirty) continue;
    s = cached.row
            ? members_->Write(ConsumerRowKey(consumer),
                              EncodeValue(ValueType::kMember, 0, EncodeConsumerRow(*cached.row)))
            : members_->Remove(ConsumerRowKey(consumer));
    if (!s.ok()) return Failed(s, "write");
    cached.dirty = false;
  }
  return Status::Ok();
}

Status ConsumerGroup::Destroy() {
  for (RowTag tag : {RowTag::kStreamConsumer, RowTag::kStreamPending}) {
    std::string prefix = EncodeMemberPrefix(tag, key_, version_);
    AppendNamePart(&prefix, name_);
    rocksdb::Status s;
    CAIRN_RETURN_IF_ERROR(WalkRows(*members_, prefix, prefix, false, 0, [&](const Row& row) {
      s = members_->Remove(row.key);
      return s.ok();
    }));
    if (!s.ok()) return Failed(s, "delete");
  }
  rocksdb::Status s = members_->Remove(GroupRowKey());
  if (!s.ok()) return Failed(s, "delete");
  consumers_.clear();
  return Status::Ok();
}

}  // namespace cairn::internal
