#include "cairn/store.h"

#include <chrono>
#include <random>
#include <thread>

#include "store_core.h"
#include "transaction_core.h"
#include "util/status_macros.h"

namespace cairn {

Store::Store(std::unique_ptr<internal::StoreCore> core) : Records(*core), core_(std::move(core)) {}

Store::~Store() = default;

Result<std::unique_ptr<Store>> Store::Open(const Options& options) {
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<internal::StoreCore> core,
                         internal::StoreCore::Open(options));
  return std::unique_ptr<Store>(new Store(std::move(core)));
}

Status Store::Close() { return core_->Close(); }

const Options& Store::options() const { return core_->options(); }

Result<std::unique_ptr<Transaction>> Store::BeginTransaction() {
  CAIRN_ASSIGN_OR_RETURN(internal::KeyspaceHold hold, core_->EnterKeyspace());
  auto core = std::make_unique<internal::TransactionCore>(core_.get(), std::move(hold));
  return std::unique_ptr<Transaction>(new Transaction(std::move(core)));
}

Status Store::RunTransaction(const std::function<Status(Transaction&)>& fn, int max_attempts) {
  if (max_attempts < 1) {
    return Status::InvalidArgument("RunTransaction needs max_attempts >= 1, got " +
                                   std::to_string(max_attempts));
  }
  thread_local std::minstd_rand rng(std::random_device{}());
  Status status;
  for (int attempt = 1; attempt <= max_attempts; ++attempt) {
    CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<Transaction> txn, BeginTransaction());
    status = fn(*txn);
    if (status.ok()) status = txn->Commit();
    if (status.ok()) return status;
    txn->Rollback();
    if (!status.IsBusy()) return status;
    // Randomized, growing pause so that transactions that deadlocked do not meet again.
    const int cap_us = std::min(50'000, 500 << std::min(attempt, 6));
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % cap_us));
  }
  return Status::Busy("transaction gave up after " + std::to_string(max_attempts) +
                      " attempts: " + status.message());
}

Status Store::Sync() { return core_->Sync(); }

Status Store::Compact() { return core_->Compact(); }

std::uint64_t Store::VisiblePosition() const { return core_->VisiblePosition(); }

std::uint64_t Store::DurablePosition() const { return core_->DurablePosition(); }

StoreHealth Store::Health() const { return core_->health().Snapshot(); }

bool Store::Writable() const { return core_->writable(); }

void Store::CheckHealth() {
  if (!core_->closed()) core_->CheckHealth();
}

}  // namespace cairn
