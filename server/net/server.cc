#include "net/server.h"

#include <pthread.h>

#include <cerrno>
#include <cstdio>
#include <sstream>

#include "execution/command_runner.h"
#include "net/connection.h"
#include "net/loopback.h"

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
  }
  keyspace_ = std::make_unique<KeyspaceExecutor>(*contexts_[0]);
  pass_ = std::make_unique<PassCommit>(*keyspace_, state.store(), state.sync_before_reply());
  deadline_timer_ = std::make_unique<asio::steady_timer>(*contexts_[0]);
  state.key_waiters().set_on_earlier_deadline(
      [this](std::chrono::steady_clock::time_point deadline) { ArmDeadline(deadline); });
}

NetServer::~NetServer() {
  Stop();
  JoinThreads();
  state_.key_waiters().set_on_earlier_deadline(nullptr);
}

void NetServer::ArmDeadline(std::chrono::steady_clock::time_point deadline) {
  // Called on the keyspace turn, from any io thread; the timer and armed_for_ belong to the
  // first io thread (here at once when that is the calling thread).
  asio::dispatch(*contexts_[0], [this, deadline] {
    // Not once stopping: an armed timer would keep the io thread from running out of work.
    if (deadline >= armed_for_ || stopping_.load()) return;
    armed_for_ = deadline;
    deadline_timer_->expires_at(deadline);  // Cancels the wait for a later one.
    deadline_timer_->async_wait([this](const boost::system::error_code& ec) {
      if (ec) return;  // Re-armed for an earlier deadline, or shut down.
      armed_for_ = std::chrono::steady_clock::time_point::max();
      keyspace_->Dispatch([this] {
        KeyWaiters& waiters = state_.key_waiters();
        waiters.Expire(std::chrono::steady_clock::now());
        const auto next = waiters.NextDeadline();
        if (next != std::chrono::steady_clock::time_point::max()) ArmDeadline(next);
      });
    });
  });
}

void NetServer::JoinThreads() {
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

namespace {

// Refuses a connection before it gets a Connection: one line, then the socket closes.
void Refuse(tcp::socket& socket, std::string_view error) {
  boost::system::error_code ignored;
  const std::string line = "-" + std::string(error) + "\r\n";
  asio::write(socket, asio::buffer(line), ignored);
  socket.close(ignored);
}

// Errors of accept that say the process or the system is out of a resource (descriptors,
// buffers): the pending connection stays in the backlog, so trying again at once would fail
// again at once, in a loop that takes a core.
bool OutOfResources(const boost::system::error_code& ec) {
  return ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space ||
         ec == asio::error::no_memory || ec.value() == ENFILE;
}

constexpr auto kAcceptBackoff = std::chrono::milliseconds(100);

}  // namespace

void NetServer::Accept(tcp::acceptor& acceptor) {
  const std::size_t i = NextContext();
  acceptor.async_accept(*contexts_[i],
                        [this, &acceptor](const boost::system::error_code& ec, tcp::socket socket) {
                          if (stopping_.load()) return;
                          if (OutOfResources(ec)) return BackOff(acceptor, ec);
                          if (accept_failing_.exchange(false)) {
                            std::fprintf(stderr, "cairn-server: accepting connections again\n");
                          }
                          if (!ec) Admit(std::move(socket));
                          Accept(acceptor);
                        });
}

void NetServer::Admit(tcp::socket socket) {
  boost::system::error_code peer_error;
  const tcp::endpoint peer = socket.remote_endpoint(peer_error);
  if (state_.client_count() >= state_.maxclients()) {
    state_.connections_rejected.fetch_add(1, std::memory_order_relaxed);
    return Refuse(socket, "ERR max number of clients reached");
  }
  if (state_.DeniesRemoteClients() && (peer_error || !IsLoopback(peer.address()))) {
    state_.connections_rejected.fetch_add(1, std::memory_order_relaxed);
    return Refuse(socket, DeniedError());
  }
  std::make_shared<Connection>(std::move(socket), state_, *keyspace_, *pass_)->Start();
}

void NetServer::BackOff(tcp::acceptor& acceptor, const boost::system::error_code& ec) {
  // Logged once per run of failures, not once per try.
  if (!accept_failing_.exchange(true)) {
    std::fprintf(stderr,
                 "cairn-server: cannot accept connections: %s; trying again every %lld ms "
                 "(raise the open-file limit, ulimit -n, or lower maxclients)\n",
                 ec.message().c_str(), static_cast<long long>(kAcceptBackoff.count()));
  }
  auto timer = std::make_shared<asio::steady_timer>(acceptor.get_executor(), kAcceptBackoff);
  timer->async_wait([this, &acceptor, timer](const boost::system::error_code&) {
    if (!stopping_.load()) Accept(acceptor);
  });
}

void NetServer::Run() {
  for (auto& acceptor : acceptors_) Accept(*acceptor);
  for (std::size_t i = 1; i < contexts_.size(); ++i) {
    threads_.emplace_back([ctx = contexts_[i].get()] {
      pthread_setname_np(pthread_self(), "cairn-io");
      KeyspaceExecutor::ServeOn(ctx);
      ctx->run();
    });
  }
  KeyspaceExecutor::ServeOn(contexts_[0].get());
  contexts_[0]->run();
  KeyspaceExecutor::ServeOn(nullptr);
  JoinThreads();
  // Each pass scheduled its commit, and the threads ran until no work was left; this only
  // makes sure that no transaction outlives them into the store's close.
  pass_->batch().Commit();
}

void NetServer::Stop() {
  if (stopping_.exchange(true)) return;
  asio::post(*contexts_[0], [this] {
    boost::system::error_code ec;
    for (auto& acceptor : acceptors_) acceptor->close(ec);
    // Each connection closes on its own thread, after the command it may be running; a
    // script still running is stopped (and rolled back) so that its connection can close.
    state_.running_scripts().KillAll();
    state_.KillClients([](const Session&) { return true; });
    for (auto& guard : guards_) guard.reset();
    deadline_timer_->cancel();
  });
}

}  // namespace cairn::server
