// Transaction: several record operations committed as one.
//
// A Transaction comes from Store::BeginTransaction. Its reads see its own writes. Keys are
// locked as they are touched (read or written) and stay locked until Commit or Rollback, so a
// transaction is atomic and isolated against every other writer: other transactions never see
// part of it, and the keys it read do not change under it. Scan inside a transaction sees the
// transaction's writes but does not lock the keys it returns.
//
// Conflicts: waiting longer than Options::lock_timeout_ms for a lock, or a detected deadlock,
// fails the call with kBusy. After kBusy (or any error) the transaction should be rolled back;
// Store::RunTransaction does that and retries.
//
// A Transaction is used by one thread at a time. Destroying it without Commit rolls it back.
#pragma once

#include <memory>

#include "cairn/records.h"

namespace cairn {

namespace internal {
class TransactionCore;
}

class Transaction final : public Records {
 public:
  ~Transaction() override;
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  Result<std::optional<std::string>> Get(std::string_view key) override;
  Result<SetResult> Set(std::string_view key, std::string_view value,
                        const SetOptions& options = {}) override;
  Result<bool> Delete(std::string_view key) override;
  Result<CasResult> CompareAndSwap(std::string_view key, std::string_view expected,
                                   std::string_view desired,
                                   Expiry expiry = Expiry::Keep()) override;
  Result<bool> CompareAndDelete(std::string_view key, std::string_view expected) override;
  Result<bool> Expire(std::string_view key, std::int64_t ttl_ms) override;
  Result<bool> ExpireAt(std::string_view key, std::int64_t at_ms) override;
  Result<bool> Persist(std::string_view key) override;
  Result<TtlState> GetTtl(std::string_view key) override;
  Result<std::int64_t> IncrBy(std::string_view key, std::int64_t delta) override;
  Result<ScanPage> Scan(const ScanRequest& request) override;
  Result<KeyType> Type(std::string_view key) override;
  Result<RenameOutcome> Rename(std::string_view from, std::string_view to,
                               bool only_if_absent) override;
  Result<std::optional<std::string>> HashGet(std::string_view key, std::string_view field) override;
  Result<std::vector<std::optional<std::string>>> HashGetMany(
      std::string_view key, std::span<const std::string_view> fields) override;
  Result<std::size_t> HashSet(std::string_view key, std::span<const HashField> fields) override;
  Result<std::size_t> HashDelete(std::string_view key,
                                 std::span<const std::string_view> fields) override;
  Result<std::uint64_t> HashLength(std::string_view key) override;
  Result<HashPage> HashScan(std::string_view key, const MemberScanRequest& request) override;
  Result<std::size_t> SetAdd(std::string_view key,
                             std::span<const std::string_view> members) override;
  Result<std::size_t> SetRemove(std::string_view key,
                                std::span<const std::string_view> members) override;
  Result<bool> SetContains(std::string_view key, std::string_view member) override;
  Result<std::uint64_t> SetSize(std::string_view key) override;
  Result<SetPage> SetScan(std::string_view key, const MemberScanRequest& request) override;
  Result<std::optional<double>> ZSetScore(std::string_view key, std::string_view member) override;
  Result<std::size_t> ZSetPut(std::string_view key, std::span<const ZSetEntry> entries) override;
  Result<std::size_t> ZSetRemove(std::string_view key,
                                 std::span<const std::string_view> members) override;
  Result<std::uint64_t> ZSetSize(std::string_view key) override;
  Result<std::vector<ScoredMember>> ZSetRange(std::string_view key,
                                              const ZRangeRequest& request) override;
  Result<std::optional<std::uint64_t>> ZSetRank(std::string_view key, std::string_view member,
                                                bool reverse) override;
  Result<ZSetPage> ZSetScan(std::string_view key, const MemberScanRequest& request) override;
  Result<std::uint64_t> ListPush(std::string_view key, std::span<const std::string_view> values,
                                 ListEnd end, bool only_if_exists) override;
  Result<std::optional<std::vector<std::string>>> ListPop(std::string_view key, ListEnd end,
                                                          std::uint64_t count) override;
  Result<std::uint64_t> ListLength(std::string_view key) override;
  Result<std::vector<std::string>> ListRange(std::string_view key, std::int64_t start,
                                             std::int64_t stop) override;
  Result<std::optional<std::string>> ListIndex(std::string_view key, std::int64_t index) override;
  Result<ListSetOutcome> ListSet(std::string_view key, std::int64_t index,
                                 std::string_view value) override;
  Result<std::uint64_t> ListRemove(std::string_view key, std::int64_t count,
                                   std::string_view value) override;
  Result<std::uint64_t> ListTrim(std::string_view key, std::int64_t start,
                                 std::int64_t stop) override;
  Result<std::int64_t> ListInsert(std::string_view key, bool before, std::string_view pivot,
                                  std::string_view value) override;
  Result<std::vector<std::uint64_t>> ListPosition(std::string_view key, std::string_view value,
                                                  const ListPositionOptions& options) override;
  Result<std::optional<std::string>> ListMove(std::string_view source, std::string_view destination,
                                              ListEnd from_end, ListEnd to_end) override;
  Result<StreamAddResult> StreamAdd(std::string_view key, std::span<const HashField> fields,
                                    const StreamAddOptions& options) override;
  Result<std::uint64_t> StreamLength(std::string_view key) override;
  Result<std::vector<StreamEntry>> StreamRange(std::string_view key,
                                               const StreamRangeRequest& request) override;
  Result<std::size_t> StreamDelete(std::string_view key, std::span<const StreamId> ids) override;
  Result<std::uint64_t> StreamTrim(std::string_view key, const StreamTrimRule& rule) override;
  Result<std::optional<StreamSummary>> StreamDescribe(std::string_view key) override;
  Result<StreamGroupOutcome> StreamGroupCreate(std::string_view key, std::string_view group,
                                               const StreamGroupPosition& position,
                                               bool make_stream) override;
  Result<StreamGroupOutcome> StreamGroupSetPosition(std::string_view key, std::string_view group,
                                                    const StreamGroupPosition& position) override;
  Result<StreamGroupOutcome> StreamGroupDestroy(std::string_view key,
                                                std::string_view group) override;
  Result<StreamGroupOutcome> StreamConsumerCreate(std::string_view key, std::string_view group,
                                                  std::string_view consumer) override;
  Result<std::pair<StreamGroupOutcome, std::uint64_t>> StreamConsumerDelete(
      std::string_view key, std::string_view group, std::string_view consumer) override;
  Result<StreamGroupReadResult> StreamReadGroup(std::string_view key, std::string_view group,
                                                std::string_view consumer,
                                                const StreamGroupReadRequest& request) override;
  Result<std::uint64_t> StreamAck(std::string_view key, std::string_view group,
                                  std::span<const StreamId> ids) override;
  Result<StreamPendingResult> StreamPendingSummarize(std::string_view key,
                                                     std::string_view group) override;
  Result<StreamPendingResult> StreamPendingRange(std::string_view key, std::string_view group,
                                                 const StreamPendingRequest& request) override;
  Result<StreamClaimResult> StreamClaim(std::string_view key, std::string_view group,
                                        std::string_view consumer,
                                        const StreamClaimRequest& request) override;
  Result<StreamClaimResult> StreamAutoClaim(std::string_view key, std::string_view group,
                                            std::string_view consumer,
                                            const StreamAutoClaimRequest& request) override;
  Result<std::optional<std::vector<StreamGroupInfo>>> StreamGroups(std::string_view key) override;
  Result<StreamConsumersResult> StreamConsumers(std::string_view key,
                                                std::string_view group) override;

  // Makes every write of the transaction visible at once, durable as Options::durability says.
  // Fails with kFailedPrecondition if already committed or rolled back.
  Status Commit();

  // Discards every write and releases the locks. Idempotent.
  void Rollback();

  // Save points, nested: SetSavePoint marks the current state; RollbackToSavePoint undoes
  // every write made since the newest mark (and releases the row locks taken since), then drops
  // the mark, and the transaction carries on; PopSavePoint drops the newest mark and keeps the
  // writes. Lets a caller running many operations in one transaction take back one that failed
  // halfway. Both fail with kNotFound when no mark is set.
  void SetSavePoint();
  Status RollbackToSavePoint();
  Status PopSavePoint();

  // Bytes of memory the transaction holds for its uncommitted writes and the save points that
  // can undo them (beyond a small inline block; freed when it ends). A transaction that a
  // caller does not trust to stay small — a script — can be bounded by watching it.
  std::size_t BufferedBytes() const;

  // For the library's own engines.
  internal::TransactionCore& core() { return *core_; }

 private:
  friend class Store;
  explicit Transaction(std::unique_ptr<internal::TransactionCore> core);

  std::unique_ptr<internal::TransactionCore> core_;
};

}  // namespace cairn
