// Stream commands: XADD, XLEN, XRANGE, XREVRANGE, XDEL, XTRIM, XREAD and XINFO (consumer
// groups' commands are stream_group_commands.cc's). Each is
// one library call (XREAD one per stream it reads, XINFO STREAM FULL two, in one transaction),
// so each is atomic on its own, in EXEC and in scripts alike. Arguments are checked in the
// order Redis checks them, so the same bad request gets the same error. XREAD BLOCK waits as
// blocking.h says, as a reader: every write to a stream wakes each reader blocked on it.
//
// Under `~` Redis trims whole nodes of its radix tree (100 entries), so a stream may keep up to
// 100 entries over the threshold; Cairn trims MAXLEN ~ once more than 100 are over, and then
// to the threshold (StreamTrimRule::slack), MINID ~ exactly; both within LIMIT.
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
#include "execution/server_state.h"
#include "execution/session.h"

namespace cairn::server {
namespace {

// Redis's stream-node-max-entries: under `~` it trims whole nodes of this many entries, so a
// stream keeps up to this many over the threshold. Cairn keeps as many (StreamTrimRule::slack).
constexpr std::uint64_t kNodeEntries = 100;
// Redis's default LIMIT for `~` trimming: 100 nodes.
constexpr std::uint64_t kApproximateTrimLimit = 100 * kNodeEntries;

// Parses the trimming options of XTRIM, or of XADD (with NOMKSTREAM, up to its id), from where
// p stands; leaves p at XADD's id. False after replying with Redis's error.
bool ParseAddOrTrimOptions(CommandContext& ctx, OptionParser& p, bool xadd,
                           StreamAddOptions* options) {
  StreamTrimRule& rule = options->trim;
  bool approximate = false;
  bool limit_given = false;
  while (!p.Done()) {
    const std::size_t more = p.Left() - 1;  // Arguments after this one.
    const std::string_view opt = ctx.args[p.Position()];
    if (xadd && opt == "*") break;
    std::optional<std::size_t> strategy;  // 0: MAXLEN, 1: MINID.
    if (more > 0) strategy = p.OneOf({"maxlen", "minid"});
    if (strategy) {
      if (rule.by != StreamTrimRule::By::kNone) {
        ctx.reply.Error(
            "ERR syntax error, MAXLEN and MINID options at the same time are not compatible");
        return false;
      }
      approximate = false;
      if (more >= 2) {
        if (const std::optional<std::size_t> mark = p.OneOf({"~", "="})) approximate = *mark == 0;
      }
      const std::string_view threshold = *p.Text();
      if (*strategy == 0) {
        const std::optional<std::int64_t> n = ParseInt64(threshold);
        if (!n) return ctx.reply.Error(kNotInteger), false;
        if (*n < 0) return ctx.reply.Error("ERR The MAXLEN argument must be >= 0."), false;
        rule.by = StreamTrimRule::By::kMaxLength;
        rule.max_length = static_cast<std::uint64_t>(*n);
      } else {
        const std::optional<StreamId> id = ParseStreamId(threshold);
        if (!id) return ctx.reply.Error(kInvalidStreamId), false;
        rule.by = StreamTrimRule::By::kMinId;
        rule.min_id = *id;
      }
    } else if (more > 0 && p.Word("limit")) {
      const Parsed<std::int64_t> n = p.Integer();
      if (!n.ok()) return ctx.reply.Error(n.error()), false;
      if (*n < 0) return ctx.reply.Error("ERR The LIMIT argument must be >= 0."), false;
      rule.limit = static_cast<std::uint64_t>(*n);
      limit_given = true;
    } else if (xadd && p.Word("nomkstream")) {
      options->only_if_exists = true;
    } else if (xadd) {  // The id: p stays on it.
      std::optional<StreamAddOptions> id = ParseAddId(opt);
      if (!id) return ctx.reply.Error(kInvalidStreamId), false;
      options->id_mode = id->id_mode;
      options->id = id->id;
      break;
    } else {
      return ctx.reply.Error(kSyntaxError), false;
    }
  }
  if (limit_given && rule.by == StreamTrimRule::By::kNone) {
    ctx.reply.Error(
        "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy");
    return false;
  }
  if (!xadd && rule.by == StreamTrimRule::By::kNone) {
    ctx.reply.Error("ERR syntax error, XTRIM must be called with a trimming strategy");
    return false;
  }
  if (limit_given && !approximate) {
    ctx.reply.Error("ERR syntax error, LIMIT cannot be used without the special ~ option");
    return false;
  }
  if (approximate && !limit_given) rule.limit = kApproximateTrimLimit;
  if (approximate) rule.slack = kNodeEntries;
  return true;
}

// XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value …
void XAdd(CommandContext& ctx) {
  OptionParser p(ctx.args, 2);
  StreamAddOptions options;
  if (!ParseAddOrTrimOptions(ctx, p, true, &options)) return;
  const std::size_t field_pos = p.Position() + 1;
  if (field_pos > ctx.args.size() || ctx.args.size() - field_pos < 2 ||
      (ctx.args.size() - field_pos) % 2 == 1) {
    return ctx.reply.Error(WrongArity("xadd"));
  }
  if (options.id_mode == StreamAddOptions::IdMode::kExplicit && options.id == StreamId{}) {
    return ctx.reply.Error("ERR The ID specified in XADD must be greater than 0-0");
  }
  std::vector<HashField> fields;
  fields.reserve((ctx.args.size() - field_pos) / 2);
  for (std::size_t f = field_pos; f < ctx.args.size(); f += 2) {
    fields.push_back({ctx.args[f], ctx.args[f + 1]});
  }
  Result<StreamAddResult> added = ctx.data.StreamAdd(ctx.args[1], fields, options);
  if (!added.ok()) return ReplyStatus(ctx.reply, added.status());
  switch (added->outcome) {
    case StreamAddOutcome::kAdded:
      return ctx.reply.Bulk(FormatStreamId(added->id));
    case StreamAddOutcome::kNoStream:
      return ctx.reply.Null();
    case StreamAddOutcome::kIdZero:
      return ctx.reply.Error("ERR The ID specified in XADD must be greater than 0-0");
    case StreamAddOutcome::kIdTooSmall:
      return ctx.reply.Error(
          "ERR The ID specified in XADD is equal or smaller than the target stream top item");
    case StreamAddOutcome::kSequenceExhausted:
      // Redis's words for this case (its ERANGE), however little they say.
      return ctx.reply.Error("ERR Elements are too large to be stored");
    case StreamAddOutcome::kIdsExhausted:
      return ctx.reply.Error(
          "ERR The stream has exhausted the last possible ID, unable to add more items");
  }
}

// XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count]
void XTrim(CommandContext& ctx) {
  OptionParser p(ctx.args, 2);
  StreamAddOptions options;
  if (!ParseAddOrTrimOptions(ctx, p, false, &options)) return;
  Result<std::uint64_t> removed = ctx.data.StreamTrim(ctx.args[1], options.trim);
  if (!removed.ok()) return ReplyStatus(ctx.reply, removed.status());
  ctx.reply.Integer(static_cast<std::int64_t>(*removed));
}

void XLen(CommandContext& ctx) {
  Result<std::uint64_t> length = ctx.data.StreamLength(ctx.args[1]);
  if (!length.ok()) return ReplyStatus(ctx.reply, length.status());
  ctx.reply.Integer(static_cast<std::int64_t>(*length));
}

// XDEL key id [id …]
void XDel(CommandContext& ctx) {
  std::vector<StreamId> ids;
  for (std::size_t i = 2; i < ctx.args.size(); ++i) {
    const std::optional<StreamId> id = ParseStreamId(ctx.args[i]);
    if (!id) {
      // Redis looks the key up first: a missing key answers 0 whatever the ids.
      Result<std::optional<StreamSummary>> summary = ctx.data.StreamDescribe(ctx.args[1]);
      if (!summary.ok()) return ReplyStatus(ctx.reply, summary.status());
      return *summary ? ctx.reply.Error(kInvalidStreamId) : ctx.reply.Integer(0);
    }
    ids.push_back(*id);
  }
  Result<std::size_t> removed = ctx.data.StreamDelete(ctx.args[1], ids);
  if (!removed.ok()) return ReplyStatus(ctx.reply, removed.status());
  ctx.reply.Integer(static_cast<std::int64_t>(*removed));
}

// XRANGE key start end [COUNT count], and XREVRANGE key end start [COUNT count].
void RangeGeneric(CommandContext& ctx, bool reverse) {
  StreamRangeRequest request;
  request.reverse = reverse;
  const std::optional<StreamId> first =
      ParseRangeBound(ctx.args[reverse ? 3 : 2], RangeEnd::kStart, ctx.reply);
  if (!first) return;
  const std::optional<StreamId> last =
      ParseRangeBound(ctx.args[reverse ? 2 : 3], RangeEnd::kEnd, ctx.reply);
  if (!last) return;
  request.first = *first;
  request.last = *last;
  std::optional<std::int64_t> count;
  OptionParser p(ctx.args, 4);
  while (!p.Done()) {
    if (p.Left() < 2 || !p.Word("count")) return ctx.reply.Error(kSyntaxError);
    CAIRN_ARG_OR_REPLY(ctx.reply, count, p.Integer());
  }
  if (count && *count <= 0) {
    // Redis answers a count of 0 (or less) with a null array, once it has seen the key.
    Result<std::optional<StreamSummary>> summary = ctx.data.StreamDescribe(ctx.args[1]);
    if (!summary.ok()) return ReplyStatus(ctx.reply, summary.status());
    return *summary ? ctx.reply.NullArray() : ctx.reply.ArrayHeader(0);
  }
  request.count = count ? static_cast<std::uint64_t>(*count) : 0;
  Result<std::vector<StreamEntry>> entries = ctx.data.StreamRange(ctx.args[1], request);
  if (!entries.ok()) return ReplyStatus(ctx.reply, entries.status());
  ReplyStreamEntries(ctx.reply, *entries);
}
void XRange(CommandContext& ctx) { RangeGeneric(ctx, false); }
void XRevRange(CommandContext& ctx) { RangeGeneric(ctx, true); }

// XREAD [COUNT count] [BLOCK milliseconds] STREAMS key [key …] id [id …]
void XRead(CommandContext& ctx) {
  const std::optional<StreamReadArgs> read_args = ParseStreamReadArgs(ctx, false);
  if (!read_args) return;
  const std::uint64_t count = read_args->count;
  const std::optional<std::int64_t> block_ms = read_args->block_ms;
  const std::size_t streams_at = read_args->streams_at;
  const std::size_t streams = (ctx.args.size() - streams_at) / 2;
  std::vector<std::string> keys;
  std::vector<StreamId> after;  // Each stream's entries after this id are read.
  for (std::size_t k = 0; k < streams; ++k) {
    const std::string_view key = ctx.args[streams_at + k];
    const std::string_view id = ctx.args[streams_at + streams + k];
    keys.emplace_back(key);
    if (id == "$") {
      // The stream's last id now: only entries added from here on are read.
      Result<std::optional<StreamSummary>> summary = ctx.data.StreamDescribe(key);
      if (!summary.ok()) return ReplyStatus(ctx.reply, summary.status());
      after.push_back(*summary ? (*summary)->last_id : StreamId{});
      continue;
    }
    if (id == ">") {
      return ctx.reply.Error(
          "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> "
          "<consumer> option.");
    }
    const std::optional<StreamId> parsed = ParseStreamId(id);
    if (!parsed) return ctx.reply.Error(kInvalidStreamId);
    after.push_back(*parsed);
  }
  BlockingCommand command;
  command.keys = keys;
  command.takes = false;
  command.timeout_ms = block_ms.value_or(0);
  command.attempt = [keys, after, count](Records& data, resp::ReplyWriter& reply) -> Result<bool> {
    std::vector<std::pair<std::size_t, std::vector<StreamEntry>>> found;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (after[k] == kMaxStreamId) continue;
      StreamRangeRequest request;
      request.first = after[k].seq == UINT64_MAX ? StreamId{after[k].ms + 1, 0}
                                                 : StreamId{after[k].ms, after[k].seq + 1};
      request.count = count;
      Result<std::vector<StreamEntry>> entries = data.StreamRange(keys[k], request);
      if (!entries.ok()) return entries.status();
      if (!entries->empty()) found.emplace_back(k, std::move(*entries));
    }
    if (found.empty()) return false;
    // RESP3: a map of key → entries; RESP2: an array of [key, entries] pairs.
    const bool map = reply.protocol() == 3;
    map ? reply.MapHeader(found.size()) : reply.ArrayHeader(found.size());
    for (const auto& [k, entries] : found) {
      if (!map) reply.ArrayHeader(2);
      reply.Bulk(keys[k]);
      ReplyStreamEntries(reply, entries);
    }
    return true;
  };
  if (!block_ms) {
    // Without BLOCK: one read, and a null array when there is nothing new.
    Result<bool> served = command.attempt(ctx.data, ctx.reply);
    if (!served.ok()) return ReplyStatus(ctx.reply, served.status());
    if (!*served) ctx.reply.NullArray();
    return;
  }
  RunBlocking(ctx, std::move(command));
}

// A group as XINFO STREAM FULL shows it: with its first pending entries, and its consumers
// with theirs.
struct FullGroup {
  StreamGroupInfo info;
  std::vector<StreamPendingEntry> pending;
  std::vector<std::pair<StreamConsumerInfo, std::vector<StreamPendingEntry>>> consumers;
};

// XINFO STREAM FULL's groups: up to `count` pending entries each (0: all).
Result<std::vector<FullGroup>> ReadFullGroups(Records& data, std::string_view key,
                                              std::uint64_t count) {
  StreamPendingRequest request;
  request.count = count == 0 ? UINT64_MAX : count;
  Result<std::optional<std::vector<StreamGroupInfo>>> groups = data.StreamGroups(key);
  if (!groups.ok()) return groups.status();
  std::vector<FullGroup> out;
  if (!*groups) return out;
  for (StreamGroupInfo& info : **groups) {
    FullGroup group{std::move(info), {}, {}};
    request.consumer.reset();
    Result<StreamPendingResult> pending = data.StreamPendingRange(key, group.info.name, request);
    if (!pending.ok()) return pending.status();
    group.pending = std::move(pending->entries);
    Result<StreamConsumersResult> consumers = data.StreamConsumers(key, group.info.name);
    if (!consumers.ok()) return consumers.status();
    for (StreamConsumerInfo& consumer : consumers->consumers) {
      request.consumer = consumer.name;
      Result<StreamPendingResult> own = data.StreamPendingRange(key, group.info.name, request);
      if (!own.ok()) return own.status();
      group.consumers.emplace_back(std::move(consumer), std::move(own->entries));
    }
    out.push_back(std::move(group));
  }
  return out;
}

void ReplyFullGroups(resp::ReplyWriter& reply, const std::vector<FullGroup>& groups) {
  reply.ArrayHeader(groups.size());
  for (const FullGroup& group : groups) {
    reply.MapHeader(7);
    reply.Bulk("name");
    reply.Bulk(group.info.name);
    reply.Bulk("last-delivered-id");
    reply.Bulk(FormatStreamId(group.info.last_delivered_id));
    ReplyGroupProgress(reply, group.info);
    reply.Bulk("pel-count");
    reply.Integer(static_cast<std::int64_t>(group.info.pending));
    reply.Bulk("pending");
    reply.ArrayHeader(group.pending.size());
    for (const StreamPendingEntry& entry : group.pending) {
      reply.ArrayHeader(4);
      reply.Bulk(FormatStreamId(entry.id));
      reply.Bulk(entry.consumer);
      reply.Integer(entry.delivered_at_ms);
      reply.Integer(static_cast<std::int64_t>(entry.deliveries));
    }
    reply.Bulk("consumers");
    reply.ArrayHeader(group.consumers.size());
    for (const auto& [consumer, pending] : group.consumers) {
      reply.MapHeader(4);
      reply.Bulk("name");
      reply.Bulk(consumer.name);
      reply.Bulk("seen-time");
      reply.Integer(consumer.seen_at_ms);
      reply.Bulk("pel-count");
      reply.Integer(static_cast<std::int64_t>(consumer.pending));
      reply.Bulk("pending");
      reply.ArrayHeader(pending.size());
      for (const StreamPendingEntry& entry : pending) {
        reply.ArrayHeader(3);
        reply.Bulk(FormatStreamId(entry.id));
        reply.Integer(entry.delivered_at_ms);
        reply.Integer(static_cast<std::int64_t>(entry.deliveries));
      }
    }
  }
}

// The summary XINFO STREAM replies, FULL or not; `entries` and `groups` are FULL's.
void ReplyStreamInfo(resp::ReplyWriter& reply, const StreamSummary& summary,
                     const std::vector<StreamEntry>* entries,
                     const std::vector<FullGroup>* groups) {
  reply.MapHeader(entries ? 9 : 10);
  reply.Bulk("length");
  reply.Integer(static_cast<std::int64_t>(summary.length));
  // Redis's in-memory radix tree has no counterpart here: entries are rows on disk.
  reply.Bulk("radix-tree-keys");
  reply.Integer(0);
  reply.Bulk("radix-tree-nodes");
  reply.Integer(0);
  reply.Bulk("last-generated-id");
  reply.Bulk(FormatStreamId(summary.last_id));
  reply.Bulk("max-deleted-entry-id");
  reply.Bulk(FormatStreamId(summary.max_deleted_id));
  reply.Bulk("entries-added");
  reply.Integer(static_cast<std::int64_t>(summary.entries_added));
  reply.Bulk("recorded-first-entry-id");
  reply.Bulk(FormatStreamId(summary.first_id));
  if (entries) {
    reply.Bulk("entries");
    ReplyStreamEntries(reply, *entries);
    reply.Bulk("groups");
    ReplyFullGroups(reply, *groups);
    return;
  }
  reply.Bulk("groups");
  reply.Integer(static_cast<std::int64_t>(summary.groups));
  for (const auto& [name, entry] : {std::pair{"first-entry", &summary.first_entry},
                                    std::pair{"last-entry", &summary.last_entry}}) {
    reply.Bulk(name);
    *entry ? ReplyStreamEntry(reply, **entry) : reply.Null();
  }
}

std::string BadSubcommand(std::string_view sub) {
  return "ERR unknown subcommand or wrong number of arguments for '" +
         std::string(sub.substr(0, 128)) + "'. Try XINFO HELP.";
}

// XINFO STREAM key [FULL [COUNT count]]
void XInfoStream(CommandContext& ctx) {
  bool full = false;
  std::uint64_t count = 10;
  const std::size_t argc = ctx.args.size();
  if (argc > 3) {
    if (!EqualsIgnoreCase(ctx.args[3], "full") || (argc != 4 && argc != 6) ||
        (argc == 6 && !EqualsIgnoreCase(ctx.args[4], "count"))) {
      return ctx.reply.Error(BadSubcommand(ctx.args[1]));
    }
    full = true;
    if (argc == 6) {
      const std::optional<std::int64_t> n = ParseInt64(ctx.args[5]);
      if (!n) return ctx.reply.Error(kNotInteger);
      count = *n > 0 ? static_cast<std::uint64_t>(*n) : 0;
    }
  }
  const std::string key(ctx.args[2]);
  std::string out;
  // Both reads at once: in the caller's transaction, or one of their own.
  auto describe = [&](Records& data) -> Status {
    out.clear();
    resp::ReplyWriter reply(&out, ctx.session.protocol);
    Result<std::optional<StreamSummary>> summary = data.StreamDescribe(key);
    if (!summary.ok()) return summary.status();
    if (!*summary) {
      reply.Error("ERR no such key");
      return Status::Ok();
    }
    std::vector<StreamEntry> entries;
    std::vector<FullGroup> groups;
    if (full) {
      StreamRangeRequest request;
      request.count = count;
      Result<std::vector<StreamEntry>> read = data.StreamRange(key, request);
      if (!read.ok()) return read.status();
      entries = std::move(*read);
      Result<std::vector<FullGroup>> read_groups = ReadFullGroups(data, key, count);
      if (!read_groups.ok()) return read_groups.status();
      groups = std::move(*read_groups);
    }
    ReplyStreamInfo(reply, **summary, full ? &entries : nullptr, &groups);
    return Status::Ok();
  };
  const Status s =
      ctx.txn != nullptr
          ? describe(ctx.data)
          : ctx.server.store().RunTransaction([&](Transaction& txn) { return describe(txn); });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  ctx.reply.buffer()->append(out);
}

// XINFO GROUPS key
void XInfoGroups(CommandContext& ctx) {
  Result<std::optional<std::vector<StreamGroupInfo>>> groups = ctx.data.StreamGroups(ctx.args[2]);
  if (!groups.ok()) return ReplyStatus(ctx.reply, groups.status());
  if (!*groups) return ctx.reply.Error("ERR no such key");
  ctx.reply.ArrayHeader((*groups)->size());
  for (const StreamGroupInfo& group : **groups) {
    ctx.reply.MapHeader(6);
    ctx.reply.Bulk("name");
    ctx.reply.Bulk(group.name);
    ctx.reply.Bulk("consumers");
    ctx.reply.Integer(static_cast<std::int64_t>(group.consumers));
    ctx.reply.Bulk("pending");
    ctx.reply.Integer(static_cast<std::int64_t>(group.pending));
    ctx.reply.Bulk("last-delivered-id");
    ctx.reply.Bulk(FormatStreamId(group.last_delivered_id));
    ReplyGroupProgress(ctx.reply, group);
  }
}

// XINFO CONSUMERS key group
void XInfoConsumers(CommandContext& ctx) {
  const std::string_view key = ctx.args[2];
  const std::string_view group = ctx.args[3];
  Result<StreamConsumersResult> consumers = ctx.data.StreamConsumers(key, group);
  if (!consumers.ok()) return ReplyStatus(ctx.reply, consumers.status());
  if (consumers->outcome == StreamGroupOutcome::kNoStream) {
    return ctx.reply.Error("ERR no such key");
  }
  if (consumers->outcome == StreamGroupOutcome::kNoGroup) {
    return ctx.reply.Error(NoSuchGroup(key, group));
  }
  ctx.reply.ArrayHeader(consumers->consumers.size());
  for (const StreamConsumerInfo& consumer : consumers->consumers) {
    ctx.reply.MapHeader(3);
    ctx.reply.Bulk("name");
    ctx.reply.Bulk(consumer.name);
    ctx.reply.Bulk("pending");
    ctx.reply.Integer(static_cast<std::int64_t>(consumer.pending));
    ctx.reply.Bulk("idle");
    ctx.reply.Integer(consumer.idle_ms);
  }
}

void XInfoHelp(CommandContext& ctx) {
  static constexpr std::string_view kHelp[] = {
      "XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CONSUMERS <key> <groupname>",
      "    Show consumers of <groupname>.",
      "GROUPS <key>",
      "    Show the stream consumer groups.",
      "STREAM <key> [FULL [COUNT <count>]",
      "    Show information about the stream.",
      "HELP",
      "    Print this help.",
  };
  ctx.reply.ArrayHeader(std::size(kHelp));
  for (std::string_view line : kHelp) ctx.reply.SimpleString(line);
}

// XINFO's subcommands, with their arities as Redis declares them (negative: at least).
constexpr Subcommand kXInfoSubcommands[] = {
    {"stream", -3, XInfoStream},
    {"groups", 3, XInfoGroups},
    {"consumers", 4, XInfoConsumers},
    {"help", 2, XInfoHelp},
};

void XInfo(CommandContext& ctx) { RunSubcommand(ctx, kXInfoSubcommands, "XINFO"); }

}  // namespace

void RegisterStreamCommands(CommandTable& table) {
  table.Register({"xadd", -5, kWrite | kFast | kBatch, 1, 1, 1, XAdd, "stream",
                  "Appends a new message to a stream. Creates the key if it doesn't exist.",
                  "5.0.0"});
  table.Register({"xtrim", -4, kWrite | kBatch, 1, 1, 1, XTrim, "stream",
                  "Deletes messages from the beginning of a stream.", "5.0.0"});
  table.Register({"xdel", -3, kWrite | kFast | kBatch, 1, 1, 1, XDel, "stream",
                  "Returns the number of messages after removing them from a stream.", "5.0.0"});
  table.Register({"xlen", 2, kReadOnly | kFast, 1, 1, 1, XLen, "stream",
                  "Return the number of messages in a stream.", "5.0.0"});
  table.Register({"xrange", -4, kReadOnly, 1, 1, 1, XRange, "stream",
                  "Returns the messages from a stream within a range of IDs.", "5.0.0"});
  table.Register({"xrevrange", -4, kReadOnly, 1, 1, 1, XRevRange, "stream",
                  "Returns the messages from a stream within a range of IDs in reverse order.",
                  "5.0.0"});
  table.Register(
      {"xread", -4, kReadOnly | kBlocksOnRequest | kMovableKeys, 0, 0, 0, XRead, "stream",
       "Returns messages from multiple streams with IDs greater than the ones requested. Blocks "
       "until a message is available otherwise.",
       "5.0.0"});
  table.Register({"xinfo", -2, kReadOnly, 0, 0, 0, XInfo, "stream",
                  "A container for stream introspection commands.", "5.0.0"});
}

}  // namespace cairn::server
