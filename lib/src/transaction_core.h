// TransactionCore: the RowTransaction behind a cairn::Transaction, and the helpers that run
// the library's other transactions. Private.
#pragma once

#include <memory>

#include "records/keyspace.h"
#include "records/rows.h"
#include "store_core.h"
#include "util/status_macros.h"

namespace cairn::internal {

// Commits txn, publishing the keyspace rows it wrote to the row cache (or just releases its
// locks when it wrote nothing).
Status CommitOrRelease(StoreCore& core, RowTransaction& txn);

// The rows of `family` in txn, with the family's row cache. Member rows are guarded by their
// value's metadata row (RowLocking::kGuardedByMetadata); every other row locks itself.
inline TransactionRows TransactionRowsOf(StoreCore& core, RowTransaction& txn,
                                         ColumnFamily family) {
  return TransactionRows(
      &txn, core.db(), core.cf(family), core.read_options(), core.row_cache(family),
      family == ColumnFamily::kMembers ? RowLocking::kGuardedByMetadata : RowLocking::kEachRow);
}

// Runs fn(Rows&, now_ms) over column family `family` as one transaction of its own: reads lock
// their keys, so a read-modify-write is atomic; the commit is skipped when nothing was written.
// fn returns a Result (or Status); on failure the transaction is rolled back.
template <typename Fn>
auto RunInTransaction(StoreCore& core, ColumnFamily family, Fn&& fn)
    -> decltype(fn(std::declval<Rows&>(), std::int64_t{})) {
  KeyspaceHold hold;
  if (IsKeyspace(family)) {
    CAIRN_ASSIGN_OR_RETURN(hold, core.EnterKeyspace());
  } else {
    CAIRN_RETURN_IF_ERROR(core.CheckOpen());
  }
  RowTransaction txn = core.BeginRows(family);
  TransactionRows rows = TransactionRowsOf(core, txn, family);
  auto result = fn(rows, core.clock().NowMs());
  if (!result.ok()) return result;  // txn rolls back as it goes.
  CAIRN_RETURN_IF_ERROR(CommitOrRelease(core, txn));
  return result;
}

// Also the executor of the Transaction's Records calls.
class TransactionCore final : public RecordsExecutor {
 public:
  // `hold`: the transaction's turn at the keyspace gate, kept until it commits or rolls back.
  TransactionCore(StoreCore* store, KeyspaceHold hold)
      : store_(store),
        hold_(std::move(hold)),
        txn_(store->BeginRows(ColumnFamily::kRecords)),
        keyspace_rows_(TransactionRowsOf(*store, txn_, ColumnFamily::kRecords)),
        member_rows_(TransactionRowsOf(*store, txn_, ColumnFamily::kMembers)),
        keyspace_{keyspace_rows_, member_rows_, store->version_counter()} {}

  // A Records call of the transaction's, if it is active: inside it, whatever the access.
  Status Run(RecordAccess, Operation op) override {
    CAIRN_RETURN_IF_ERROR(CheckActive());
    return op(keyspace_, store_->clock().NowMs());
  }

  Status Commit();
  void Rollback();
  void SetSavePoint();
  Status RollbackToSavePoint();
  Status PopSavePoint();
  std::size_t BufferedBytes() { return txn_.buffer().heap_bytes(); }

  StoreCore& store() { return *store_; }

 private:
  Status CheckActive() const;

  StoreCore* store_;
  KeyspaceHold hold_;  // Destroyed after txn_: no other thread comes in while it is open.
  RowTransaction txn_;
  TransactionRows keyspace_rows_;
  TransactionRows member_rows_;
  Keyspace keyspace_;
  bool finished_ = false;
};

}  // namespace cairn::internal
