// RowTransaction: the atomic unit every read-modify-write of Cairn runs in. Its writes are
// buffered (write_buffer.h) and go to the database as one batch at commit, the newest write of
// each key once; rows other threads may use are locked through a RocksDB transaction, which
// then takes locks only (its own write index stays empty).
//
// Without row locks (a keyspace transaction of a store with Options::serialize_keyspace, whose
// gate keeps every other thread out until it ends) no RocksDB transaction is made at all.
#pragma once

#include <rocksdb/utilities/transaction.h>
#include <rocksdb/utilities/transaction_db.h>

#include <memory>
#include <span>

#include "storage/row_cache.h"
#include "storage/storage_health.h"
#include "storage/write_buffer.h"

namespace cairn::internal {

class RowTransaction {
 public:
  // `locks`: a RocksDB transaction of `db` to take row locks in, or nullptr when no row needs
  // a lock. `health` (optional): a commit that writes anything is refused while it says the
  // store takes no writes.
  RowTransaction(rocksdb::TransactionDB* db, const rocksdb::WriteOptions& write_options,
                 std::unique_ptr<rocksdb::Transaction> locks,
                 const StorageHealth* health = nullptr);
  ~RowTransaction() { Rollback(); }
  RowTransaction(const RowTransaction&) = delete;
  RowTransaction& operator=(const RowTransaction&) = delete;

  // Locks `key` until the transaction ends (shared when not `exclusive`): Busy or TimedOut
  // when another transaction holds it past the lock timeout or a deadlock is found.
  rocksdb::Status Lock(rocksdb::ColumnFamilyHandle* cf, const rocksdb::Slice& key, bool exclusive) {
    if (locks_ == nullptr) return rocksdb::Status::OK();
    return locks_->GetForUpdate(read_options_, cf, key, static_cast<std::string*>(nullptr),
                                exclusive);
  }
  bool takes_locks() const { return locks_ != nullptr; }

  WriteBuffer& buffer() { return buffer_; }

  // A rollback to a save point also releases the locks taken since it.
  void SetSavePoint();
  rocksdb::Status RollbackToSavePoint();
  rocksdb::Status PopSavePoint();

  // Writes the buffered writes as one batch while the locks are held, publishes the rows of
  // `cache`'s column families (`cached`) to it (RowCache::Publish), then releases the locks.
  // With nothing written, only releases them. The transaction is over either way. While the
  // store takes no writes (StorageHealth), a commit that writes fails with IOError and why.
  rocksdb::Status Commit(RowCache* cache = nullptr,
                         std::span<rocksdb::ColumnFamilyHandle* const> cached = {});
  // Forgets the writes and releases the locks. Idempotent.
  void Rollback();

 private:
  rocksdb::TransactionDB* db_;
  const rocksdb::WriteOptions& write_options_;
  rocksdb::ReadOptions read_options_;  // For lock calls, which read nothing.
  std::unique_ptr<rocksdb::Transaction> locks_;
  const StorageHealth* health_;
  WriteBuffer buffer_;
};

}  // namespace cairn::internal
