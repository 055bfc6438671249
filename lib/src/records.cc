// Every Records call, declared once: the operation (records/*_ops.h) and how it uses the
// keyspace. The executor it was made with runs it.
#include "cairn/records.h"

#include <optional>

#include "records/keyspace.h"
#include "records/list_ops.h"
#include "records/member_map_ops.h"
#include "records/record_ops.h"
#include "records/stream_group_ops.h"
#include "records/stream_ops.h"
#include "records/zset_ops.h"

namespace cairn {

namespace ops = internal::record_ops;
namespace maps = internal::member_map_ops;
namespace zset = internal::zset_ops;
namespace lists = internal::list_ops;
namespace streams = internal::stream_ops;
namespace groups = internal::stream_group_ops;
using internal::Keyspace;
using maps::kHashKind;
using maps::kSetKind;

namespace {

// Runs fn(Keyspace&, now_ms), which returns a Result, on the executor and returns that Result,
// or the executor's own failure when fn did not run or its writes did not commit.
template <typename Fn>
auto Run(RecordsExecutor& executor, RecordAccess access, Fn&& fn)
    -> decltype(fn(std::declval<Keyspace&>(), std::int64_t{})) {
  std::optional<decltype(fn(std::declval<Keyspace&>(), std::int64_t{}))> result;
  auto op = [&](Keyspace& ks, std::int64_t now) -> Status {
    result.emplace(fn(ks, now));
    return result->status();
  };
  Status s = executor.Run(access, RecordsExecutor::Operation(op));
  if (!s.ok() && (!result.has_value() || result->ok())) return s;
  return std::move(*result);
}

}  // namespace

Result<std::optional<std::string>> Records::Get(std::string_view key) {
  return Run(executor_, RecordAccess::kRead,
             [&](Keyspace& ks, std::int64_t now) { return ops::Get(ks.records, now, key); });
}

Result<SetResult> Records::Set(std::string_view key, std::string_view value,
                               const SetOptions& options) {
  auto set = [&](Keyspace& ks, std::int64_t now) {
    return ops::Set(ks.records, now, key, value, options);
  };
  return Run(executor_, ops::NeedsRead(options) ? RecordAccess::kWrite : RecordAccess::kBlindWrite,
             set);
}

Result<bool> Records::Delete(std::string_view key) {
  return Run(executor_, RecordAccess::kWrite,
             [&](Keyspace& ks, std::int64_t now) { return ops::Delete(ks.records, now, key); });
}

Result<CasResult> Records::CompareAndSwap(std::string_view key, std::string_view expected,
                                          std::string_view desired, Expiry expiry) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return ops::CompareAndSwap(ks.records, now, key, expected, desired, expiry);
  });
}

Result<bool> Records::CompareAndDelete(std::string_view key, std::string_view expected) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return ops::CompareAndDelete(ks.records, now, key, expected);
  });
}

Result<bool> Records::Expire(std::string_view key, std::int64_t ttl_ms) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return ops::Expire(ks.records, now, key, ttl_ms);
  });
}

Result<bool> Records::ExpireAt(std::string_view key, std::int64_t at_ms) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return ops::ExpireAt(ks.records, now, key, at_ms);
  });
}

Result<bool> Records::Persist(std::string_view key) {
  return Run(executor_, RecordAccess::kWrite,
             [&](Keyspace& ks, std::int64_t now) { return ops::Persist(ks.records, now, key); });
}

Result<TtlState> Records::GetTtl(std::string_view key) {
  return Run(executor_, RecordAccess::kRead,
             [&](Keyspace& ks, std::int64_t now) { return ops::GetTtl(ks.records, now, key); });
}

Result<std::int64_t> Records::IncrBy(std::string_view key, std::int64_t delta) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return ops::IncrBy(ks.records, now, key, delta);
  });
}

Result<ScanPage> Records::Scan(const ScanRequest& request) {
  // The database iterator reads one consistent snapshot, so a page is never torn.
  return Run(executor_, RecordAccess::kRead,
             [&](Keyspace& ks, std::int64_t now) { return ops::Scan(ks.records, now, request); });
}

Result<KeyType> Records::Type(std::string_view key) {
  return Run(executor_, RecordAccess::kRead,
             [&](Keyspace& ks, std::int64_t now) { return ops::Type(ks.records, now, key); });
}

Result<RenameOutcome> Records::Rename(std::string_view from, std::string_view to,
                                      bool only_if_absent) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return maps::Rename(ks, now, from, to, only_if_absent);
  });
}

Result<std::optional<std::string>> Records::HashGet(std::string_view key, std::string_view field) {
  return Run(executor_, RecordAccess::kRead, [&](Keyspace& ks, std::int64_t now) {
    return maps::Get(kHashKind, ks, now, key, field);
  });
}

Result<std::vector<std::optional<std::string>>> Records::HashGetMany(
    std::string_view key, std::span<const std::string_view> fields) {
  auto get = [&](Keyspace& ks, std::int64_t now) {
    return maps::GetMany(kHashKind, ks, now, key, fields);
  };
  // Several fields are read at one snapshot, so that a write of some of them meanwhile is
  // seen whole or not at all.
  return Run(executor_, fields.size() > 1 ? RecordAccess::kSnapshotRead : RecordAccess::kRead, get);
}

Result<std::size_t> Records::HashSet(std::string_view key, std::span<const HashField> fields) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return maps::Put(kHashKind, ks, now, key, fields);
  });
}

Result<std::size_t> Records::HashDelete(std::string_view key,
                                        std::span<const std::string_view> fields) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return maps::Remove(kHashKind, ks, now, key, fields);
  });
}

Result<std::uint64_t> Records::HashLength(std::string_view key) {
  return Run(executor_, RecordAccess::kRead,
             [&](Keyspace& ks, std::int64_t now) { return maps::Size(kHashKind, ks, now, key); });
}

Result<HashPage> Records::HashScan(std::string_view key, const MemberScanRequest& request) {
  return Run(executor_, RecordAccess::kRead, [&](Keyspace& ks, std::int64_t now) {
    return maps::Scan(kHashKind, ks, now, key, request);
  });
}

Result<std::size_t> Records::SetAdd(std::string_view key,
                                    std::span<const std::string_view> members) {
  return Run(executor_, RecordAccess::kWrite,
             [&](Keyspace& ks, std::int64_t now) { return maps::AddToSet(ks, now, key, members); });
}

Result<std::size_t> Records::SetRemove(std::string_view key,
                                       std::span<const std::string_view> members) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return maps::Remove(kSetKind, ks, now, key, members);
  });
}

Result<bool> Records::SetContains(std::string_view key, std::string_view member) {
  return Run(executor_, RecordAccess::kRead, [&](Keyspace& ks, std::int64_t now) {
    return maps::SetContains(ks, now, key, member);
  });
}

Result<std::uint64_t> Records::SetSize(std::string_view key) {
  return Run(executor_, RecordAccess::kRead,
             [&](Keyspace& ks, std::int64_t now) { return maps::Size(kSetKind, ks, now, key); });
}

Result<SetPage> Records::SetScan(std::string_view key, const MemberScanRequest& request) {
  return Run(executor_, RecordAccess::kRead,
             [&](Keyspace& ks, std::int64_t now) { return maps::ScanSet(ks, now, key, request); });
}

Result<std::optional<double>> Records::ZSetScore(std::string_view key, std::string_view member) {
  return Run(executor_, RecordAccess::kRead,
             [&](Keyspace& ks, std::int64_t now) { return zset::Score(ks, now, key, member); });
}

Result<std::size_t> Records::ZSetPut(std::string_view key, std::span<const ZSetEntry> entries) {
  return Run(executor_, RecordAccess::kWrite,
             [&](Keyspace& ks, std::int64_t now) { return zset::Put(ks, now, key, entries); });
}

Result<std::size_t> Records::ZSetRemove(std::string_view key,
                                        std::span<const std::string_view> members) {
  return Run(executor_, RecordAccess::kWrite,
             [&](Keyspace& ks, std::int64_t now) { return zset::Remove(ks, now, key, members); });
}

Result<std::uint64_t> Records::ZSetSize(std::string_view key) {
  return Run(executor_, RecordAccess::kRead,
             [&](Keyspace& ks, std::int64_t now) { return zset::Size(ks, now, key); });
}

Result<std::vector<ScoredMember>> Records::ZSetRange(std::string_view key,
                                                     const ZRangeRequest& request) {
  return Run(executor_, RecordAccess::kSnapshotRead,
             [&](Keyspace& ks, std::int64_t now) { return zset::Range(ks, now, key, request); });
}

Result<std::optional<std::uint64_t>> Records::ZSetRank(std::string_view key,
                                                       std::string_view member, bool reverse) {
  return Run(executor_, RecordAccess::kSnapshotRead, [&](Keyspace& ks, std::int64_t now) {
    return zset::Rank(ks, now, key, member, reverse);
  });
}

Result<ZSetPage> Records::ZSetScan(std::string_view key, const MemberScanRequest& request) {
  return Run(executor_, RecordAccess::kRead,
             [&](Keyspace& ks, std::int64_t now) { return zset::Scan(ks, now, key, request); });
}

Result<std::uint64_t> Records::ListPush(std::string_view key,
                                        std::span<const std::string_view> values, ListEnd end,
                                        bool only_if_exists) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return lists::Push(ks, now, key, values, end, only_if_exists);
  });
}

Result<std::optional<std::vector<std::string>>> Records::ListPop(std::string_view key, ListEnd end,
                                                                 std::uint64_t count) {
  return Run(executor_, RecordAccess::kWrite,
             [&](Keyspace& ks, std::int64_t now) { return lists::Pop(ks, now, key, end, count); });
}

Result<std::uint64_t> Records::ListLength(std::string_view key) {
  return Run(executor_, RecordAccess::kSnapshotRead,
             [&](Keyspace& ks, std::int64_t now) { return lists::Length(ks, now, key); });
}

Result<std::vector<std::string>> Records::ListRange(std::string_view key, std::int64_t start,
                                                    std::int64_t stop) {
  return Run(executor_, RecordAccess::kSnapshotRead, [&](Keyspace& ks, std::int64_t now) {
    return lists::Range(ks, now, key, start, stop);
  });
}

Result<std::optional<std::string>> Records::ListIndex(std::string_view key, std::int64_t index) {
  return Run(executor_, RecordAccess::kSnapshotRead,
             [&](Keyspace& ks, std::int64_t now) { return lists::Index(ks, now, key, index); });
}

Result<ListSetOutcome> Records::ListSet(std::string_view key, std::int64_t index,
                                        std::string_view value) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return lists::Set(ks, now, key, index, value);
  });
}

Result<std::uint64_t> Records::ListRemove(std::string_view key, std::int64_t count,
                                          std::string_view value) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return lists::Remove(ks, now, key, count, value);
  });
}

Result<std::uint64_t> Records::ListTrim(std::string_view key, std::int64_t start,
                                        std::int64_t stop) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return lists::Trim(ks, now, key, start, stop);
  });
}

Result<std::int64_t> Records::ListInsert(std::string_view key, bool before, std::string_view pivot,
                                         std::string_view value) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return lists::Insert(ks, now, key, before, pivot, value);
  });
}

Result<std::vector<std::uint64_t>> Records::ListPosition(std::string_view key,
                                                         std::string_view value,
                                                         const ListPositionOptions& options) {
  return Run(executor_, RecordAccess::kSnapshotRead, [&](Keyspace& ks, std::int64_t now) {
    return lists::Position(ks, now, key, value, options);
  });
}

Result<std::optional<std::string>> Records::ListMove(std::string_view source,
                                                     std::string_view destination, ListEnd from_end,
                                                     ListEnd to_end) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return lists::Move(ks, now, source, destination, from_end, to_end);
  });
}

Result<StreamAddResult> Records::StreamAdd(std::string_view key, std::span<const HashField> fields,
                                           const StreamAddOptions& options) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return streams::Add(ks, now, key, fields, options);
  });
}

Result<std::uint64_t> Records::StreamLength(std::string_view key) {
  return Run(executor_, RecordAccess::kSnapshotRead,
             [&](Keyspace& ks, std::int64_t now) { return streams::Length(ks, now, key); });
}

Result<std::vector<StreamEntry>> Records::StreamRange(std::string_view key,
                                                      const StreamRangeRequest& request) {
  return Run(executor_, RecordAccess::kSnapshotRead,
             [&](Keyspace& ks, std::int64_t now) { return streams::Range(ks, now, key, request); });
}

Result<std::size_t> Records::StreamDelete(std::string_view key, std::span<const StreamId> ids) {
  return Run(executor_, RecordAccess::kWrite,
             [&](Keyspace& ks, std::int64_t now) { return streams::Delete(ks, now, key, ids); });
}

Result<std::uint64_t> Records::StreamTrim(std::string_view key, const StreamTrimRule& rule) {
  return Run(executor_, RecordAccess::kWrite,
             [&](Keyspace& ks, std::int64_t now) { return streams::Trim(ks, now, key, rule); });
}

Result<std::optional<StreamSummary>> Records::StreamDescribe(std::string_view key) {
  return Run(executor_, RecordAccess::kSnapshotRead,
             [&](Keyspace& ks, std::int64_t now) { return streams::Describe(ks, now, key); });
}

Result<StreamGroupOutcome> Records::StreamGroupCreate(std::string_view key, std::string_view group,
                                                      const StreamGroupPosition& position,
                                                      bool make_stream) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return groups::Create(ks, now, key, group, position, make_stream);
  });
}

Result<StreamGroupOutcome> Records::StreamGroupSetPosition(std::string_view key,
                                                           std::string_view group,
                                                           const StreamGroupPosition& position) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return groups::SetPosition(ks, now, key, group, position);
  });
}

Result<StreamGroupOutcome> Records::StreamGroupDestroy(std::string_view key,
                                                       std::string_view group) {
  return Run(executor_, RecordAccess::kWrite,
             [&](Keyspace& ks, std::int64_t now) { return groups::Destroy(ks, now, key, group); });
}

Result<StreamGroupOutcome> Records::StreamConsumerCreate(std::string_view key,
                                                         std::string_view group,
                                                         std::string_view consumer) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return groups::CreateConsumer(ks, now, key, group, consumer);
  });
}

Result<std::pair<StreamGroupOutcome, std::uint64_t>> Records::StreamConsumerDelete(
    std::string_view key, std::string_view group, std::string_view consumer) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return groups::DeleteConsumer(ks, now, key, group, consumer);
  });
}

Result<StreamGroupReadResult> Records::StreamReadGroup(std::string_view key, std::string_view group,
                                                       std::string_view consumer,
                                                       const StreamGroupReadRequest& request) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return groups::Read(ks, now, key, group, consumer, request);
  });
}

Result<std::uint64_t> Records::StreamAck(std::string_view key, std::string_view group,
                                         std::span<const StreamId> ids) {
  return Run(executor_, RecordAccess::kWrite,
             [&](Keyspace& ks, std::int64_t now) { return groups::Ack(ks, now, key, group, ids); });
}

Result<StreamPendingResult> Records::StreamPendingSummarize(std::string_view key,
                                                            std::string_view group) {
  return Run(executor_, RecordAccess::kSnapshotRead, [&](Keyspace& ks, std::int64_t now) {
    return groups::Summarize(ks, now, key, group);
  });
}

Result<StreamPendingResult> Records::StreamPendingRange(std::string_view key,
                                                        std::string_view group,
                                                        const StreamPendingRequest& request) {
  return Run(executor_, RecordAccess::kSnapshotRead, [&](Keyspace& ks, std::int64_t now) {
    return groups::Pending(ks, now, key, group, request);
  });
}

Result<StreamClaimResult> Records::StreamClaim(std::string_view key, std::string_view group,
                                               std::string_view consumer,
                                               const StreamClaimRequest& request) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return groups::Claim(ks, now, key, group, consumer, request);
  });
}

Result<StreamClaimResult> Records::StreamAutoClaim(std::string_view key, std::string_view group,
                                                   std::string_view consumer,
                                                   const StreamAutoClaimRequest& request) {
  return Run(executor_, RecordAccess::kWrite, [&](Keyspace& ks, std::int64_t now) {
    return groups::AutoClaim(ks, now, key, group, consumer, request);
  });
}

Result<std::optional<std::vector<StreamGroupInfo>>> Records::StreamGroups(std::string_view key) {
  return Run(executor_, RecordAccess::kSnapshotRead,
             [&](Keyspace& ks, std::int64_t now) { return groups::Groups(ks, now, key); });
}

Result<StreamConsumersResult> Records::StreamConsumers(std::string_view key,
                                                       std::string_view group) {
  return Run(executor_, RecordAccess::kSnapshotRead, [&](Keyspace& ks, std::int64_t now) {
    return groups::Consumers(ks, now, key, group);
  });
}

}  // namespace cairn
