#include "execution/write_batch.h"

#include <utility>

namespace cairn::server {

bool WriteBatch::Begin() {
  if (txn_ != nullptr) return true;
  Result<std::unique_ptr<Transaction>> txn = store_.BeginTransaction();
  if (!txn.ok()) return false;
  txn_ = std::move(*txn);
  return true;
}

WriteBatch::Outcome WriteBatch::TakeBack(bool to_save_point) {
  // Undo what the command wrote before the conflict; the writes before it stand.
  if (to_save_point && !txn_->RollbackToSavePoint().ok()) {
    // Cannot take back only this command: give up the whole batch rather than commit half of
    // the command. Its other commands' replies are then withdrawn through TakeStatus.
    txn_->Rollback();
    txn_.reset();
    if (failure_.ok()) {
      failure_ = Status::Busy("a write batch could not undo a conflicting command");
    }
    return Outcome::kTakenBack;
  }
  // Commit now: the batch's locks may be what the conflicting transaction waits for.
  Commit();
  return Outcome::kTakenBack;
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
