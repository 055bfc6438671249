// StoreCore: the open RocksDB TransactionDB behind a Store, its column families and the
// settings every operation shares. Private to the library; engines reach it via Store::core().
#pragma once

#include <rocksdb/utilities/transaction.h>
#include <rocksdb/utilities/transaction_db.h>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <span>
#include <typeindex>
#include <unordered_map>
#include <vector>

#include "cairn/options.h"
#include "cairn/records.h"
#include "cairn/result.h"
#include "storage/column_families.h"
#include "storage/keyspace_gate.h"
#include "storage/member_filter.h"
#include "storage/monotonic_counter.h"
#include "storage/periodic_thread.h"
#include "storage/row_cache.h"
#include "storage/row_transaction.h"
#include "storage/storage_health.h"
#include "storage/ttl_filter.h"
#include "util/status_macros.h"

namespace cairn::internal {

// Also the executor of the Store's Records calls (store_executor.cc): each call alone.
class StoreCore final : public RecordsExecutor {
 public:
  // Versions are reserved this many at a time (one fsync each): a new hash takes one, and a
  // restart skips the rest of a block, which 64-bit versions can afford.
  static constexpr std::uint64_t kVersionBlock = 1 << 16;

  // Validates options, opens or creates the store and checks its schema version.
  static Result<std::unique_ptr<StoreCore>> Open(const Options& options);

  ~StoreCore();
  StoreCore(const StoreCore&) = delete;
  StoreCore& operator=(const StoreCore&) = delete;

  // Flushes memtables and the WAL, then closes. Idempotent.
  Status Close();
  bool closed() const { return db_ == nullptr; }
  // kFailedPrecondition when closed.
  Status CheckOpen() const;

  rocksdb::TransactionDB* db() const { return db_.get(); }
  rocksdb::ColumnFamilyHandle* cf(ColumnFamily family) const {
    return handles_[static_cast<std::size_t>(family)];
  }
  // Every column family of ColumnFamily, in its order.
  std::span<rocksdb::ColumnFamilyHandle* const> column_families() const {
    return {handles_.data(), kColumnFamilyCount};
  }
  // The row cache of a column family, or nullptr (only keyspace rows and their members are
  // cached). The two share one cache: their row keys never meet, since no tag (key_codec.h)
  // is used in both.
  RowCache* row_cache(ColumnFamily family) const {
    return IsKeyspace(family) ? row_cache_.get() : nullptr;
  }
  // The column families row_cache() caches (empty without a cache).
  std::span<rocksdb::ColumnFamilyHandle* const> cached_column_families() const {
    if (row_cache_ == nullptr) return {};
    return {cached_handles_.data(), cached_handles_.size()};
  }
  const Options& options() const { return options_; }
  const Clock& clock() const { return *options_.clock; }
  const rocksdb::WriteOptions& write_options() const { return write_options_; }
  const rocksdb::ReadOptions& read_options() const { return read_options_; }

  // A new transaction over `family` (and any other column family it also writes), with the
  // store's durability. It takes row locks unless it needs none: the keyspace of a store with
  // Options::serialize_keyspace, whose gate the caller holds (EnterKeyspace) and keeps every
  // other thread out.
  RowTransaction BeginRows(ColumnFamily family) const;
  // The caller's turn at the keyspace (Options::serialize_keyspace), once the store is known
  // to be open. Every use of the records and members column families enters it first.
  Result<KeyspaceHold> EnterKeyspace() {
    CAIRN_RETURN_IF_ERROR(CheckOpen());
    return KeyspaceHold::Enter(keyspace_gate_);
  }

  // The store's fencing-token counter (shared by every engine of this store).
  MonotonicCounter& fencing_counter() { return *fencing_counter_; }
  // Versions of composite keyspace values (member_key.h): every new incarnation takes one.
  MonotonicCounter& version_counter() { return *version_counter_; }

  // State an engine shares among all its objects over this store (waiter registries, claim
  // locks), created on first use from this StoreCore and destroyed with it, before the
  // database. T must be constructible from StoreCore&. Thread-safe.
  template <typename T>
  T& Shared() {
    std::lock_guard<std::mutex> lock(shared_mu_);
    std::shared_ptr<void>& slot = shared_[std::type_index(typeid(T))];
    if (!slot) slot = std::make_shared<T>(*this);
    return *static_cast<T*>(slot.get());
  }

  // Makes all acknowledged writes durable.
  Status Sync();
  // Store::VisiblePosition and DurablePosition. 0 once closed.
  std::uint64_t VisiblePosition() const;
  std::uint64_t DurablePosition() const;

  // Whether writes are taken now (an atomic load), and the whole picture.
  bool writable() const { return health_.writable(); }
  const StorageHealth& health() const { return health_; }
  // Measures free space and, if a storage error stopped writes and the guard allows, asks
  // RocksDB to resume them. The health thread does this once a second.
  void CheckHealth();

  // Full compaction of every column family.
  Status Compact();

  // A Records call, at its turn at the keyspace: a read straight on the database (several
  // rows at one snapshot when they must agree), a write as a transaction of its own.
  Status Run(RecordAccess access, Operation op) override;

 private:
  explicit StoreCore(const Options& options);
  Status OpenDb();
  // The file system the database runs on: the machine's (or the test's fault injector) with
  // write errors made resumable (storage/resumable_fs.h).
  void MakeFileSystem();
  // Syncs the write-ahead log through RocksDB's write path (see the definition).
  // `wait_out_stalls` false: a write stall fails the sync (Incomplete) instead of waiting, for
  // callers on RocksDB's background threads, whose work may be what ends the stall.
  Status SyncLog(bool wait_out_stalls = true);
  // For the members compaction filter (MemberFilterFactory::DurableUpTo).
  bool MakeDurable(std::uint64_t sequence);
  // Durability::kEverySec's once-a-second sync, skipped when nothing was written since.
  void SyncIfWritten();
  // True when no column family's active memtable holds a row.
  bool MemtablesEmpty() const;

  Options options_;
  std::shared_ptr<TtlCompactionFilter> ttl_filter_;  // Outlives db_.
  std::shared_ptr<MemberFilterFactory> member_filter_;
  std::shared_ptr<rocksdb::Cache> block_cache_;
  std::unique_ptr<RowCache> row_cache_;  // nullptr when Options::row_cache_bytes is 0.
  std::array<rocksdb::ColumnFamilyHandle*, 2> cached_handles_{};  // records, members
  rocksdb::WriteOptions write_options_;
  rocksdb::ReadOptions read_options_;
  rocksdb::TransactionOptions txn_options_;
  KeyspaceGate keyspace_gate_;
  StorageHealth health_;
  std::shared_ptr<rocksdb::FileSystem> fs_;
  std::unique_ptr<rocksdb::Env> env_;  // Over fs_; outlives db_.
  std::unique_ptr<rocksdb::TransactionDB> db_;
  // Indexed by ColumnFamily; then any column family a newer Cairn added (opened only so that
  // the schema check can refuse the directory).
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  std::unique_ptr<PeriodicThread> syncer_;  // Durability::kEverySec only.
  std::unique_ptr<PeriodicThread> health_thread_;
  std::atomic<std::uint64_t> durable_sequence_{0};  // Raised by every SyncLog that succeeds.
  std::unique_ptr<MonotonicCounter> fencing_counter_;
  std::unique_ptr<MonotonicCounter> version_counter_;
  std::mutex shared_mu_;
  // Declared after db_, so destroyed before it.
  std::unordered_map<std::type_index, std::shared_ptr<void>> shared_;
};

}  // namespace cairn::internal
