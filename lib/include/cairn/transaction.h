// Transaction: several record operations committed as one.
//
// A Transaction comes from Store::BeginTransaction. Its reads see its own writes. Keys are
// locked as they are touched (read or written) and stay locked until Commit or Rollback, so a
// transaction is atomic and isolated against every other writer: other transactions never see
// part of it, and the keys it read do not change under it. Scan inside a transaction sees the
// transaction's writes but does not lock the keys it returns.
//
// Conflicts: waiting longer than Options::lock_timeout_ms for a lock, or a detected deadlock,
// fails the call with kBusy. After kBusy (or any error) the transaction should be rolled back;
// Store::RunTransaction does that and retries.
//
// A Transaction is used by one thread at a time. Destroying it without Commit rolls it back.
#pragma once

#include <memory>

#include "cairn/records.h"

namespace cairn {

namespace internal {
class TransactionCore;
}

class Transaction final : public Records {
 public:
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  // The Records calls (records.h), inside the transaction.

  // Makes every write of the transaction visible at once, durable as Options::durability says.
  // Fails with kFailedPrecondition if already committed or rolled back.
  Status Commit();

  // Discards every write and releases the locks. Idempotent.
  void Rollback();

  // Save points, nested: SetSavePoint marks the current state; RollbackToSavePoint undoes
  // every write made since the newest mark (and releases the row locks taken since), then drops
  // the mark, and the transaction carries on; PopSavePoint drops the newest mark and keeps the
  // writes. Lets a caller running many operations in one transaction take back one that failed
  // halfway. Both fail with kNotFound when no mark is set.
  void SetSavePoint();
  Status RollbackToSavePoint();
  Status PopSavePoint();

  // Bytes of memory the transaction holds for its uncommitted writes and the save points that
  // can undo them (beyond a small inline block; freed when it ends). A transaction that a
  // caller does not trust to stay small — a script — can be bounded by watching it.
  std::size_t BufferedBytes() const;

  // For the library's own engines.
  internal::TransactionCore& core() { return *core_; }

 private:
  friend class Store;
  explicit Transaction(std::unique_ptr<internal::TransactionCore> core);

  std::unique_ptr<internal::TransactionCore> core_;
};

}  // namespace cairn
