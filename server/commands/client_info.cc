#include "commands/client_info.h"

#include <algorithm>

#include "args/arguments.h"
#include "args/ascii.h"
#include "args/errors.h"
#include "args/option_parser.h"
#include "execution/server_state.h"
#include "execution/session.h"

namespace cairn::server {

bool ValidClientName(std::string_view name) {
  for (char c : name) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

std::string DescribeClient(const Session& s, std::int64_t now_ms) {
  const std::int64_t age = (now_ms - s.created_ms()) / 1000;
  const std::int64_t idle = (now_ms - s.last_command_ms_.load()) / 1000;
  // In Redis's order: P (pub/sub), x (MULTI), b (blocked); N when none applies.
  std::string flags;
  if (IsPubSubClient(s)) flags += 'P';
  if (s.shown_multi() >= 0) flags += 'x';
  if (s.blocked.load()) flags += 'b';
  if (flags.empty()) flags = "N";
  std::string out;
  out += "id=" + std::to_string(s.id());
  out += " addr=" + s.peer();
  out += " laddr=" + s.local();
  out += " fd=-1 name=" + s.name();
  out += " age=" + std::to_string(age < 0 ? 0 : age);
  out += " idle=" + std::to_string(idle < 0 ? 0 : idle);
  out += " flags=" + flags;
  out += " db=0 sub=" + std::to_string(s.pubsub.channel_count());
  out += " psub=" + std::to_string(s.pubsub.pattern_count()) + " ssub=0";
  out += " multi=" + std::to_string(s.shown_multi());
  out += " qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0";
  out += " events=r cmd=" + (s.last_command().empty() ? std::string("NULL") : s.last_command());
  out += " user=default redir=-1 resp=" + std::to_string(s.shown_protocol());
  out += " lib-name=" + s.lib_name() + " lib-ver=" + s.lib_version();
  return out;
}

bool IsPubSubClient(const Session& s) {
  return s.pubsub.channel_count() + s.pubsub.pattern_count() > 0;
}

namespace {

// The clients a TYPE filter (CLIENT LIST, CLIENT KILL) selects. There are no masters or
// replicas; a client with subscriptions is of type pubsub, as in Redis.
enum class ClientType { kNormal, kPubSub, kNone };

std::optional<ClientType> ParseClientType(std::string_view type) {
  if (EqualsIgnoreCase(type, "normal")) return ClientType::kNormal;
  if (EqualsIgnoreCase(type, "pubsub")) return ClientType::kPubSub;
  if (EqualsIgnoreCase(type, "master") || EqualsIgnoreCase(type, "replica") ||
      EqualsIgnoreCase(type, "slave")) {
    return ClientType::kNone;
  }
  return std::nullopt;
}

bool OfType(const Session& s, ClientType type) {
  switch (type) {
    case ClientType::kNormal:
      return !IsPubSubClient(s);
    case ClientType::kPubSub:
      return IsPubSubClient(s);
    case ClientType::kNone:
      return false;
  }
  return false;
}

std::string UnknownClientType(std::string_view type) {
  return "ERR Unknown client type '" + std::string(type) + "'";
}

void ClientList(CommandContext& ctx) {
  // CLIENT LIST [TYPE normal|master|replica|pubsub] [ID id …]
  std::vector<std::uint64_t> ids;
  bool by_id = false;
  std::optional<ClientType> type;
  OptionParser p(ctx.args, 2);
  while (!p.Done()) {
    if (p.Left() >= 2 && p.Word("type")) {
      const std::string_view name = *p.Text();
      type = ParseClientType(name);
      if (!type) return ctx.reply.Error(UnknownClientType(name));
    } else if (p.Left() >= 2 && p.Word("id")) {
      by_id = true;
      while (!p.Done()) {  // The ids run to the end.
        const Parsed<std::int64_t> id = p.Integer();
        if (!id.ok()) return ctx.reply.Error("ERR Invalid client ID");
        // As in Redis, an id no client can have (0 or less) matches none rather than fail.
        if (*id > 0) ids.push_back(static_cast<std::uint64_t>(*id));
      }
    } else {
      return ctx.reply.Error(kSyntaxError);
    }
  }
  std::string out;
  const std::int64_t now = ctx.server.clock().NowMs();
  {
    std::lock_guard<std::mutex> lock(ctx.server.clients_mu());
    for (Session* s : ctx.server.ClientsLocked()) {
      if (by_id && std::find(ids.begin(), ids.end(), s->id()) == ids.end()) continue;
      if (type && !OfType(*s, *type)) continue;
      out += DescribeClient(*s, now);
      out += '\n';
    }
  }
  ctx.reply.Verbatim("txt", out);
}

void ClientKill(CommandContext& ctx) {
  // Old form: CLIENT KILL addr:port → OK or an error. New form: filters → the count killed.
  if (ctx.args.size() == 3) {
    const std::string addr(ctx.args[2]);
    const std::size_t n =
        ctx.server.KillClients([&](const Session& s) { return s.peer() == addr; });
    if (n == 0) return ctx.reply.Error("ERR No such client");
    return ctx.reply.Ok();
  }
  if (ctx.args.size() % 2 != 0) return ctx.reply.Error(kSyntaxError);
  std::optional<std::uint64_t> id;
  std::optional<std::string> addr, laddr;
  std::optional<ClientType> type;
  bool skip_me = true;
  OptionParser p(ctx.args, 2);
  while (!p.Done()) {  // In pairs: the count was checked above.
    if (p.Word("id")) {
      const Parsed<std::int64_t> n = p.Integer();
      if (!n.ok() || *n <= 0) return ctx.reply.Error("ERR client-id should be greater than 0");
      id = static_cast<std::uint64_t>(*n);
    } else if (p.Word("addr")) {
      addr = std::string(*p.Text());
    } else if (p.Word("laddr")) {
      laddr = std::string(*p.Text());
    } else if (p.Word("skipme")) {
      const std::optional<std::size_t> yes_no = p.OneOf({"yes", "no"});
      if (!yes_no) return ctx.reply.Error(kSyntaxError);
      skip_me = *yes_no == 0;
    } else if (p.Word("type")) {
      const std::string_view name = *p.Text();
      type = ParseClientType(name);
      if (!type) return ctx.reply.Error(UnknownClientType(name));
    } else if (p.Word("user")) {
      // Every client is of the one user, default; a filter naming another matches none, and
      // Redis refuses a user that does not exist rather than kill nothing (or everyone).
      const std::string_view user = *p.Text();
      if (user != "default") return ctx.reply.Error("ERR No such user '" + std::string(user) + "'");
    } else {  // MAXAGE is Redis 7.4's; 7.2 has no such filter.
      return ctx.reply.Error(kSyntaxError);
    }
  }
  const std::uint64_t me = ctx.session.id();
  const std::size_t n = ctx.server.KillClients([&](const Session& s) {
    if (skip_me && s.id() == me) return false;
    if (id && s.id() != *id) return false;
    if (addr && s.peer() != *addr) return false;
    if (laddr && s.local() != *laddr) return false;
    if (type && !OfType(s, *type)) return false;
    return true;
  });
  ctx.reply.Integer(static_cast<std::int64_t>(n));
}

bool OnOff(std::string_view v) { return EqualsIgnoreCase(v, "on") || EqualsIgnoreCase(v, "off"); }

}  // namespace

void ClientCommand(CommandContext& ctx) {
  const std::string_view sub = ctx.args[1];
  const std::size_t argc = ctx.args.size();
  auto arity = [&](bool ok) {
    if (!ok) ctx.reply.Error(WrongArity("client|" + ToLower(sub)));
    return ok;
  };
  if (EqualsIgnoreCase(sub, "id")) {
    if (arity(argc == 2)) ctx.reply.Integer(static_cast<std::int64_t>(ctx.session.id()));
  } else if (EqualsIgnoreCase(sub, "setname")) {
    if (!arity(argc == 3)) return;
    if (!ValidClientName(ctx.args[2])) return ctx.reply.Error(kBadClientName);
    ctx.session.set_name(std::string(ctx.args[2]));
    ctx.reply.Ok();
  } else if (EqualsIgnoreCase(sub, "getname")) {
    if (!arity(argc == 2)) return;
    const std::string name = ctx.session.name();
    name.empty() ? ctx.reply.Null() : ctx.reply.Bulk(name);
  } else if (EqualsIgnoreCase(sub, "setinfo")) {
    if (!arity(argc == 4)) return;
    const std::string_view attr = ctx.args[2], value = ctx.args[3];
    if (!ValidClientName(value) && !value.empty()) {
      return ctx.reply.Error("ERR " + std::string(attr) +
                             " cannot contain spaces, newlines or special characters.");
    }
    if (EqualsIgnoreCase(attr, "lib-name")) {
      ctx.session.set_lib(std::string(value), "");
    } else if (EqualsIgnoreCase(attr, "lib-ver")) {
      ctx.session.set_lib("", std::string(value));
    } else {
      return ctx.reply.Error("ERR Unrecognized option '" + std::string(attr) + "'");
    }
    ctx.reply.Ok();
  } else if (EqualsIgnoreCase(sub, "list")) {
    ClientList(ctx);
  } else if (EqualsIgnoreCase(sub, "info")) {
    if (arity(argc == 2)) {
      ctx.reply.Verbatim("txt", DescribeClient(ctx.session, ctx.server.clock().NowMs()) + "\n");
    }
  } else if (EqualsIgnoreCase(sub, "kill")) {
    if (arity(argc >= 3)) ClientKill(ctx);
  } else if (EqualsIgnoreCase(sub, "no-evict") || EqualsIgnoreCase(sub, "no-touch")) {
    if (!arity(argc == 3)) return;
    if (!OnOff(ctx.args[2])) return ctx.reply.Error(kSyntaxError);
    ctx.reply.Ok();
  } else {
    ctx.reply.Error("ERR unknown subcommand '" + std::string(sub) + "'. Try CLIENT HELP.");
  }
}

}  // namespace cairn::server
