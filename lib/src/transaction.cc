#include "cairn/transaction.h"

#include "records/list_ops.h"
#include "records/member_map_ops.h"
#include "records/record_ops.h"
#include "records/stream_group_ops.h"
#include "records/stream_ops.h"
#include "records/zset_ops.h"
#include "storage/rocks_status.h"
#include "transaction_core.h"

namespace cairn {

namespace ops = internal::record_ops;
namespace maps = internal::member_map_ops;
namespace zset = internal::zset_ops;
namespace lists = internal::list_ops;
namespace streams = internal::stream_ops;
namespace groups = internal::stream_group_ops;
using internal::Keyspace;
using internal::Rows;
using maps::kHashKind;
using maps::kSetKind;

Transaction::Transaction(std::unique_ptr<internal::TransactionCore> core)
    : core_(std::move(core)) {}

Transaction::~Transaction() { core_->Rollback(); }

Result<std::optional<std::string>> Transaction::Get(std::string_view key) {
  return core_->Apply([&](Rows& rows, std::int64_t now) { return ops::Get(rows, now, key); });
}

Result<SetResult> Transaction::Set(std::string_view key, std::string_view value,
                                   const SetOptions& options) {
  return core_->Apply(
      [&](Rows& rows, std::int64_t now) { return ops::Set(rows, now, key, value, options); });
}

Result<bool> Transaction::Delete(std::string_view key) {
  return core_->Apply([&](Rows& rows, std::int64_t now) { return ops::Delete(rows, now, key); });
}

Result<CasResult> Transaction::CompareAndSwap(std::string_view key, std::string_view expected,
                                              std::string_view desired, Expiry expiry) {
  return core_->Apply([&](Rows& rows, std::int64_t now) {
    return ops::CompareAndSwap(rows, now, key, expected, desired, expiry);
  });
}

Result<bool> Transaction::CompareAndDelete(std::string_view key, std::string_view expected) {
  return core_->Apply([&](Rows& rows, std::int64_t now) {
    return ops::CompareAndDelete(rows, now, key, expected);
  });
}

Result<bool> Transaction::Expire(std::string_view key, std::int64_t ttl_ms) {
  return core_->Apply(
      [&](Rows& rows, std::int64_t now) { return ops::Expire(rows, now, key, ttl_ms); });
}

Result<bool> Transaction::ExpireAt(std::string_view key, std::int64_t at_ms) {
  return core_->Apply(
      [&](Rows& rows, std::int64_t now) { return ops::ExpireAt(rows, now, key, at_ms); });
}

Result<bool> Transaction::Persist(std::string_view key) {
  return core_->Apply([&](Rows& rows, std::int64_t now) { return ops::Persist(rows, now, key); });
}

Result<TtlState> Transaction::GetTtl(std::string_view key) {
  return core_->Apply([&](Rows& rows, std::int64_t now) { return ops::GetTtl(rows, now, key); });
}

Result<std::int64_t> Transaction::IncrBy(std::string_view key, std::int64_t delta) {
  return core_->Apply(
      [&](Rows& rows, std::int64_t now) { return ops::IncrBy(rows, now, key, delta); });
}

Result<ScanPage> Transaction::Scan(const ScanRequest& request) {
  return core_->Apply([&](Rows& rows, std::int64_t now) { return ops::Scan(rows, now, request); });
}

Result<KeyType> Transaction::Type(std::string_view key) {
  return core_->Apply([&](Rows& rows, std::int64_t now) { return ops::Type(rows, now, key); });
}

Result<RenameOutcome> Transaction::Rename(std::string_view from, std::string_view to,
                                          bool only_if_absent) {
  return core_->ApplyKeyspace([&](Keyspace& ks, std::int64_t now) {
    return maps::Rename(ks, now, from, to, only_if_absent);
  });
}

Result<std::optional<std::string>> Transaction::HashGet(std::string_view key,
                                                        std::string_view field) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return maps::Get(kHashKind, ks, now, key, field); });
}

Result<std::vector<std::optional<std::string>>> Transaction::HashGetMany(
    std::string_view key, std::span<const std::string_view> fields) {
  return core_->ApplyKeyspace([&](Keyspace& ks, std::int64_t now) {
    return maps::GetMany(kHashKind, ks, now, key, fields);
  });
}

Result<std::size_t> Transaction::HashSet(std::string_view key, std::span<const HashField> fields) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return maps::Put(kHashKind, ks, now, key, fields); });
}

Result<std::size_t> Transaction::HashDelete(std::string_view key,
                                            std::span<const std::string_view> fields) {
  return core_->ApplyKeyspace([&](Keyspace& ks, std::int64_t now) {
    return maps::Remove(kHashKind, ks, now, key, fields);
  });
}

Result<std::uint64_t> Transaction::HashLength(std::string_view key) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return maps::Size(kHashKind, ks, now, key); });
}

Result<HashPage> Transaction::HashScan(std::string_view key, const MemberScanRequest& request) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return maps::Scan(kHashKind, ks, now, key, request); });
}

Result<std::size_t> Transaction::SetAdd(std::string_view key,
                                        std::span<const std::string_view> members) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return maps::AddToSet(ks, now, key, members); });
}

Result<std::size_t> Transaction::SetRemove(std::string_view key,
                                           std::span<const std::string_view> members) {
  return core_->ApplyKeyspace([&](Keyspace& ks, std::int64_t now) {
    return maps::Remove(kSetKind, ks, now, key, members);
  });
}

Result<bool> Transaction::SetContains(std::string_view key, std::string_view member) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return maps::SetContains(ks, now, key, member); });
}

Result<std::uint64_t> Transaction::SetSize(std::string_view key) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return maps::Size(kSetKind, ks, now, key); });
}

Result<SetPage> Transaction::SetScan(std::string_view key, const MemberScanRequest& request) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return maps::ScanSet(ks, now, key, request); });
}

Result<std::optional<double>> Transaction::ZSetScore(std::string_view key,
                                                     std::string_view member) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return zset::Score(ks, now, key, member); });
}

Result<std::size_t> Transaction::ZSetPut(std::string_view key, std::span<const ZSetEntry> entries) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return zset::Put(ks, now, key, entries); });
}

Result<std::size_t> Transaction::ZSetRemove(std::string_view key,
                                            std::span<const std::string_view> members) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return zset::Remove(ks, now, key, members); });
}

Result<std::uint64_t> Transaction::ZSetSize(std::string_view key) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return zset::Size(ks, now, key); });
}

Result<std::vector<ScoredMember>> Transaction::ZSetRange(std::string_view key,
                                                         const ZRangeRequest& request) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return zset::Range(ks, now, key, request); });
}

Result<std::optional<std::uint64_t>> Transaction::ZSetRank(std::string_view key,
                                                           std::string_view member, bool reverse) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return zset::Rank(ks, now, key, member, reverse); });
}

Result<ZSetPage> Transaction::ZSetScan(std::string_view key, const MemberScanRequest& request) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return zset::Scan(ks, now, key, request); });
}

Result<std::uint64_t> Transaction::ListPush(std::string_view key,
                                            std::span<const std::string_view> values, ListEnd end,
                                            bool only_if_exists) {
  return core_->ApplyKeyspace([&](Keyspace& ks, std::int64_t now) {
    return lists::Push(ks, now, key, values, end, only_if_exists);
  });
}

Result<std::optional<std::vector<std::string>>> Transaction::ListPop(std::string_view key,
                                                                     ListEnd end,
                                                                     std::uint64_t count) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return lists::Pop(ks, now, key, end, count); });
}

Result<std::uint64_t> Transaction::ListLength(std::string_view key) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return lists::Length(ks, now, key); });
}

Result<std::vector<std::string>> Transaction::ListRange(std::string_view key, std::int64_t start,
                                                        std::int64_t stop) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return lists::Range(ks, now, key, start, stop); });
}

Result<std::optional<std::string>> Transaction::ListIndex(std::string_view key,
                                                          std::int64_t index) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return lists::Index(ks, now, key, index); });
}

Result<ListSetOutcome> Transaction::ListSet(std::string_view key, std::int64_t index,
                                            std::string_view value) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return lists::Set(ks, now, key, index, value); });
}

Result<std::uint64_t> Transaction::ListRemove(std::string_view key, std::int64_t count,
                                              std::string_view value) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return lists::Remove(ks, now, key, count, value); });
}

Result<std::uint64_t> Transaction::ListTrim(std::string_view key, std::int64_t start,
                                            std::int64_t stop) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return lists::Trim(ks, now, key, start, stop); });
}

Result<std::int64_t> Transaction::ListInsert(std::string_view key, bool before,
                                             std::string_view pivot, std::string_view value) {
  return core_->ApplyKeyspace([&](Keyspace& ks, std::int64_t now) {
    return lists::Insert(ks, now, key, before, pivot, value);
  });
}

Result<std::vector<std::uint64_t>> Transaction::ListPosition(std::string_view key,
                                                             std::string_view value,
                                                             const ListPositionOptions& options) {
  return core_->ApplyKeyspace([&](Keyspace& ks, std::int64_t now) {
    return lists::Position(ks, now, key, value, options);
  });
}

Result<std::optional<std::string>> Transaction::ListMove(std::string_view source,
                                                         std::string_view destination,
                                                         ListEnd from_end, ListEnd to_end) {
  return core_->ApplyKeyspace([&](Keyspace& ks, std::int64_t now) {
    return lists::Move(ks, now, source, destination, from_end, to_end);
  });
}

Status Transaction::Commit() { return core_->Commit(); }

void Transaction::Rollback() { core_->Rollback(); }

void Transaction::SetSavePoint() { core_->SetSavePoint(); }

Status Transaction::RollbackToSavePoint() { return core_->RollbackToSavePoint(); }

Status Transaction::PopSavePoint() { return core_->PopSavePoint(); }

std::size_t Transaction::BufferedBytes() const { return core_->BufferedBytes(); }

Result<StreamAddResult> Transaction::StreamAdd(std::string_view key,
                                               std::span<const HashField> fields,
                                               const StreamAddOptions& options) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return streams::Add(ks, now, key, fields, options); });
}

Result<std::uint64_t> Transaction::StreamLength(std::string_view key) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return streams::Length(ks, now, key); });
}

Result<std::vector<StreamEntry>> Transaction::StreamRange(std::string_view key,
                                                          const StreamRangeRequest& request) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return streams::Range(ks, now, key, request); });
}

Result<std::size_t> Transaction::StreamDelete(std::string_view key, std::span<const StreamId> ids) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return streams::Delete(ks, now, key, ids); });
}

Result<std::uint64_t> Transaction::StreamTrim(std::string_view key, const StreamTrimRule& rule) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return streams::Trim(ks, now, key, rule); });
}

Result<std::optional<StreamSummary>> Transaction::StreamDescribe(std::string_view key) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return streams::Describe(ks, now, key); });
}

Result<StreamGroupOutcome> Transaction::StreamGroupCreate(std::string_view key,
                                                          std::string_view group,
                                                          const StreamGroupPosition& position,
                                                          bool make_stream) {
  return core_->ApplyKeyspace([&](Keyspace& ks, std::int64_t now) {
    return groups::Create(ks, now, key, group, position, make_stream);
  });
}

Result<StreamGroupOutcome> Transaction::StreamGroupSetPosition(
    std::string_view key, std::string_view group, const StreamGroupPosition& position) {
  return core_->ApplyKeyspace([&](Keyspace& ks, std::int64_t now) {
    return groups::SetPosition(ks, now, key, group, position);
  });
}

Result<StreamGroupOutcome> Transaction::StreamGroupDestroy(std::string_view key,
                                                           std::string_view group) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return groups::Destroy(ks, now, key, group); });
}

Result<StreamGroupOutcome> Transaction::StreamConsumerCreate(std::string_view key,
                                                             std::string_view group,
                                                             std::string_view consumer) {
  return core_->ApplyKeyspace([&](Keyspace& ks, std::int64_t now) {
    return groups::CreateConsumer(ks, now, key, group, consumer);
  });
}

Result<std::pair<StreamGroupOutcome, std::uint64_t>> Transaction::StreamConsumerDelete(
    std::string_view key, std::string_view group, std::string_view consumer) {
  return core_->ApplyKeyspace([&](Keyspace& ks, std::int64_t now) {
    return groups::DeleteConsumer(ks, now, key, group, consumer);
  });
}

Result<StreamGroupReadResult> Transaction::StreamReadGroup(std::string_view key,
                                                           std::string_view group,
                                                           std::string_view consumer,
                                                           const StreamGroupReadRequest& request) {
  return core_->ApplyKeyspace([&](Keyspace& ks, std::int64_t now) {
    return groups::Read(ks, now, key, group, consumer, request);
  });
}

Result<std::uint64_t> Transaction::StreamAck(std::string_view key, std::string_view group,
                                             std::span<const StreamId> ids) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return groups::Ack(ks, now, key, group, ids); });
}

Result<StreamPendingResult> Transaction::StreamPendingSummarize(std::string_view key,
                                                                std::string_view group) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return groups::Summarize(ks, now, key, group); });
}

Result<StreamPendingResult> Transaction::StreamPendingRange(std::string_view key,
                                                            std::string_view group,
                                                            const StreamPendingRequest& request) {
  return core_->ApplyKeyspace([&](Keyspace& ks, std::int64_t now) {
    return groups::Pending(ks, now, key, group, request);
  });
}

Result<StreamClaimResult> Transaction::StreamClaim(std::string_view key, std::string_view group,
                                                   std::string_view consumer,
                                                   const StreamClaimRequest& request) {
  return core_->ApplyKeyspace([&](Keyspace& ks, std::int64_t now) {
    return groups::Claim(ks, now, key, group, consumer, request);
  });
}

Result<StreamClaimResult> Transaction::StreamAutoClaim(std::string_view key, std::string_view group,
                                                       std::string_view consumer,
                                                       const StreamAutoClaimRequest& request) {
  return core_->ApplyKeyspace([&](Keyspace& ks, std::int64_t now) {
    return groups::AutoClaim(ks, now, key, group, consumer, request);
  });
}

Result<std::optional<std::vector<StreamGroupInfo>>> Transaction::StreamGroups(
    std::string_view key) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return groups::Groups(ks, now, key); });
}

Result<StreamConsumersResult> Transaction::StreamConsumers(std::string_view key,
                                                           std::string_view group) {
  return core_->ApplyKeyspace(
      [&](Keyspace& ks, std::int64_t now) { return groups::Consumers(ks, now, key, group); });
}

}  // namespace cairn
