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
// every write before it. A command that meets a lock held by another transaction (a client
// on another io thread) is taken back to its save point, the batch so far is committed, and
// the command runs again on its own, where the store's usual conflict handling applies.
// Used on one io thread only.
#pragma once

#include <memory>
#include <utility>

#include "cairn/store.h"
#include "execution/busy_noting_records.h"

namespace cairn::server {

class WriteBatch {
 public:
  explicit WriteBatch(Store& store)
      : store_(store), conflicts_possible_(!store.options().serialize_keyspace) {}
  ~WriteBatch() { Commit(); }
  WriteBatch(const WriteBatch&) = delete;
  WriteBatch& operator=(const WriteBatch&) = delete;

  enum class Outcome {
    kRan,        // The command ran in the batch.
    kNotRun,     // No batch could be begun (the store refused): run the command alone.
    kTakenBack,  // It met a lock conflict and was undone: discard its reply, run it alone.
  };
  // Runs one command in the batch (beginning it if none is open): run(records, txn), which
  // returns true when the command replied with an error.
  // `several_keys`: the command may touch more than one key. Only such a command can have
  // written one key before it meets another's lock, so only it pays for a save point to undo
  // to; a one-key command that meets a conflict has written nothing (the lock comes first).
  // `may_half_apply` (CommandSpec::MayHalfApply): the command may write several rows; it gets
  // a save point too, and an error reply takes its writes back.
  template <typename Fn>
  Outcome Run(bool several_keys, bool may_half_apply, Fn&& run) {
    if (!Begin()) return Outcome::kNotRun;  // Run alone, the command reports why.
    const bool save = (several_keys && conflicts_possible_) || may_half_apply;
    if (save) txn_->SetSavePoint();
    BusyNotingRecords records(*txn_);
    running_ = true;
    const bool failed = run(static_cast<Records&>(records), txn_.get());
    running_ = false;
    if (records.busy()) return TakeBack(save);
    if (save) EndSavePoint(failed);
    return Outcome::kRan;
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
  // that cannot be done gives up the whole batch (as TakeBack does).
  void EndSavePoint(bool failed);
  // After a conflict: undoes the command (to its save point, if it has one) and commits the
  // batch before it.
  Outcome TakeBack(bool to_save_point);

  Store& store_;
  // False when the store takes the keyspace in turns (Options::serialize_keyspace): its
  // transactions lock no rows, so none meets a conflict and no command needs a save point.
  const bool conflicts_possible_;
  std::unique_ptr<Transaction> txn_;
  bool running_ = false;
  Status failure_;
};

}  // namespace cairn::server
