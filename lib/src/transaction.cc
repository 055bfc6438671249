#include "cairn/transaction.h"

#include "transaction_core.h"

namespace cairn {

Transaction::Transaction(std::unique_ptr<internal::TransactionCore> core)
    : Records(*core), core_(std::move(core)) {}

Transaction::~Transaction() { core_->Rollback(); }

Status Transaction::Commit() { return core_->Commit(); }

void Transaction::Rollback() { core_->Rollback(); }

void Transaction::SetSavePoint() { core_->SetSavePoint(); }

Status Transaction::RollbackToSavePoint() { return core_->RollbackToSavePoint(); }

Status Transaction::PopSavePoint() { return core_->PopSavePoint(); }

std::size_t Transaction::BufferedBytes() const { return core_->BufferedBytes(); }

}  // namespace cairn
