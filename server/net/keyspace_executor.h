// The keyspace executor: where every command runs, whatever the io thread count. It is a turn,
// not a thread. An io thread whose connection has commands to run takes the turn if it is free
// and runs them at once, on its own thread — no handoff, as with one io thread. If another io
// thread has the turn, the work is queued, and that thread runs it before it lets the turn go.
// So no two commands overlap (the store is opened with Options::caller_serializes_keyspace:
// no gate, no row locks), and a command crosses threads only when two io threads have work at
// the same moment.
//
// Why a turn and not a thread of its own: with an executor thread every command crossed to it
// and back, two wakeups per command, and on 2 cores `--threads 4` took about 1.5 times as long
// as `--threads 1` for the same load (the figures are in bench/README.md).
//
// A thread with the turn runs at most kTurnBudget queued pieces of work, then lets the turn go
// and queues a taking of it behind its own ready handlers, so that it serves its own sockets
// too while other io threads keep it busy.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "net/asio.h"

namespace cairn::server {

class KeyspaceExecutor {
 public:
  // `home`: where Post runs work handed over from a thread that is not an io thread.
  explicit KeyspaceExecutor(boost::asio::io_context& home) : home_(home) {}
  KeyspaceExecutor(const KeyspaceExecutor&) = delete;
  KeyspaceExecutor& operator=(const KeyspaceExecutor&) = delete;

  // Marks the calling thread as the io thread that runs `io` (NetServer, as it starts it).
  static void ServeOn(boost::asio::io_context* io);
  // The io_context of the calling io thread, or home when called from another thread.
  boost::asio::io_context& ThisThreadIo() const;

  // Runs fn now if the turn is free or the calling thread has it already (a handler run from
  // a long script's hook); otherwise queues it for the thread that has the turn.
  template <typename Fn>
  void Dispatch(Fn&& fn) {
    if (held_here_ == this) return fn();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (held_) {
        queue_.emplace_back(std::forward<Fn>(fn));
        return;
      }
      held_ = true;
    }
    held_here_ = this;
    fn();
    RunQueuedAndLeave();
  }

  // Runs fn on the turn after the handlers now ready on the calling thread's io_context (their
  // commands share one write batch with it: net/pass_commit.h).
  void Post(std::function<void()> fn);

  // REQUIRES: the calling thread has the turn (a long script's hook). Runs one piece of work
  // queued by another io thread; false if there was none.
  bool RunOneQueued();

  // What resumes each connection whose commands wait for the script that has the turn (used
  // on the turn only). Each holds its connection strongly: a waiting connection has no read or
  // write outstanding that would keep it alive.
  std::vector<std::function<void()>>& waiting_for_script() { return waiting_for_script_; }

 private:
  static constexpr int kTurnBudget = 64;

  // Runs what other threads queued meanwhile, up to kTurnBudget, then lets the turn go.
  void RunQueuedAndLeave();
  // REQUIRES: mu_ held. The oldest queued work, taken out of the queue; empty if none.
  std::function<void()> TakeQueuedLocked();

  static thread_local KeyspaceExecutor* held_here_;  // The executor whose turn this thread has.
  static thread_local boost::asio::io_context* this_thread_io_;

  boost::asio::io_context& home_;
  std::mutex mu_;
  bool held_ = false;
  std::deque<std::function<void()>> queue_;
  std::vector<std::function<void()>> waiting_for_script_;
};

}  // namespace cairn::server
