#include "commands/write_batch.h"

#include <utility>

namespace cairn::server {

WriteBatch::Outcome WriteBatch::Run(const std::function<void(Records&, Transaction*)>& run) {
  if (txn_ == nullptr) {
    Result<std::unique_ptr<Transaction>> txn = store_.BeginTransaction();
    if (!txn.ok()) return Outcome::kNotRun;  // Run alone, the command reports why.
    txn_ = std::move(*txn);
  }
  txn_->SetSavePoint();
  BusyNotingRecords records(*txn_);
  run(records, txn_.get());
  if (!records.busy()) {
    (void)txn_->PopSavePoint();
    return Outcome::kRan;
  }
  // Undo what the command wrote before the conflict; the writes before it stand.
  if (!txn_->RollbackToSavePoint().ok()) {
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

void WriteBatch::Commit() {
  if (txn_ == nullptr) return;
  Status s = txn_->Commit();
  txn_.reset();
  if (!s.ok() && failure_.ok()) failure_ = std::move(s);
}

}  // namespace cairn::server
