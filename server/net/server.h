// The network side of cairn-server: listens on every `bind` address, hands each accepted
// connection to one of `threads` io_contexts (round robin; a connection stays on its
// thread), enforces maxclients, and stops cleanly: Stop() closes the listeners, lets every
// connection finish the command it is running, closes them, and joins the threads.
//
// Every command runs on one keyspace executor, whatever the thread count, so the store is
// always the serialized keyspace (Options::serialize_keyspace: its memtables, no row locks)
// and there is one write batch and one group commit (net/pass_commit.h). The executor is a
// turn that the io threads take (net/keyspace_executor.h): an io thread runs its connection's
// commands itself when nobody else is running any, and otherwise hands them to the thread that
// is (connection.h: the io phase and the execution phase).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "cairn/result.h"
#include "execution/server_state.h"
#include "net/asio.h"
#include "net/keyspace_executor.h"
#include "net/pass_commit.h"

namespace cairn::server {

class NetServer {
 public:
  // `threads`: the io thread count, from IoThreads. REQUIRES: threads >= 1.
  NetServer(ServerState& state, int threads);
  ~NetServer();

  // Binds every address of `bind` (space-separated) on `port` (0: a free port, the same for
  // all addresses where possible). Returns the port bound.
  Result<int> Listen(const std::string& bind, int port);

  // Serves on the io threads until Stop(); returns when they have stopped.
  void Run();
  // Thread-safe, idempotent.
  void Stop();

 private:
  void Accept(boost::asio::ip::tcp::acceptor& acceptor);
  // Starts a connection for an accepted socket (on the io_context it was accepted for), or
  // refuses it (one error line, then closed): over maxclients, or a non-loopback client in
  // protected mode.
  void Admit(boost::asio::ip::tcp::socket socket);
  // After an accept failed for want of descriptors or memory: accepts again a little later.
  void BackOff(boost::asio::ip::tcp::acceptor& acceptor, const boost::system::error_code& ec);
  // Joins the io threads.
  void JoinThreads();
  // On the keyspace turn: waits for `deadline` (earlier than any awaited) to time blocked clients
  // out.
  void ArmDeadline(std::chrono::steady_clock::time_point deadline);
  std::size_t NextContext();  // The index of the io_context for the next connection.

  ServerState& state_;
  std::vector<std::unique_ptr<boost::asio::io_context>> contexts_;
  std::vector<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> guards_;
  std::unique_ptr<KeyspaceExecutor> keyspace_;
  std::unique_ptr<PassCommit> pass_;  // On the keyspace turn.
  // Times out the clients blocked on keys (KeyWaiters), at the earliest deadline; armed_for_ is
  // the deadline it waits for (max: none). Both on the first io thread.
  std::unique_ptr<boost::asio::steady_timer> deadline_timer_;
  std::chrono::steady_clock::time_point armed_for_ = std::chrono::steady_clock::time_point::max();
  std::vector<std::unique_ptr<boost::asio::ip::tcp::acceptor>> acceptors_;
  std::vector<std::thread> threads_;
  std::size_t next_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> accept_failing_{false};  // BackOff logged a failure not yet over.
};

// The io thread count for the `threads` setting: as set, or for 0 half the cores, at least one
// (the measurements in the server issue: on 2 cores the benchmark client needs the other core).
int IoThreads(int configured);

}  // namespace cairn::server
