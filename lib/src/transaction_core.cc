#include "transaction_core.h"

#include "storage/rocks_status.h"

namespace cairn::internal {

Status CommitOrRelease(StoreCore& core, RowTransaction& txn) {
  return FromRocks(
      txn.Commit(core.row_cache(ColumnFamily::kRecords), core.cached_column_families()), "commit");
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
  Status s = CommitOrRelease(*store_, txn_);
  keyspace_rows_.FinishWrites();  // After the commit: its rows may be cached again.
  member_rows_.FinishWrites();
  hold_.Release();
  return s;
}

void TransactionCore::SetSavePoint() {
  if (!finished_) txn_.SetSavePoint();
}

Status TransactionCore::RollbackToSavePoint() {
  CAIRN_RETURN_IF_ERROR(CheckActive());
  Status s = FromRocks(txn_.RollbackToSavePoint(), "roll back to a save point");
  // The locks taken since are released, so a committed row remembered may change.
  keyspace_rows_.ForgetRememberedRow();
  member_rows_.ForgetRememberedRow();
  return s;
}

Status TransactionCore::PopSavePoint() {
  CAIRN_RETURN_IF_ERROR(CheckActive());
  return FromRocks(txn_.PopSavePoint(), "drop a save point");
}

void TransactionCore::Rollback() {
  if (finished_) return;
  finished_ = true;
  txn_.Rollback();
  keyspace_rows_.FinishWrites();
  member_rows_.FinishWrites();
  hold_.Release();
}

}  // namespace cairn::internal
