// Stream consumer-group commands: XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM and XAUTOCLAIM
// (XINFO GROUPS and CONSUMERS are stream_commands.cc's). Each is one library call (XREADGROUP
// one per stream, in one transaction), so each is atomic on its own, in EXEC and in scripts
// alike. Arguments are checked in the order Redis 7.0 checks them, so the same bad request
// gets the same error.
//
// As in Redis 7.0, these writes change only a group's state: WATCH does not see them, and
// they wake no blocked client (kGroupStateOnly). XREADGROUP BLOCK waits as blocking.h says,
// as a taker in its group's line: a new entry wakes one waiting consumer of each group.
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "args/arguments.h"
#include "args/ascii.h"
#include "args/errors.h"
#include "args/option_parser.h"
#include "commands/all_commands.h"
#include "commands/stream_group_replies.h"
#include "commands/stream_ids.h"
#include "commands/stream_read_args.h"
#include "commands/subcommands.h"
#include "execution/blocking.h"
#include "execution/command_table.h"
#include "execution/key_waiters.h"
#include "execution/session.h"

namespace cairn::server {
namespace {

constexpr std::int64_t kUnknownEntriesRead = -1;

// The ENTRIESREAD value of XGROUP CREATE and SETID; false after replying with Redis's error.
bool ParseEntriesRead(CommandContext& ctx, std::string_view arg, StreamGroupPosition* position) {
  const std::optional<std::int64_t> n = ParseInt64(arg);
  if (!n) return ctx.reply.Error(kNotInteger), false;
  if (*n < 0 && *n != kUnknownEntriesRead) {
    return ctx.reply.Error("ERR value for ENTRIESREAD must be positive or -1"), false;
  }
  position->entries_read =
      *n == kUnknownEntriesRead ? std::nullopt : std::optional(static_cast<std::uint64_t>(*n));
  return true;
}

void SubcommandSyntaxError(CommandContext& ctx) {
  ctx.reply.Error("ERR unknown subcommand or wrong number of arguments for '" +
                  std::string(ctx.args[1].substr(0, 128)) + "'. Try XGROUP HELP.");
}

// What the stream `key` and its group `group` are: kNoStream, kNoGroup or kDone (both exist);
// WRONGTYPE for a key of another kind. A pending-entry range that asks for nothing reads only
// the stream's metadata and the group's row.
Result<StreamGroupOutcome> GroupState(Records& data, std::string_view key, std::string_view group) {
  Result<StreamPendingResult> probe = data.StreamPendingRange(key, group, StreamPendingRequest{});
  if (!probe.ok()) return probe.status();
  return probe->outcome;
}

// Replies XGROUP's error for an outcome other than kDone; false when there was none.
bool ReplyGroupOutcome(CommandContext& ctx, StreamGroupOutcome outcome) {
  switch (outcome) {
    case StreamGroupOutcome::kNoStream:
      ctx.reply.Error(
          "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may "
          "want to use the MKSTREAM option to create an empty stream automatically.");
      return true;
    case StreamGroupOutcome::kNoGroup:
      ctx.reply.Error(NoSuchGroup(ctx.args[2], ctx.args[3]));
      return true;
    case StreamGroupOutcome::kGroupExists:
      ctx.reply.Error("BUSYGROUP Consumer Group name already exists");
      return true;
    default:
      return false;
  }
}

// XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD n]
void XGroupCreate(CommandContext& ctx) {
  const std::vector<std::string_view>& args = ctx.args;
  StreamGroupPosition position;
  bool make_stream = false;
  OptionParser p(args, 5);
  while (!p.Done()) {
    if (p.Word("mkstream")) {
      make_stream = true;
    } else if (p.Left() >= 2 && p.Word("entriesread")) {
      if (!ParseEntriesRead(ctx, *p.Text(), &position)) return;
    } else {
      return SubcommandSyntaxError(ctx);
    }
  }
  if (args.size() > 8) return SubcommandSyntaxError(ctx);
  if (args[4] == "$") {
    position.at_last_id = true;
  } else {
    // Redis checks the key before the id: a missing one is the first error.
    if (!make_stream) {
      Result<std::optional<StreamSummary>> summary = ctx.data.StreamDescribe(args[2]);
      if (!summary.ok()) return ReplyStatus(ctx.reply, summary.status());
      if (!*summary) return (void)ReplyGroupOutcome(ctx, StreamGroupOutcome::kNoStream);
    }
    const std::optional<StreamId> id = ParseStreamId(args[4]);
    if (!id) return ctx.reply.Error(kInvalidStreamId);
    position.id = *id;
  }
  Result<StreamGroupOutcome> created =
      ctx.data.StreamGroupCreate(args[2], args[3], position, make_stream);
  if (!created.ok()) return ReplyStatus(ctx.reply, created.status());
  if (!ReplyGroupOutcome(ctx, *created)) ctx.reply.Ok();
}

// XGROUP SETID key group id|$ [ENTRIESREAD n]
void XGroupSetId(CommandContext& ctx) {
  const std::vector<std::string_view>& args = ctx.args;
  StreamGroupPosition position;
  if (args.size() == 7) {
    if (!EqualsIgnoreCase(args[5], "entriesread")) return SubcommandSyntaxError(ctx);
    if (!ParseEntriesRead(ctx, args[6], &position)) return;
  } else if (args.size() != 5) {
    return SubcommandSyntaxError(ctx);
  }
  if (args[4] == "$") {
    position.at_last_id = true;
  } else {
    std::optional<StreamId> id;
    if (args[4] == "-") id = StreamId{};
    if (args[4] == "+") id = kMaxStreamId;
    if (!id) id = ParseStreamId(args[4]);
    if (!id) {
      // Redis checks the key and group before the id.
      Result<StreamGroupOutcome> state = GroupState(ctx.data, args[2], args[3]);
      if (!state.ok()) return ReplyStatus(ctx.reply, state.status());
      if (ReplyGroupOutcome(ctx, *state)) return;
      return ctx.reply.Error(kInvalidStreamId);
    }
    position.id = *id;
  }
  Result<StreamGroupOutcome> set = ctx.data.StreamGroupSetPosition(args[2], args[3], position);
  if (!set.ok()) return ReplyStatus(ctx.reply, set.status());
  if (!ReplyGroupOutcome(ctx, *set)) ctx.reply.Ok();
}

// XGROUP DESTROY key group
void XGroupDestroy(CommandContext& ctx) {
  Result<StreamGroupOutcome> destroyed = ctx.data.StreamGroupDestroy(ctx.args[2], ctx.args[3]);
  if (!destroyed.ok()) return ReplyStatus(ctx.reply, destroyed.status());
  if (*destroyed == StreamGroupOutcome::kNoGroup) return ctx.reply.Integer(0);
  if (ReplyGroupOutcome(ctx, *destroyed)) return;
  // The group's blocked readers wake to find it gone (NOGROUP) instead of waiting forever.
  ctx.session.touched.push_back(KeyWaiters::KeyHash(ctx.args[2]));
  ctx.reply.Integer(1);
}

// XGROUP CREATECONSUMER key group consumer
void XGroupCreateConsumer(CommandContext& ctx) {
  Result<StreamGroupOutcome> created =
      ctx.data.StreamConsumerCreate(ctx.args[2], ctx.args[3], ctx.args[4]);
  if (!created.ok()) return ReplyStatus(ctx.reply, created.status());
  if (*created == StreamGroupOutcome::kConsumerExists) return ctx.reply.Integer(0);
  if (!ReplyGroupOutcome(ctx, *created)) ctx.reply.Integer(1);
}

// XGROUP DELCONSUMER key group consumer: how many entries it had pending.
void XGroupDelConsumer(CommandContext& ctx) {
  Result<std::pair<StreamGroupOutcome, std::uint64_t>> deleted =
      ctx.data.StreamConsumerDelete(ctx.args[2], ctx.args[3], ctx.args[4]);
  if (!deleted.ok()) return ReplyStatus(ctx.reply, deleted.status());
  if (!ReplyGroupOutcome(ctx, deleted->first)) {
    ctx.reply.Integer(static_cast<std::int64_t>(deleted->second));
  }
}

void XGroupHelp(CommandContext& ctx) {
  static constexpr std::string_view kHelp[] = {
      "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CREATE <key> <groupname> <id|$> [option]",
      "    Create a new consumer group. Options are:",
      "    * MKSTREAM",
      "      Create the empty stream if it does not exist.",
      "    * ENTRIESREAD entries_read",
      "      Set the group's entries_read counter (internal use).",
      "CREATECONSUMER <key> <groupname> <consumer>",
      "    Create a new consumer in the specified group.",
      "DELCONSUMER <key> <groupname> <consumer>",
      "    Remove the specified consumer.",
      "DESTROY <key> <groupname>",
      "    Remove the specified group.",
      "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
      "    Set the current group ID and entries_read counter.",
      "HELP",
      "    Prints this help.",
  };
  ctx.reply.ArrayHeader(std::size(kHelp));
  for (std::string_view line : kHelp) ctx.reply.SimpleString(line);
}

constexpr Subcommand kXGroupSubcommands[] = {
    {"create", -5, XGroupCreate},          {"setid", -5, XGroupSetId},
    {"destroy", 4, XGroupDestroy},         {"createconsumer", 5, XGroupCreateConsumer},
    {"delconsumer", 5, XGroupDelConsumer}, {"help", 2, XGroupHelp},
};

void XGroup(CommandContext& ctx) { RunSubcommand(ctx, kXGroupSubcommands, "XGROUP"); }

// XREADGROUP GROUP group consumer [COUNT count] [BLOCK ms] [NOACK] STREAMS key … id …
void XReadGroup(CommandContext& ctx) {
  const std::optional<StreamReadArgs> read = ParseStreamReadArgs(ctx, true);
  if (!read) return;
  std::vector<std::string> keys;
  std::vector<std::string> ids;
  for (std::size_t k = 0; k < read->streams; ++k) {
    keys.emplace_back(ctx.args[read->streams_at + k]);
    ids.emplace_back(ctx.args[read->streams_at + read->streams + k]);
  }
  const std::string group(read->group);
  const std::string consumer(read->consumer);
  const std::uint64_t count = read->count;
  const bool no_ack = read->no_ack;

  BlockingCommand command;
  command.keys = keys;
  command.line = group;
  command.watched_write = false;
  command.may_wait = read->block_ms.has_value();
  command.timeout_ms = read->block_ms.value_or(0);
  command.vanished = [keys](Records& data) -> Result<bool> {
    for (const std::string& key : keys) {
      Result<KeyType> type = data.Type(key);
      if (!type.ok()) return type.status();
      if (*type != KeyType::kStream) return true;
    }
    return false;
  };
  command.vanished_error = "UNBLOCKED the stream key no longer exists";
  command.attempt = [keys, ids, group, consumer, count, no_ack](
                        Records& data, resp::ReplyWriter& reply) -> Result<bool> {
    auto no_group = [&](const std::string& key) {
      reply.Error("NOGROUP No such key '" + key + "' or consumer group '" + group +
                  "' in XREADGROUP with GROUP option");
      return true;
    };
    // Every stream and id is checked before anything is read, in argument order. One stream
    // with a good id needs no check of its own: its read finds what the check would.
    const bool one_good_id =
        keys.size() == 1 && (ids[0] == ">" || (ids[0] != "$" && ParseStreamId(ids[0])));
    std::vector<StreamGroupReadRequest> requests(keys.size());
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (!one_good_id) {
        Result<StreamGroupOutcome> state = GroupState(data, keys[k], group);
        if (!state.ok()) return state.status();
        if (*state != StreamGroupOutcome::kDone) return no_group(keys[k]);
      }
      if (ids[k] == "$") {
        reply.Error(
            "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the "
            "history of this consumer by specifying a proper ID, or use the > ID to get new "
            "messages. The $ ID would just return an empty result set.");
        return true;
      }
      StreamGroupReadRequest& request = requests[k];
      request.count = count;
      request.no_ack = no_ack;
      if (ids[k] != ">") {
        const std::optional<StreamId> after = ParseStreamId(ids[k]);
        if (!after) {
          reply.Error(kInvalidStreamId);
          return true;
        }
        request.new_entries = false;
        request.after = *after;
      }
    }
    std::vector<std::pair<std::size_t, std::vector<StreamEntry>>> served;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      Result<StreamGroupReadResult> got =
          data.StreamReadGroup(keys[k], group, consumer, requests[k]);
      if (!got.ok()) return got.status();
      if (got->outcome != StreamGroupOutcome::kDone) return no_group(keys[k]);
      // A history read always answers for its stream, even with nothing pending.
      if (!requests[k].new_entries || !got->entries.empty()) {
        served.emplace_back(k, std::move(got->entries));
      }
    }
    if (served.empty()) return false;
    // RESP3: a map of key → entries; RESP2: an array of [key, entries] pairs.
    const bool map = reply.protocol() == 3;
    map ? reply.MapHeader(served.size()) : reply.ArrayHeader(served.size());
    for (const auto& [k, entries] : served) {
      if (!map) reply.ArrayHeader(2);
      reply.Bulk(keys[k]);
      ReplyStreamEntries(reply, entries);
    }
    return true;
  };
  RunBlocking(ctx, std::move(command));
}

// XACK key group id [id …]
void XAck(CommandContext& ctx) {
  std::vector<StreamId> ids;
  for (std::size_t i = 3; i < ctx.args.size(); ++i) {
    const std::optional<StreamId> id = ParseStreamId(ctx.args[i]);
    if (!id) {
      // Redis looks the group up first: a missing one acknowledges nothing, whatever the ids.
      Result<StreamGroupOutcome> state = GroupState(ctx.data, ctx.args[1], ctx.args[2]);
      if (!state.ok()) return ReplyStatus(ctx.reply, state.status());
      if (*state != StreamGroupOutcome::kDone) return ctx.reply.Integer(0);
      return ctx.reply.Error(kInvalidStreamId);
    }
    ids.push_back(*id);
  }
  Result<std::uint64_t> acked = ctx.data.StreamAck(ctx.args[1], ctx.args[2], ids);
  if (!acked.ok()) return ReplyStatus(ctx.reply, acked.status());
  ctx.reply.Integer(static_cast<std::int64_t>(*acked));
}

// XPENDING key group [[IDLE min-idle] start end count [consumer]]
void XPending(CommandContext& ctx) {
  const std::vector<std::string_view>& args = ctx.args;
  const std::size_t argc = args.size();
  if (argc != 3 && (argc < 6 || argc > 9)) return ctx.reply.Error(kSyntaxError);
  const std::string_view key = args[1];
  const std::string_view group = args[2];
  if (argc == 3) {
    Result<StreamPendingResult> summarized = ctx.data.StreamPendingSummarize(key, group);
    if (!summarized.ok()) return ReplyStatus(ctx.reply, summarized.status());
    if (summarized->outcome != StreamGroupOutcome::kDone) {
      return ctx.reply.Error(NoSuchKeyOrGroup(key, group));
    }
    const StreamPendingSummary& summary = summarized->summary;
    ctx.reply.ArrayHeader(4);
    ctx.reply.Integer(static_cast<std::int64_t>(summary.count));
    if (summary.count == 0) {
      ctx.reply.Null();
      ctx.reply.Null();
      return ctx.reply.NullArray();
    }
    ctx.reply.Bulk(FormatStreamId(summary.first));
    ctx.reply.Bulk(FormatStreamId(summary.last));
    ctx.reply.ArrayHeader(summary.consumers.size());
    for (const StreamPendingSummary::Consumer& consumer : summary.consumers) {
      ctx.reply.ArrayHeader(2);
      ctx.reply.Bulk(consumer.name);
      ctx.reply.Bulk(std::to_string(consumer.pending));
    }
    return;
  }
  StreamPendingRequest request;
  std::size_t at = 3;
  if (EqualsIgnoreCase(args[3], "idle")) {
    const std::optional<std::int64_t> idle = ParseInt64(args[4]);
    if (!idle) return ctx.reply.Error(kNotInteger);
    if (argc < 8) return ctx.reply.Error(kSyntaxError);
    request.min_idle_ms = *idle;
    at = 5;
  }
  const std::optional<std::int64_t> count = ParseInt64(args[at + 2]);
  if (!count) return ctx.reply.Error(kNotInteger);
  request.count = *count > 0 ? static_cast<std::uint64_t>(*count) : 0;
  const std::optional<StreamId> first = ParseRangeBound(args[at], RangeEnd::kStart, ctx.reply);
  if (!first) return;
  const std::optional<StreamId> last = ParseRangeBound(args[at + 1], RangeEnd::kEnd, ctx.reply);
  if (!last) return;
  request.first = *first;
  request.last = *last;
  if (at + 3 < argc) request.consumer = std::string(args[at + 3]);
  Result<StreamPendingResult> pending = ctx.data.StreamPendingRange(key, group, request);
  if (!pending.ok()) return ReplyStatus(ctx.reply, pending.status());
  if (pending->outcome != StreamGroupOutcome::kDone) {
    return ctx.reply.Error(NoSuchKeyOrGroup(key, group));
  }
  ctx.reply.ArrayHeader(pending->entries.size());
  for (const StreamPendingEntry& entry : pending->entries) {
    ctx.reply.ArrayHeader(4);
    ctx.reply.Bulk(FormatStreamId(entry.id));
    ctx.reply.Bulk(entry.consumer);
    ctx.reply.Integer(entry.idle_ms);
    ctx.reply.Integer(static_cast<std::int64_t>(entry.deliveries));
  }
}

// What XCLAIM and XAUTOCLAIM claimed: whole entries, or ids with JUSTID.
void ReplyClaimed(resp::ReplyWriter& reply, const std::vector<StreamEntry>& claimed,
                  bool just_ids) {
  if (!just_ids) return ReplyStreamEntries(reply, claimed);
  reply.ArrayHeader(claimed.size());
  for (const StreamEntry& entry : claimed) reply.Bulk(FormatStreamId(entry.id));
}

// Replies NOGROUP (or WRONGTYPE) when the stream or group does not exist; false when both do.
bool ReplyUnlessGroupExists(CommandContext& ctx) {
  Result<StreamGroupOutcome> state = GroupState(ctx.data, ctx.args[1], ctx.args[2]);
  if (!state.ok()) return ReplyStatus(ctx.reply, state.status()), true;
  if (*state == StreamGroupOutcome::kDone) return false;
  ctx.reply.Error(NoSuchKeyOrGroup(ctx.args[1], ctx.args[2]));
  return true;
}

// XCLAIM key group consumer min-idle-time id [id …] [IDLE ms] [TIME ms] [RETRYCOUNT n]
//        [FORCE] [JUSTID] [LASTID id]
void XClaim(CommandContext& ctx) {
  const std::vector<std::string_view>& args = ctx.args;
  if (ReplyUnlessGroupExists(ctx)) return;
  StreamClaimRequest request;
  const std::optional<std::int64_t> min_idle = ParseInt64(args[4]);
  if (!min_idle) return ctx.reply.Error("ERR Invalid min-idle-time argument for XCLAIM");
  request.min_idle_ms = std::max<std::int64_t>(*min_idle, 0);
  std::size_t i = 5;
  // The ids run up to the first argument that is not one; options follow.
  for (; i < args.size(); ++i) {
    const std::optional<StreamId> id = ParseStreamId(args[i]);
    if (!id) break;
    request.ids.push_back(*id);
  }
  OptionParser p(args, i);
  while (!p.Done()) {
    // An option without its value is unrecognized, as in Redis.
    const bool more = p.Left() >= 2;
    if (p.Word("force")) {
      request.force = true;
    } else if (p.Word("justid")) {
      request.just_ids = true;
    } else if (more && p.Word("idle")) {
      const Parsed<std::int64_t> idle = p.Integer();
      if (!idle.ok()) return ctx.reply.Error("ERR Invalid IDLE option argument for XCLAIM");
      request.idle_ms = *idle;
      request.time_ms.reset();
    } else if (more && p.Word("time")) {
      const Parsed<std::int64_t> time = p.Integer();
      if (!time.ok()) return ctx.reply.Error("ERR Invalid TIME option argument for XCLAIM");
      request.time_ms = *time;
      request.idle_ms.reset();
    } else if (more && p.Word("retrycount")) {
      const Parsed<std::int64_t> retries = p.Integer();
      if (!retries.ok()) {
        return ctx.reply.Error("ERR Invalid RETRYCOUNT option argument for XCLAIM");
      }
      // A negative count is Redis's "not given": the count goes up by one.
      request.retry_count =
          *retries >= 0 ? std::optional(static_cast<std::uint64_t>(*retries)) : std::nullopt;
    } else if (more && p.Word("lastid")) {
      const std::optional<StreamId> id = ParseStreamId(*p.Text());
      if (!id) return ctx.reply.Error(kInvalidStreamId);
      request.last_id = *id;
    } else {
      return ctx.reply.Error("ERR Unrecognized XCLAIM option '" + std::string(*p.Text()) + "'");
    }
  }
  Result<StreamClaimResult> claimed = ctx.data.StreamClaim(args[1], args[2], args[3], request);
  if (!claimed.ok()) return ReplyStatus(ctx.reply, claimed.status());
  if (claimed->outcome != StreamGroupOutcome::kDone) {
    return ctx.reply.Error(NoSuchKeyOrGroup(args[1], args[2]));
  }
  ReplyClaimed(ctx.reply, claimed->claimed, request.just_ids);
}

// XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]
void XAutoClaim(CommandContext& ctx) {
  const std::vector<std::string_view>& args = ctx.args;
  StreamAutoClaimRequest request;
  const std::optional<std::int64_t> min_idle = ParseInt64(args[4]);
  if (!min_idle) return ctx.reply.Error("ERR Invalid min-idle-time argument for XAUTOCLAIM");
  request.min_idle_ms = std::max<std::int64_t>(*min_idle, 0);
  const std::optional<StreamId> start = ParseRangeBound(args[5], RangeEnd::kStart, ctx.reply);
  if (!start) return;
  request.start = *start;
  // Redis's bound, which keeps its count of entries to look at (ten per one asked for) and its
  // buffer of deleted ids from overflowing.
  constexpr std::int64_t kMaxCount = std::numeric_limits<std::int64_t>::max() / 16;
  OptionParser p(args, 6);
  while (!p.Done()) {
    if (p.Left() >= 2 && p.Word("count")) {
      const Parsed<std::int64_t> count = p.Integer();
      if (!count.ok() || *count < 1 || *count > kMaxCount) {
        return ctx.reply.Error("ERR COUNT must be > 0");
      }
      request.count = static_cast<std::uint64_t>(*count);
    } else if (p.Word("justid")) {
      request.just_ids = true;
    } else {
      return ctx.reply.Error(kSyntaxError);
    }
  }
  Result<StreamClaimResult> claimed = ctx.data.StreamAutoClaim(args[1], args[2], args[3], request);
  if (!claimed.ok()) return ReplyStatus(ctx.reply, claimed.status());
  if (claimed->outcome != StreamGroupOutcome::kDone) {
    return ctx.reply.Error(NoSuchKeyOrGroup(args[1], args[2]));
  }
  ctx.reply.ArrayHeader(3);
  ctx.reply.Bulk(FormatStreamId(claimed->next));
  ReplyClaimed(ctx.reply, claimed->claimed, request.just_ids);
  ctx.reply.ArrayHeader(claimed->deleted.size());
  for (StreamId id : claimed->deleted) ctx.reply.Bulk(FormatStreamId(id));
}

}  // namespace

void RegisterStreamGroupCommands(CommandTable& table) {
  table.Register({"xgroup", -2, kWrite | kGroupStateOnly | kSubcommands, 2, 2, 1, XGroup, "stream",
                  "A container for consumer groups commands.", "5.0.0"});
  table.Register(
      {"xreadgroup", -7, kWrite | kGroupStateOnly | kBlocksOnRequest | kMovableKeys, 0, 0, 0,
       XReadGroup, "stream",
       "Returns new or historical messages from a stream for a consumer in a group. Blocks until "
       "a message is available otherwise.",
       "5.0.0"});
  table.Register(
      {"xack", -4, kWrite | kGroupStateOnly | kFast, 1, 1, 1, XAck, "stream",
       "Returns the number of messages that were successfully acknowledged by the consumer group "
       "member of a stream.",
       "5.0.0"});
  table.Register(
      {"xpending", -3, kReadOnly, 1, 1, 1, XPending, "stream",
       "Returns the information and entries from a stream consumer group's pending entries list.",
       "5.0.0"});
  table.Register(
      {"xclaim", -6, kWrite | kGroupStateOnly | kFast, 1, 1, 1, XClaim, "stream",
       "Changes, or acquires, ownership of a message in a consumer group, as if the message was "
       "delivered a consumer group member.",
       "5.0.0"});
  table.Register(
      {"xautoclaim", -6, kWrite | kGroupStateOnly | kFast, 1, 1, 1, XAutoClaim, "stream",
       "Changes, or acquires, ownership of messages in a consumer group, as if the messages were "
       "delivered to as consumer group member.",
       "6.2.0"});
}

}  // namespace cairn::server
