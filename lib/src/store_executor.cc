// StoreCore as the executor of a Store's Records calls: each call alone, as its access asks.
#include <rocksdb/snapshot.h>

#include "records/keyspace.h"
#include "store_core.h"
#include "transaction_core.h"

namespace cairn::internal {

namespace {

DbRows DirectRows(StoreCore& core, ColumnFamily family, const rocksdb::ReadOptions& read_options,
                  RowCache* cache) {
  return DbRows(core.db(), core.cf(family), read_options, core.write_options(), cache,
                core.health());
}

// Straight on the database: each read sees the newest row (through the row cache), each
// write is atomic on its own. A composite value's reads are good this way too: the metadata
// row first, then members under its version, which a writer never changes in place (a new
// incarnation gets a new version).
Status RunDirect(StoreCore& core, RecordsExecutor::Operation op) {
  DbRows records = DirectRows(core, ColumnFamily::kRecords, core.read_options(),
                              core.row_cache(ColumnFamily::kRecords));
  DbRows members = DirectRows(core, ColumnFamily::kMembers, core.read_options(),
                              core.row_cache(ColumnFamily::kMembers));
  Keyspace ks{records, members, core.version_counter()};
  return op(ks, core.clock().NowMs());
}

// At one snapshot of the database, so that a write committed meanwhile is seen whole or not
// at all: a sorted set's size, a member's score and a walk of its score index (a rank
// computed from the size before a write and the index after it is wrong, or looks like
// corruption); a list's metadata and its items, which change in place under one version
// (pops, LSET, the moves of LINSERT and LREM). The row cache is bypassed: it holds the newest
// rows, not the snapshot's.
Status RunAtSnapshot(StoreCore& core, RecordsExecutor::Operation op) {
  rocksdb::ManagedSnapshot snapshot(core.db());
  rocksdb::ReadOptions read_options = core.read_options();
  read_options.snapshot = snapshot.snapshot();
  DbRows records = DirectRows(core, ColumnFamily::kRecords, read_options, nullptr);
  DbRows members = DirectRows(core, ColumnFamily::kMembers, read_options, nullptr);
  Keyspace ks{records, members, core.version_counter()};
  return op(ks, core.clock().NowMs());
}

// As one transaction of its own: reads lock their keys (unless the keyspace is serialized),
// so a read-modify-write is atomic; the commit is skipped when nothing was written.
Status RunInTransaction(StoreCore& core, RecordsExecutor::Operation op) {
  RowTransaction txn = core.BeginRows(ColumnFamily::kRecords);
  TransactionRows records = TransactionRowsOf(core, txn, ColumnFamily::kRecords);
  TransactionRows members = TransactionRowsOf(core, txn, ColumnFamily::kMembers);
  Keyspace ks{records, members, core.version_counter()};
  CAIRN_RETURN_IF_ERROR(op(ks, core.clock().NowMs()));  // txn rolls back as it goes.
  return CommitOrRelease(core, txn);
}

}  // namespace

Status StoreCore::Run(RecordAccess access, Operation op) {
  CAIRN_ASSIGN_OR_RETURN(KeyspaceHold hold, EnterKeyspace());
  switch (access) {
    case RecordAccess::kRead:
    case RecordAccess::kBlindWrite:
      return RunDirect(*this, op);
    case RecordAccess::kSnapshotRead:
      return RunAtSnapshot(*this, op);
    case RecordAccess::kWrite:
      break;
  }
  return RunInTransaction(*this, op);
}

}  // namespace cairn::internal
