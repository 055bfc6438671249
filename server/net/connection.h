// One client connection: reads requests, runs every complete command in the bytes it has
// (pipelining: replies in order, one write for the whole batch), writes the replies, and
// reads again.
//
// Its life alternates between two phases. The io phase runs on its io thread (the socket's
// executor): reads, writes, pub/sub messages, timers, closing. The execution phase runs on the
// keyspace turn (net/keyspace_executor.h): it parses and runs the commands read so far, joins
// the shared write batch, waits for its commit (and under `always` its sync), and wakes the
// clients blocked on the keys it wrote. Pump starts the execution phase when there is input
// (or a parked command's reply) and no write outstanding; while it runs, the io phase touches
// nothing it uses (the input before end_, out_, the session) — a read already outstanding only
// fills in_ past the captured input — and a Pump or Close asked for meanwhile waits for it to
// end (repump_, close_pending_). When the turn is free the phase runs at once on this io
// thread, a direct call; when another io thread has it, that thread runs the phase, and its end
// (AfterExecution) is posted back here.
//
// While it writes it does not read (a client that does not read its replies cannot make the
// server buffer more than one batch of them) — unless it has subscriptions: a subscriber is
// written to whenever messages arrive, and must still be heard (UNSUBSCRIBE, PING) while a
// stream of them goes out, so it reads on, buffering up to kBufferedInputLimit bytes.
//
// Pub/sub messages arrive in its mailbox (pubsub/mailbox.h) from publishers on any thread;
// the mailbox wakes it on its io thread, and it writes them whenever it is not writing
// already — also while the client sends nothing. The messages PUBLISH staged inside EXEC or a
// script go out once the pass has committed the writes around them. A blocking command that has
// to wait parks the connection (execution/parked_call.h): a waiter entry, kept on the turn; the
// connection runs no further commands until the reply is in, and it keeps reading meanwhile
// (buffering up to kBufferedInputLimit bytes) so that it notices a client that goes away.
//
// Closes on a protocol error (after replying), on QUIT, on CLIENT KILL, at shutdown, when its
// mailbox overflows (client-output-buffer-limit pubsub) and after `timeout` idle seconds (not
// while parked: the BLOCK time bounds that wait; not with subscriptions, as in Redis).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "execution/command_runner.h"
#include "execution/server_state.h"
#include "execution/session.h"
#include "net/asio.h"
#include "net/keyspace_executor.h"
#include "net/pass_commit.h"

namespace cairn::server {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // `keyspace`: the keyspace executor; `pass`: its pass commit.
  Connection(boost::asio::ip::tcp::socket socket, ServerState& server, KeyspaceExecutor& keyspace,
             PassCommit& pass);
  ~Connection();

  void Start();
  // Thread-safe: closes the socket on the connection's executor.
  void RequestClose();

 private:
  // Io phase. Does whatever the connection can do next: run the commands it has (in the
  // execution phase), write replies, read.
  void Pump();
  // Io phase: writes what is ready (replies, messages), reads when it may.
  void Flow();
  // Runs the input [begin_, end_) (and a parked reply) on the keyspace turn.
  void StartExecution();
  // Execution phase: runs `input`, then (after the pass's commit if it must wait for it)
  // EndExecution.
  void Execute(std::string_view input);
  void RunCommands(std::string_view input);
  void AwaitPassCommit();
  // Execution phase, last step: signals touched keys, publishes staged messages, and goes back
  // to the io phase (AfterExecution).
  void EndExecution();
  void AfterExecution();
  // After the pass's commit or sync failed: its replies become one error per command.
  void WithdrawPassReplies(const Status& failure);
  void StartRead();
  void MakeInputRoom();  // Sizes in_ for the next read.
  void OnRead(const boost::system::error_code& ec, std::size_t n);
  void StartWrite();
  // client-output-buffer-limit normal: whether the replies ready to go pass its hard limit
  // (then the connection closes, as Redis closes such a client); and the timer that closes it
  // when a write over the soft limit does not complete within the soft seconds.
  bool OverOutputLimit();
  void ArmSoftOutputLimit();
  void StartParkedCall();
  // Io phase: the parked command's reply came.
  void OnParkedReply(std::string reply);
  // Appends the messages waiting in the mailbox to out_.
  void TakeMessages();
  void SetBlocked(bool blocked);
  // Keeps INFO's blocked_clients and CLIENT LIST's flag.
  // On the turn: runs the connections whose commands waited for its script, once it is
  // done (or past busy-reply-threshold, to answer them -BUSY).
  static void ResumeDeferred(KeyspaceExecutor& keyspace);
  void Close();
  void ArmIdleTimer();

  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer idle_timer_;
  boost::asio::steady_timer output_timer_;  // ArmSoftOutputLimit.
  std::uint64_t write_count_ = 0;           // Writes started, to tell the timer's from later ones.
  ServerState& server_;
  KeyspaceExecutor& keyspace_;
  // Keeps the io_context running while the execution phase, which ends on it, is under way.
  std::optional<boost::asio::executor_work_guard<boost::asio::any_io_executor>> io_work_;
  PassCommit& pass_;  // The server's one, used on the turn.
  Session session_;
  std::string in_;  // in_[begin_, end_) is unprocessed input.
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  std::size_t wanted_ = 0;    // Input size the parser says may complete the pending command.
  std::size_t parse_at_ = 0;  // The least input the pending command can take (don't parse).
  // What the execution phase ran of its input; the io phase applies it to begin_ (and wanted_,
  // parse_at_) once the phase is over, since reads meanwhile look at them.
  CommandRunner::Progress progress_;
  std::string out_;
  CommandRunner runner_;
  bool reading_ = false;    // An async read is outstanding.
  bool writing_ = false;    // An async write is outstanding (of out_).
  bool batched_ = false;    // Replies in out_ answer writes in the pass's write batch.
  bool executing_ = false;  // In the execution phase (set and cleared by the io phase).
  // The replies of the pass not yet released, and where in out_ they begin: what a failed
  // commit withdraws.
  std::size_t pass_replies_ = 0;
  std::size_t pass_out_start_ = 0;
  bool parked_ = false;         // A blocking command is waiting; commands after it wait too.
  bool deferred_ = false;       // Its next command waits for the script that has the turn.
  bool repump_ = false;         // Pump was called while executing_ and must run after.
  bool close_pending_ = false;  // Close was asked for while executing_.
  std::shared_ptr<pubsub::Mailbox> mailbox_;  // Also session_.pubsub.mailbox.
  std::function<void()> park_cancel_;         // Ends a parked waiter entry (on the turn).
  // Keeps the connection while a waiter entry holds only a weak reference to it (it may have
  // no read outstanding that would); dropped on its io thread, by the reply or Close.
  std::shared_ptr<Connection> parked_self_;
  std::optional<std::string> parked_reply_;  // The parked command's reply, once it is in.
  bool closed_ = false;
  bool registered_ = false;
};

}  // namespace cairn::server
