#include "net/connection.h"

#include <cstdio>

#include "commands/client_info.h"
#include "commands/dispatch.h"
#include "resp/parser.h"

namespace cairn::server {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

constexpr std::size_t kReadChunk = 16 * 1024;

std::string Endpoint(const tcp::endpoint& e) {
  const asio::ip::address a = e.address();
  std::string host = a.to_string();
  if (a.is_v6()) host = "[" + host + "]";
  return host + ":" + std::to_string(e.port());
}

std::string PeerOf(const tcp::socket& s) {
  boost::system::error_code ec;
  const tcp::endpoint e = s.remote_endpoint(ec);
  return ec ? std::string("?:0") : Endpoint(e);
}

std::string LocalOf(const tcp::socket& s) {
  boost::system::error_code ec;
  const tcp::endpoint e = s.local_endpoint(ec);
  return ec ? std::string("?:0") : Endpoint(e);
}

}  // namespace

Connection::Connection(tcp::socket socket, ServerState& server)
    : socket_(std::move(socket)),
      idle_timer_(socket_.get_executor()),
      server_(server),
      session_(server.NextClientId(), PeerOf(socket_), LocalOf(socket_), server.clock().NowMs()) {
  boost::system::error_code ec;
  socket_.set_option(tcp::no_delay(true), ec);  // Replies go out as soon as they are written.
}

Connection::~Connection() {
  if (registered_) server_.RemoveClient(session_.id());
}

void Connection::Start() {
  std::weak_ptr<Connection> weak = weak_from_this();
  server_.AddClient(&session_, [weak] {
    if (auto self = weak.lock()) self->RequestClose();
  });
  registered_ = true;
  server_.connections_received.fetch_add(1, std::memory_order_relaxed);
  Read();
}

void Connection::RequestClose() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] { self->Close(); });
}

void Connection::Close() {
  if (closed_) return;
  closed_ = true;
  ClearTransactionState(server_, session_);
  boost::system::error_code ec;
  idle_timer_.cancel();
  socket_.shutdown(tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  if (registered_) {
    server_.RemoveClient(session_.id());
    registered_ = false;
  }
}

void Connection::ArmIdleTimer() {
  const std::int64_t timeout_s = server_.idle_timeout_s();
  if (timeout_s <= 0) return;
  idle_timer_.expires_after(std::chrono::seconds(timeout_s));
  idle_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (!ec) self->Close();  // Not re-armed by a read in time: idle too long.
  });
}

void Connection::Read() {
  if (closed_ || session_.kill_requested.load()) return Close();
  if (begin_ == end_) begin_ = end_ = 0;
  // Room for the next chunk, or for the whole pending command when the parser knows its size
  // (so a large bulk is read straight into place).
  std::size_t room = std::max(kReadChunk, wanted_ > end_ - begin_ ? wanted_ - (end_ - begin_) : 0);
  if (begin_ > 0 && in_.size() - end_ < room) {
    in_.erase(0, begin_);  // Keep the unprocessed bytes only.
    in_.resize(in_.capacity());
    end_ -= begin_;
    begin_ = 0;
  }
  if (in_.size() < end_ + room) in_.resize(end_ + room);
  ArmIdleTimer();
  socket_.async_read_some(asio::buffer(in_.data() + end_, in_.size() - end_),
                          [self = shared_from_this()](const boost::system::error_code& ec,
                                                      std::size_t n) { self->OnRead(ec, n); });
}

void Connection::OnRead(const boost::system::error_code& ec, std::size_t n) {
  idle_timer_.cancel();
  if (ec || closed_) return Close();
  end_ += n;
  server_.net_input_bytes.fetch_add(n, std::memory_order_relaxed);
  RunCommands();
}

void Connection::RunCommands() {
  resp::Limits limits;
  limits.max_bulk_len = server_.proto_max_bulk_len();
  resp::ReplyWriter writer(&out_, session_.protocol);
  wanted_ = 0;
  while (begin_ < end_ && !session_.close_after_reply) {
    if (session_.kill_requested.load()) return Close();
    const std::string_view input(in_.data() + begin_, end_ - begin_);
    const resp::ParseResult parsed = resp::ParseCommand(input, limits, &args_, &arg_storage_);
    if (parsed.status == resp::ParseStatus::kNeedMore) {
      wanted_ = parsed.needed;
      break;
    }
    if (parsed.status == resp::ParseStatus::kError) {
      resp::ReplyWriter(&out_, session_.protocol).Error("ERR Protocol error: " + parsed.error);
      session_.close_after_reply = true;
      break;
    }
    if (parsed.status == resp::ParseStatus::kCommand && !args_.empty()) {
      Dispatch(server_, session_, args_, writer);
      // HELLO may have switched the protocol for the replies that follow.
      writer = resp::ReplyWriter(&out_, session_.protocol);
    }
    begin_ += parsed.consumed;
  }
  const bool wrote = std::exchange(session_.wrote, false);
  if (wrote && server_.sync_before_reply()) {
    const Status synced = server_.store().Sync();
    if (!synced.ok()) {
      // The writes may not be durable: acknowledging them would be a lie, so the client gets
      // no reply at all and sees the connection drop (the outcome is unknown to it, as after
      // a crash).
      std::fprintf(stderr, "cairn-server: sync failed, closing client %llu: %s\n",
                   static_cast<unsigned long long>(session_.id()), synced.ToString().c_str());
      return Close();
    }
  }
  if (!out_.empty()) return Write();
  if (session_.close_after_reply) return Close();
  Read();
}

void Connection::Write() {
  asio::async_write(
      socket_, asio::buffer(out_),
      [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
        self->server_.net_output_bytes.fetch_add(n, std::memory_order_relaxed);
        self->out_.clear();
        if (ec || self->session_.close_after_reply) return self->Close();
        // RunCommands ran every complete command: what is left is partial.
        self->Read();
      });
}

}  // namespace cairn::server
