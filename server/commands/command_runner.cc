#include "commands/command_runner.h"

#include "commands/dispatch.h"
#include "commands/pubsub_commands.h"
#include "commands/script_busy.h"
#include "resp/parser.h"
#include "resp/reply_writer.h"

namespace cairn::server {

CommandRunner::Progress CommandRunner::Run(std::string_view input, std::string* out) {
  resp::Limits limits;
  limits.max_bulk_len = server_.proto_max_bulk_len();
  resp::ReplyWriter writer(out, session_.protocol);
  Progress progress;
  std::size_t& pos = progress.consumed;
  while (pos < input.size() && !session_.close_after_reply && !session_.kill_requested.load()) {
    const std::string_view rest = input.substr(pos);
    const resp::ParseResult parsed = resp::ParseCommand(rest, limits, &args_, &arg_storage_);
    if (parsed.status == resp::ParseStatus::kNeedMore) {
      progress.wanted = parsed.needed;
      progress.at_least = parsed.at_least;
      break;
    }
    if (parsed.status == resp::ParseStatus::kError) {
      writer.Error("ERR Protocol error: " + parsed.error);
      session_.close_after_reply = true;
      break;
    }
    if (parsed.status == resp::ParseStatus::kCommand && !args_.empty() && ScriptRunsHere::Now() &&
        !MayRunDuringScript(args_)) {
      progress.deferred = true;
      break;
    }
    if (parsed.status == resp::ParseStatus::kCommand && !args_.empty()) {
      const CommandSpec* spec = server_.table().Find(args_[0]);
      bool done = false;
      if (spec != nullptr && spec->Has(kBatch) && !session_.in_multi) {
        const std::size_t reply_at = out->size();
        const std::size_t staged = session_.staged_messages.size();
        const WriteBatch::Outcome outcome =
            batch_.Run(spec->MayTouchSeveralKeys(), [&](Records& records, Transaction* txn) {
              Dispatch(server_, session_, spec, args_, writer, records, txn);
            });
        done = outcome == WriteBatch::Outcome::kRan;
        progress.batched = progress.batched || done;
        if (outcome == WriteBatch::Outcome::kTakenBack) {
          // It met a lock conflict and was undone: its reply goes, and it runs again alone.
          out->resize(reply_at);
          DropStagedMessages(session_, staged);
          server_.commands_processed.fetch_sub(1, std::memory_order_relaxed);
          server_.write_batch_retries.fetch_add(1, std::memory_order_relaxed);
        }
      } else {
        batch_.Commit();  // What runs next sees every write before it.
      }
      if (!done) {
        Dispatch(server_, session_, spec, args_, writer, server_.store(), nullptr);
        // HELLO may have switched the protocol for the replies that follow.
        writer = resp::ReplyWriter(out, session_.protocol);
      }
    }
    pos += parsed.consumed;
    if (session_.parked) break;  // The commands after it wait for its reply.
  }
  // Once per run, not per command: CLIENT LIST shows idle time in whole seconds.
  if (pos > 0) session_.last_command_ms_.store(server_.clock().NowMs(), std::memory_order_relaxed);
  return progress;
}

}  // namespace cairn::server
