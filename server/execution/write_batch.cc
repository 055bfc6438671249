#include "execution/write_batch.h"

#include <utility>

namespace cairn::server {

bool WriteBatch::Begin() {
  if (txn_ != nullptr) return true;
  // With row locks a command could meet another transaction's lock part-way, and nothing here
  // would take it back: each command then runs alone, with the store's own conflict handling.
  if (!store_.options().serialize_keyspace) return false;
  Result<std::unique_ptr<Transaction>> txn = store_.BeginTransaction();
  if (!txn.ok()) return false;
  txn_ = std::move(*txn);
  return true;
}

void WriteBatch::EndSavePoint(bool failed) {
  if (!failed) {
    (void)txn_->PopSavePoint();
    return;
  }
  if (txn_->RollbackToSavePoint().ok()) return;
  // The failed command's writes cannot be taken back alone: none of the batch may commit.
  txn_->Rollback();
  txn_.reset();
  if (failure_.ok()) failure_ = Status::Busy("a write batch could not undo a failed command");
}

void WriteBatch::Commit() {
  if (txn_ == nullptr || running_) return;
  Status s = txn_->Commit();
  txn_.reset();
  if (!s.ok() && failure_.ok()) failure_ = std::move(s);
}

}  // namespace cairn::server
