#include "execution/command_runner.h"

#include <utility>

#include "args/ascii.h"
#include "execution/dispatch.h"
#include "execution/pubsub_session.h"
#include "execution/script_busy.h"
#include "resp/parser.h"
#include "resp/reply_writer.h"

namespace cairn::server {

namespace {

// The replies a pass collects before it stops running a client's pipelined commands and sends
// them: the rest of the input waits in the connection's buffer, so a pipeline of large reads
// holds about this much reply memory at a time, not the sum of its replies.
constexpr std::size_t kPassReplyBytes = 1024 * 1024;

constexpr std::string_view kDeniedError =
    "DENIED Redis is running in protected mode because protected mode is enabled and no "
    "password is set for the default user. In this mode connections are only accepted from the "
    "loopback interface. If you want to connect from external computers to Redis you may adopt "
    "one of the following solutions: 1) Just disable protected mode sending the command "
    "'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from the "
    "same host the server is running, however MAKE SURE Redis is not publicly accessible from "
    "internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively "
    "you can just disable the protected mode by editing the Redis configuration file, and "
    "setting the protected mode option to 'no', and then restarting the server. 3) If you "
    "started the server manually just for testing, restart it with the '--protected-mode no' "
    "option. 4) Set up an authentication password for the default user. NOTE: You only need to "
    "do one of the above things in order for the server to start accepting connections from "
    "the outside.";

// A browser can be made to POST to any port on the machine it runs on (cross-protocol
// scripting): the request line and the headers arrive as inline commands, and the body after
// them could be one. Redis closes a connection whose command is POST or Host:, and so do we.
bool IsHttpRequest(std::string_view name) {
  return EqualsIgnoreCase(name, "post") || EqualsIgnoreCase(name, "host:");
}

}  // namespace

std::string_view DeniedError() { return kDeniedError; }

CommandRunner::Admission CommandRunner::Admit(resp::ReplyWriter& writer) {
  if (IsHttpRequest(args_[0])) {
    server_.LogSecurityAttack(session_.peer());
    session_.kill_requested.store(true);  // Closed at once, without a reply.
    return Admission::kStop;
  }
  if (!session_.loopback && server_.DeniesRemoteClients()) {
    writer.Error(kDeniedError);
    session_.close_after_reply = true;
    return Admission::kStop;
  }
  if (!ScriptRunsHere::Now()) return Admission::kRun;
  switch (
      WhileScriptRuns(args_, ScriptRunsHere::RunningForMs() >= server_.busy_reply_threshold_ms())) {
    case DuringScript::kRun:
      return Admission::kRun;
    case DuringScript::kWait:
      return Admission::kWait;
    case DuringScript::kRefuse:
      writer.Error(kBusyScriptError);
      return Admission::kRefused;
  }
  return Admission::kRun;
}

CommandRunner::Progress CommandRunner::Run(std::string_view input, std::string* out) {
  resp::ReplyWriter writer(out, session_.protocol);
  Progress progress;
  std::size_t& pos = progress.consumed;
  while (pos < input.size() && !session_.close_after_reply && !session_.kill_requested.load() &&
         out->size() < kPassReplyBytes) {
    const std::string_view rest = input.substr(pos);
    resp::Limits limits;
    if (!session_.authenticated && server_.RequiresAuth()) {
      limits = resp::Limits::Unauthenticated();
    } else {
      limits.max_bulk_len = server_.proto_max_bulk_len();
    }
    const resp::ParseResult parsed = resp::ParseCommand(rest, limits, &args_, &arg_storage_);
    if (parsed.status == resp::ParseStatus::kNeedMore) {
      progress.wanted = parsed.needed;
      progress.at_least = parsed.at_least;
      break;
    }
    if (parsed.status == resp::ParseStatus::kError) {
      writer.Error("ERR Protocol error: " + parsed.error);
      ++progress.replies;
      session_.close_after_reply = true;
      break;
    }
    if (parsed.status != resp::ParseStatus::kCommand || args_.empty()) {
      pos += parsed.consumed;  // An empty line or array: nothing to run.
      continue;
    }
    const Admission admission = Admit(writer);
    if (admission == Admission::kStop) break;
    if (admission == Admission::kWait) {
      progress.deferred = true;
      break;
    }
    if (admission == Admission::kRefused) {
      ++progress.replies;
      pos += parsed.consumed;
      continue;
    }
    const CommandSpec* spec = server_.table().Find(args_[0]);
    bool done = false;
    if (spec != nullptr && spec->Has(kBatch) && !session_.in_multi) {
      const std::size_t reply_at = out->size();
      done = batch_.Run(spec->MayHalfApply(), [&](Records& records, Transaction* txn) {
        Dispatch(server_, session_, spec, args_, writer, records, txn);
        return resp::IsErrorReply(std::string_view(*out).substr(reply_at));
      });
      progress.batched = progress.batched || done;
    } else {
      batch_.Commit();  // What runs next sees every write before it.
    }
    if (!done) {
      Dispatch(server_, session_, spec, args_, writer, server_.store(), nullptr);
      // HELLO may have switched the protocol for the replies that follow.
      writer = resp::ReplyWriter(out, session_.protocol);
    }
    session_.PublishForClientList();
    ServeBlockedClients();
    pos += parsed.consumed;
    if (session_.parked) break;  // The commands after it wait for its reply.
    ++progress.replies;
  }
  // Once per run, not per command: CLIENT LIST shows idle time in whole seconds.
  if (pos > 0) session_.last_command_ms_.store(server_.clock().NowMs(), std::memory_order_relaxed);
  return progress;
}

void CommandRunner::ServeBlockedClients() {
  if (!session_.touched_everything && session_.touched.empty()) return;
  KeyWaiters& waiters = server_.key_waiters();
  const bool everything = std::exchange(session_.touched_everything, false);
  if (everything ? waiters.waiting() > 0 : waiters.AnyWaitsOn(session_.touched)) {
    // The waiters' tries run in transactions of their own: they must see the writes of the
    // open batch, and not race them.
    batch_.Commit();
    everything ? waiters.SignalAll() : waiters.Signal(session_.touched);
  }
  session_.touched.clear();
}

}  // namespace cairn::server
