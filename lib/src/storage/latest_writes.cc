#include "storage/latest_writes.h"

#include <rocksdb/utilities/write_batch_with_index.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cairn::internal {
namespace {

// Below this many writes a transaction is committed as it is: the common small transaction
// should not pay for a walk of its index.
constexpr std::uint32_t kMinWritesToCollapse = 4;

// One entry of the transaction's index (which keeps one entry per key: transactions index
// their batch with overwrite_key). The slices point into the transaction's batch.
struct IndexedWrite {
  rocksdb::ColumnFamilyHandle* family;
  bool put;
  rocksdb::Slice key;
  rocksdb::Slice value;
};

// The newest write of every key, in one walk of the index; nullopt if an entry is neither a
// put nor a delete.
std::optional<std::vector<IndexedWrite>> NewestWrites(
    rocksdb::WriteBatchWithIndex& indexed, std::span<rocksdb::ColumnFamilyHandle* const> families) {
  std::vector<IndexedWrite> writes;
  for (rocksdb::ColumnFamilyHandle* family : families) {
    std::unique_ptr<rocksdb::WBWIIterator> it(indexed.NewIterator(family));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const rocksdb::WriteEntry entry = it->Entry();
      if (entry.type != rocksdb::kPutRecord && entry.type != rocksdb::kDeleteRecord) {
        return std::nullopt;
      }
      writes.push_back({family, entry.type == rocksdb::kPutRecord, entry.key, entry.value});
    }
  }
  return writes;
}

bool WritesTo(rocksdb::WriteBatchWithIndex& indexed, rocksdb::ColumnFamilyHandle* family) {
  std::unique_ptr<rocksdb::WBWIIterator> it(indexed.NewIterator(family));
  it->SeekToFirst();
  return it->Valid();
}

}  // namespace

rocksdb::Status CommitLatestWrites(rocksdb::TransactionDB& db, rocksdb::Transaction& txn,
                                   std::span<rocksdb::ColumnFamilyHandle* const> families,
                                   RowCache* cache,
                                   std::span<rocksdb::ColumnFamilyHandle* const> cached) {
  rocksdb::WriteBatchWithIndex& indexed = *txn.GetWriteBatch();
  const std::uint32_t writes = indexed.GetWriteBatch()->Count();
  if (cache == nullptr) cached = {};
  if (writes < kMinWritesToCollapse) {
    bool publish = false;
    for (rocksdb::ColumnFamilyHandle* family : cached) {
      publish = publish || WritesTo(indexed, family);
    }
    if (!publish) return txn.Commit();
  }
  const std::optional<std::vector<IndexedWrite>> newest = NewestWrites(indexed, families);
  if (!newest) return txn.Commit();
  const auto is_cached = [&](rocksdb::ColumnFamilyHandle* family) {
    return std::find(cached.begin(), cached.end(), family) != cached.end();
  };
  const bool publish = std::any_of(newest->begin(), newest->end(),
                                   [&](const IndexedWrite& w) { return is_cached(w.family); });
  const bool repeated = newest->size() < writes;
  if (!repeated && !publish) return txn.Commit();
  // With no key written twice the batch is written as it is; otherwise only the newest write
  // of each key.
  rocksdb::WriteBatch latest;
  rocksdb::WriteBatch* batch = indexed.GetWriteBatch();
  if (repeated) {
    for (const IndexedWrite& w : *newest) {
      // Appending to an in-memory batch without size limit cannot fail.
      (void)(w.put ? latest.Put(w.family, w.key, w.value) : latest.Delete(w.family, w.key));
    }
    batch = &latest;
  }
  // The base database skips TransactionDB's per-key locking: this transaction already holds
  // the lock of every key in the batch, or of the metadata row that guards it (RowLocking),
  // so no other writer can come between.
  rocksdb::Status s = db.GetRootDB()->Write(*txn.GetWriteOptions(), batch);
  if (!s.ok()) return s;
  // While the locks are still held.
  for (const IndexedWrite& w : *newest) {
    if (!is_cached(w.family) || !cache->Caches(w.key.ToStringView())) continue;
    cache->Publish(w.key.ToStringView(),
                   w.put ? std::optional<std::string>(w.value.ToString()) : std::nullopt);
  }
  // The writes are in; what the rollback undoes is only the transaction's own copy, and it
  // releases the locks. (It cannot fail on a transaction that is still open.)
  (void)txn.Rollback();
  return s;
}

}  // namespace cairn::internal
