// Connection commands: PING, ECHO, AUTH, HELLO, SELECT, QUIT, RESET, READONLY, CLIENT.
#include <string>

#include "args/arguments.h"
#include "args/ascii.h"
#include "args/errors.h"
#include "commands/all_commands.h"
#include "commands/client_info.h"
#include "execution/command_table.h"
#include "execution/pubsub_session.h"
#include "execution/server_state.h"
#include "execution/session.h"
#include "server_version.h"

namespace cairn::server {
namespace {

constexpr std::string_view kWrongPass =
    "WRONGPASS invalid username-password pair or user is disabled.";

void Ping(CommandContext& ctx) {
  if (ctx.args.size() > 2) return ctx.reply.Error(WrongArity("ping"));
  if (ctx.session.protocol == 2 && ctx.session.pubsub.count() > 0) {
    // In subscribed mode Redis answers in the shape of a message: ["pong", argument or ""].
    ctx.reply.ArrayHeader(2);
    ctx.reply.Bulk("pong");
    ctx.reply.Bulk(ctx.args.size() == 2 ? ctx.args[1] : std::string_view());
    return;
  }
  if (ctx.args.size() == 2) return ctx.reply.Bulk(ctx.args[1]);
  ctx.reply.SimpleString("PONG");
}

void Echo(CommandContext& ctx) { ctx.reply.Bulk(ctx.args[1]); }

// AUTH [username] password. With no password configured, AUTH is accepted (Redis refuses it;
// some clients always send it, see COMPATIBILITY.md).
bool Authenticate(CommandContext& ctx, std::string_view user, std::string_view password) {
  if (!ctx.server.RequiresAuth()) return true;
  if (user != "default" || !ctx.server.CheckPassword(password)) return false;
  ctx.session.authenticated = true;
  return true;
}

void Auth(CommandContext& ctx) {
  if (ctx.args.size() > 3) return ctx.reply.Error(kSyntaxError);
  const std::string_view user = ctx.args.size() == 3 ? ctx.args[1] : "default";
  if (!Authenticate(ctx, user, ctx.args.back())) return ctx.reply.Error(kWrongPass);
  ctx.reply.Ok();
}

void Hello(CommandContext& ctx) {
  int protocol = ctx.session.protocol;
  std::size_t i = 1;
  if (ctx.args.size() > 1) {
    const std::optional<std::int64_t> version = ParseInt64(ctx.args[1]);
    if (!version) return ctx.reply.Error("ERR Protocol version is not an integer or out of range");
    if (*version != 2 && *version != 3)
      return ctx.reply.Error("NOPROTO unsupported protocol version");
    protocol = static_cast<int>(*version);
    i = 2;
  }
  std::string_view user, password, name;
  bool auth = false, set_name = false;
  for (; i < ctx.args.size(); ++i) {
    const bool more = i + 1 < ctx.args.size();
    if (EqualsIgnoreCase(ctx.args[i], "auth") && i + 2 < ctx.args.size()) {
      user = ctx.args[i + 1];
      password = ctx.args[i + 2];
      auth = true;
      i += 2;
    } else if (EqualsIgnoreCase(ctx.args[i], "setname") && more) {
      name = ctx.args[++i];
      set_name = true;
    } else {
      return ctx.reply.Error("ERR Syntax error in HELLO option '" + std::string(ctx.args[i]) + "'");
    }
  }
  if (auth && !Authenticate(ctx, user, password)) return ctx.reply.Error(kWrongPass);
  if (!ctx.session.authenticated && ctx.server.RequiresAuth()) {
    return ctx.reply.Error(
        "NOAUTH HELLO must be called with the client already authenticated, otherwise the "
        "HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and "
        "select the RESP protocol version at the same time");
  }
  if (set_name) {
    if (!ValidClientName(name)) return ctx.reply.Error(kBadClientName);
    ctx.session.set_name(std::string(name));
  }
  ctx.session.protocol = protocol;
  if (const auto& mailbox = ctx.session.pubsub.mailbox) {
    // Messages queued before the switch are in the old protocol: they go before the reply
    // (not inside EXEC, whose reply array this buffer is), later ones in the new.
    mailbox->SetProtocol(protocol);
    if (ctx.txn == nullptr) mailbox->TakeInto(ctx.reply.buffer());
  }
  resp::ReplyWriter reply(ctx.reply.buffer(), protocol);  // The reply is in the new protocol.
  reply.MapHeader(7);
  reply.Bulk("server");
  reply.Bulk("redis");
  reply.Bulk("version");
  reply.Bulk(kRedisVersion);
  reply.Bulk("proto");
  reply.Integer(protocol);
  reply.Bulk("id");
  reply.Integer(static_cast<std::int64_t>(ctx.session.id()));
  reply.Bulk("mode");
  reply.Bulk("standalone");
  reply.Bulk("role");
  reply.Bulk("master");
  reply.Bulk("modules");
  reply.ArrayHeader(0);
}

void Select(CommandContext& ctx) {
  const std::optional<std::int64_t> db = ParseInt64(ctx.args[1]);
  if (!db) return ctx.reply.Error(kNotInteger);
  if (*db != 0) return ctx.reply.Error("ERR DB index is out of range");
  ctx.reply.Ok();
}

void Quit(CommandContext& ctx) {
  ctx.session.close_after_reply = true;
  ctx.reply.Ok();
}

void ReadOnly(CommandContext& ctx) {
  ctx.reply.Error("ERR This instance has cluster support disabled");
}

void Reset(CommandContext& ctx) {
  ClearTransactionState(ctx.server, ctx.session);
  // RESET runs at once even inside MULTI (kMultiControl), so the buffer is the connection's.
  LeavePubSub(ctx.server, ctx.session, ctx.reply.buffer());
  ctx.session.protocol = 2;
  if (ctx.session.pubsub.mailbox) ctx.session.pubsub.mailbox->SetProtocol(2);
  ctx.session.set_name("");
  ctx.session.authenticated = false;
  resp::ReplyWriter reply(ctx.reply.buffer(), 2);
  reply.SimpleString("RESET");
}

}  // namespace

void RegisterConnectionCommands(CommandTable& table) {
  const std::uint32_t conn = kFast | kLoading | kStale;
  table.Register({"ping", -1, conn | kSubscribedMode, 0, 0, 0, Ping, "connection",
                  "Returns the server's liveliness response.", "1.0.0"});
  table.Register(
      {"echo", 2, conn, 0, 0, 0, Echo, "connection", "Returns the given string.", "1.0.0"});
  table.Register({"auth", -2, conn | kNoAuth | kNoScript, 0, 0, 0, Auth, "connection",
                  "Authenticates the connection.", "1.0.0"});
  table.Register({"hello", -1, conn | kNoAuth | kNoScript, 0, 0, 0, Hello, "connection",
                  "Handshakes with the Redis server.", "6.0.0"});
  table.Register({"select", 2, conn, 0, 0, 0, Select, "connection",
                  "Changes the selected database.", "1.0.0"});
  table.Register({"quit", -1, conn | kNoAuth | kNoScript | kMultiControl | kSubscribedMode, 0, 0, 0,
                  Quit, "connection", "Closes the connection.", "1.0.0"});
  table.Register({"reset", 1, conn | kNoAuth | kNoScript | kMultiControl | kSubscribedMode, 0, 0, 0,
                  Reset, "connection", "Resets the connection.", "6.2.0"});
  table.Register({"readonly", 1, conn, 0, 0, 0, ReadOnly, "cluster",
                  "Enables read-only queries for a connection to a Redis Cluster replica node.",
                  "3.0.0"});
  table.Register({"client", -2, kLoading | kStale | kNoScript | kSubcommands, 0, 0, 0,
                  ClientCommand, "connection", "A container for client connection commands.",
                  "2.4.0"});
}

}  // namespace cairn::server
