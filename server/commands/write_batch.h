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

#include <functional>
#include <memory>
#include <optional>

#include "cairn/store.h"
#include "commands/busy_noting_records.h"

namespace cairn::server {

class WriteBatch {
 public:
  explicit WriteBatch(Store& store) : store_(store) {}
  ~WriteBatch() { Commit(); }
  WriteBatch(const WriteBatch&) = delete;
  WriteBatch& operator=(const WriteBatch&) = delete;

  enum class Outcome {
    kRan,        // The command ran in the batch.
    kNotRun,     // No batch could be begun (the store refused): run the command alone.
    kTakenBack,  // It met a lock conflict and was undone: discard its reply, run it alone.
  };
  // Runs one command in the batch (beginning it if none is open): run(records, txn).
  Outcome Run(const std::function<void(Records&, Transaction*)>& run);

  // Commits the open batch, if any. A failure is kept for TakeStatus: the replies already
  // written for the batch's commands must not be sent.
  void Commit();
  bool open() const { return txn_ != nullptr; }

  // The first commit failure since the last call (Ok if none), and forgets it.
  Status TakeStatus() { return std::exchange(failure_, Status::Ok()); }

 private:
  Store& store_;
  std::unique_ptr<Transaction> txn_;
  Status failure_;
};

}  // namespace cairn::server
