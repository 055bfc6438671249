#include "storage/latest_writes.h"

#include <rocksdb/utilities/write_batch_with_index.h>

#include <cstdint>
#include <memory>
#include <optional>

namespace cairn::internal {
namespace {

// Below this many writes a transaction is committed as it is: the common small transaction
// should not pay for a walk of its index.
constexpr std::uint32_t kMinWritesToCollapse = 4;

// The number of distinct keys in the index (which keeps one entry per key: transactions
// index their batch with overwrite_key), or nullopt if an entry is neither a put nor a delete.
std::optional<std::uint32_t> CountKeys(rocksdb::WriteBatchWithIndex& indexed,
                                       std::span<rocksdb::ColumnFamilyHandle* const> families) {
  std::uint32_t keys = 0;
  for (rocksdb::ColumnFamilyHandle* family : families) {
    std::unique_ptr<rocksdb::WBWIIterator> it(indexed.NewIterator(family));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const rocksdb::WriteType type = it->Entry().type;
      if (type != rocksdb::kPutRecord && type != rocksdb::kDeleteRecord) return std::nullopt;
      ++keys;
    }
  }
  return keys;
}

rocksdb::WriteBatch Latest(rocksdb::WriteBatchWithIndex& indexed,
                           std::span<rocksdb::ColumnFamilyHandle* const> families) {
  rocksdb::WriteBatch latest;
  for (rocksdb::ColumnFamilyHandle* family : families) {
    std::unique_ptr<rocksdb::WBWIIterator> it(indexed.NewIterator(family));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const rocksdb::WriteEntry entry = it->Entry();
      rocksdb::Status s = entry.type == rocksdb::kPutRecord
                              ? latest.Put(family, entry.key, entry.value)
                              : latest.Delete(family, entry.key);
      (void)s;  // Appending to an in-memory batch without size limit cannot fail.
    }
  }
  return latest;
}

bool WritesTo(rocksdb::WriteBatchWithIndex& indexed, rocksdb::ColumnFamilyHandle* family) {
  std::unique_ptr<rocksdb::WBWIIterator> it(indexed.NewIterator(family));
  it->SeekToFirst();
  return it->Valid();
}

void Publish(rocksdb::WriteBatchWithIndex& indexed, rocksdb::ColumnFamilyHandle* family,
             RowCache& cache) {
  std::unique_ptr<rocksdb::WBWIIterator> it(indexed.NewIterator(family));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const rocksdb::WriteEntry entry = it->Entry();
    if (!cache.Caches(entry.key.ToStringView())) continue;  // Not even a copy of its value.
    if (entry.type == rocksdb::kPutRecord) {
      cache.Publish(entry.key.ToStringView(), entry.value.ToString());
    } else {
      cache.Publish(entry.key.ToStringView(), std::nullopt);
    }
  }
}

}  // namespace

rocksdb::Status CommitLatestWrites(rocksdb::TransactionDB& db, rocksdb::Transaction& txn,
                                   std::span<rocksdb::ColumnFamilyHandle* const> families,
                                   RowCache* cache,
                                   std::span<rocksdb::ColumnFamilyHandle* const> cached) {
  rocksdb::WriteBatchWithIndex& indexed = *txn.GetWriteBatch();
  const std::uint32_t writes = indexed.GetWriteBatch()->Count();
  bool publish = false;
  for (rocksdb::ColumnFamilyHandle* family : cached) {
    publish = publish || (cache != nullptr && WritesTo(indexed, family));
  }
  if (writes < kMinWritesToCollapse && !publish) return txn.Commit();
  const std::optional<std::uint32_t> keys = CountKeys(indexed, families);
  if (!keys || (*keys >= writes && !publish)) return txn.Commit();
  // With no key written twice the batch is written as it is; otherwise only the newest write
  // of each key.
  rocksdb::WriteBatch latest;
  rocksdb::WriteBatch* batch = indexed.GetWriteBatch();
  if (*keys < writes) {
    latest = Latest(indexed, families);
    batch = &latest;
  }
  // The base database skips TransactionDB's per-key locking: this transaction already holds
  // the lock of every key in the batch, or of the metadata row that guards it (RowLocking),
  // so no other writer can come between.
  rocksdb::Status s = db.GetRootDB()->Write(*txn.GetWriteOptions(), batch);
  if (!s.ok()) return s;
  if (publish) {
    for (rocksdb::ColumnFamilyHandle* family : cached) {
      Publish(indexed, family, *cache);  // While the locks are still held.
    }
  }
  // The writes are in; what the rollback undoes is only the transaction's own copy, and it
  // releases the locks. (It cannot fail on a transaction that is still open.)
  (void)txn.Rollback();
  return s;
}

}  // namespace cairn::internal
