// Store: an open Cairn data directory.
//
// Store::Open opens (or creates) a RocksDB TransactionDB with one column family per kind of
// data. Every Records call on a Store is atomic on its own and safe to call from any number of
// threads at once. Several calls that must happen together go in a Transaction
// (BeginTransaction, or RunTransaction which also retries on conflicts).
//
// Durability follows Options::durability. Sync() makes everything acknowledged so far durable,
// so a caller writing under kNone or kEverySec can pay one fsync for a whole group of writes.
//
// The data directory carries a schema version; Open refuses a directory written by a newer
// Cairn with kFailedPrecondition rather than reinterpreting it. Closing (Close or the
// destructor) flushes everything to disk; reopening finds every record and its expiry.
#pragma once

#include <functional>
#include <memory>

#include "cairn/options.h"
#include "cairn/records.h"
#include "cairn/transaction.h"

namespace cairn {

namespace internal {
class StoreCore;
}

// RunTransaction's default number of attempts.
inline constexpr int kDefaultTransactionAttempts = 8;

class Store final : public Records {
 public:
  // Opens the store in options.data_dir. Fails with kInvalidArgument (bad options or a
  // directory that is not a Cairn store), kNotFound (no store and create_if_missing is false),
  // kFailedPrecondition (written by a newer Cairn), kCorruption or kIOError.
  static Result<std::unique_ptr<Store>> Open(const Options& options);

  ~Store() override;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Flushes and closes. Later calls on the Store fail with kFailedPrecondition. Idempotent.
  // REQUIRES: no Transaction of this store is alive.
  Status Close();

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

  // Starts a transaction. Its commit is durable as Options::durability says.
  Result<std::unique_ptr<Transaction>> BeginTransaction();

  // Runs fn in a fresh transaction and commits it. When fn or the commit fails with kBusy, the
  // transaction is rolled back and fn runs again, up to max_attempts times in all, with a short
  // randomized pause between attempts. Any other error from fn rolls back and is returned.
  // fn must not keep the Transaction beyond its call.
  Status RunTransaction(const std::function<Status(Transaction&)>& fn,
                        int max_attempts = kDefaultTransactionAttempts);

  // Makes every write acknowledged so far durable (one fsync of the write-ahead log).
  Status Sync();

  // Positions in the store's history of writes, for a program that answers a reader only once
  // what it read is durable (cairn-server under `always`, whose writers sync after they
  // commit, so a reader on another thread can see a write before its sync). Every write that a
  // read could see before VisiblePosition() is called is at or below it; a Sync() makes every
  // write at or below the VisiblePosition() of its start durable and raises DurablePosition()
  // to it. Under Durability::kAlways every write is durable before it is visible, and the two
  // are equal.
  std::uint64_t VisiblePosition() const;
  std::uint64_t DurablePosition() const;

  // Whether the store takes writes now and, if not, why (cairn/store_health.h). While it
  // takes none, every write fails with the same kIOError; reads go on.
  StoreHealth Health() const;
  // Health().writable(), as one atomic load: cheap enough to ask before every write.
  bool Writable() const;
  // Measures free disk space and, if a storage error stopped writes and its cause is gone,
  // resumes them — now, instead of at the store's own check a second later.
  void CheckHealth();

  // Compacts every column family fully, so that expired records leave the disk now rather
  // than when RocksDB would next compact their files.
  Status Compact();

  const Options& options() const;

  // For the library's own engines.
  internal::StoreCore& core() { return *core_; }

 private:
  explicit Store(std::unique_ptr<internal::StoreCore> core);

  std::unique_ptr<internal::StoreCore> core_;
};

}  // namespace cairn
