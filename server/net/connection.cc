#include "net/connection.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdio>

#include "execution/command_runner.h"
#include "execution/pubsub_session.h"
#include "execution/script_busy.h"
#include "net/loopback.h"
#include "resp/reply_writer.h"

namespace cairn::server {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

constexpr std::size_t kReadChunk = 16 * 1024;
// The read of a parked connection, which mostly only notices the client going away: thousands
// of idle blocked clients must not each hold a full chunk (commands pipelined behind the
// blocking one still grow the buffer as they come).
constexpr std::size_t kParkedReadChunk = 512;
// Input a connection buffers while it cannot run commands — parked (commands sent behind a
// blocking one), or a subscriber reading while it writes messages — before it stops reading
// until it can.
constexpr std::size_t kBufferedInputLimit = 1024 * 1024;
// Input buffer capacity kept between commands; a larger one (left by a large command) is freed.
constexpr std::size_t kKeptInputBuffer = 1024 * 1024;
constexpr std::size_t kKeptOutputBuffer = 1024 * 1024;  // The same for replies and messages.

// Handlers run per tick of a long script (Session::serve_others): enough to take in every
// client's next request, few enough that the script goes on soon.
constexpr int kServeBudget = 64;

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

// TCP keepalive as Redis sets it (anetKeepAlive): the first probe after `seconds` idle, then a
// probe every third of that, and the peer declared dead after three unanswered ones — so a
// client that vanished without a FIN (a cut cable, a dead NAT entry) is noticed and its
// connection freed.
void SetKeepAlive(tcp::socket& socket, std::int64_t seconds) {
  if (seconds <= 0) return;
  boost::system::error_code ec;
  socket.set_option(asio::socket_base::keep_alive(true), ec);
  const int idle = static_cast<int>(std::min<std::int64_t>(seconds, 32767));
  const int interval = std::max(1, idle / 3);
  const int count = 3;
  const int fd = socket.native_handle();
  (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
  (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof(interval));
  (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof(count));
}

std::string LocalOf(const tcp::socket& s) {
  boost::system::error_code ec;
  const tcp::endpoint e = s.local_endpoint(ec);
  return ec ? std::string("?:0") : Endpoint(e);
}

}  // namespace

Connection::Connection(tcp::socket socket, ServerState& server, KeyspaceExecutor& keyspace,
                       PassCommit& pass)
    : socket_(std::move(socket)),
      idle_timer_(socket_.get_executor()),
      output_timer_(socket_.get_executor()),
      server_(server),
      keyspace_(keyspace),
      pass_(pass),
      session_(server.NextClientId(), PeerOf(socket_), LocalOf(socket_), server.clock().NowMs()),
      runner_(server, session_, pass.batch()) {
  boost::system::error_code ec;
  socket_.set_option(tcp::no_delay(true), ec);  // Replies go out as soon as they are written.
  SetKeepAlive(socket_, server_.tcp_keepalive_s());
  const tcp::endpoint peer = socket_.remote_endpoint(ec);
  session_.loopback = !ec && IsLoopback(peer.address());
  // A nested poll of the script's io thread, which has the keyspace turn: its sockets are
  // served, and the other connections' commands (its own, and those other io threads queued
  // for the turn) wait or are refused (CommandRunner::Admit), and SCRIPT KILL runs. Asio
  // supports running ready handlers from inside one (scheduler::poll_one).
  session_.serve_others = [&keyspace, &server] {
    // Past busy-reply-threshold the clients waiting for the script get their -BUSY now.
    if (ScriptRunsHere::RunningForMs() >= server.busy_reply_threshold_ms()) {
      ResumeDeferred(keyspace);
    }
    asio::io_context& io = keyspace.ThisThreadIo();
    for (int i = 0; i < kServeBudget; ++i) {
      const bool served = io.poll_one() > 0;
      if (!keyspace.RunOneQueued() && !served) break;
    }
  };
}

Connection::~Connection() {
  if (!closed_) LeavePubSub(server_, session_, nullptr);
  if (registered_) server_.RemoveClient(session_.id());
}

void Connection::Start() {
  std::weak_ptr<Connection> weak = weak_from_this();
  // The mailbox calls these on a publisher's thread: they only post to this connection's,
  // where the connection (if it still exists) takes the messages, or closes.
  auto executor = socket_.get_executor();
  mailbox_ = std::make_shared<pubsub::Mailbox>(
      session_.protocol,
      [weak, executor] {
        asio::post(executor, [weak] {
          if (auto self = weak.lock()) self->Pump();  // Writes them unless it is writing.
        });
      },
      [weak, executor] {
        asio::post(executor, [weak] {
          auto self = weak.lock();
          if (!self || self->closed_) return;
          std::fprintf(stderr,
                       "cairn-server: closing client %llu: its unsent pub/sub messages passed "
                       "client-output-buffer-limit pubsub\n",
                       static_cast<unsigned long long>(self->session_.id()));
          self->Close();
        });
      });
  session_.pubsub.mailbox = mailbox_;
  server_.AddClient(&session_, [weak] {
    if (auto self = weak.lock()) self->RequestClose();
  });
  registered_ = true;
  server_.connections_received.fetch_add(1, std::memory_order_relaxed);
  // Start runs on the acceptor's io thread, which need not be this connection's: the first
  // Pump goes to the connection's own thread, like every handler of it. (Called here, its
  // first read could complete, and Pump run, on the connection's thread while this one was
  // still inside Pump.)
  asio::post(socket_.get_executor(), [self = shared_from_this()] { self->Pump(); });
}

void Connection::RequestClose() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] { self->Close(); });
}

void Connection::Close() {
  if (closed_) return;
  if (executing_) {
    // Closing while the connection's commands run (CLIENT KILL, the client hanging up, an
    // output limit, shutdown — on the io thread, or with one io thread from a long script's
    // hook) must not free the state they use: the MULTI queue EXEC walks, the session a script
    // runs as. AfterExecution closes.
    close_pending_ = true;
    return;
  }
  closed_ = true;
  // End a wait now: its result would be for nobody. On the turn at once, or first in its queue:
  // a write that another io thread runs later must not serve this waiter any more.
  if (park_cancel_) keyspace_.Dispatch(std::exchange(park_cancel_, nullptr));
  std::shared_ptr<Connection> keep = std::move(parked_self_);  // Until Close returns.
  SetBlocked(false);
  ClearTransactionState(server_, session_);
  LeavePubSub(server_, session_, nullptr);
  if (mailbox_) mailbox_->Close();
  session_.staged_messages.clear();  // Of writes whose commit failed, or a killed client.
  boost::system::error_code ec;
  idle_timer_.cancel();
  output_timer_.cancel();
  socket_.shutdown(tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  if (registered_) {
    server_.RemoveClient(session_.id());
    registered_ = false;
  }
}

void Connection::ArmIdleTimer() {
  const std::int64_t timeout_s = server_.idle_timeout_s();
  // Redis does not time out subscribers either: waiting for messages is what they do.
  if (timeout_s <= 0 || parked_ || session_.pubsub.count() > 0) return;
  idle_timer_.expires_after(std::chrono::seconds(timeout_s));
  idle_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    // Not re-armed by a read in time: idle too long (unless its commands are running).
    if (!ec && !self->executing_ && self->session_.pubsub.count() == 0) self->Close();
  });
}

void Connection::Pump() {
  if (closed_) return;
  if (executing_) {
    // Read or woken while its commands run: looked at once they are done.
    repump_ = true;
    return;
  }
  if (session_.kill_requested.load()) return Close();
  // A command still short of the least it can take is not parsed again yet: a command of a
  // million small arguments would otherwise be parsed from its start on every read.
  const bool runnable = !parked_ && !deferred_ && end_ > begin_ && end_ - begin_ >= parse_at_;
  if (!writing_ && (parked_reply_ || runnable)) return StartExecution();
  Flow();
}

void Connection::Flow() {
  if (!writing_) {
    TakeMessages();
    if (OverOutputLimit()) return Close();
    if (!out_.empty()) {
      StartWrite();
    } else if (session_.close_after_reply) {
      return Close();
    }
  }
  // Reads wait while replies are written (backpressure). A parked connection reads on, up to
  // a limit, so that it sees the client go away; so does a subscriber while it is written to.
  const bool input_room = end_ - begin_ < kBufferedInputLimit;
  const bool subscribed = session_.pubsub.count() > 0;
  const bool want_read = !session_.close_after_reply && !deferred_ &&
                         (!writing_ || (subscribed && input_room)) && (!parked_ || input_room);
  if (want_read && !reading_) StartRead();
}

void Connection::StartExecution() {
  executing_ = true;
  io_work_.emplace(socket_.get_executor());
  progress_ = CommandRunner::Progress{};
  progress_.wanted = wanted_;
  progress_.at_least = parse_at_;
  const std::size_t have = end_ - begin_;
  // (Below parse_at_ only when it runs for a parked reply: its input waits.)
  const std::string_view input =
      have >= parse_at_ ? std::string_view(in_.data() + begin_, have) : std::string_view();
  // Here and now, unless another io thread has the keyspace turn (it runs it then).
  keyspace_.Dispatch([self = shared_from_this(), input] { self->Execute(input); });
}

void Connection::Execute(std::string_view input) {
  bool ran = false;  // Commands ran (or a parked one answered) since the replies were sent.
  if (pass_replies_ == 0) pass_out_start_ = out_.size();
  if (parked_reply_) {
    // The parked command's reply follows the replies sent before it parked.
    ++pass_replies_;
    out_ += *parked_reply_;
    parked_reply_.reset();
    parked_ = false;
    session_.wrote = true;  // Its call may have written (a claim, an acquisition).
    ran = true;
  }
  if (!parked_ && !input.empty()) {
    RunCommands(input);
    ran = ran || progress_.consumed > 0;
    if (parked_) StartParkedCall();
  }
  if (session_.kill_requested.load()) return EndExecution();  // Nobody to answer.
  if (std::exchange(session_.wrote, false)) pass_.MarkWritten();
  // Replies to writes in the batch wait for its commit; under `always` every reply of a pass
  // that wrote waits for the sync, and so does one that read data while a write it could have
  // seen is not durable yet.
  const bool read_data = std::exchange(session_.read_data, false);
  if (std::exchange(batched_, false) ||
      (ran && pass_.sync() && (pass_.written() || (read_data && pass_.NeedsSyncForReads())))) {
    return AwaitPassCommit();  // Then EndExecution.
  }
  EndExecution();
}

void Connection::EndExecution() {
  pass_replies_ = 0;  // Those of this pass are final now.
  // Whatever the commands wrote is committed by now: the messages published inside it may go
  // out. (The clients blocked on its keys were served after each command: CommandRunner.)
  PublishStaged(server_, session_);
  asio::dispatch(socket_.get_executor(), [self = shared_from_this()] { self->AfterExecution(); });
}

void Connection::AfterExecution() {
  executing_ = false;
  io_work_.reset();
  begin_ += progress_.consumed;
  wanted_ = progress_.wanted;
  parse_at_ = progress_.at_least;
  if (std::exchange(close_pending_, false) || session_.kill_requested.load()) return Close();
  Flow();
  if (std::exchange(repump_, false)) {
    asio::post(socket_.get_executor(), [self = shared_from_this()] { self->Pump(); });
  }
}

void Connection::StartRead() {
  ArmIdleTimer();
  reading_ = true;
  MakeInputRoom();
  // A read rather than a wait for readability: Asio tries the read at once (right after a
  // reply that usually finds nothing) and otherwise queues it on the descriptor it registered
  // once, edge-triggered. A wait would re-arm the descriptor with epoll_ctl every time, which
  // costs more than a recv that finds nothing, and a busy server's try often finds the next
  // request already there.
  socket_.async_read_some(asio::buffer(in_.data() + end_, in_.size() - end_),
                          [self = shared_from_this()](const boost::system::error_code& ec,
                                                      std::size_t n) { self->OnRead(ec, n); });
}

void Connection::MakeInputRoom() {
  const std::size_t chunk = parked_ ? kParkedReadChunk : kReadChunk;
  if (begin_ == end_) {
    begin_ = end_ = 0;
    // A large command is done: give back its buffer rather than keep it for a small one.
    if (in_.capacity() > (parked_ ? kParkedReadChunk : kKeptInputBuffer)) std::string().swap(in_);
  }
  // Room for the next chunk, or toward the pending command when the parser knows its size
  // (so a large bulk is read straight into place) — but at most as much again as has
  // arrived, so that a declared size alone does not commit memory.
  const std::size_t have = end_ - begin_;
  std::size_t room = chunk;
  if (wanted_ > have) room = std::clamp(wanted_ - have, chunk, std::max(chunk, have));
  if (begin_ > 0 && in_.size() - end_ < room) {
    in_.erase(0, begin_);  // Keep the unprocessed bytes only.
    in_.resize(in_.capacity());
    end_ -= begin_;
    begin_ = 0;
  }
  if (in_.size() < end_ + room) in_.resize(end_ + room);
}

void Connection::OnRead(const boost::system::error_code& ec, std::size_t n) {
  reading_ = false;
  idle_timer_.cancel();
  if (ec || closed_) return Close();
  end_ += n;
  server_.net_input_bytes.fetch_add(n, std::memory_order_relaxed);
  if (end_ - begin_ > server_.client_query_buffer_limit()) {
    std::fprintf(stderr,
                 "cairn-server: closing client %llu (%s): its unprocessed input passed "
                 "client-query-buffer-limit (%zu bytes)\n",
                 static_cast<unsigned long long>(session_.id()), session_.peer().c_str(),
                 server_.client_query_buffer_limit());
    return Close();
  }
  Pump();
}

void Connection::TakeMessages() {
  if (!mailbox_) return;
  // A RESP2 client out of subscribed mode would read a message as the reply to its next
  // command. Unsubscribing takes what is queued before it confirms, so this only drops what
  // raced an UNSUBSCRIBE inside EXEC (as if published after the EXEC, when Redis would not
  // have delivered it either).
  if (session_.protocol == 2 && session_.pubsub.count() == 0) return mailbox_->Drop();
  mailbox_->TakeInto(&out_);
}

void Connection::RunCommands(std::string_view input) {
  progress_ = runner_.Run(input, &out_);
  pass_replies_ += progress_.replies;
  if (progress_.batched) {
    batched_ = true;
    pass_.Schedule();
  }
  if (progress_.deferred && !deferred_) {
    deferred_ = true;
    keyspace_.waiting_for_script().push_back([self = shared_from_this()] {
      asio::post(self->socket_.get_executor(), [self] {
        self->deferred_ = false;
        self->Pump();
      });
    });
  }
  if (!ScriptRunsHere::Now()) ResumeDeferred(keyspace_);
  if (session_.parked) parked_ = true;
}

void Connection::ResumeDeferred(KeyspaceExecutor& keyspace) {
  std::vector<std::function<void()>> waiting;
  waiting.swap(keyspace.waiting_for_script());
  for (std::function<void()>& resume : waiting) resume();
}

void Connection::AwaitPassCommit() {
  pass_.Await([self = shared_from_this()](const Status& synced) {
    if (!synced.ok()) self->WithdrawPassReplies(synced);
    self->EndExecution();
  });
}

void Connection::WithdrawPassReplies(const Status& failure) {
  // The writes may not be durable (or not even committed): acknowledging them would be a lie,
  // and the reads of the pass may have seen them. Each command of the pass is answered with
  // the error instead; what it wrote may still take effect (a failed fsync leaves the write in
  // memory, and the resume makes it durable), so its outcome is unknown, as after a timeout.
  std::string error =
      "MISCONF Cairn could not commit or sync this write to its disk, so it was "
      "not acknowledged (it may still take effect); writes are refused until the "
      "cause is gone: " +
      failure.message();
  out_.resize(pass_out_start_);
  resp::ReplyWriter writer(&out_, session_.protocol);
  for (std::size_t i = 0; i < pass_replies_; ++i) writer.Error(error);
  session_.staged_messages.clear();  // Messages published by writes that were not made.
}

void Connection::StartParkedCall() {
  ParkedCall call = std::move(*session_.parked);
  session_.parked.reset();
  SetBlocked(true);
  // A waiter entry: answered on the keyspace turn, sent from this connection's io thread.
  parked_self_ = shared_from_this();
  park_cancel_ =
      call.start([weak = weak_from_this(), io = socket_.get_executor()](std::string reply) mutable {
        asio::post(io, [weak, reply = std::move(reply)]() mutable {
          if (auto self = weak.lock()) self->OnParkedReply(std::move(reply));
        });
      });
}

void Connection::OnParkedReply(std::string reply) {
  std::shared_ptr<Connection> keep = std::move(parked_self_);
  park_cancel_ = nullptr;
  if (closed_) return;
  parked_reply_ = std::move(reply);
  SetBlocked(false);
  Pump();
}

void Connection::SetBlocked(bool blocked) {
  if (session_.blocked.exchange(blocked) != blocked) {
    if (blocked) {
      server_.blocked_clients.fetch_add(1, std::memory_order_relaxed);
    } else {
      server_.blocked_clients.fetch_sub(1, std::memory_order_relaxed);
    }
  }
}

bool Connection::OverOutputLimit() {
  // A subscriber's messages are bounded by client-output-buffer-limit pubsub in its mailbox.
  if (session_.pubsub.count() > 0) return false;
  const OutputBufferLimit limit = server_.normal_output_limit();
  if (limit.hard_bytes <= 0 || static_cast<std::int64_t>(out_.size()) < limit.hard_bytes) {
    return false;
  }
  std::fprintf(stderr,
               "cairn-server: closing client %llu (%s): its replies (%zu bytes) passed "
               "client-output-buffer-limit normal\n",
               static_cast<unsigned long long>(session_.id()), session_.peer().c_str(),
               out_.size());
  return true;
}

void Connection::ArmSoftOutputLimit() {
  if (session_.pubsub.count() > 0) return;
  const OutputBufferLimit limit = server_.normal_output_limit();
  if (limit.soft_bytes <= 0 || static_cast<std::int64_t>(out_.size()) < limit.soft_bytes) return;
  // The replies are over the soft limit until this write completes: if it has not after the
  // limit's seconds, the client is not reading them.
  output_timer_.expires_after(std::chrono::seconds(limit.soft_seconds));
  output_timer_.async_wait(
      [self = shared_from_this(), write = write_count_](const boost::system::error_code& ec) {
        if (ec || self->closed_ || !self->writing_ || self->write_count_ != write) return;
        std::fprintf(stderr,
                     "cairn-server: closing client %llu (%s): its replies stayed over the soft "
                     "client-output-buffer-limit normal\n",
                     static_cast<unsigned long long>(self->session_.id()),
                     self->session_.peer().c_str());
        self->Close();
      });
}

void Connection::StartWrite() {
  writing_ = true;
  ++write_count_;
  ArmSoftOutputLimit();
  asio::async_write(
      socket_, asio::buffer(out_),
      [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
        self->writing_ = false;
        self->output_timer_.cancel();
        self->server_.net_output_bytes.fetch_add(n, std::memory_order_relaxed);
        // A burst of messages (or a large reply) is done: give its buffer back.
        if (self->out_.capacity() > kKeptOutputBuffer) {
          std::string().swap(self->out_);
        } else {
          self->out_.clear();
        }
        if (self->mailbox_) self->mailbox_->Sent();
        if (ec || self->closed_) return self->Close();
        self->Pump();
      });
}

}  // namespace cairn::server
