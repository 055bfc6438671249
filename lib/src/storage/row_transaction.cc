#include "storage/row_transaction.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

namespace cairn::internal {

RowTransaction::RowTransaction(rocksdb::TransactionDB* db,
                               const rocksdb::WriteOptions& write_options,
                               std::unique_ptr<rocksdb::Transaction> locks,
                               const StorageHealth* health)
    : db_(db), write_options_(write_options), locks_(std::move(locks)), health_(health) {}

void RowTransaction::SetSavePoint() {
  buffer_.SetSavePoint();
  if (locks_ != nullptr) locks_->SetSavePoint();
}

rocksdb::Status RowTransaction::RollbackToSavePoint() {
  rocksdb::Status s = buffer_.RollbackToSavePoint();
  if (s.ok() && locks_ != nullptr) s = locks_->RollbackToSavePoint();
  return s;
}

rocksdb::Status RowTransaction::PopSavePoint() {
  rocksdb::Status s = buffer_.PopSavePoint();
  if (s.ok() && locks_ != nullptr) s = locks_->PopSavePoint();
  return s;
}

rocksdb::Status RowTransaction::Commit(RowCache* cache,
                                       std::span<rocksdb::ColumnFamilyHandle* const> cached) {
  // Sized up front: the batch's buffer would otherwise grow by doubling as it is filled.
  rocksdb::WriteBatch batch(/*header*/ 12 + buffer_.batch_bytes());
  rocksdb::Status s;
  if (buffer_.AppendTo(batch) > 0) {
    if (health_ != nullptr) s = health_->CheckWrite();
    if (!s.ok()) {
      Rollback();
      return s;
    }
    // The base database: TransactionDB's own write path would lock every key again, and this
    // transaction holds each lock it needs (or the gate).
    s = db_->GetRootDB()->Write(write_options_, &batch);
  }
  if (s.ok() && cache != nullptr) {
    // While the locks are still held.
    buffer_.ForEach([&](rocksdb::ColumnFamilyHandle* cf, std::string_view key,
                        const WriteBuffer::Write& write) {
      if (std::find(cached.begin(), cached.end(), cf) == cached.end() || !cache->Caches(key)) {
        return;
      }
      cache->Publish(key, write.state == WriteBuffer::State::kPut
                              ? std::optional<std::string_view>(write.value)
                              : std::nullopt);
    });
  }
  Rollback();
  return s;
}

void RowTransaction::Rollback() {
  buffer_.Clear();
  // Releases the locks; the RocksDB transaction wrote nothing, so that is all it does. (It
  // cannot fail on a transaction that is still open.)
  if (locks_ != nullptr) (void)locks_->Rollback();
  locks_.reset();
}

}  // namespace cairn::internal
