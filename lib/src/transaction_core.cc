#include "transaction_core.h"

#include "storage/rocks_status.h"

namespace cairn::internal {

Status CommitOrRelease(rocksdb::Transaction& txn) {
  if (HasNoWrites(txn)) return FromRocks(txn.Rollback(), "release locks");
  return FromRocks(txn.Commit(), "commit");
}

Status TransactionCore::CheckActive() const {
  if (finished_) {
    return Status::FailedPrecondition("the transaction was already committed or rolled back");
  }
  return Status::Ok();
}

Status TransactionCore::Commit() {
  CAIRN_RETURN_IF_ERROR(CheckActive());
  finished_ = true;
  Status s = CommitOrRelease(*txn_);
  if (!s.ok()) (void)txn_->Rollback();
  return s;
}

void TransactionCore::Rollback() {
  if (finished_) return;
  finished_ = true;
  (void)txn_->Rollback();
}

}  // namespace cairn::internal
