#include "net/server.h"

#include <sstream>

#include "net/connection.h"

namespace cairn::server {

namespace asio = boost::asio;
using asio::ip::tcp;

int IoThreads(int configured) {
  if (configured > 0) return configured;
  const unsigned cores = std::thread::hardware_concurrency();
  return cores <= 2 ? 1 : static_cast<int>(cores / 2);
}

NetServer::NetServer(ServerState& state, int threads) : state_(state) {
  for (int i = 0; i < threads; ++i) {
    contexts_.push_back(std::make_unique<asio::io_context>(1));
    guards_.push_back(asio::make_work_guard(*contexts_.back()));
    passes_.push_back(
        std::make_unique<PassCommit>(*contexts_.back(), state.store(), state.sync_before_reply()));
  }
}

NetServer::~NetServer() {
  Stop();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

Result<int> NetServer::Listen(const std::string& bind, int port) {
  std::istringstream words(bind);
  std::string address;
  int bound_port = port;
  while (words >> address) {
    boost::system::error_code ec;
    // Redis's "-::*" form (IPv6 any, optional) and "*" (IPv4 any).
    const bool optional = address.size() > 1 && address[0] == '-';
    if (optional) address.erase(0, 1);
    const std::string host = address == "*" ? "0.0.0.0" : address == "::*" ? "::" : address;
    const asio::ip::address ip = asio::ip::make_address(host, ec);
    if (ec) return Status::InvalidArgument("bind address '" + address + "' is not an IP address");
    auto acceptor = std::make_unique<tcp::acceptor>(*contexts_[0]);
    const tcp::endpoint endpoint(ip, static_cast<unsigned short>(bound_port));
    acceptor->open(endpoint.protocol(), ec);
    if (!ec) acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec && ip.is_v6()) acceptor->set_option(asio::ip::v6_only(true), ec);
    if (!ec) acceptor->bind(endpoint, ec);
    if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      if (optional) continue;
      return Status::IOError("cannot listen on " + host + ":" + std::to_string(bound_port) + ": " +
                             ec.message());
    }
    bound_port = acceptor->local_endpoint().port();
    acceptors_.push_back(std::move(acceptor));
  }
  if (acceptors_.empty()) return Status::InvalidArgument("no address to listen on (bind is empty)");
  return bound_port;
}

std::size_t NetServer::NextContext() {
  const std::size_t i = next_;
  next_ = (next_ + 1) % contexts_.size();
  return i;
}

void NetServer::Accept(tcp::acceptor& acceptor) {
  const std::size_t i = NextContext();
  acceptor.async_accept(
      *contexts_[i], [this, &acceptor, i](const boost::system::error_code& ec, tcp::socket socket) {
        if (stopping_.load()) return;
        if (!ec) {
          const std::size_t max = state_.maxclients();
          if (state_.client_count() >= max) {
            state_.connections_rejected.fetch_add(1, std::memory_order_relaxed);
            boost::system::error_code ignored;
            static constexpr std::string_view kFull = "-ERR max number of clients reached\r\n";
            asio::write(socket, asio::buffer(kFull.data(), kFull.size()), ignored);
            socket.close(ignored);
          } else {
            std::make_shared<Connection>(std::move(socket), state_, parked_threads_, *passes_[i])
                ->Start();
          }
        }
        Accept(acceptor);
      });
}

void NetServer::Run() {
  for (auto& acceptor : acceptors_) Accept(*acceptor);
  for (std::size_t i = 1; i < contexts_.size(); ++i) {
    threads_.emplace_back([ctx = contexts_[i].get()] { ctx->run(); });
  }
  contexts_[0]->run();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  // Each pass scheduled its commit, and the io threads ran until no work was left; this only
  // makes sure that no transaction outlives them into the store's close — nor holds the
  // keyspace (Options::serialize_keyspace) that a parked call may still wait for.
  for (auto& pass : passes_) pass->batch().Commit();
  // Every connection was closed, which stopped its parked call: these end promptly, and must
  // before the store closes.
  parked_threads_.JoinAll();
}

void NetServer::Stop() {
  if (stopping_.exchange(true)) return;
  asio::post(*contexts_[0], [this] {
    boost::system::error_code ec;
    for (auto& acceptor : acceptors_) acceptor->close(ec);
    // Each connection closes on its own thread, after the command it may be running.
    state_.KillClients([](const Session&) { return true; });
    for (auto& guard : guards_) guard.reset();
  });
}

}  // namespace cairn::server
