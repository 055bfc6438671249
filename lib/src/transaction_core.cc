#include "transaction_core.h"

#include "storage/latest_writes.h"
#include "storage/rocks_status.h"

namespace cairn::internal {

Status CommitOrRelease(StoreCore& core, rocksdb::Transaction& txn) {
  if (HasNoWrites(txn)) return FromRocks(txn.Rollback(), "release locks");
  // A transaction may write a key many times (the server's pass batch does for a hot key):
  // only the newest write of each key goes to the memtable.
  return FromRocks(
      CommitLatestWrites(*core.db(), txn, core.column_families(),
                         core.row_cache(ColumnFamily::kRecords), core.cached_column_families()),
      "commit");
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
  Status s = CommitOrRelease(*store_, *txn_);
  if (!s.ok()) (void)txn_->Rollback();
  keyspace_rows_.FinishWrites();  // After the commit: its rows may be cached again.
  member_rows_.FinishWrites();
  hold_.Release();
  return s;
}

Status TransactionCore::RollbackToSavePoint() {
  Status s = FromRocks(txn_->RollbackToSavePoint(), "roll back to a save point");
  // Its last write may be among those undone, and the locks taken since are released.
  keyspace_rows_.ForgetLastWrite();
  member_rows_.ForgetLastWrite();
  return s;
}

void TransactionCore::Rollback() {
  if (finished_) return;
  finished_ = true;
  (void)txn_->Rollback();
  keyspace_rows_.FinishWrites();
  member_rows_.FinishWrites();
  hold_.Release();
}

}  // namespace cairn::internal
