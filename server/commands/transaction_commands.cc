// MULTI, EXEC, DISCARD, WATCH, UNWATCH.
//
// EXEC runs the queued commands in one store transaction, so other clients see all of its
// writes or none, and its replies are sent only after the commit. It first reads every watched
// key, then compares their write versions and expiry with what WATCH saw (watch_registry.h
// explains why in that order). The server's keyspace is serialized (one command at a time, no
// row locks: net/keyspace_executor.h), so the queued commands never meet a lock conflict.
#include <string>

#include "args/errors.h"
#include "commands/all_commands.h"
#include "commands/client_info.h"
#include "execution/command_table.h"
#include "execution/dispatch.h"
#include "execution/pubsub_session.h"
#include "execution/server_state.h"
#include "execution/session.h"

namespace cairn::server {
namespace {

void Multi(CommandContext& ctx) {
  if (ctx.session.in_multi) return ctx.reply.Error("ERR MULTI calls can not be nested");
  ctx.session.in_multi = true;
  ctx.session.multi_failed = false;
  ctx.session.queued.clear();
  ctx.session.queued_bytes = 0;
  ctx.reply.Ok();
}

void Discard(CommandContext& ctx) {
  if (!ctx.session.in_multi) return ctx.reply.Error("ERR DISCARD without MULTI");
  ClearTransactionState(ctx.server, ctx.session);
  ctx.reply.Ok();
}

void Watch(CommandContext& ctx) {
  if (ctx.session.in_multi) return ctx.reply.Error("ERR WATCH inside MULTI is not allowed");
  for (std::size_t i = 1; i < ctx.args.size(); ++i) {
    bool already = false;
    for (const WatchedKey& w : ctx.session.watched) already = already || w.key == ctx.args[i];
    if (already) continue;
    WatchedKey w;
    w.key = std::string(ctx.args[i]);
    w.version = ctx.server.watches().Watch(w.key);
    Result<TtlState> ttl = ctx.server.store().GetTtl(w.key);
    if (!ttl.ok()) {
      ctx.server.watches().Unwatch(w.key);
      return ReplyStatus(ctx.reply, ttl.status());
    }
    w.expires_at_ms = ttl->kind == TtlState::Kind::kExpires ? ttl->expires_at_ms : 0;
    ctx.session.watched.push_back(std::move(w));
  }
  ctx.reply.Ok();
}

void Unwatch(CommandContext& ctx) {
  for (const WatchedKey& w : ctx.session.watched) ctx.server.watches().Unwatch(w.key);
  ctx.session.watched.clear();
  ctx.reply.Ok();
}

// True when no watched key was written or expired since WATCH. Locks them in txn first.
Result<bool> WatchedKeysUnchanged(CommandContext& ctx, Transaction& txn) {
  const std::int64_t now = ctx.server.clock().NowMs();
  for (const WatchedKey& w : ctx.session.watched) {
    Result<TtlState> ttl = txn.GetTtl(w.key);  // Reads, and so locks, the key.
    if (!ttl.ok()) return ttl.status();
    if (ctx.server.watches().Version(w.key) != w.version) return false;
    if (w.expires_at_ms != 0 && w.expires_at_ms <= now) return false;  // It expired since.
  }
  return true;
}

void Exec(CommandContext& ctx) {
  Session& session = ctx.session;
  if (!session.in_multi) return ctx.reply.Error("ERR EXEC without MULTI");
  if (session.multi_failed) {
    ClearTransactionState(ctx.server, session);
    return ctx.reply.Error("EXECABORT Transaction discarded because of previous errors.");
  }
  std::string replies;
  bool aborted = false;
  // PUBLISH stages its messages; only the attempt that commits may send them.
  const std::size_t staged = session.staged_messages.size();
  Status s = ctx.server.store().RunTransaction([&](Transaction& txn) -> Status {
    replies.clear();
    DropStagedMessages(session, staged);
    Result<bool> unchanged = WatchedKeysUnchanged(ctx, txn);
    if (!unchanged.ok()) return unchanged.status();
    aborted = !*unchanged;
    if (aborted) return Status::Ok();
    resp::ReplyWriter writer(&replies, session.protocol);
    for (const std::vector<std::string>& command : session.queued) {
      const std::vector<std::string_view> args(command.begin(), command.end());
      const CommandSpec* spec = ctx.server.table().Find(args[0]);
      RunUndoingOnError(ctx.server, session, *spec, args, writer, txn, txn);
    }
    return Status::Ok();
  });
  const std::size_t count = session.queued.size();
  ClearTransactionState(ctx.server, session);
  if (!s.ok() || aborted) DropStagedMessages(session, staged);
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  if (aborted) return ctx.reply.NullArray();
  ctx.reply.ArrayHeader(count);
  ctx.reply.buffer()->append(replies);
}

}  // namespace

void RegisterTransactionCommands(CommandTable& table) {
  const std::uint32_t flags = kNoScript | kLoading | kStale | kFast;
  table.Register({"multi", 1, flags | kMultiControl, 0, 0, 0, Multi, "transactions",
                  "Starts a transaction.", "1.2.0"});
  table.Register({"exec", 1, kNoScript | kLoading | kStale | kMultiControl, 0, 0, 0, Exec,
                  "transactions", "Executes all commands in a transaction.", "1.2.0"});
  table.Register({"discard", 1, flags | kMultiControl, 0, 0, 0, Discard, "transactions",
                  "Discards a transaction.", "2.0.0"});
  table.Register({"watch", -2, flags | kMultiControl, 1, -1, 1, Watch, "transactions",
                  "Monitors changes to keys to determine the execution of a transaction.",
                  "2.2.0"});
  table.Register({"unwatch", 1, flags, 0, 0, 0, Unwatch, "transactions",
                  "Forgets about watched keys of a transaction.", "2.2.0"});
}

}  // namespace cairn::server
