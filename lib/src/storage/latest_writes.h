// Committing only the latest write of each key of a transaction.
//
// A RocksDB transaction keeps every Put in its write batch, and its commit inserts every one
// into the memtable, even when the same key was written many times. The server's event-loop
// pass batch writes a hot key once per command (50 clients × 16 pipelined SETs of one key are
// 800 versions per commit): each costs a skiplist insert, and a memtable full of one key's
// versions makes every later read of it slower. Committing just the newest write of each key
// gives the same state and the same atomicity.
#pragma once

#include <rocksdb/utilities/transaction.h>
#include <rocksdb/utilities/transaction_db.h>

#include <span>

#include "cairn/status.h"
#include "storage/row_cache.h"

namespace cairn::internal {

// Commits `txn`, writing only the newest write of each key when it wrote some key more than
// once: the collapsed batch goes to the base database while the transaction still holds its
// locks, and the transaction is then rolled back to release them. Otherwise (or when the
// batch holds something other than puts and deletes) a plain Commit. `families` are every
// column family the transaction may have written.
//
// With a `cache` (of the column families `cached`), a transaction that wrote to one of them
// always takes the collapsing path, and each of its newest rows there is published to the
// cache after the write and before the locks go (RowCache::Publish): a key written is then
// read from the cache by the next transaction instead of from the memtable.
rocksdb::Status CommitLatestWrites(rocksdb::TransactionDB& db, rocksdb::Transaction& txn,
                                   std::span<rocksdb::ColumnFamilyHandle* const> families,
                                   RowCache* cache = nullptr,
                                   std::span<rocksdb::ColumnFamilyHandle* const> cached = {});

}  // namespace cairn::internal
