// A Records over a store transaction (or over another such wrapper: a script inside EXEC) that
// notes whether any call failed with kBusy (a lock wait timed out, or a deadlock was
// detected). Command handlers turn a failed call into an error reply and carry on, so without
// this the code that runs them in one transaction (EXEC, batched writes, scripts) could not
// tell a conflict — after which the whole transaction must be rolled
// back and run again — from an ordinary error reply, and would commit half of it.
#pragma once

#include "cairn/records.h"
#include "cairn/transaction.h"

namespace cairn::server {

class BusyNotingRecords final : public Records {
 public:
  explicit BusyNotingRecords(Records& txn) : txn_(txn) {}

  // True once a call has failed with kBusy.
  bool busy() const { return busy_; }

  Result<std::optional<std::string>> Get(std::string_view key) override {
    return Note(txn_.Get(key));
  }
  Result<SetResult> Set(std::string_view key, std::string_view value,
                        const SetOptions& options = {}) override {
    return Note(txn_.Set(key, value, options));
  }
  Result<bool> Delete(std::string_view key) override { return Note(txn_.Delete(key)); }
  Result<CasResult> CompareAndSwap(std::string_view key, std::string_view expected,
                                   std::string_view desired,
                                   Expiry expiry = Expiry::Keep()) override {
    return Note(txn_.CompareAndSwap(key, expected, desired, expiry));
  }
  Result<bool> CompareAndDelete(std::string_view key, std::string_view expected) override {
    return Note(txn_.CompareAndDelete(key, expected));
  }
  Result<bool> Expire(std::string_view key, std::int64_t ttl_ms) override {
    return Note(txn_.Expire(key, ttl_ms));
  }
  Result<bool> ExpireAt(std::string_view key, std::int64_t at_ms) override {
    return Note(txn_.ExpireAt(key, at_ms));
  }
  Result<bool> Persist(std::string_view key) override { return Note(txn_.Persist(key)); }
  Result<TtlState> GetTtl(std::string_view key) override { return Note(txn_.GetTtl(key)); }
  Result<std::int64_t> IncrBy(std::string_view key, std::int64_t delta) override {
    return Note(txn_.IncrBy(key, delta));
  }
  Result<ScanPage> Scan(const ScanRequest& request) override { return Note(txn_.Scan(request)); }
  Result<KeyType> Type(std::string_view key) override { return Note(txn_.Type(key)); }
  Result<RenameOutcome> Rename(std::string_view from, std::string_view to,
                               bool only_if_absent) override {
    return Note(txn_.Rename(from, to, only_if_absent));
  }
  Result<std::optional<std::string>> HashGet(std::string_view key,
                                             std::string_view field) override {
    return Note(txn_.HashGet(key, field));
  }
  Result<std::vector<std::optional<std::string>>> HashGetMany(
      std::string_view key, std::span<const std::string_view> fields) override {
    return Note(txn_.HashGetMany(key, fields));
  }
  Result<std::size_t> HashSet(std::string_view key, std::span<const HashField> fields) override {
    return Note(txn_.HashSet(key, fields));
  }
  Result<std::size_t> HashDelete(std::string_view key,
                                 std::span<const std::string_view> fields) override {
    return Note(txn_.HashDelete(key, fields));
  }
  Result<std::uint64_t> HashLength(std::string_view key) override {
    return Note(txn_.HashLength(key));
  }
  Result<HashPage> HashScan(std::string_view key, const MemberScanRequest& request) override {
    return Note(txn_.HashScan(key, request));
  }
  Result<std::size_t> SetAdd(std::string_view key,
                             std::span<const std::string_view> members) override {
    return Note(txn_.SetAdd(key, members));
  }
  Result<std::size_t> SetRemove(std::string_view key,
                                std::span<const std::string_view> members) override {
    return Note(txn_.SetRemove(key, members));
  }
  Result<bool> SetContains(std::string_view key, std::string_view member) override {
    return Note(txn_.SetContains(key, member));
  }
  Result<std::uint64_t> SetSize(std::string_view key) override { return Note(txn_.SetSize(key)); }
  Result<SetPage> SetScan(std::string_view key, const MemberScanRequest& request) override {
    return Note(txn_.SetScan(key, request));
  }
  Result<std::optional<double>> ZSetScore(std::string_view key, std::string_view member) override {
    return Note(txn_.ZSetScore(key, member));
  }
  Result<std::size_t> ZSetPut(std::string_view key, std::span<const ZSetEntry> entries) override {
    return Note(txn_.ZSetPut(key, entries));
  }
  Result<std::size_t> ZSetRemove(std::string_view key,
                                 std::span<const std::string_view> members) override {
    return Note(txn_.ZSetRemove(key, members));
  }
  Result<std::uint64_t> ZSetSize(std::string_view key) override { return Note(txn_.ZSetSize(key)); }
  Result<std::vector<ScoredMember>> ZSetRange(std::string_view key,
                                              const ZRangeRequest& request) override {
    return Note(txn_.ZSetRange(key, request));
  }
  Result<std::optional<std::uint64_t>> ZSetRank(std::string_view key, std::string_view member,
                                                bool reverse) override {
    return Note(txn_.ZSetRank(key, member, reverse));
  }
  Result<ZSetPage> ZSetScan(std::string_view key, const MemberScanRequest& request) override {
    return Note(txn_.ZSetScan(key, request));
  }
  Result<std::uint64_t> ListPush(std::string_view key, std::span<const std::string_view> values,
                                 ListEnd end, bool only_if_exists) override {
    return Note(txn_.ListPush(key, values, end, only_if_exists));
  }
  Result<std::optional<std::vector<std::string>>> ListPop(std::string_view key, ListEnd end,
                                                          std::uint64_t count) override {
    return Note(txn_.ListPop(key, end, count));
  }
  Result<std::uint64_t> ListLength(std::string_view key) override {
    return Note(txn_.ListLength(key));
  }
  Result<std::vector<std::string>> ListRange(std::string_view key, std::int64_t start,
                                             std::int64_t stop) override {
    return Note(txn_.ListRange(key, start, stop));
  }
  Result<std::optional<std::string>> ListIndex(std::string_view key, std::int64_t index) override {
    return Note(txn_.ListIndex(key, index));
  }
  Result<ListSetOutcome> ListSet(std::string_view key, std::int64_t index,
                                 std::string_view value) override {
    return Note(txn_.ListSet(key, index, value));
  }
  Result<std::uint64_t> ListRemove(std::string_view key, std::int64_t count,
                                   std::string_view value) override {
    return Note(txn_.ListRemove(key, count, value));
  }
  Result<std::uint64_t> ListTrim(std::string_view key, std::int64_t start,
                                 std::int64_t stop) override {
    return Note(txn_.ListTrim(key, start, stop));
  }
  Result<std::int64_t> ListInsert(std::string_view key, bool before, std::string_view pivot,
                                  std::string_view value) override {
    return Note(txn_.ListInsert(key, before, pivot, value));
  }
  Result<std::vector<std::uint64_t>> ListPosition(std::string_view key, std::string_view value,
                                                  const ListPositionOptions& options) override {
    return Note(txn_.ListPosition(key, value, options));
  }
  Result<std::optional<std::string>> ListMove(std::string_view source, std::string_view destination,
                                              ListEnd from_end, ListEnd to_end) override {
    return Note(txn_.ListMove(source, destination, from_end, to_end));
  }

  Result<StreamAddResult> StreamAdd(std::string_view key, std::span<const HashField> fields,
                                    const StreamAddOptions& options) override {
    return Note(txn_.StreamAdd(key, fields, options));
  }
  Result<std::uint64_t> StreamLength(std::string_view key) override {
    return Note(txn_.StreamLength(key));
  }
  Result<std::vector<StreamEntry>> StreamRange(std::string_view key,
                                               const StreamRangeRequest& request) override {
    return Note(txn_.StreamRange(key, request));
  }
  Result<std::size_t> StreamDelete(std::string_view key, std::span<const StreamId> ids) override {
    return Note(txn_.StreamDelete(key, ids));
  }
  Result<std::uint64_t> StreamTrim(std::string_view key, const StreamTrimRule& rule) override {
    return Note(txn_.StreamTrim(key, rule));
  }
  Result<std::optional<StreamSummary>> StreamDescribe(std::string_view key) override {
    return Note(txn_.StreamDescribe(key));
  }
  Result<StreamGroupOutcome> StreamGroupCreate(std::string_view key, std::string_view group,
                                               const StreamGroupPosition& position,
                                               bool make_stream) override {
    return Note(txn_.StreamGroupCreate(key, group, position, make_stream));
  }
  Result<StreamGroupOutcome> StreamGroupSetPosition(std::string_view key, std::string_view group,
                                                    const StreamGroupPosition& position) override {
    return Note(txn_.StreamGroupSetPosition(key, group, position));
  }
  Result<StreamGroupOutcome> StreamGroupDestroy(std::string_view key,
                                                std::string_view group) override {
    return Note(txn_.StreamGroupDestroy(key, group));
  }
  Result<StreamGroupOutcome> StreamConsumerCreate(std::string_view key, std::string_view group,
                                                  std::string_view consumer) override {
    return Note(txn_.StreamConsumerCreate(key, group, consumer));
  }
  Result<std::pair<StreamGroupOutcome, std::uint64_t>> StreamConsumerDelete(
      std::string_view key, std::string_view group, std::string_view consumer) override {
    return Note(txn_.StreamConsumerDelete(key, group, consumer));
  }
  Result<StreamGroupReadResult> StreamReadGroup(std::string_view key, std::string_view group,
                                                std::string_view consumer,
                                                const StreamGroupReadRequest& request) override {
    return Note(txn_.StreamReadGroup(key, group, consumer, request));
  }
  Result<std::uint64_t> StreamAck(std::string_view key, std::string_view group,
                                  std::span<const StreamId> ids) override {
    return Note(txn_.StreamAck(key, group, ids));
  }
  Result<StreamPendingResult> StreamPendingSummarize(std::string_view key,
                                                     std::string_view group) override {
    return Note(txn_.StreamPendingSummarize(key, group));
  }
  Result<StreamPendingResult> StreamPendingRange(std::string_view key, std::string_view group,
                                                 const StreamPendingRequest& request) override {
    return Note(txn_.StreamPendingRange(key, group, request));
  }
  Result<StreamClaimResult> StreamClaim(std::string_view key, std::string_view group,
                                        std::string_view consumer,
                                        const StreamClaimRequest& request) override {
    return Note(txn_.StreamClaim(key, group, consumer, request));
  }
  Result<StreamClaimResult> StreamAutoClaim(std::string_view key, std::string_view group,
                                            std::string_view consumer,
                                            const StreamAutoClaimRequest& request) override {
    return Note(txn_.StreamAutoClaim(key, group, consumer, request));
  }
  Result<std::optional<std::vector<StreamGroupInfo>>> StreamGroups(std::string_view key) override {
    return Note(txn_.StreamGroups(key));
  }
  Result<StreamConsumersResult> StreamConsumers(std::string_view key,
                                                std::string_view group) override {
    return Note(txn_.StreamConsumers(key, group));
  }

 private:
  template <typename T>
  Result<T> Note(Result<T> result) {
    if (!result.ok() && result.status().IsBusy()) busy_ = true;
    return result;
  }

  Records& txn_;
  bool busy_ = false;
};

}  // namespace cairn::server
