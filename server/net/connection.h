// One client connection: reads requests, runs every complete command in the bytes it has
// (pipelining: replies in order, one write for the whole batch), writes the replies, and
// reads again. A connection does one thing at a time (read, run, or write), so its handlers
// never run concurrently and it needs no strand; Close may be requested from any thread and
// is posted to the connection's executor. Closes on a protocol error (after replying), on
// QUIT, on CLIENT KILL, at shutdown and after `timeout` idle seconds.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "commands/server_state.h"
#include "commands/session.h"
#include "net/asio.h"

namespace cairn::server {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(boost::asio::ip::tcp::socket socket, ServerState& server);
  ~Connection();

  void Start();
  // Thread-safe: closes the socket on the connection's executor.
  void RequestClose();

 private:
  void Read();
  void OnRead(const boost::system::error_code& ec, std::size_t n);
  void RunCommands();
  void Write();
  void Close();
  void ArmIdleTimer();

  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer idle_timer_;
  ServerState& server_;
  Session session_;
  std::string in_;  // in_[begin_, end_) is unprocessed input.
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  std::size_t wanted_ = 0;  // Input size the parser says may complete the pending command.
  std::string out_;
  std::vector<std::string_view> args_;
  std::string arg_storage_;
  bool closed_ = false;
  bool registered_ = false;
};

}  // namespace cairn::server
