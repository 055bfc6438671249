// String commands: GET, SET and its variants, GETDEL, GETEX, GETSET, MGET, MSET, MSETNX, the
// INCR family, INCRBYFLOAT, APPEND, STRLEN, GETRANGE, SETRANGE.
#include <cmath>
#include <string>

#include "args/arguments.h"
#include "args/ascii.h"
#include "args/errors.h"
#include "commands/all_commands.h"
#include "commands/expiry_args.h"
#include "execution/atomically.h"
#include "execution/command_table.h"
#include "execution/server_state.h"

namespace cairn::server {
namespace {

// Redis's largest string (proto-max-bulk-len's default): SETRANGE and APPEND may not pass it.
constexpr std::int64_t kMaxStringBytes = 512ll * 1024 * 1024;

std::int64_t Now(CommandContext& ctx) { return ctx.server.clock().NowMs(); }

void ReplyOptional(resp::ReplyWriter& reply, const std::optional<std::string>& value) {
  value ? reply.Bulk(*value) : reply.Null();
}

void Get(CommandContext& ctx) {
  Result<std::optional<std::string>> value = ctx.data.Get(ctx.args[1]);
  if (!value.ok()) return ReplyStatus(ctx.reply, value.status());
  ReplyOptional(ctx.reply, *value);
}

// SET key value [NX | XX] [GET] [EX s | PX ms | EXAT t | PXAT t | KEEPTTL]
void Set(CommandContext& ctx) {
  SetOptions options;
  bool get = false, has_expiry = false;
  OptionParser p(ctx.args, 3);
  while (!p.Done()) {
    if (options.condition != SetCondition::kIfPresent && p.Word("nx")) {
      options.condition = SetCondition::kIfAbsent;
    } else if (options.condition != SetCondition::kIfAbsent && p.Word("xx")) {
      options.condition = SetCondition::kIfPresent;
    } else if (p.Word("get")) {
      get = true;
    } else if (!has_expiry && p.Word("keepttl")) {
      options.expiry = Expiry::Keep();
      has_expiry = true;
    } else if (const auto unit = has_expiry ? std::nullopt : TakeExpiryUnit(p)) {
      CAIRN_ARG_OR_REPLY(ctx.reply, options.expiry, TakeExpiry(p, *unit, "set", Now(ctx)));
      has_expiry = true;
    } else {
      return ctx.reply.Error(kSyntaxError);
    }
  }
  options.return_old = get;
  Result<SetResult> result = ctx.data.Set(ctx.args[1], ctx.args[2], options);
  if (!result.ok()) return ReplyStatus(ctx.reply, result.status());
  if (get) return ReplyOptional(ctx.reply, result->old_value);
  result->applied ? ctx.reply.Ok() : ctx.reply.Null();
}

void SetNx(CommandContext& ctx) {
  Result<SetResult> result =
      ctx.data.Set(ctx.args[1], ctx.args[2], {.condition = SetCondition::kIfAbsent});
  if (!result.ok()) return ReplyStatus(ctx.reply, result.status());
  ctx.reply.Integer(result->applied ? 1 : 0);
}

void SetWithExpiry(CommandContext& ctx, ExpiryUnit unit, std::string_view name) {
  OptionParser p(ctx.args, 2);
  CAIRN_ARG_OR_REPLY(ctx.reply, const Expiry expiry, TakeExpiry(p, unit, name, Now(ctx)));
  Result<SetResult> result = ctx.data.Set(ctx.args[1], ctx.args[3], {.expiry = expiry});
  if (!result.ok()) return ReplyStatus(ctx.reply, result.status());
  ctx.reply.Ok();
}
void SetEx(CommandContext& ctx) { SetWithExpiry(ctx, ExpiryUnit::kSeconds, "setex"); }
void PSetEx(CommandContext& ctx) { SetWithExpiry(ctx, ExpiryUnit::kMilliseconds, "psetex"); }

void GetSet(CommandContext& ctx) {
  Result<SetResult> result = ctx.data.Set(ctx.args[1], ctx.args[2], {.return_old = true});
  if (!result.ok()) return ReplyStatus(ctx.reply, result.status());
  ReplyOptional(ctx.reply, result->old_value);
}

void GetDel(CommandContext& ctx) {
  std::optional<std::string> value;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    Result<std::optional<std::string>> got = data.Get(ctx.args[1]);
    if (!got.ok()) return got.status();
    value = std::move(*got);
    if (value) {
      Result<bool> deleted = data.Delete(ctx.args[1]);
      if (!deleted.ok()) return deleted.status();
    }
    return Status::Ok();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  ReplyOptional(ctx.reply, value);
}

// GETEX key [EX s | PX ms | EXAT t | PXAT t | PERSIST]
void GetEx(CommandContext& ctx) {
  std::optional<Expiry> expiry;
  bool persist = false;
  OptionParser p(ctx.args, 2);
  while (!p.Done()) {
    const bool first = !expiry && !persist;
    if (first && p.Word("persist")) {
      persist = true;
    } else if (const auto unit = first ? TakeExpiryUnit(p) : std::nullopt) {
      CAIRN_ARG_OR_REPLY(ctx.reply, expiry, TakeExpiry(p, *unit, "getex", Now(ctx)));
    } else {
      return ctx.reply.Error(kSyntaxError);
    }
  }
  std::optional<std::string> value;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    Result<std::optional<std::string>> got = data.Get(ctx.args[1]);
    if (!got.ok()) return got.status();
    value = std::move(*got);
    if (!value) return Status::Ok();
    if (persist) return data.Persist(ctx.args[1]).status();
    if (expiry) return data.ExpireAt(ctx.args[1], expiry->ms()).status();
    return Status::Ok();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  ReplyOptional(ctx.reply, value);
}

void MGet(CommandContext& ctx) {
  std::vector<std::optional<std::string>> values;
  values.reserve(ctx.args.size() - 1);
  for (std::size_t i = 1; i < ctx.args.size(); ++i) {
    Result<std::optional<std::string>> value = ctx.data.Get(ctx.args[i]);
    if (!value.ok()) return ReplyStatus(ctx.reply, value.status());
    values.push_back(std::move(*value));
  }
  ctx.reply.ArrayHeader(values.size());
  for (const auto& value : values) ReplyOptional(ctx.reply, value);
}

// MSET and MSETNX: all pairs in one transaction; MSETNX writes none if any key exists.
void MultiSet(CommandContext& ctx, bool only_if_none_exist) {
  if (ctx.args.size() % 2 == 0) return ctx.reply.Error(WrongArity(ToLower(ctx.args[0])));
  bool written = false;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    written = false;
    if (only_if_none_exist) {
      for (std::size_t i = 1; i < ctx.args.size(); i += 2) {
        Result<std::optional<std::string>> got = data.Get(ctx.args[i]);
        if (!got.ok()) return got.status();
        if (*got) return Status::Ok();
      }
    }
    for (std::size_t i = 1; i < ctx.args.size(); i += 2) {
      Result<SetResult> set = data.Set(ctx.args[i], ctx.args[i + 1]);
      if (!set.ok()) return set.status();
    }
    written = true;
    return Status::Ok();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  only_if_none_exist ? ctx.reply.Integer(written ? 1 : 0) : ctx.reply.Ok();
}
void MSet(CommandContext& ctx) { MultiSet(ctx, false); }
void MSetNx(CommandContext& ctx) { MultiSet(ctx, true); }

void IncrementBy(CommandContext& ctx, std::int64_t delta) {
  Result<std::int64_t> value = ctx.data.IncrBy(ctx.args[1], delta);
  if (!value.ok()) {
    if (value.status().code() == StatusCode::kInvalidArgument) return ctx.reply.Error(kNotInteger);
    return ReplyStatus(ctx.reply, value.status());
  }
  ctx.reply.Integer(*value);
}
void Incr(CommandContext& ctx) { IncrementBy(ctx, 1); }
void Decr(CommandContext& ctx) { IncrementBy(ctx, -1); }
void IncrBy(CommandContext& ctx) {
  const std::optional<std::int64_t> delta = ParseInt64(ctx.args[2]);
  if (!delta) return ctx.reply.Error(kNotInteger);
  IncrementBy(ctx, *delta);
}
void DecrBy(CommandContext& ctx) {
  const std::optional<std::int64_t> delta = ParseInt64(ctx.args[2]);
  if (!delta) return ctx.reply.Error(kNotInteger);
  if (*delta == INT64_MIN) return ctx.reply.Error("ERR decrement would overflow");
  IncrementBy(ctx, -*delta);
}

void IncrByFloat(CommandContext& ctx) {
  const std::optional<long double> delta = ParseLongDouble(ctx.args[2]);
  if (!delta) return ctx.reply.Error(kNotFloat);
  std::string formatted;
  std::string error;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    error.clear();
    Result<std::optional<std::string>> got = data.Get(ctx.args[1]);
    if (!got.ok()) return got.status();
    error = AddFloat(*got, *delta, kNotFloat, &formatted);
    if (!error.empty()) return Status::Ok();
    return data.Set(ctx.args[1], formatted, {.expiry = Expiry::Keep()}).status();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  if (!error.empty()) return ctx.reply.Error(error);
  ctx.reply.Bulk(formatted);
}

void Append(CommandContext& ctx) {
  std::size_t length = 0;
  bool too_big = false;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    Result<std::optional<std::string>> got = data.Get(ctx.args[1]);
    if (!got.ok()) return got.status();
    std::string value = got->value_or("");
    too_big = static_cast<std::int64_t>(value.size() + ctx.args[2].size()) > kMaxStringBytes;
    if (too_big) return Status::Ok();
    value.append(ctx.args[2]);
    length = value.size();
    return data.Set(ctx.args[1], value, {.expiry = Expiry::Keep()}).status();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  if (too_big)
    return ctx.reply.Error("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
  ctx.reply.Integer(static_cast<std::int64_t>(length));
}

void StrLen(CommandContext& ctx) {
  Result<std::optional<std::string>> value = ctx.data.Get(ctx.args[1]);
  if (!value.ok()) return ReplyStatus(ctx.reply, value.status());
  ctx.reply.Integer(*value ? static_cast<std::int64_t>((*value)->size()) : 0);
}

void GetRange(CommandContext& ctx) {
  const std::optional<std::int64_t> start_arg = ParseInt64(ctx.args[2]);
  const std::optional<std::int64_t> end_arg = ParseInt64(ctx.args[3]);
  if (!start_arg || !end_arg) return ctx.reply.Error(kNotInteger);
  Result<std::optional<std::string>> value = ctx.data.Get(ctx.args[1]);
  if (!value.ok()) return ReplyStatus(ctx.reply, value.status());
  const std::string s = value->value_or("");
  std::int64_t start = *start_arg, end = *end_arg;
  const auto len = static_cast<std::int64_t>(s.size());
  // Redis: an empty range when both ends are negative and start > end.
  if (start < 0 && end < 0 && start > end) return ctx.reply.Bulk("");
  if (start < 0) start = std::max<std::int64_t>(len + start, 0);
  if (end < 0) end = std::max<std::int64_t>(len + end, 0);
  if (end >= len) end = len - 1;
  if (len == 0 || start > end) return ctx.reply.Bulk("");
  ctx.reply.Bulk(std::string_view(s).substr(static_cast<std::size_t>(start),
                                            static_cast<std::size_t>(end - start + 1)));
}

void SetRange(CommandContext& ctx) {
  const std::optional<std::int64_t> offset = ParseInt64(ctx.args[2]);
  if (!offset) return ctx.reply.Error(kNotInteger);
  if (*offset < 0) return ctx.reply.Error("ERR offset is out of range");
  const std::string_view patch = ctx.args[3];
  // Compared without adding, which would overflow for an offset near INT64_MAX.
  if (!patch.empty() && *offset > kMaxStringBytes - static_cast<std::int64_t>(patch.size())) {
    return ctx.reply.Error("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
  }
  std::size_t length = 0;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    Result<std::optional<std::string>> got = data.Get(ctx.args[1]);
    if (!got.ok()) return got.status();
    std::string value = got->value_or("");
    if (patch.empty()) {  // Nothing to write: Redis neither creates nor pads the key.
      length = value.size();
      return Status::Ok();
    }
    const auto at = static_cast<std::size_t>(*offset);
    if (value.size() < at + patch.size()) value.resize(at + patch.size(), '\0');
    value.replace(at, patch.size(), patch);
    length = value.size();
    return data.Set(ctx.args[1], value, {.expiry = Expiry::Keep()}).status();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  ctx.reply.Integer(static_cast<std::int64_t>(length));
}

}  // namespace

void RegisterStringCommands(CommandTable& table) {
  const std::uint32_t read = kReadOnly | kFast, write = kWrite | kBatch,
                      fast_write = kWrite | kFast | kBatch;
  table.Register(
      {"get", 2, read, 1, 1, 1, Get, "string", "Returns the string value of a key.", "1.0.0"});
  table.Register(
      {"set", -3, write, 1, 1, 1, Set, "string",
       "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.",
       "1.0.0"});
  table.Register({"setnx", 3, fast_write, 1, 1, 1, SetNx, "string",
                  "Set the string value of a key only when the key doesn't exist.", "1.0.0"});
  table.Register(
      {"setex", 4, write, 1, 1, 1, SetEx, "string",
       "Sets the string value and expiration time of a key. Creates the key if it doesn't exist.",
       "2.0.0"});
  table.Register(
      {"psetex", 4, write, 1, 1, 1, PSetEx, "string",
       "Sets both string value and expiration time in milliseconds of a key. The key is created if "
       "it doesn't exist.",
       "2.6.0"});
  table.Register({"getset", 3, fast_write, 1, 1, 1, GetSet, "string",
                  "Returns the previous string value of a key after setting it to a new value.",
                  "1.0.0"});
  table.Register({"getdel", 2, fast_write, 1, 1, 1, GetDel, "string",
                  "Returns the string value of a key after deleting the key.", "6.2.0"});
  table.Register({"getex", -2, fast_write, 1, 1, 1, GetEx, "string",
                  "Returns the string value of a key after setting its expiration time.", "6.2.0"});
  table.Register({"mget", -2, read, 1, -1, 1, MGet, "string",
                  "Atomically returns the string values of one or more keys.", "1.0.0"});
  table.Register({"mset", -3, write, 1, -1, 2, MSet, "string",
                  "Atomically creates or modifies the string values of one or more keys.",
                  "1.0.1"});
  table.Register(
      {"msetnx", -3, write, 1, -1, 2, MSetNx, "string",
       "Atomically modifies the string values of one or more keys only when all keys don't exist.",
       "1.0.1"});
  table.Register(
      {"incr", 2, fast_write, 1, 1, 1, Incr, "string",
       "Increments the integer value of a key by one. Uses 0 as initial value if the key doesn't "
       "exist.",
       "1.0.0"});
  table.Register(
      {"decr", 2, fast_write, 1, 1, 1, Decr, "string",
       "Decrements the integer value of a key by one. Uses 0 as initial value if the key doesn't "
       "exist.",
       "1.0.0"});
  table.Register(
      {"incrby", 3, fast_write, 1, 1, 1, IncrBy, "string",
       "Increments the integer value of a key by a number. Uses 0 as initial value if the key "
       "doesn't exist.",
       "1.0.0"});
  table.Register(
      {"decrby", 3, fast_write, 1, 1, 1, DecrBy, "string",
       "Decrements a number from the integer value of a key. Uses 0 as initial value if the key "
       "doesn't exist.",
       "1.0.0"});
  table.Register({"incrbyfloat", 3, fast_write, 1, 1, 1, IncrByFloat, "string",
                  "Increment the floating point value of a key by a number. Uses 0 as initial "
                  "value if the key "
                  "doesn't exist.",
                  "2.6.0"});
  table.Register({"append", 3, fast_write, 1, 1, 1, Append, "string",
                  "Appends a string to the value of a key. Creates the key if it doesn't exist.",
                  "2.0.0"});
  table.Register({"strlen", 2, read, 1, 1, 1, StrLen, "string",
                  "Returns the length of a string value.", "2.2.0"});
  table.Register({"getrange", 4, kReadOnly, 1, 1, 1, GetRange, "string",
                  "Returns a substring of the string stored at a key.", "2.4.0"});
  table.Register(
      {"setrange", 4, write, 1, 1, 1, SetRange, "string",
       "Overwrites a part of a string value with another by an offset. Creates the key if it "
       "doesn't exist.",
       "2.2.0"});
}

}  // namespace cairn::server
