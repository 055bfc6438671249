// Hash commands: HSET, HSETNX, HGET, HMGET, HMSET, HDEL, HLEN, HEXISTS, HGETALL, HKEYS, HVALS,
// HINCRBY, HINCRBYFLOAT, HSTRLEN, HRANDFIELD, HSCAN. Fields come back in byte order (Redis
// keeps small hashes in insertion order and leaves the order unspecified).
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "args/arguments.h"
#include "args/ascii.h"
#include "args/errors.h"
#include "cairn/limits.h"
#include "commands/all_commands.h"
#include "commands/member_commands.h"
#include "config/server_config.h"
#include "execution/atomically.h"
#include "execution/command_table.h"
#include "execution/server_state.h"

namespace cairn::server {
namespace {

// Calls visit for every field of the hash, in byte order, a page at a time. A hash of up to
// kMaxScanCount fields is one page, read from one snapshot.
Status ForEachField(Records& data, std::string_view key,
                    const std::function<void(HashEntry&)>& visit) {
  std::string cursor;
  do {
    Result<HashPage> page = data.HashScan(key, {.cursor = cursor, .count = kMaxScanCount});
    if (!page.ok()) return page.status();
    for (HashEntry& e : page->entries) visit(e);
    cursor = std::move(page->cursor);
  } while (!cursor.empty());
  return Status::Ok();
}

// The (field, value) pairs of args[first…], or an arity error when they do not pair up.
std::vector<HashField> FieldPairs(CommandContext& ctx, std::size_t first) {
  std::vector<HashField> fields;
  fields.reserve((ctx.args.size() - first) / 2);
  for (std::size_t i = first; i + 1 < ctx.args.size(); i += 2) {
    fields.push_back({ctx.args[i], ctx.args[i + 1]});
  }
  return fields;
}

void SetFields(CommandContext& ctx, bool reply_count) {
  if ((ctx.args.size() - 2) % 2 != 0) return ctx.reply.Error(WrongArity(ToLower(ctx.args[0])));
  const std::vector<HashField> fields = FieldPairs(ctx, 2);
  Result<std::size_t> added = ctx.data.HashSet(ctx.args[1], fields);
  if (!added.ok()) return ReplyStatus(ctx.reply, added.status());
  reply_count ? ctx.reply.Integer(static_cast<std::int64_t>(*added)) : ctx.reply.Ok();
}
void HSet(CommandContext& ctx) { SetFields(ctx, true); }
void HMSet(CommandContext& ctx) { SetFields(ctx, false); }

void HSetNx(CommandContext& ctx) {
  bool set = false;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    Result<std::optional<std::string>> got = data.HashGet(ctx.args[1], ctx.args[2]);
    if (!got.ok()) return got.status();
    set = !got->has_value();
    if (!set) return Status::Ok();
    const HashField field{ctx.args[2], ctx.args[3]};
    return data.HashSet(ctx.args[1], {&field, 1}).status();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  ctx.reply.Integer(set ? 1 : 0);
}

void HGet(CommandContext& ctx) {
  Result<std::optional<std::string>> value = ctx.data.HashGet(ctx.args[1], ctx.args[2]);
  if (!value.ok()) return ReplyStatus(ctx.reply, value.status());
  *value ? ctx.reply.Bulk(**value) : ctx.reply.Null();
}

void HMGet(CommandContext& ctx) {
  Result<std::vector<std::optional<std::string>>> values =
      ctx.data.HashGetMany(ctx.args[1], std::span(ctx.args).subspan(2));
  if (!values.ok()) return ReplyStatus(ctx.reply, values.status());
  ctx.reply.ArrayHeader(values->size());
  for (const auto& value : *values) value ? ctx.reply.Bulk(*value) : ctx.reply.Null();
}

void HDel(CommandContext& ctx) {
  const std::vector<std::string_view> fields(ctx.args.begin() + 2, ctx.args.end());
  Result<std::size_t> removed = ctx.data.HashDelete(ctx.args[1], fields);
  if (!removed.ok()) return ReplyStatus(ctx.reply, removed.status());
  ctx.reply.Integer(static_cast<std::int64_t>(*removed));
}

void HLen(CommandContext& ctx) {
  Result<std::uint64_t> length = ctx.data.HashLength(ctx.args[1]);
  if (!length.ok()) return ReplyStatus(ctx.reply, length.status());
  ctx.reply.Integer(static_cast<std::int64_t>(*length));
}

void HExists(CommandContext& ctx) {
  Result<std::optional<std::string>> value = ctx.data.HashGet(ctx.args[1], ctx.args[2]);
  if (!value.ok()) return ReplyStatus(ctx.reply, value.status());
  ctx.reply.Integer(value->has_value() ? 1 : 0);
}

void HStrLen(CommandContext& ctx) {
  Result<std::optional<std::string>> value = ctx.data.HashGet(ctx.args[1], ctx.args[2]);
  if (!value.ok()) return ReplyStatus(ctx.reply, value.status());
  ctx.reply.Integer(*value ? static_cast<std::int64_t>((*value)->size()) : 0);
}

enum class Part { kFields, kValues, kBoth };

// HGETALL (a map under RESP3), HKEYS, HVALS.
void ReplyAll(CommandContext& ctx, Part part) {
  std::vector<HashEntry> entries;
  Status s = ForEachField(ctx.data, ctx.args[1], [&](HashEntry& e) { entries.push_back(e); });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  part == Part::kBoth ? ctx.reply.MapHeader(entries.size()) : ctx.reply.ArrayHeader(entries.size());
  for (const HashEntry& e : entries) {
    if (part != Part::kValues) ctx.reply.Bulk(e.field);
    if (part != Part::kFields) ctx.reply.Bulk(e.value);
  }
}
void HGetAll(CommandContext& ctx) { ReplyAll(ctx, Part::kBoth); }
void HKeys(CommandContext& ctx) { ReplyAll(ctx, Part::kFields); }
void HVals(CommandContext& ctx) { ReplyAll(ctx, Part::kValues); }

void HIncrBy(CommandContext& ctx) {
  const std::optional<std::int64_t> delta = ParseInt64(ctx.args[3]);
  if (!delta) return ctx.reply.Error(kNotInteger);
  std::int64_t next = 0;
  std::string_view error;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    error = {};
    Result<std::optional<std::string>> got = data.HashGet(ctx.args[1], ctx.args[2]);
    if (!got.ok()) return got.status();
    std::int64_t current = 0;
    if (*got) {
      const std::optional<std::int64_t> parsed = ParseInt64(**got);
      if (!parsed) {
        error = "ERR hash value is not an integer";
        return Status::Ok();
      }
      current = *parsed;
    }
    if (__builtin_add_overflow(current, *delta, &next)) {
      error = kOverflowError;
      return Status::Ok();
    }
    const std::string formatted = std::to_string(next);
    const HashField field{ctx.args[2], formatted};
    return data.HashSet(ctx.args[1], {&field, 1}).status();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  if (!error.empty()) return ctx.reply.Error(error);
  ctx.reply.Integer(next);
}

void HIncrByFloat(CommandContext& ctx) {
  const std::optional<long double> delta = ParseLongDouble(ctx.args[3]);
  if (!delta) return ctx.reply.Error(kNotFloat);
  if (std::isnan(*delta) || std::isinf(*delta)) {
    return ctx.reply.Error("ERR value is NaN or Infinity");
  }
  std::string formatted;
  std::string_view error;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    error = {};
    Result<std::optional<std::string>> got = data.HashGet(ctx.args[1], ctx.args[2]);
    if (!got.ok()) return got.status();
    error = AddFloat(*got, *delta, "ERR hash value is not a float", &formatted);
    if (!error.empty()) return Status::Ok();
    const HashField field{ctx.args[2], formatted};
    return data.HashSet(ctx.args[1], {&field, 1}).status();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  if (!error.empty()) return ctx.reply.Error(error);
  ctx.reply.Bulk(formatted);
}

// HRANDFIELD key [count [WITHVALUES]]
void HRandField(CommandContext& ctx) {
  std::optional<std::int64_t> count;
  bool with_values = false;
  if (ctx.args.size() >= 3) {
    count = ParseInt64(ctx.args[2]);
    if (!count || *count < -INT64_MAX) return ctx.reply.Error(kNotInteger);
    if (ctx.args.size() > 4 ||
        (ctx.args.size() == 4 && !EqualsIgnoreCase(ctx.args[3], "withvalues"))) {
      return ctx.reply.Error(kSyntaxError);
    }
    with_values = ctx.args.size() == 4;
    if (*count < -kMaxRandomPicks) return ctx.reply.Error("ERR value is out of range");
  }
  std::vector<HashEntry> entries;
  Status s = ForEachField(ctx.data, ctx.args[1], [&](HashEntry& e) { entries.push_back(e); });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  if (!count) {
    if (entries.empty()) return ctx.reply.Null();
    return ctx.reply.Bulk(entries[RandomPicks(entries.size(), 1, ThreadRng())[0]].field);
  }
  const std::vector<std::size_t> picks = RandomPicks(entries.size(), *count, ThreadRng());
  if (with_values && ctx.session.protocol == 3) {
    ctx.reply.ArrayHeader(picks.size());
    for (std::size_t i : picks) {
      ctx.reply.ArrayHeader(2);
      ctx.reply.Bulk(entries[i].field);
      ctx.reply.Bulk(entries[i].value);
    }
    return;
  }
  ctx.reply.ArrayHeader(picks.size() * (with_values ? 2 : 1));
  for (std::size_t i : picks) {
    ctx.reply.Bulk(entries[i].field);
    if (with_values) ctx.reply.Bulk(entries[i].value);
  }
}

// HSCAN key cursor [MATCH pattern] [COUNT count]
void HScan(CommandContext& ctx) {
  std::optional<MemberScanArgs> args = ParseMemberScan(ctx, &Records::HashLength);
  if (!args) return;
  Result<HashPage> page =
      ctx.data.HashScan(ctx.args[1], {.cursor = args->resume, .count = MemberScanPageSize(*args)});
  if (!page.ok()) return ReplyStatus(ctx.reply, page.status());
  std::vector<std::string_view> items;
  for (const HashEntry& e : page->entries) {
    if (args->pattern && !GlobMatch(*args->pattern, e.field, false)) continue;
    items.push_back(e.field);
    items.push_back(e.value);
  }
  ReplyMemberScan(ctx, std::move(page->cursor), items);
}

}  // namespace

void RegisterHashCommands(CommandTable& table) {
  const std::uint32_t read = kReadOnly | kFast, write = kWrite | kFast | kBatch;
  table.Register({"hset", -4, write, 1, 1, 1, HSet, "hash",
                  "Creates or modifies the value of a field in a hash.", "2.0.0"});
  table.Register(
      {"hmset", -4, write, 1, 1, 1, HMSet, "hash", "Sets the values of multiple fields.", "2.0.0"});
  table.Register({"hsetnx", 4, write, 1, 1, 1, HSetNx, "hash",
                  "Sets the value of a field in a hash only when the field doesn't exist.",
                  "2.0.0"});
  table.Register(
      {"hget", 3, read, 1, 1, 1, HGet, "hash", "Returns the value of a field in a hash.", "2.0.0"});
  table.Register({"hmget", -3, read, 1, 1, 1, HMGet, "hash",
                  "Returns the values of all fields in a hash.", "2.0.0"});
  table.Register({"hdel", -3, write, 1, 1, 1, HDel, "hash",
                  "Deletes one or more fields and their values from a hash.", "2.0.0"});
  table.Register(
      {"hlen", 2, read, 1, 1, 1, HLen, "hash", "Returns the number of fields in a hash.", "2.0.0"});
  table.Register({"hexists", 3, read, 1, 1, 1, HExists, "hash",
                  "Determines whether a field exists in a hash.", "2.0.0"});
  table.Register({"hstrlen", 3, read, 1, 1, 1, HStrLen, "hash",
                  "Returns the length of the value of a field.", "3.2.0"});
  table.Register({"hgetall", 2, kReadOnly, 1, 1, 1, HGetAll, "hash",
                  "Returns all fields and values in a hash.", "2.0.0"});
  table.Register(
      {"hkeys", 2, kReadOnly, 1, 1, 1, HKeys, "hash", "Returns all fields in a hash.", "2.0.0"});
  table.Register(
      {"hvals", 2, kReadOnly, 1, 1, 1, HVals, "hash", "Returns all values in a hash.", "2.0.0"});
  table.Register({"hincrby", 4, write, 1, 1, 1, HIncrBy, "hash",
                  "Increments the integer value of a field in a hash by a number.", "2.0.0"});
  table.Register({"hincrbyfloat", 4, write, 1, 1, 1, HIncrByFloat, "hash",
                  "Increments the floating point value of a field by a number.", "2.6.0"});
  table.Register({"hrandfield", -2, kReadOnly, 1, 1, 1, HRandField, "hash",
                  "Returns one or more random fields from a hash.", "6.2.0"});
  table.Register({"hscan", -3, kReadOnly, 1, 1, 1, HScan, "hash",
                  "Iterates over fields and values of a hash.", "2.8.0"});
}

}  // namespace cairn::server
