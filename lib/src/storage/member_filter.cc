#include "storage/member_filter.h"

#include <optional>
#include <string>

#include "storage/composite_meta.h"
#include "storage/key_codec.h"
#include "storage/list_meta.h"
#include "storage/member_key.h"
#include "storage/member_tags.h"
#include "storage/stream_meta.h"
#include "storage/value_header.h"

namespace cairn::internal {
namespace {

class MemberFilter final : public rocksdb::CompactionFilter {
 public:
  MemberFilter(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* records, const Clock& clock,
               const MemberFilterFactory::DurableUpTo& durable_up_to)
      : db_(db), records_(records), clock_(clock), durable_up_to_(durable_up_to) {}

  bool Filter(int /*level*/, const rocksdb::Slice& key, const rocksdb::Slice& existing_value,
              std::string* /*new_value*/, bool* /*value_changed*/) const override {
    const std::string_view row(key.data(), key.size());
    auto header = DecodeHeader(std::string_view(existing_value.data(), existing_value.size()), row);
    if (!header.ok()) return false;
    const std::int64_t now = clock_.NowMs();
    if (IsExpired(header->expires_at_ms, now)) return true;
    const std::optional<MemberKey> member = DecodeMemberKey(row);
    if (!member) return false;
    const std::optional<internal::ValueType> owner = OwnerType(member->tag);
    if (!owner) return false;
    if (!cached_ || cached_key_ != member->key || cached_tag_ != member->tag) {
      cached_ = Lookup(member->key, *owner, now);
      cached_key_.assign(member->key);
      cached_tag_ = member->tag;
    }
    // Keep unless the lookup proved the row unreachable, durably.
    if (!cached_->decided) return false;
    if (cached_->live_version != member->version) return VerdictDurable();
    // A stream's entry that a trim left behind its first entry (stream_entries.h).
    const bool trimmed =
        member->tag == RowTag::kStreamEntry && member->member.size() == kStreamIdBytes &&
        (cached_->stream_length == 0 || ReadStreamId(member->member.data()) < cached_->first_id);
    return trimmed && VerdictDurable();
  }

  const char* Name() const override { return "cairn.MemberFilter"; }

 private:
  struct Verdict {
    bool decided = false;            // False: the metadata could not be read or decoded.
    std::uint64_t live_version = 0;  // 0: no live key (versions start at 1).
    // A live stream's: its entries below first_id, or all when it has none, are dead.
    std::uint64_t stream_length = 0;
    StreamId first_id;
    std::uint64_t read_at = 0;    // The database's sequence number just after the read.
    std::optional<bool> durable;  // Whether all up to read_at is on disk; asked once.
  };

  // Whether the cached verdict rests on durable writes: whatever the lookup saw was published
  // at or before read_at (an in-place update of a row too is a write with its own number).
  bool VerdictDurable() const {
    if (!cached_->durable) cached_->durable = durable_up_to_ && durable_up_to_(cached_->read_at);
    return *cached_->durable;
  }

  Verdict Lookup(std::string_view key, internal::ValueType owner, std::int64_t now) const {
    Verdict verdict = Read(key, owner, now);
    verdict.read_at = db_->GetLatestSequenceNumber();
    return verdict;
  }

  Verdict Read(std::string_view key, internal::ValueType owner, std::int64_t now) const {
    std::string stored;
    rocksdb::Status s =
        db_->Get(rocksdb::ReadOptions(), records_, EncodeRowKey(RowTag::kKeyspace, key), &stored);
    if (s.IsNotFound()) return {true, 0};
    if (!s.ok()) return {};
    auto header = DecodeHeader(stored, key);
    if (!header.ok()) return {};
    if (IsExpired(header->expires_at_ms, now) || header->type != owner) return {true, 0};
    if (owner == internal::ValueType::kList) {
      std::optional<ListMeta> list = DecodeListMeta(Payload(stored));
      if (!list) return {};
      return {true, list->version};
    }
    if (owner == internal::ValueType::kStream) {
      std::optional<StreamMeta> stream = DecodeStreamMeta(Payload(stored));
      if (!stream) return {};
      return {true, stream->version, stream->length, stream->first_id};
    }
    std::optional<CompositeMeta> meta = DecodeCompositeMeta(Payload(stored));
    if (!meta) return {};
    return {true, meta->version};
  }

  rocksdb::DB* const db_;
  rocksdb::ColumnFamilyHandle* const records_;
  const Clock& clock_;
  const MemberFilterFactory::DurableUpTo& durable_up_to_;
  // The verdict for the last key looked up (Filter is const; a filter serves one compaction,
  // which calls it from one thread).
  mutable std::optional<Verdict> cached_;
  mutable std::string cached_key_;
  mutable RowTag cached_tag_ = RowTag::kHashField;
};

// Keeps every row: the database is not attached.
class KeepAll final : public rocksdb::CompactionFilter {
 public:
  bool Filter(int, const rocksdb::Slice&, const rocksdb::Slice&, std::string*,
              bool*) const override {
    return false;
  }
  const char* Name() const override { return "cairn.KeepAll"; }
};

}  // namespace

std::unique_ptr<rocksdb::CompactionFilter> MemberFilterFactory::CreateCompactionFilter(
    const rocksdb::CompactionFilter::Context& /*context*/) {
  rocksdb::DB* db = db_.load();
  if (db == nullptr) return std::make_unique<KeepAll>();
  return std::make_unique<MemberFilter>(db, records_.load(), *clock_, durable_up_to_);
}

}  // namespace cairn::internal
