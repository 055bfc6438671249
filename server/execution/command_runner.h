// Runs the complete commands at the front of one client's input, in order, appending their
// replies (pipelining: many commands per read, one write for all their replies). Stops early
// at a protocol error (after replying; the connection then closes), at QUIT, at CLIENT KILL and
// at a blocking command that parked (session.parked), whose successors must wait for it.
//
// kBatch writes join the io thread's write batch (write_batch.h), whose commit the caller
// awaits before it sends the replies when Progress::batched says so. Anything else commits
// the batch first. Knows nothing of sockets.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "execution/server_state.h"
#include "execution/session.h"
#include "execution/write_batch.h"
#include "resp/reply_writer.h"

namespace cairn::server {

class CommandRunner {
 public:
  CommandRunner(ServerState& server, Session& session, WriteBatch& batch)
      : server_(server), session_(session), batch_(batch) {}

  struct Progress {
    std::size_t consumed = 0;  // Input bytes used (whole commands only).
    std::size_t wanted = 0;    // When the input ends inside a command: the size that may
                               // complete it, as far as the parser can tell (0: unknown).
    std::size_t at_least = 0;  // Then also: the least the command can take; parsing again
                               // with less input would be wasted (ParseResult::at_least).
    bool batched = false;      // A command joined the write batch: its reply waits for the
                               // batch's commit.
    bool deferred = false;     // A script runs on this thread: the next command waits until
                               // it ends (execution/script_busy.h); it is not consumed.
    std::size_t replies = 0;   // Replies appended to *out, one per command that ran (or was
                               // refused); a command that parked replies later.
  };

  // Runs what `input` holds and appends the replies to *out (in the session's protocol).
  Progress Run(std::string_view input, std::string* out);

  // Serves the clients blocked on the keys the session's commands wrote (key_waiters.h), and
  // forgets those keys. Run calls it after each command, as Redis does: the client a write
  // wakes is served before the next command of any client runs, this one's included.
  void ServeBlockedClients();

 private:
  // What becomes of the command just parsed (args_), before it is looked up: an HTTP request
  // (cross-protocol scripting) closes the connection at once; a client protected mode turns
  // away is answered -DENIED; while a script runs on this thread the command waits for it or,
  // past busy-reply-threshold, is answered -BUSY.
  enum class Admission {
    kRun,
    kWait,     // Not consumed: runs once the script has ended.
    kRefused,  // Answered with an error; consumed.
    kStop,     // The connection closes (after the reply written, if any).
  };
  Admission Admit(resp::ReplyWriter& writer);

  ServerState& server_;
  Session& session_;
  WriteBatch& batch_;  // The io thread's, shared by its connections.
  std::vector<std::string_view> args_;
  std::string arg_storage_;
};

// Redis's -DENIED reply to a client that protected mode turns away (also sent at accept).
std::string_view DeniedError();

}  // namespace cairn::server
