// The network side of cairn-server: listens on every `bind` address, hands each accepted
// connection to one of `threads` io_contexts (round robin; a connection stays on its
// thread), enforces maxclients, and stops cleanly: Stop() closes the listeners, lets every
// connection finish the command it is running, closes them, and joins the threads.
#pragma once

#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "cairn/result.h"
#include "commands/server_state.h"
#include "net/asio.h"
#include "net/parked_threads.h"
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
  // Starts a connection for an accepted socket on io_context `context`, or refuses it (one
  // error line, then closed): over maxclients, or a non-loopback client in protected mode.
  void Admit(boost::asio::ip::tcp::socket socket, std::size_t context);
  // After an accept failed for want of descriptors or memory: accepts again a little later.
  void BackOff(boost::asio::ip::tcp::acceptor& acceptor, const boost::system::error_code& ec);
  std::size_t NextContext();  // The index of the io_context for the next connection.

  ServerState& state_;
  std::vector<std::unique_ptr<boost::asio::io_context>> contexts_;
  std::vector<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> guards_;
  std::vector<std::unique_ptr<PassCommit>> passes_;  // One per io_context, same index.
  std::vector<std::unique_ptr<boost::asio::ip::tcp::acceptor>> acceptors_;
  std::vector<std::thread> threads_;
  // After contexts_: destroyed (joined) first, while the executors its threads post to live.
  ParkedThreads parked_threads_;
  std::size_t next_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> accept_failing_{false};  // BackOff logged a failure not yet over.
};

// The io thread count for the `threads` setting: as set, or for 0 half the cores, at least one
// (the measurements in the server issue: on 2 cores the benchmark client needs the other core).
int IoThreads(int configured);

}  // namespace cairn::server
