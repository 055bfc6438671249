// The end of a pass on the keyspace turn (net/keyspace_executor.h), where what its commands wrote
// becomes durable before they are answered. A connection whose commands joined the write batch (or
// that wrote anything, under durability `always`) hands its replies' release to Await; once every
// handler that is ready on the thread has run, Flush commits the batch — one write-ahead-log write
// for all of them — and, under `always`, syncs the log once, as Redis's appendfsync always does per
// event-loop pass; then each waiting connection sends its replies (or, if the commit or sync
// failed, gets an error for each of its commands instead: its writes' outcome is unknown). One,
// used only on the turn. Its Flush runs on the io thread whose commands first joined the batch,
// behind the handlers ready there; the connections of other io threads that joined meanwhile
// get their replies' release posted back to their own threads.
//
// Under `always`, what a client reads must be durable too, even when it was written by a commit
// whose sync has not finished (a native engine's own transaction, committed before the sync of
// its pass): between the two its write is visible. So a pass that
// ran anything notes how far the store's visible writes reach (Store::VisiblePosition) and, if
// the durable ones reach less far, syncs before its replies leave as well (NeedsSyncForReads).
//
// Under `always` the sync waits a moment for more writers first (group commit, as PostgreSQL's
// commit_delay): when the replies of a sync go out, their clients answer over the next tens of
// microseconds, and a sync started by the first of them would leave the rest to the one after
// it — every client then waits for two syncs per request. So the pass lets the thread poll its
// sockets again and serve what arrived, for as long as each poll brings new writes (up to
// kMaxGather), then commits and syncs them all at once. The gathering is a re-post behind the
// reactor, not a timer: arming a timer per sync cost about a tenth of the server's CPU
// (timerfd_settime), and a fixed tick waits on after the last writer has come.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "cairn/status.h"
#include "cairn/store.h"
#include "execution/write_batch.h"
#include "net/asio.h"
#include "net/keyspace_executor.h"

namespace cairn::server {

class PassCommit {
 public:
  PassCommit(KeyspaceExecutor& keyspace, Store& store, bool sync)
      : keyspace_(keyspace), store_(store), sync_(sync), batch_(store) {}

  // The one write batch, for the command runners of every connection.
  WriteBatch& batch() { return batch_; }

  // Something was written in this pass (under `always` every reply of the pass then waits
  // for the sync, so that nobody reads a write before it is durable).
  void MarkWritten() {
    written_ = true;
    ++writes_;
  }
  bool written() const { return written_; }
  bool sync() const { return sync_; }

  // Under `always`, after a pass ran commands: true if they may have read a write (of any io
  // thread) that is not durable yet; the replies must then Await a sync, which Finish runs.
  bool NeedsSyncForReads() {
    if (!sync_) return false;
    const std::uint64_t visible = store_.VisiblePosition();
    if (store_.DurablePosition() >= visible) return false;
    read_horizon_ = std::max(read_horizon_, visible);
    return true;
  }

  // Calls done(status) on the turn once everything written before the call is
  // committed (and, under `always`, synced).
  void Await(std::function<void(const Status&)> done) {
    waiting_.push_back(std::move(done));
    Schedule();
  }

  // Makes sure a commit follows this pass, even if no connection is left to await it (one
  // that joined the batch may close before it does): an open batch must never linger, holding
  // its writes back and its keys locked.
  void Schedule() {
    if (scheduled_) return;
    scheduled_ = true;
    // Posted behind the handlers that are ready now, so that their writes share this commit.
    keyspace_.Post([this] { Flush(); });
  }

 private:
  static constexpr std::chrono::microseconds kMaxGather{250};
  static constexpr std::chrono::microseconds kScriptRetry{25};

  // Runs after the handlers that were ready; under `always`, first gathers more writers.
  void Flush() {
    if (sync_ && written_) return Gather(std::chrono::steady_clock::now(), writes_);
    Finish();
  }

  // Goes behind the handlers that became ready meanwhile (the io_context polls its sockets
  // between); if writes joined (and the window is not used up), once more.
  void Gather(std::chrono::steady_clock::time_point started, std::uint64_t writes_before) {
    keyspace_.Post([this, started, writes_before] {
      const bool more = writes_ != writes_before;
      if (more && std::chrono::steady_clock::now() - started < kMaxGather) {
        return Gather(started, writes_);
      }
      Finish();
    });
  }

  void Finish() {
    // A script in the middle of the batch (serving I/O from its hook, execution/script_busy.h):
    // commit once it is done.
    if (batch_.running()) {
      // A timer of the script's thread (it has the turn, and serves that thread's I/O).
      auto retry =
          std::make_shared<boost::asio::steady_timer>(keyspace_.ThisThreadIo(), kScriptRetry);
      retry->async_wait([this, retry](const boost::system::error_code&) {
        keyspace_.Dispatch([this] { Finish(); });
      });
      return;
    }
    scheduled_ = false;
    batch_.Commit();
    Status status = batch_.TakeStatus();
    const bool unread_durable = store_.DurablePosition() < read_horizon_;
    if (status.ok() && sync_ && (written_ || unread_durable)) status = store_.Sync();
    written_ = false;
    read_horizon_ = 0;
    std::vector<std::function<void(const Status&)>> waiting;
    waiting.swap(waiting_);
    for (auto& done : waiting) done(status);
  }

  KeyspaceExecutor& keyspace_;
  Store& store_;
  const bool sync_;
  WriteBatch batch_;
  std::vector<std::function<void(const Status&)>> waiting_;
  bool scheduled_ = false;
  bool written_ = false;
  std::uint64_t writes_ = 0;  // Passes of a connection that wrote, ever: tells Gather of new ones.
  std::uint64_t read_horizon_ = 0;  // The VisiblePosition this pass's replies wait to be durable.
};

}  // namespace cairn::server
