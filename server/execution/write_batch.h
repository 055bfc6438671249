// The writes of one pass of an io thread, across all its connections, share one store
// transaction: one commit — one write-ahead-log write — for every SET, INCR or DEL that ran
// in the pass, instead of one RocksDB transaction each (whose fixed cost, a lock, a WAL write
// and a commit, dominates a small write). It is how Redis appends to its AOF: once per
// event-loop pass. Each command still runs in order, sees every write before it and gets its
// own reply; the replies of a connection whose commands joined the batch leave only after the
// commit (net/pass_commit.h), so no client is told of a write that is not in the store.
//
// Only commands flagged kBatch join: string and key writes, which touch nothing but the
// keyspace, through CommandContext::data. Anything else commits the batch first, so it sees
// every write before it. Used on the keyspace turn only. A batch needs a store opened with
// Options::serialize_keyspace (as cairn-server always opens it): its transactions lock no rows,
// so no command of the batch meets a conflict, and only one that may write several rows needs a
// save point. On a store with row locks no batch begins, and each command runs alone.
#pragma once

#include <memory>
#include <utility>

#include "cairn/store.h"

namespace cairn::server {

class WriteBatch {
 public:
  explicit WriteBatch(Store& store) : store_(store) {}
  ~WriteBatch() { Commit(); }
  WriteBatch(const WriteBatch&) = delete;
  WriteBatch& operator=(const WriteBatch&) = delete;

  // Runs one command in the batch (beginning it if none is open): run(records, txn), which
  // returns true when the command replied with an error. False when no batch could be begun
  // (the store refused): the caller runs the command alone, and it reports why.
  // `may_half_apply` (CommandSpec::MayHalfApply): the command may write several rows; it gets
  // a save point, and an error reply takes its writes back.
  template <typename Fn>
  bool Run(bool may_half_apply, Fn&& run) {
    if (!Begin()) return false;
    if (may_half_apply) txn_->SetSavePoint();
    running_ = true;
    const bool failed = run(static_cast<Records&>(*txn_), txn_.get());
    running_ = false;
    if (may_half_apply) EndSavePoint(failed);
    return true;
  }

  // Commits the open batch, if any — but not while a command runs inside it: a script there
  // serves other clients' I/O from its hook (script_busy.h), and nothing they run may commit
  // half of it. A failure is kept for TakeStatus: the replies already written for the batch's
  // commands must not be sent.
  void Commit();
  bool open() const { return txn_ != nullptr; }
  // A command (a script) is running inside the batch now.
  bool running() const { return running_; }

  // The first commit failure since the last call (Ok if none), and forgets it.
  Status TakeStatus() { return std::exchange(failure_, Status::Ok()); }

 private:
  // Begins the batch's transaction if none is open; false if the store refuses.
  bool Begin();
  // Drops the command's save point, or rolls back to it when the command failed. A rollback
  // that cannot be done gives up the whole batch.
  void EndSavePoint(bool failed);

  Store& store_;
  std::unique_ptr<Transaction> txn_;
  bool running_ = false;
  Status failure_;
};

}  // namespace cairn::server
