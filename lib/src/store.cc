#include "cairn/store.h"

#include <rocksdb/snapshot.h>

#include <chrono>
#include <random>
#include <thread>

#include "records/list_ops.h"
#include "records/member_map_ops.h"
#include "records/record_ops.h"
#include "records/stream_group_ops.h"
#include "records/stream_ops.h"
#include "records/zset_ops.h"
#include "storage/rocks_status.h"
#include "store_core.h"
#include "transaction_core.h"
#include "util/status_macros.h"

namespace cairn {

namespace ops = internal::record_ops;
namespace maps = internal::member_map_ops;
namespace zset = internal::zset_ops;
namespace lists = internal::list_ops;
namespace streams = internal::stream_ops;
namespace groups = internal::stream_group_ops;
using internal::ColumnFamily;
using internal::Keyspace;
using internal::Rows;
using maps::kHashKind;
using maps::kSetKind;

namespace {

template <typename Fn>
auto RunSingle(internal::StoreCore& core, Fn&& fn) {
  return internal::RunInTransaction(core, ColumnFamily::kRecords, std::forward<Fn>(fn));
}

// Runs a record operation that needs no atomic read-modify-write directly on the database.
template <typename Fn>
auto RunDirect(internal::StoreCore& core, Fn&& fn)
    -> decltype(fn(std::declval<Rows&>(), std::int64_t{})) {
  CAIRN_ASSIGN_OR_RETURN(internal::KeyspaceHold hold, core.EnterKeyspace());
  internal::DbRows rows(core.db(), core.cf(ColumnFamily::kRecords), core.read_options(),
                        core.write_options(), core.row_cache(ColumnFamily::kRecords),
                        core.health());
  return fn(rows, core.clock().NowMs());
}

// Runs a keyspace read directly on the database: the metadata row, then members under its
// version (which a concurrent writer never changes in place: a new incarnation gets a new
// version).
template <typename Fn>
auto RunKeyspaceDirect(internal::StoreCore& core, Fn&& fn)
    -> decltype(fn(std::declval<Keyspace&>(), std::int64_t{})) {
  CAIRN_ASSIGN_OR_RETURN(internal::KeyspaceHold hold, core.EnterKeyspace());
  internal::DbRows records(core.db(), core.cf(ColumnFamily::kRecords), core.read_options(),
                           core.write_options(), core.row_cache(ColumnFamily::kRecords),
                           core.health());
  internal::DbRows members(core.db(), core.cf(ColumnFamily::kMembers), core.read_options(),
                           core.write_options(), core.row_cache(ColumnFamily::kMembers),
                           core.health());
  Keyspace ks{records, members, core.version_counter()};
  return fn(ks, core.clock().NowMs());
}

// Runs a keyspace read that combines several rows at one snapshot of the database, so that a
// write committed meanwhile is seen whole or not at all: a sorted set's size, a member's score
// and a walk of its score index (a rank computed from the size before a write and the index
// after it is wrong, or looks like corruption); a list's metadata and its items, which change
// in place under one version (pops, LSET, the moves of LINSERT and LREM). The row cache is
// bypassed: it holds the newest rows, not the snapshot's.
template <typename Fn>
auto RunKeyspaceSnapshot(internal::StoreCore& core, Fn&& fn)
    -> decltype(fn(std::declval<Keyspace&>(), std::int64_t{})) {
  CAIRN_ASSIGN_OR_RETURN(internal::KeyspaceHold hold, core.EnterKeyspace());
  rocksdb::ManagedSnapshot snapshot(core.db());
  rocksdb::ReadOptions read_options = core.read_options();
  read_options.snapshot = snapshot.snapshot();
  internal::DbRows records(core.db(), core.cf(ColumnFamily::kRecords), read_options,
                           core.write_options(), nullptr, core.health());
  internal::DbRows members(core.db(), core.cf(ColumnFamily::kMembers), read_options,
                           core.write_options(), nullptr, core.health());
  Keyspace ks{records, members, core.version_counter()};
  return fn(ks, core.clock().NowMs());
}

template <typename Fn>
auto RunKeyspace(internal::StoreCore& core, Fn&& fn) {
  return internal::RunInKeyspaceTransaction(core, std::forward<Fn>(fn));
}

}  // namespace

Store::Store(std::unique_ptr<internal::StoreCore> core) : core_(std::move(core)) {}

Store::~Store() = default;

Result<std::unique_ptr<Store>> Store::Open(const Options& options) {
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<internal::StoreCore> core,
                         internal::StoreCore::Open(options));
  return std::unique_ptr<Store>(new Store(std::move(core)));
}

Status Store::Close() { return core_->Close(); }

const Options& Store::options() const { return core_->options(); }

Result<std::optional<std::string>> Store::Get(std::string_view key) {
  return RunDirect(*core_, [&](Rows& rows, std::int64_t now) { return ops::Get(rows, now, key); });
}

Result<SetResult> Store::Set(std::string_view key, std::string_view value,
                             const SetOptions& options) {
  auto set = [&](Rows& rows, std::int64_t now) { return ops::Set(rows, now, key, value, options); };
  if (ops::NeedsRead(options)) return RunSingle(*core_, set);
  return RunDirect(*core_, set);
}

Result<bool> Store::Delete(std::string_view key) {
  return RunSingle(*core_,
                   [&](Rows& rows, std::int64_t now) { return ops::Delete(rows, now, key); });
}

Result<CasResult> Store::CompareAndSwap(std::string_view key, std::string_view expected,
                                        std::string_view desired, Expiry expiry) {
  return RunSingle(*core_, [&](Rows& rows, std::int64_t now) {
    return ops::CompareAndSwap(rows, now, key, expected, desired, expiry);
  });
}

Result<bool> Store::CompareAndDelete(std::string_view key, std::string_view expected) {
  return RunSingle(*core_, [&](Rows& rows, std::int64_t now) {
    return ops::CompareAndDelete(rows, now, key, expected);
  });
}

Result<bool> Store::Expire(std::string_view key, std::int64_t ttl_ms) {
  return RunSingle(
      *core_, [&](Rows& rows, std::int64_t now) { return ops::Expire(rows, now, key, ttl_ms); });
}

Result<bool> Store::ExpireAt(std::string_view key, std::int64_t at_ms) {
  return RunSingle(
      *core_, [&](Rows& rows, std::int64_t now) { return ops::ExpireAt(rows, now, key, at_ms); });
}

Result<bool> Store::Persist(std::string_view key) {
  return RunSingle(*core_,
                   [&](Rows& rows, std::int64_t now) { return ops::Persist(rows, now, key); });
}

Result<TtlState> Store::GetTtl(std::string_view key) {
  return RunDirect(*core_,
                   [&](Rows& rows, std::int64_t now) { return ops::GetTtl(rows, now, key); });
}

Result<std::int64_t> Store::IncrBy(std::string_view key, std::int64_t delta) {
  return RunSingle(
      *core_, [&](Rows& rows, std::int64_t now) { return ops::IncrBy(rows, now, key, delta); });
}

Result<ScanPage> Store::Scan(const ScanRequest& request) {
  // The database iterator reads one consistent snapshot, so a page is never torn.
  return RunDirect(*core_,
                   [&](Rows& rows, std::int64_t now) { return ops::Scan(rows, now, request); });
}

Result<KeyType> Store::Type(std::string_view key) {
  return RunDirect(*core_, [&](Rows& rows, std::int64_t now) { return ops::Type(rows, now, key); });
}

Result<RenameOutcome> Store::Rename(std::string_view from, std::string_view to,
                                    bool only_if_absent) {
  return RunKeyspace(*core_, [&](Keyspace& ks, std::int64_t now) {
    return maps::Rename(ks, now, from, to, only_if_absent);
  });
}

Result<std::optional<std::string>> Store::HashGet(std::string_view key, std::string_view field) {
  return RunKeyspaceDirect(*core_, [&](Keyspace& ks, std::int64_t now) {
    return maps::Get(kHashKind, ks, now, key, field);
  });
}

Result<std::vector<std::optional<std::string>>> Store::HashGetMany(
    std::string_view key, std::span<const std::string_view> fields) {
  auto get = [&](Keyspace& ks, std::int64_t now) {
    return maps::GetMany(kHashKind, ks, now, key, fields);
  };
  // Several fields are read at one snapshot, so that a write of some of them meanwhile is
  // seen whole or not at all.
  return fields.size() > 1 ? RunKeyspaceSnapshot(*core_, get) : RunKeyspaceDirect(*core_, get);
}

Result<std::size_t> Store::HashSet(std::string_view key, std::span<const HashField> fields) {
  return RunKeyspace(*core_, [&](Keyspace& ks, std::int64_t now) {
    return maps::Put(kHashKind, ks, now, key, fields);
  });
}

Result<std::size_t> Store::HashDelete(std::string_view key,
                                      std::span<const std::string_view> fields) {
  return RunKeyspace(*core_, [&](Keyspace& ks, std::int64_t now) {
    return maps::Remove(kHashKind, ks, now, key, fields);
  });
}

Result<std::uint64_t> Store::HashLength(std::string_view key) {
  return RunKeyspaceDirect(
      *core_, [&](Keyspace& ks, std::int64_t now) { return maps::Size(kHashKind, ks, now, key); });
}

Result<HashPage> Store::HashScan(std::string_view key, const MemberScanRequest& request) {
  return RunKeyspaceDirect(*core_, [&](Keyspace& ks, std::int64_t now) {
    return maps::Scan(kHashKind, ks, now, key, request);
  });
}

Result<std::size_t> Store::SetAdd(std::string_view key, std::span<const std::string_view> members) {
  return RunKeyspace(*core_, [&](Keyspace& ks, std::int64_t now) {
    return maps::AddToSet(ks, now, key, members);
  });
}

Result<std::size_t> Store::SetRemove(std::string_view key,
                                     std::span<const std::string_view> members) {
  return RunKeyspace(*core_, [&](Keyspace& ks, std::int64_t now) {
    return maps::Remove(kSetKind, ks, now, key, members);
  });
}

Result<bool> Store::SetContains(std::string_view key, std::string_view member) {
  return RunKeyspaceDirect(*core_, [&](Keyspace& ks, std::int64_t now) {
    return maps::SetContains(ks, now, key, member);
  });
}

Result<std::uint64_t> Store::SetSize(std::string_view key) {
  return RunKeyspaceDirect(
      *core_, [&](Keyspace& ks, std::int64_t now) { return maps::Size(kSetKind, ks, now, key); });
}

Result<SetPage> Store::SetScan(std::string_view key, const MemberScanRequest& request) {
  return RunKeyspaceDirect(
      *core_, [&](Keyspace& ks, std::int64_t now) { return maps::ScanSet(ks, now, key, request); });
}

Result<std::optional<double>> Store::ZSetScore(std::string_view key, std::string_view member) {
  return RunKeyspaceDirect(
      *core_, [&](Keyspace& ks, std::int64_t now) { return zset::Score(ks, now, key, member); });
}

Result<std::size_t> Store::ZSetPut(std::string_view key, std::span<const ZSetEntry> entries) {
  return RunKeyspace(
      *core_, [&](Keyspace& ks, std::int64_t now) { return zset::Put(ks, now, key, entries); });
}

Result<std::size_t> Store::ZSetRemove(std::string_view key,
                                      std::span<const std::string_view> members) {
  return RunKeyspace(
      *core_, [&](Keyspace& ks, std::int64_t now) { return zset::Remove(ks, now, key, members); });
}

Result<std::uint64_t> Store::ZSetSize(std::string_view key) {
  return RunKeyspaceDirect(
      *core_, [&](Keyspace& ks, std::int64_t now) { return zset::Size(ks, now, key); });
}

Result<std::vector<ScoredMember>> Store::ZSetRange(std::string_view key,
                                                   const ZRangeRequest& request) {
  return RunKeyspaceSnapshot(
      *core_, [&](Keyspace& ks, std::int64_t now) { return zset::Range(ks, now, key, request); });
}

Result<std::optional<std::uint64_t>> Store::ZSetRank(std::string_view key, std::string_view member,
                                                     bool reverse) {
  return RunKeyspaceSnapshot(*core_, [&](Keyspace& ks, std::int64_t now) {
    return zset::Rank(ks, now, key, member, reverse);
  });
}

Result<ZSetPage> Store::ZSetScan(std::string_view key, const MemberScanRequest& request) {
  return RunKeyspaceDirect(
      *core_, [&](Keyspace& ks, std::int64_t now) { return zset::Scan(ks, now, key, request); });
}

Result<std::uint64_t> Store::ListPush(std::string_view key,
                                      std::span<const std::string_view> values, ListEnd end,
                                      bool only_if_exists) {
  return RunKeyspace(*core_, [&](Keyspace& ks, std::int64_t now) {
    return lists::Push(ks, now, key, values, end, only_if_exists);
  });
}

Result<std::optional<std::vector<std::string>>> Store::ListPop(std::string_view key, ListEnd end,
                                                               std::uint64_t count) {
  return RunKeyspace(
      *core_, [&](Keyspace& ks, std::int64_t now) { return lists::Pop(ks, now, key, end, count); });
}

Result<std::uint64_t> Store::ListLength(std::string_view key) {
  return RunKeyspaceSnapshot(
      *core_, [&](Keyspace& ks, std::int64_t now) { return lists::Length(ks, now, key); });
}

Result<std::vector<std::string>> Store::ListRange(std::string_view key, std::int64_t start,
                                                  std::int64_t stop) {
  return RunKeyspaceSnapshot(*core_, [&](Keyspace& ks, std::int64_t now) {
    return lists::Range(ks, now, key, start, stop);
  });
}

Result<std::optional<std::string>> Store::ListIndex(std::string_view key, std::int64_t index) {
  return RunKeyspaceSnapshot(
      *core_, [&](Keyspace& ks, std::int64_t now) { return lists::Index(ks, now, key, index); });
}

Result<ListSetOutcome> Store::ListSet(std::string_view key, std::int64_t index,
                                      std::string_view value) {
  return RunKeyspace(*core_, [&](Keyspace& ks, std::int64_t now) {
    return lists::Set(ks, now, key, index, value);
  });
}

Result<std::uint64_t> Store::ListRemove(std::string_view key, std::int64_t count,
                                        std::string_view value) {
  return RunKeyspace(*core_, [&](Keyspace& ks, std::int64_t now) {
    return lists::Remove(ks, now, key, count, value);
  });
}

Result<std::uint64_t> Store::ListTrim(std::string_view key, std::int64_t start, std::int64_t stop) {
  return RunKeyspace(*core_, [&](Keyspace& ks, std::int64_t now) {
    return lists::Trim(ks, now, key, start, stop);
  });
}

Result<std::int64_t> Store::ListInsert(std::string_view key, bool before, std::string_view pivot,
                                       std::string_view value) {
  return RunKeyspace(*core_, [&](Keyspace& ks, std::int64_t now) {
    return lists::Insert(ks, now, key, before, pivot, value);
  });
}

Result<std::vector<std::uint64_t>> Store::ListPosition(std::string_view key, std::string_view value,
                                                       const ListPositionOptions& options) {
  return RunKeyspaceSnapshot(*core_, [&](Keyspace& ks, std::int64_t now) {
    return lists::Position(ks, now, key, value, options);
  });
}

Result<std::optional<std::string>> Store::ListMove(std::string_view source,
                                                   std::string_view destination, ListEnd from_end,
                                                   ListEnd to_end) {
  return RunKeyspace(*core_, [&](Keyspace& ks, std::int64_t now) {
    return lists::Move(ks, now, source, destination, from_end, to_end);
  });
}

Result<std::unique_ptr<Transaction>> Store::BeginTransaction() {
  CAIRN_ASSIGN_OR_RETURN(internal::KeyspaceHold hold, core_->EnterKeyspace());
  auto core = std::make_unique<internal::TransactionCore>(core_.get(), std::move(hold));
  return std::unique_ptr<Transaction>(new Transaction(std::move(core)));
}

Status Store::RunTransaction(const std::function<Status(Transaction&)>& fn, int max_attempts) {
  if (max_attempts < 1) {
    return Status::InvalidArgument("RunTransaction needs max_attempts >= 1, got " +
                                   std::to_string(max_attempts));
  }
  thread_local std::minstd_rand rng(std::random_device{}());
  Status status;
  for (int attempt = 1; attempt <= max_attempts; ++attempt) {
    CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<Transaction> txn, BeginTransaction());
    status = fn(*txn);
    if (status.ok()) status = txn->Commit();
    if (status.ok()) return status;
    txn->Rollback();
    if (!status.IsBusy()) return status;
    // Randomized, growing pause so that transactions that deadlocked do not meet again.
    const int cap_us = std::min(50'000, 500 << std::min(attempt, 6));
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % cap_us));
  }
  return Status::Busy("transaction gave up after " + std::to_string(max_attempts) +
                      " attempts: " + status.message());
}

Status Store::Sync() { return core_->Sync(); }

Status Store::Compact() { return core_->Compact(); }

std::uint64_t Store::VisiblePosition() const { return core_->VisiblePosition(); }

std::uint64_t Store::DurablePosition() const { return core_->DurablePosition(); }

StoreHealth Store::Health() const { return core_->health().Snapshot(); }

bool Store::Writable() const { return core_->writable(); }

void Store::CheckHealth() {
  if (!core_->closed()) core_->CheckHealth();
}

Result<StreamAddResult> Store::StreamAdd(std::string_view key, std::span<const HashField> fields,
                                         const StreamAddOptions& options) {
  return RunKeyspace(*core_, [&](Keyspace& ks, std::int64_t now) {
    return streams::Add(ks, now, key, fields, options);
  });
}

Result<std::uint64_t> Store::StreamLength(std::string_view key) {
  return RunKeyspaceSnapshot(
      *core_, [&](Keyspace& ks, std::int64_t now) { return streams::Length(ks, now, key); });
}

Result<std::vector<StreamEntry>> Store::StreamRange(std::string_view key,
                                                    const StreamRangeRequest& request) {
  return RunKeyspaceSnapshot(*core_, [&](Keyspace& ks, std::int64_t now) {
    return streams::Range(ks, now, key, request);
  });
}

Result<std::size_t> Store::StreamDelete(std::string_view key, std::span<const StreamId> ids) {
  return RunKeyspace(
      *core_, [&](Keyspace& ks, std::int64_t now) { return streams::Delete(ks, now, key, ids); });
}

Result<std::uint64_t> Store::StreamTrim(std::string_view key, const StreamTrimRule& rule) {
  return RunKeyspace(
      *core_, [&](Keyspace& ks, std::int64_t now) { return streams::Trim(ks, now, key, rule); });
}

Result<std::optional<StreamSummary>> Store::StreamDescribe(std::string_view key) {
  return RunKeyspaceSnapshot(
      *core_, [&](Keyspace& ks, std::int64_t now) { return streams::Describe(ks, now, key); });
}

Result<StreamGroupOutcome> Store::StreamGroupCreate(std::string_view key, std::string_view group,
                                                    const StreamGroupPosition& position,
                                                    bool make_stream) {
  return RunKeyspace(*core_, [&](Keyspace& ks, std::int64_t now) {
    return groups::Create(ks, now, key, group, position, make_stream);
  });
}

Result<StreamGroupOutcome> Store::StreamGroupSetPosition(std::string_view key,
                                                         std::string_view group,
                                                         const StreamGroupPosition& position) {
  return RunKeyspace(*core_, [&](Keyspace& ks, std::int64_t now) {
    return groups::SetPosition(ks, now, key, group, position);
  });
}

Result<StreamGroupOutcome> Store::StreamGroupDestroy(std::string_view key, std::string_view group) {
  return RunKeyspace(
      *core_, [&](Keyspace& ks, std::int64_t now) { return groups::Destroy(ks, now, key, group); });
}

Result<StreamGroupOutcome> Store::StreamConsumerCreate(std::string_view key, std::string_view group,
                                                       std::string_view consumer) {
  return RunKeyspace(*core_, [&](Keyspace& ks, std::int64_t now) {
    return groups::CreateConsumer(ks, now, key, group, consumer);
  });
}

Result<std::pair<StreamGroupOutcome, std::uint64_t>> Store::StreamConsumerDelete(
    std::string_view key, std::string_view group, std::string_view consumer) {
  return RunKeyspace(*core_, [&](Keyspace& ks, std::int64_t now) {
    return groups::DeleteConsumer(ks, now, key, group, consumer);
  });
}

Result<StreamGroupReadResult> Store::StreamReadGroup(std::string_view key, std::string_view group,
                                                     std::string_view consumer,
                                                     const StreamGroupReadRequest& request) {
  return RunKeyspace(*core_, [&](Keyspace& ks, std::int64_t now) {
    return groups::Read(ks, now, key, group, consumer, request);
  });
}

Result<std::uint64_t> Store::StreamAck(std::string_view key, std::string_view group,
                                       std::span<const StreamId> ids) {
  return RunKeyspace(*core_, [&](Keyspace& ks, std::int64_t now) {
    return groups::Ack(ks, now, key, group, ids);
  });
}

Result<StreamPendingResult> Store::StreamPendingSummarize(std::string_view key,
                                                          std::string_view group) {
  return RunKeyspaceSnapshot(*core_, [&](Keyspace& ks, std::int64_t now) {
    return groups::Summarize(ks, now, key, group);
  });
}

Result<StreamPendingResult> Store::StreamPendingRange(std::string_view key, std::string_view group,
                                                      const StreamPendingRequest& request) {
  return RunKeyspaceSnapshot(*core_, [&](Keyspace& ks, std::int64_t now) {
    return groups::Pending(ks, now, key, group, request);
  });
}

Result<StreamClaimResult> Store::StreamClaim(std::string_view key, std::string_view group,
                                             std::string_view consumer,
                                             const StreamClaimRequest& request) {
  return RunKeyspace(*core_, [&](Keyspace& ks, std::int64_t now) {
    return groups::Claim(ks, now, key, group, consumer, request);
  });
}

Result<StreamClaimResult> Store::StreamAutoClaim(std::string_view key, std::string_view group,
                                                 std::string_view consumer,
                                                 const StreamAutoClaimRequest& request) {
  return RunKeyspace(*core_, [&](Keyspace& ks, std::int64_t now) {
    return groups::AutoClaim(ks, now, key, group, consumer, request);
  });
}

Result<std::optional<std::vector<StreamGroupInfo>>> Store::StreamGroups(std::string_view key) {
  return RunKeyspaceSnapshot(
      *core_, [&](Keyspace& ks, std::int64_t now) { return groups::Groups(ks, now, key); });
}

Result<StreamConsumersResult> Store::StreamConsumers(std::string_view key, std::string_view group) {
  return RunKeyspaceSnapshot(*core_, [&](Keyspace& ks, std::int64_t now) {
    return groups::Consumers(ks, now, key, group);
  });
}

}  // namespace cairn
