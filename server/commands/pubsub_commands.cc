// Pub/sub commands: SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, PUBLISH, PUBSUB.
//
// A subscription lives in two places: the client's own sets (pubsub/client_subscriptions.h)
// and the server's registry (pubsub/registry.h), which PUBLISH reads from any io thread to
// queue the message into each subscriber's mailbox; the subscriber's connection writes it
// (net/connection.cc). Replies follow Redis 7: one confirmation per channel or pattern, a push
// frame under RESP3, each with the client's subscription count after it.
//
// PUBLISH inside EXEC or a script (a command with a transaction) answers the number of
// receivers at once but stages the message; it goes out once the transaction has committed.
// A transaction that is rolled back sends nothing from the undone attempt (Redis, which never
// rolls back, has no such case).
#include <optional>
#include <string>
#include <vector>

#include "args/ascii.h"
#include "args/errors.h"
#include "commands/all_commands.h"
#include "execution/command_table.h"
#include "execution/pubsub_session.h"
#include "execution/server_state.h"
#include "execution/session.h"

namespace cairn::server {

namespace {

enum class Kind { kChannel, kPattern };

// [kind, name or null, count]: how Redis confirms each (un)subscription.
void Confirm(resp::ReplyWriter& reply, std::string_view kind, std::optional<std::string_view> name,
             std::size_t count) {
  reply.PushHeader(3);
  reply.Bulk(kind);
  name ? reply.Bulk(*name) : reply.Null();
  reply.Integer(static_cast<std::int64_t>(count));
}

void Subscribe(CommandContext& ctx, Kind kind) {
  pubsub::ClientSubscriptions& subs = ctx.session.pubsub;
  if (!subs.mailbox) {
    // Only a connection's session has one; scripts, which have none, cannot call this.
    return ctx.reply.Error("ERR this client cannot subscribe: it has no connection");
  }
  const bool channels = kind == Kind::kChannel;
  for (std::size_t i = 1; i < ctx.args.size(); ++i) {
    const std::string_view name = ctx.args[i];
    if (channels ? subs.AddChannel(name) : subs.AddPattern(name)) {
      channels ? ctx.server.pubsub().Subscribe(name, ctx.session.id(), subs.mailbox)
               : ctx.server.pubsub().PSubscribe(name, ctx.session.id(), subs.mailbox);
    }
    Confirm(ctx.reply, channels ? "subscribe" : "psubscribe", name, subs.count());
  }
}

void Unsubscribe(CommandContext& ctx, Kind kind) {
  pubsub::ClientSubscriptions& subs = ctx.session.pubsub;
  const bool channels = kind == Kind::kChannel;
  const std::string_view verb = channels ? "unsubscribe" : "punsubscribe";
  // No argument: every channel (or pattern) the client has.
  std::vector<std::string> names;
  if (ctx.args.size() == 1) {
    const auto& all = channels ? subs.channels() : subs.patterns();
    names.assign(all.begin(), all.end());
  } else {
    names.assign(ctx.args.begin() + 1, ctx.args.end());
  }
  std::vector<std::size_t> counts;
  counts.reserve(names.size());
  for (const std::string& name : names) {
    if (channels ? subs.RemoveChannel(name) : subs.RemovePattern(name)) {
      channels ? ctx.server.pubsub().Unsubscribe(name, ctx.session.id())
               : ctx.server.pubsub().PUnsubscribe(name, ctx.session.id());
    }
    counts.push_back(subs.count());
  }
  // The messages published before the unsubscription go before its confirmation, as in
  // Redis; none for those channels can follow it (a RESP2 client that left subscribed mode
  // would read one as the reply to its next command). Inside EXEC the reply buffer is EXEC's
  // array: the connection sends them after it.
  if (ctx.txn == nullptr && subs.mailbox) subs.mailbox->TakeInto(ctx.reply.buffer());
  if (names.empty()) return Confirm(ctx.reply, verb, std::nullopt, subs.count());
  for (std::size_t i = 0; i < names.size(); ++i) Confirm(ctx.reply, verb, names[i], counts[i]);
}

void SubscribeChannels(CommandContext& ctx) { Subscribe(ctx, Kind::kChannel); }
void SubscribePatterns(CommandContext& ctx) { Subscribe(ctx, Kind::kPattern); }
void UnsubscribeChannels(CommandContext& ctx) { Unsubscribe(ctx, Kind::kChannel); }
void UnsubscribePatterns(CommandContext& ctx) { Unsubscribe(ctx, Kind::kPattern); }

void Publish(CommandContext& ctx) {
  const std::string_view channel = ctx.args[1], payload = ctx.args[2];
  pubsub::Registry& registry = ctx.server.pubsub();
  if (ctx.txn != nullptr) {
    ctx.session.staged_messages.push_back({std::string(channel), std::string(payload)});
    return ctx.reply.Integer(static_cast<std::int64_t>(registry.CountReceivers(channel)));
  }
  PublishStaged(ctx.server, ctx.session);  // Its earlier messages go first.
  const std::size_t receivers = registry.Publish(channel, payload, ctx.server.pubsub_output_limit(),
                                                 ctx.server.clock().NowMs());
  ctx.reply.Integer(static_cast<std::int64_t>(receivers));
}

void PubSubHelp(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CHANNELS [<pattern>]",
      "    Return the channels with at least one subscriber (those matching <pattern>, if",
      "    given).",
      "NUMPAT",
      "    Return the number of distinct patterns that clients subscribe to.",
      "NUMSUB [<channel> ...]",
      "    Return the number of subscribers of each <channel>, not counting pattern",
      "    subscriptions.",
      "HELP",
      "    Print this help.",
  };
  ctx.reply.ArrayHeader(std::size(kLines));
  for (std::string_view line : kLines) ctx.reply.SimpleString(line);
}

void PubSub(CommandContext& ctx) {
  const std::string_view sub = ctx.args[1];
  const std::size_t argc = ctx.args.size();
  const pubsub::Registry& registry = ctx.server.pubsub();
  auto arity = [&](bool ok) {
    if (!ok) ctx.reply.Error(WrongArity("pubsub|" + ToLower(sub)));
    return ok;
  };
  if (EqualsIgnoreCase(sub, "channels")) {
    if (argc > 3) {
      return ctx.reply.Error("ERR unknown subcommand or wrong number of arguments for '" +
                             std::string(sub.substr(0, 128)) + "'. Try PUBSUB HELP.");
    }
    const std::vector<std::string> channels =
        registry.Channels(argc == 3 ? std::optional<std::string_view>(ctx.args[2]) : std::nullopt);
    ctx.reply.ArrayHeader(channels.size());
    for (const std::string& channel : channels) ctx.reply.Bulk(channel);
  } else if (EqualsIgnoreCase(sub, "numsub")) {
    ctx.reply.ArrayHeader(2 * (argc - 2));
    for (std::size_t i = 2; i < argc; ++i) {
      ctx.reply.Bulk(ctx.args[i]);
      ctx.reply.Integer(static_cast<std::int64_t>(registry.SubscriberCount(ctx.args[i])));
    }
  } else if (EqualsIgnoreCase(sub, "numpat")) {
    if (arity(argc == 2)) ctx.reply.Integer(static_cast<std::int64_t>(registry.PatternCount()));
  } else if (EqualsIgnoreCase(sub, "help")) {
    if (arity(argc == 2)) PubSubHelp(ctx);
  } else {
    ctx.reply.Error("ERR unknown subcommand '" + std::string(sub.substr(0, 128)) +
                    "'. Try PUBSUB HELP.");
  }
}

}  // namespace

void RegisterPubSubCommands(CommandTable& table) {
  const std::uint32_t base = kPubSub | kLoading | kStale;
  // Subscriptions belong to a connection: a script has none to change.
  const std::uint32_t subscribing = base | kNoScript | kSubscribedMode;
  table.Register({"subscribe", -2, subscribing, 0, 0, 0, SubscribeChannels, "pubsub",
                  "Starts receiving the messages published to the given channels.", "2.0.0"});
  table.Register({"psubscribe", -2, subscribing, 0, 0, 0, SubscribePatterns, "pubsub",
                  "Starts receiving the messages published to channels matching the given "
                  "patterns.",
                  "2.0.0"});
  table.Register({"unsubscribe", -1, subscribing, 0, 0, 0, UnsubscribeChannels, "pubsub",
                  "Stops receiving the messages of the given channels, or of every channel.",
                  "2.0.0"});
  table.Register({"punsubscribe", -1, subscribing, 0, 0, 0, UnsubscribePatterns, "pubsub",
                  "Stops receiving the messages of the given patterns, or of every pattern.",
                  "2.0.0"});
  table.Register({"publish", 3, base | kFast | kMayReplicate, 0, 0, 0, Publish, "pubsub",
                  "Sends a message to the subscribers of a channel and of matching patterns.",
                  "2.0.0"});
  table.Register({"pubsub", -2, base | kSubcommands, 0, 0, 0, PubSub, "pubsub",
                  "A container for commands that inspect the channels and patterns subscribed to.",
                  "2.8.0"});
}

}  // namespace cairn::server
