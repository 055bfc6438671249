// Keyspace commands: DEL, UNLINK, EXISTS, TYPE, the EXPIRE family, TTL, PTTL, EXPIRETIME,
// PEXPIRETIME, PERSIST, RENAME, RENAMENX, KEYS, SCAN, RANDOMKEY, TOUCH.
#include <algorithm>
#include <random>
#include <string>

#include "args/arguments.h"
#include "args/ascii.h"
#include "args/errors.h"
#include "args/option_parser.h"
#include "cairn/limits.h"
#include "commands/all_commands.h"
#include "commands/keyspace_scan.h"
#include "config/server_config.h"
#include "execution/atomically.h"
#include "execution/command_table.h"
#include "execution/server_state.h"

namespace cairn::server {
namespace {

std::int64_t Now(CommandContext& ctx) { return ctx.server.clock().NowMs(); }

// DEL and UNLINK: how many of the keys existed; all deleted in one transaction.
void Del(CommandContext& ctx) {
  std::int64_t deleted = 0;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    deleted = 0;
    for (std::size_t i = 1; i < ctx.args.size(); ++i) {
      Result<bool> d = data.Delete(ctx.args[i]);
      if (!d.ok()) return d.status();
      deleted += *d ? 1 : 0;
    }
    return Status::Ok();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  ctx.reply.Integer(deleted);
}

// EXISTS and TOUCH: how many of the keys exist (a key named twice counts twice).
void Exists(CommandContext& ctx) {
  std::int64_t found = 0;
  for (std::size_t i = 1; i < ctx.args.size(); ++i) {
    Result<TtlState> ttl = ctx.data.GetTtl(ctx.args[i]);
    if (!ttl.ok()) return ReplyStatus(ctx.reply, ttl.status());
    found += ttl->kind == TtlState::Kind::kMissing ? 0 : 1;
  }
  ctx.reply.Integer(found);
}

// The name TYPE and SCAN's TYPE option use for a kind of value.
std::string_view TypeName(KeyType type) {
  switch (type) {
    case KeyType::kNone:
      return "none";
    case KeyType::kString:
      return "string";
    case KeyType::kHash:
      return "hash";
    case KeyType::kSet:
      return "set";
    case KeyType::kZSet:
      return "zset";
    case KeyType::kList:
      return "list";
    case KeyType::kStream:
      return "stream";
  }
  return "none";
}

void Type(CommandContext& ctx) {
  Result<KeyType> type = ctx.data.Type(ctx.args[1]);
  if (!type.ok()) return ReplyStatus(ctx.reply, type.status());
  ctx.reply.SimpleString(TypeName(*type));
}

// EXPIRE key n [NX | XX | GT | LT], and PEXPIRE, EXPIREAT, PEXPIREAT.
void ExpireGeneric(CommandContext& ctx, bool seconds, bool absolute, std::string_view name) {
  const std::optional<std::int64_t> n = ParseInt64(ctx.args[2]);
  if (!n) return ctx.reply.Error(kNotInteger);
  bool nx = false, xx = false, gt = false, lt = false;
  bool* const flags[] = {&nx, &xx, &gt, &lt};
  OptionParser p(ctx.args, 3);
  while (!p.Done()) {
    const std::optional<std::size_t> flag = p.OneOf({"nx", "xx", "gt", "lt"});
    if (!flag) return ctx.reply.Error("ERR Unsupported option " + std::string(*p.Text()));
    *flags[*flag] = true;
  }
  if (nx && (xx || gt || lt)) {
    return ctx.reply.Error("ERR NX and XX, GT or LT options at the same time are not compatible");
  }
  if (gt && lt) {
    return ctx.reply.Error("ERR GT and LT options at the same time are not compatible");
  }
  // The absolute deadline in ms, refusing what overflows as Redis does.
  std::int64_t when = *n;
  if (seconds) {
    if (when > INT64_MAX / 1000 || when < INT64_MIN / 1000) {
      return ctx.reply.Error(InvalidExpire(name));
    }
    when *= 1000;
  }
  const std::int64_t now = Now(ctx);
  if (!absolute) {
    if ((when > 0 && when > INT64_MAX - now) || (when < 0 && when < INT64_MIN + now)) {
      return ctx.reply.Error(InvalidExpire(name));
    }
    when += now;
  }
  bool applied = false;
  // Without a condition one read of the key does (ExpireAt says whether it exists); a deadline
  // the store refuses must still answer 0 for a missing key, so it goes the long way.
  const bool direct = !(nx || xx || gt || lt) && (when <= now || when - now <= kMaxTtlMs);
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    applied = false;
    if (direct) {
      Result<bool> done = when <= now ? data.Delete(ctx.args[1]) : data.ExpireAt(ctx.args[1], when);
      if (!done.ok()) return done.status();
      applied = *done;
      return Status::Ok();
    }
    Result<TtlState> ttl = data.GetTtl(ctx.args[1]);
    if (!ttl.ok()) return ttl.status();
    if (ttl->kind == TtlState::Kind::kMissing) return Status::Ok();
    const bool persistent = ttl->kind == TtlState::Kind::kNoExpiry;
    // A key without expiry counts as an infinite TTL for GT and LT.
    if ((nx && !persistent) || (xx && persistent) ||
        (gt && (persistent || when <= ttl->expires_at_ms)) ||
        (lt && !persistent && when >= ttl->expires_at_ms)) {
      return Status::Ok();
    }
    applied = true;
    if (when <= now) return data.Delete(ctx.args[1]).status();
    return data.ExpireAt(ctx.args[1], when).status();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  ctx.reply.Integer(applied ? 1 : 0);
}
void Expire(CommandContext& ctx) { ExpireGeneric(ctx, true, false, "expire"); }
void PExpire(CommandContext& ctx) { ExpireGeneric(ctx, false, false, "pexpire"); }
void ExpireAt(CommandContext& ctx) { ExpireGeneric(ctx, true, true, "expireat"); }
void PExpireAt(CommandContext& ctx) { ExpireGeneric(ctx, false, true, "pexpireat"); }

// TTL, PTTL, EXPIRETIME, PEXPIRETIME: -2 missing, -1 no expiry.
void TtlGeneric(CommandContext& ctx, bool seconds, bool absolute) {
  Result<TtlState> ttl = ctx.data.GetTtl(ctx.args[1]);
  if (!ttl.ok()) return ReplyStatus(ctx.reply, ttl.status());
  if (ttl->kind == TtlState::Kind::kMissing) return ctx.reply.Integer(-2);
  if (ttl->kind == TtlState::Kind::kNoExpiry) return ctx.reply.Integer(-1);
  if (absolute) return ctx.reply.Integer(seconds ? ttl->expires_at_ms / 1000 : ttl->expires_at_ms);
  // Redis rounds the remaining seconds to the nearest.
  ctx.reply.Integer(seconds ? (ttl->remaining_ms + 500) / 1000 : ttl->remaining_ms);
}
void Ttl(CommandContext& ctx) { TtlGeneric(ctx, true, false); }
void PTtl(CommandContext& ctx) { TtlGeneric(ctx, false, false); }
void ExpireTime(CommandContext& ctx) { TtlGeneric(ctx, true, true); }
void PExpireTime(CommandContext& ctx) { TtlGeneric(ctx, false, true); }

void Persist(CommandContext& ctx) {
  Result<bool> done = ctx.data.Persist(ctx.args[1]);
  if (!done.ok()) return ReplyStatus(ctx.reply, done.status());
  ctx.reply.Integer(*done ? 1 : 0);
}

// RENAME and RENAMENX: the value (of any kind) and its expiry move in one transaction.
void RenameGeneric(CommandContext& ctx, bool only_if_absent) {
  Result<RenameOutcome> outcome = ctx.data.Rename(ctx.args[1], ctx.args[2], only_if_absent);
  if (!outcome.ok()) return ReplyStatus(ctx.reply, outcome.status());
  if (*outcome == RenameOutcome::kNoSuchKey) return ctx.reply.Error("ERR no such key");
  if (only_if_absent) return ctx.reply.Integer(*outcome == RenameOutcome::kRenamed ? 1 : 0);
  ctx.reply.Ok();
}
void Rename(CommandContext& ctx) { RenameGeneric(ctx, false); }
void RenameNx(CommandContext& ctx) { RenameGeneric(ctx, true); }

void Keys(CommandContext& ctx) {
  std::vector<std::string> keys;
  Status s = ScanKeyspace(ctx.data, "", std::nullopt, [&](const ScanEntry& e) {
    if (GlobMatch(ctx.args[1], e.key, false)) keys.push_back(e.key);
    return true;
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  ctx.reply.ArrayHeader(keys.size());
  for (const std::string& key : keys) ctx.reply.Bulk(key);
}

// SCAN cursor [MATCH pattern] [COUNT n] [TYPE type]
void Scan(CommandContext& ctx) {
  const std::optional<std::int64_t> cursor_number = ParseInt64(ctx.args[1]);
  std::string resume;
  if (!cursor_number || *cursor_number < 0) return ctx.reply.Error("ERR invalid cursor");
  if (*cursor_number != 0) {
    std::optional<std::string> key =
        ctx.server.scan_cursors().Get(static_cast<std::uint64_t>(*cursor_number));
    if (!key) return ctx.reply.Error("ERR invalid cursor");
    resume = std::move(*key);
  }
  std::optional<std::string_view> pattern, type;
  std::int64_t count = 10;
  OptionParser p(ctx.args, 2);
  while (!p.Done()) {
    if (p.Left() < 2) return ctx.reply.Error(kSyntaxError);  // Options come in pairs.
    if (p.Word("match")) {
      pattern = *p.Text();
    } else if (p.Word("count")) {
      CAIRN_ARG_OR_REPLY(ctx.reply, count, p.Integer());
      if (count < 1) return ctx.reply.Error(kSyntaxError);
    } else if (p.Word("type")) {
      type = *p.Text();
    } else {
      return ctx.reply.Error(kSyntaxError);
    }
  }
  ScanRequest request;
  request.cursor = resume;
  request.count = static_cast<std::size_t>(std::min<std::int64_t>(count, kMaxScanCount));
  Result<ScanPage> page = ctx.data.Scan(request);
  if (!page.ok()) return ReplyStatus(ctx.reply, page.status());
  std::vector<std::string_view> keys;
  for (const ScanEntry& e : page->entries) {
    if (type && !EqualsIgnoreCase(*type, TypeName(e.type))) continue;
    if (!pattern || GlobMatch(*pattern, e.key, false)) keys.push_back(e.key);
  }
  const std::uint64_t next =
      page->cursor.empty() ? 0 : ctx.server.scan_cursors().Put(std::move(page->cursor));
  ctx.reply.ArrayHeader(2);
  ctx.reply.Bulk(std::to_string(next));
  ctx.reply.ArrayHeader(keys.size());
  for (std::string_view key : keys) ctx.reply.Bulk(key);
}

void RandomKey(CommandContext& ctx) {
  // Reservoir sampling over the keyspace: uniform, one pass, O(1) memory. O(n) where Redis is
  // O(1) (see COMPATIBILITY.md).
  std::optional<std::string> chosen;
  std::uint64_t seen = 0;
  thread_local std::mt19937_64 rng{std::random_device{}()};
  Status s = ScanKeyspace(ctx.data, "", std::nullopt, [&](const ScanEntry& e) {
    ++seen;
    if (std::uniform_int_distribution<std::uint64_t>(0, seen - 1)(rng) == 0) chosen = e.key;
    return true;
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  chosen ? ctx.reply.Bulk(*chosen) : ctx.reply.Null();
}

}  // namespace

void RegisterKeyCommands(CommandTable& table) {
  const std::uint32_t read = kReadOnly | kFast, fast_write = kWrite | kFast | kBatch;
  table.Register(
      {"del", -2, kWrite | kBatch, 1, -1, 1, Del, "generic", "Deletes one or more keys.", "1.0.0"});
  table.Register({"unlink", -2, kWrite | kFast | kBatch, 1, -1, 1, Del, "generic",
                  "Asynchronously deletes one or more keys.", "4.0.0"});
  table.Register({"exists", -2, read, 1, -1, 1, Exists, "generic",
                  "Determines whether one or more keys exist.", "1.0.0"});
  table.Register(
      {"touch", -2, read, 1, -1, 1, Exists, "generic",
       "Returns the number of existing keys out of those specified after updating the time they "
       "were last accessed.",
       "3.2.1"});
  table.Register({"type", 2, read, 1, 1, 1, Type, "generic",
                  "Determines the type of value stored at a key.", "1.0.0"});
  table.Register({"expire", -3, fast_write, 1, 1, 1, Expire, "generic",
                  "Sets the expiration time of a key in seconds.", "1.0.0"});
  table.Register({"pexpire", -3, fast_write, 1, 1, 1, PExpire, "generic",
                  "Sets the expiration time of a key in milliseconds.", "2.6.0"});
  table.Register({"expireat", -3, fast_write, 1, 1, 1, ExpireAt, "generic",
                  "Sets the expiration time of a key to a Unix timestamp.", "1.2.0"});
  table.Register({"pexpireat", -3, fast_write, 1, 1, 1, PExpireAt, "generic",
                  "Sets the expiration time of a key to a Unix milliseconds timestamp.", "2.6.0"});
  table.Register({"ttl", 2, read, 1, 1, 1, Ttl, "generic",
                  "Returns the expiration time in seconds of a key.", "1.0.0"});
  table.Register({"pttl", 2, read, 1, 1, 1, PTtl, "generic",
                  "Returns the expiration time in milliseconds of a key.", "2.6.0"});
  table.Register({"expiretime", 2, read, 1, 1, 1, ExpireTime, "generic",
                  "Returns the expiration time of a key as a Unix timestamp.", "7.0.0"});
  table.Register({"pexpiretime", 2, read, 1, 1, 1, PExpireTime, "generic",
                  "Returns the expiration time of a key as a Unix milliseconds timestamp.",
                  "7.0.0"});
  table.Register({"persist", 2, fast_write, 1, 1, 1, Persist, "generic",
                  "Removes the expiration time of a key.", "2.2.0"});
  table.Register({"rename", 3, kWrite | kBatch, 1, 2, 1, Rename, "generic",
                  "Renames a key and overwrites the destination.", "1.0.0"});
  table.Register({"renamenx", 3, fast_write, 1, 2, 1, RenameNx, "generic",
                  "Renames a key only when the target key name doesn't exist.", "1.0.0"});
  table.Register({"keys", 2, kReadOnly, 0, 0, 0, Keys, "generic",
                  "Returns all key names that match a pattern.", "1.0.0"});
  table.Register({"scan", -2, kReadOnly, 0, 0, 0, Scan, "generic",
                  "Iterates over the key names in the database.", "2.8.0"});
  table.Register({"randomkey", 1, kReadOnly, 0, 0, 0, RandomKey, "generic",
                  "Returns a random key name from the database.", "1.0.0"});
}

}  // namespace cairn::server
