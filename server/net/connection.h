// One client connection: reads requests, runs every complete command in the bytes it has
// (pipelining: replies in order, one write for the whole batch), writes the replies, and
// reads again. Its handlers run on its io thread only, so it needs no strand; Close may be
// requested from any thread and is posted there.
//
// While it writes it does not read (a client that does not read its replies cannot make the
// server buffer more than one batch of them) — unless it has subscriptions: a subscriber is
// written to whenever messages arrive, and must still be heard (UNSUBSCRIBE, PING) while a
// stream of them goes out, so it reads on, buffering up to kBufferedInputLimit bytes.
//
// Pub/sub messages arrive in its mailbox (pubsub/mailbox.h) from publishers on any thread;
// the mailbox wakes it on its own thread, and it writes them whenever it is not writing
// already — also while the client sends nothing. The messages PUBLISH staged inside EXEC or a
// script go out once the pass has committed the writes around them. A blocking command that has to
// wait parks the connection (commands/parked_call.h): the wait runs on a thread of its own, the
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

#include "commands/command_runner.h"
#include "commands/server_state.h"
#include "commands/session.h"
#include "net/asio.h"
#include "net/parked_threads.h"
#include "net/pass_commit.h"

namespace cairn::server {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(boost::asio::ip::tcp::socket socket, ServerState& server,
             ParkedThreads& parked_threads, PassCommit& pass);
  ~Connection();

  void Start();
  // Thread-safe: closes the socket on the connection's executor.
  void RequestClose();

 private:
  // Does whatever the connection can do next: run the commands it has, write replies, read.
  void Pump();
  void RunCommands();
  void AwaitPassCommit();
  // After the pass's commit or sync failed: its replies become one error per command.
  void WithdrawPassReplies(const Status& failure);
  void StartRead();
  // Wakes the clients blocked on the keys this connection's commands wrote.
  void SignalTouchedKeys();
  void MakeInputRoom();  // Sizes in_ for the next read.
  void OnRead(const boost::system::error_code& ec, std::size_t n);
  void StartWrite();
  // client-output-buffer-limit normal: whether the replies ready to go pass its hard limit
  // (then the connection closes, as Redis closes such a client); and the timer that closes it
  // when a write over the soft limit does not complete within the soft seconds.
  bool OverOutputLimit();
  void ArmSoftOutputLimit();
  void StartParkedCall();
  // Appends the messages waiting in the mailbox to out_.
  void TakeMessages();
  void SetBlocked(bool blocked);
  // Runs the connections whose commands waited for a script on this thread, once it is done.
  static void ResumeDeferred();  // Keeps INFO's blocked_clients and CLIENT LIST's flag.
  void Close();
  void ArmIdleTimer();

  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer idle_timer_;
  boost::asio::steady_timer output_timer_;  // ArmSoftOutputLimit.
  std::uint64_t write_count_ = 0;           // Writes started, to tell the timer's from later ones.
  ServerState& server_;
  ParkedThreads& parked_threads_;
  PassCommit& pass_;  // Its io thread's (durability `always`).
  Session session_;
  std::string in_;  // in_[begin_, end_) is unprocessed input.
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  std::size_t wanted_ = 0;    // Input size the parser says may complete the pending command.
  std::size_t parse_at_ = 0;  // The least input the pending command can take (don't parse).
  std::string out_;
  CommandRunner runner_;
  bool reading_ = false;          // An async read is outstanding.
  bool writing_ = false;          // An async write is outstanding (of out_).
  bool batched_ = false;          // Replies in out_ answer writes in the pass's write batch.
  bool awaiting_commit_ = false;  // The replies in out_ wait for the io thread's pass commit.
  // The replies of the pass not yet released, and where in out_ they begin: what a failed
  // commit withdraws.
  std::size_t pass_replies_ = 0;
  std::size_t pass_out_start_ = 0;
  bool parked_ = false;         // A blocking command is waiting; commands after it wait too.
  bool deferred_ = false;       // Its next command waits for the script running on this thread.
  bool in_commands_ = false;    // RunCommands is on the stack (a script may serve handlers).
  bool repump_ = false;         // Pump was called meanwhile and must run again after.
  bool close_pending_ = false;  // Close was asked for while RunCommands was on the stack.
  std::shared_ptr<pubsub::Mailbox> mailbox_;  // Also session_.pubsub.mailbox.
  std::atomic<bool> park_stop_{false};        // Set to end the parked wait early.
  std::function<void()> park_wake_;           // Makes the parked wait look at park_stop_.
  std::optional<std::string> parked_reply_;   // The parked command's reply, once it is in.
  bool closed_ = false;
  bool registered_ = false;
};

}  // namespace cairn::server
