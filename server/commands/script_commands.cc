// EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT: Lua scripts with Redis's semantics.
//
// A script runs as one store transaction: the commands it calls see each other's writes, no
// other client sees any of them before the script ends, and a script that fails part-way (an
// error raised by redis.call, a Lua error, the time or memory limit, SCRIPT KILL) leaves
// nothing written. Redis keeps the writes made before the error; server/COMPATIBILITY.md
// says so. The server's keyspace is serialized (one command at a time, no row locks), so a
// script never meets a lock conflict.
//
// Scripts join the write batch (write_batch.h) as string writes do: the scripts of one pass
// share one commit, and each reply waits for it. There, and inside EXEC, a script runs on the
// caller's transaction and is undone to a save point if it fails; elsewhere it runs on a
// store transaction of its own.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "args/arguments.h"
#include "args/ascii.h"
#include "args/errors.h"
#include "commands/all_commands.h"
#include "execution/command_table.h"
#include "execution/dispatch.h"
#include "execution/script_busy.h"
#include "execution/server_state.h"
#include "execution/session.h"
#include "scripting/script_vm.h"
#include "scripting/sha1.h"

namespace cairn::server {
namespace {

using scripting::ScriptOutcome;
using scripting::ScriptVm;

// Hands the keys a script wrote to its caller's session, which signals them to blocked
// clients once they are committed (a needless signal only costs a waiter a try).
template <typename Host>
void NoteTouched(Session& caller, const Host& host) {
  caller.touched.insert(caller.touched.end(), host.touched().begin(), host.touched().end());
  caller.touched_everything = caller.touched_everything || host.touched_everything();
}

// Hands the messages a script published to its caller's session, which sends them once the
// script's transaction has committed (execution/pubsub_session.h).
void StageMessages(Session& caller, std::vector<Session::StagedMessage>& messages) {
  for (Session::StagedMessage& m : messages) caller.staged_messages.push_back(std::move(m));
  messages.clear();
}

constexpr std::string_view kNoScriptError = "NOSCRIPT No matching script. Please use EVAL.";

// Runs the commands of one script: through the command table, on the script's transaction,
// refusing what a script may not call.
class CommandHost final : public scripting::ScriptHost {
 public:
  CommandHost(ServerState& server, const Session& caller, Records& data, Transaction* txn,
              bool read_only)
      : server_(server),
        session_(caller.id(), caller.peer(), caller.local(), caller.created_ms()),
        records_(data),
        txn_(txn),
        read_only_(read_only),
        buffered_at_start_(txn->BufferedBytes()) {
    session_.authenticated = true;
    session_.in_script = true;
  }

  void Call(const std::vector<std::string_view>& args, int protocol, std::string* reply) override {
    resp::ReplyWriter writer(reply, protocol);
    const CommandSpec* spec = server_.table().Find(args[0]);
    if (spec == nullptr) {
      writer.Error("ERR Unknown Redis command called from script");
    } else if (!spec->ArityOk(args.size())) {
      writer.Error("ERR Wrong number of args calling Redis command from script");
    } else if (spec->Has(kNoScript) || spec->Has(kNoMulti)) {
      // kNoMulti: the native engines commit their own transactions, which cannot join the
      // script's. The blocking commands Redis refuses (BLPOP, BZPOPMIN, …) are kNoScript; the
      // others (BLMPOP, BZMPOP) do not wait here, as inside MULTI.
      writer.Error("ERR This Redis command is not allowed from script");
    } else if (read_only_ && (spec->Has(kWrite) || spec->Has(kMayReplicate))) {
      writer.Error("ERR Write commands are not allowed from read-only scripts.");
    } else {
      session_.protocol = protocol;
      RunUndoingOnError(server_, session_, *spec, args, writer, records_, *txn_);
      wrote_ = wrote_ || spec->Has(kWrite);
    }
  }

  // The script's writes are held in its transaction until it commits (with a copy of each
  // value a save point may have to restore): bounded, or a loop of large writes would hold
  // gigabytes. What the batch or EXEC around it had buffered before does not count.
  std::string StopReason() override {
    const std::size_t held =
        txn_->BufferedBytes() - std::min(txn_->BufferedBytes(), buffered_at_start_);
    const std::size_t limit = server_.lua_write_buffer_limit();
    if (held <= limit) return {};
    return "ERR Script's uncommitted writes passed lua-write-buffer-limit (" +
           std::to_string(limit) + " bytes); its writes were rolled back";
  }

  void Log(int level, std::string_view message) override {
    if (level < scripting::kLogNotice) return;
    std::fprintf(stderr, "cairn-server: script %s: %.*s\n",
                 level == scripting::kLogWarning ? "warning" : "notice",
                 static_cast<int>(message.size()), message.data());
  }

  // The keys its write commands named (Session::touched), for the caller's session.
  const std::vector<std::size_t>& touched() const { return session_.touched; }
  bool touched_everything() const { return session_.touched_everything; }
  // The messages its PUBLISH calls staged; they go out only if the script's writes stand.
  std::vector<Session::StagedMessage>& staged_messages() { return session_.staged_messages; }
  bool wrote() const { return wrote_; }

 private:
  ServerState& server_;
  Session session_;  // The script's own client: its protocol is the script's (redis.setresp).
  Records& records_;
  Transaction* txn_;
  const bool read_only_;
  const std::size_t buffered_at_start_;
  bool wrote_ = false;
};

enum class ScriptBy { kBody, kSha };

// This thread's Lua state, caught up with the server's script cache (SCRIPT FLUSH).
ScriptVm& ThreadVm(CommandContext& ctx) {
  ScriptVm& vm = scripting::ThreadScriptVm(ctx.server.lua_memory_limit());
  scripting::ScriptCache& cache = ctx.server.scripts();
  vm.Follow(cache.epoch(), cache.evictions(),
            [&cache](std::string_view sha) { return cache.Contains(sha); });
  return vm;
}

// The script named sha, compiled from `body` unless this VM has it; nullptr after replying
// with the compile error.
const ScriptVm::Compiled* CompileOrReply(CommandContext& ctx, ScriptVm& vm, const std::string& sha,
                                         std::string_view body) {
  if (const ScriptVm::Compiled* found = vm.Find(sha)) return found;
  if (std::optional<std::string> error = vm.Compile(sha, body)) {
    ctx.reply.Error(*error);
    return nullptr;
  }
  return vm.Find(sha);
}

// Finds (or compiles) the script EVAL or EVALSHA names; nullptr after replying with why not.
const ScriptVm::Compiled* Prepare(CommandContext& ctx, ScriptVm& vm, ScriptBy by,
                                  std::string* sha) {
  *sha = by == ScriptBy::kBody ? scripting::Sha1Hex(ctx.args[1])
                               : scripting::NormalizeSha(ctx.args[1]);
  if (const ScriptVm::Compiled* found = vm.Find(*sha)) return found;
  scripting::ScriptCache& cache = ctx.server.scripts();
  if (by == ScriptBy::kBody) {
    const ScriptVm::Compiled* compiled = CompileOrReply(ctx, vm, *sha, ctx.args[1]);
    if (compiled != nullptr) cache.Add(*sha, ctx.args[1], /*loaded=*/false);
    return compiled;
  }
  std::shared_ptr<const std::string> stored = cache.Find(*sha);
  if (stored == nullptr) {
    ctx.reply.Error(kNoScriptError);
    return nullptr;
  }
  return CompileOrReply(ctx, vm, *sha, *stored);
}

void RunScript(CommandContext& ctx, ScriptBy by, bool read_only) {
  const std::vector<std::string_view>& args = ctx.args;
  const std::optional<std::int64_t> numkeys = ParseInt64(args[2]);
  if (!numkeys) return ctx.reply.Error(kNotInteger);
  if (*numkeys < 0) return ctx.reply.Error("ERR Number of keys can't be negative");
  if (static_cast<std::uint64_t>(*numkeys) > args.size() - 3) {
    return ctx.reply.Error("ERR Number of keys can't be greater than number of args");
  }
  ScriptVm& vm = ThreadVm(ctx);
  std::string sha;
  const ScriptVm::Compiled* compiled = Prepare(ctx, vm, by, &sha);
  if (compiled == nullptr) return;
  read_only = read_only || compiled->no_writes;

  const auto split = args.begin() + 3 + *numkeys;
  const std::vector<std::string_view> keys(args.begin() + 3, split);
  const std::vector<std::string_view> argv(split, args.end());
  RunningScripts::Entry running(ctx.server.running_scripts());
  scripting::ScriptRequest request;
  request.sha = sha;
  request.keys = &keys;
  request.argv = &argv;
  request.time_limit_ms = ctx.server.lua_time_limit_ms();
  request.kill = running.kill();
  if (ctx.session.serve_others) request.on_tick = &ctx.session.serve_others;
  const ScriptRunsHere marked;

  std::string out;
  resp::ReplyWriter writer(&out, ctx.session.protocol);
  ScriptOutcome outcome = ScriptOutcome::kDone;
  bool wrote = false;
  if (ctx.txn != nullptr) {
    // In the write batch or inside EXEC.
    ctx.txn->SetSavePoint();
    CommandHost host(ctx.server, ctx.session, ctx.data, ctx.txn, read_only);
    outcome = vm.Run(request, host, writer);
    NoteTouched(ctx.session, host);
    if (outcome == ScriptOutcome::kDone) {
      (void)ctx.txn->PopSavePoint();
      wrote = host.wrote();
      StageMessages(ctx.session, host.staged_messages());
    } else {
      (void)ctx.txn->RollbackToSavePoint();
    }
  } else {
    std::vector<Session::StagedMessage> messages;  // The last attempt's.
    const Status status = ctx.server.store().RunTransaction([&](Transaction& txn) -> Status {
      out.clear();
      CommandHost host(ctx.server, ctx.session, txn, &txn, read_only);
      outcome = vm.Run(request, host, writer);
      NoteTouched(ctx.session, host);
      messages = std::move(host.staged_messages());
      // Any failure status rolls the transaction back; the script's error reply is in `out`.
      if (outcome == ScriptOutcome::kFailed) return Status::FailedPrecondition("script failed");
      wrote = host.wrote();
      return Status::Ok();
    });
    if (!status.ok() && outcome != ScriptOutcome::kFailed) return ReplyStatus(ctx.reply, status);
    if (status.ok()) StageMessages(ctx.session, messages);
  }
  if (wrote) ctx.session.wrote = true;
  ctx.reply.buffer()->append(out);
}

void Eval(CommandContext& ctx) { RunScript(ctx, ScriptBy::kBody, false); }
void EvalSha(CommandContext& ctx) { RunScript(ctx, ScriptBy::kSha, false); }
void EvalRo(CommandContext& ctx) { RunScript(ctx, ScriptBy::kBody, true); }
void EvalShaRo(CommandContext& ctx) { RunScript(ctx, ScriptBy::kSha, true); }

void ScriptHelp(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "EXISTS <sha1> [<sha1> ...]",
      "    Return information about the existence of the scripts in the script cache.",
      "FLUSH [ASYNC|SYNC]",
      "    Flush the Lua scripts cache.",
      "KILL",
      "    Kill the currently executing Lua script (its writes are rolled back).",
      "LOAD <script>",
      "    Load a script into the scripts cache without executing it.",
      "HELP",
      "    Print this help.",
  };
  ctx.reply.ArrayHeader(std::size(kLines));
  for (std::string_view line : kLines) ctx.reply.SimpleString(line);
}

void Script(CommandContext& ctx) {
  const std::vector<std::string_view>& args = ctx.args;
  const std::string sub = ToLower(args[1]);
  const std::size_t argc = args.size();
  auto arity = [&](bool ok) {
    if (!ok) ctx.reply.Error(WrongArity("script|" + sub));
    return ok;
  };
  scripting::ScriptCache& cache = ctx.server.scripts();
  if (sub == "load") {
    if (!arity(argc == 3)) return;
    const std::string sha = scripting::Sha1Hex(args[2]);
    if (CompileOrReply(ctx, ThreadVm(ctx), sha, args[2]) == nullptr) return;
    cache.Add(sha, args[2], /*loaded=*/true);
    return ctx.reply.Bulk(sha);
  }
  if (sub == "exists") {
    if (!arity(argc >= 3)) return;
    ctx.reply.ArrayHeader(argc - 2);
    for (std::size_t i = 2; i < argc; ++i) {
      ctx.reply.Integer(cache.Contains(scripting::NormalizeSha(args[i])) ? 1 : 0);
    }
    return;
  }
  if (sub == "flush") {
    if (!arity(argc <= 3)) return;
    if (argc == 3 && !EqualsIgnoreCase(args[2], "sync") && !EqualsIgnoreCase(args[2], "async")) {
      return ctx.reply.Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
    }
    cache.Flush();
    return ctx.reply.Ok();
  }
  if (sub == "kill") {
    if (!arity(argc == 2)) return;
    if (!ctx.server.running_scripts().KillAll()) {
      return ctx.reply.Error("NOTBUSY No scripts in execution right now.");
    }
    return ctx.reply.Ok();
  }
  if (sub == "help" && argc == 2) return ScriptHelp(ctx);
  ctx.reply.Error("ERR unknown subcommand '" + std::string(args[1].substr(0, 128)) +
                  "'. Try SCRIPT HELP.");
}

}  // namespace

void RegisterScriptCommands(CommandTable& table) {
  // Keys are given by numkeys (Redis's movable keys): no fixed positions to declare.
  // kBatch: a script writes only through the commands it calls, on the transaction it is
  // given (EXEC's, the batch's or its own).
  const std::uint32_t flags = kNoScript | kStale | kMovableKeys | kBatch;
  table.Register({"eval", -3, flags, 0, 0, 0, Eval, "scripting",
                  "Executes a server-side Lua script.", "2.6.0"});
  table.Register({"evalsha", -3, flags, 0, 0, 0, EvalSha, "scripting",
                  "Executes a server-side Lua script by SHA1 digest.", "2.6.0"});
  table.Register({"eval_ro", -3, flags | kReadOnly, 0, 0, 0, EvalRo, "scripting",
                  "Executes a read-only server-side Lua script.", "7.0.0"});
  table.Register({"evalsha_ro", -3, flags | kReadOnly, 0, 0, 0, EvalShaRo, "scripting",
                  "Executes a read-only server-side Lua script by SHA1 digest.", "7.0.0"});
  table.Register({"script", -2, kNoScript | kSubcommands, 0, 0, 0, Script, "scripting",
                  "A container for Lua scripts management commands.", "2.6.0"});
}

}  // namespace cairn::server
