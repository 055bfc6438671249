// List commands: LPUSH, RPUSH, LPUSHX, RPUSHX, LPOP, RPOP, LLEN, LRANGE, LINDEX, LSET, LREM,
// LTRIM, LINSERT, LPOS, LMOVE, RPOPLPUSH. Each is one library call, so each is atomic on its
// own, inside EXEC and in scripts alike. Arguments are checked in the order Redis checks them
// (some commands look at the key before their arguments), so the same bad request gets the
// same error. The blocking forms BLPOP, BRPOP, BLMOVE, BRPOPLPUSH wait as blocking.h says;
// LMPOP and BLMPOP, which look at several keys in one transaction, as multi_pop.h says.
#include <optional>
#include <string>
#include <vector>

#include "args/arguments.h"
#include "args/ascii.h"
#include "args/errors.h"
#include "args/option_parser.h"
#include "commands/all_commands.h"
#include "commands/multi_pop.h"
#include "execution/blocking.h"
#include "execution/command_table.h"

namespace cairn::server {
namespace {

constexpr std::string_view kNoSuchKey = "ERR no such key";
constexpr std::string_view kIndexOutOfRange = "ERR index out of range";
constexpr std::string_view kCountNotPositive = "ERR value is out of range, must be positive";

std::optional<ListEnd> ParseEnd(std::string_view word) {
  if (EqualsIgnoreCase(word, "left")) return ListEnd::kHead;
  if (EqualsIgnoreCase(word, "right")) return ListEnd::kTail;
  return std::nullopt;
}

std::vector<std::string_view> Args(CommandContext& ctx, std::size_t first) {
  return {ctx.args.begin() + static_cast<std::ptrdiff_t>(first), ctx.args.end()};
}

void ReplyItems(resp::ReplyWriter& reply, const std::vector<std::string>& items) {
  reply.ArrayHeader(items.size());
  for (const std::string& item : items) reply.Bulk(item);
}

void ReplyItem(CommandContext& ctx, const std::optional<std::string>& item) {
  item ? ctx.reply.Bulk(*item) : ctx.reply.Null();
}

// LINDEX and LSET look at the key before they parse the index: a missing key or one of
// another kind gets the reply it would get with a good index (nil, or `if_absent` when not
// empty). Replies with that, or with Redis's not-an-integer error when the key holds a list.
void ReplyBadIndex(CommandContext& ctx, std::string_view if_absent) {
  Result<std::uint64_t> length = ctx.data.ListLength(ctx.args[1]);
  if (!length.ok()) return ReplyStatus(ctx.reply, length.status());
  if (*length == 0) return if_absent.empty() ? ctx.reply.Null() : ctx.reply.Error(if_absent);
  ctx.reply.Error(kNotInteger);
}

void Push(CommandContext& ctx, ListEnd end, bool only_if_exists) {
  Result<std::uint64_t> length = ctx.data.ListPush(ctx.args[1], Args(ctx, 2), end, only_if_exists);
  if (!length.ok()) return ReplyStatus(ctx.reply, length.status());
  ctx.reply.Integer(static_cast<std::int64_t>(*length));
}
void LPush(CommandContext& ctx) { Push(ctx, ListEnd::kHead, false); }
void RPush(CommandContext& ctx) { Push(ctx, ListEnd::kTail, false); }
void LPushX(CommandContext& ctx) { Push(ctx, ListEnd::kHead, true); }
void RPushX(CommandContext& ctx) { Push(ctx, ListEnd::kTail, true); }

// LPOP/RPOP key [count]: without a count one item or nil; with one an array, nil (a null
// array) when the key is absent.
void Pop(CommandContext& ctx, ListEnd end) {
  if (ctx.args.size() > 3) return ctx.reply.Error(WrongArity(ToLower(ctx.args[0])));
  std::optional<std::int64_t> count;
  if (ctx.args.size() == 3) {
    count = ParseInt64(ctx.args[2]);
    if (!count || *count < 0) return ctx.reply.Error(kCountNotPositive);
  }
  Result<std::optional<std::vector<std::string>>> popped =
      ctx.data.ListPop(ctx.args[1], end, static_cast<std::uint64_t>(count.value_or(1)));
  if (!popped.ok()) return ReplyStatus(ctx.reply, popped.status());
  if (!*popped) return count ? ctx.reply.NullArray() : ctx.reply.Null();
  if (!count) return ctx.reply.Bulk((*popped)->front());
  ReplyItems(ctx.reply, **popped);
}
void LPop(CommandContext& ctx) { Pop(ctx, ListEnd::kHead); }
void RPop(CommandContext& ctx) { Pop(ctx, ListEnd::kTail); }

void LLen(CommandContext& ctx) {
  Result<std::uint64_t> length = ctx.data.ListLength(ctx.args[1]);
  if (!length.ok()) return ReplyStatus(ctx.reply, length.status());
  ctx.reply.Integer(static_cast<std::int64_t>(*length));
}

void LRange(CommandContext& ctx) {
  const std::optional<std::int64_t> start = ParseInt64(ctx.args[2]);
  const std::optional<std::int64_t> stop = ParseInt64(ctx.args[3]);
  if (!start || !stop) return ctx.reply.Error(kNotInteger);
  Result<std::vector<std::string>> items = ctx.data.ListRange(ctx.args[1], *start, *stop);
  if (!items.ok()) return ReplyStatus(ctx.reply, items.status());
  ReplyItems(ctx.reply, *items);
}

void LIndex(CommandContext& ctx) {
  const std::optional<std::int64_t> index = ParseInt64(ctx.args[2]);
  if (!index) return ReplyBadIndex(ctx, {});
  Result<std::optional<std::string>> item = ctx.data.ListIndex(ctx.args[1], *index);
  if (!item.ok()) return ReplyStatus(ctx.reply, item.status());
  ReplyItem(ctx, *item);
}

void LSet(CommandContext& ctx) {
  const std::optional<std::int64_t> index = ParseInt64(ctx.args[2]);
  if (!index) return ReplyBadIndex(ctx, kNoSuchKey);
  Result<ListSetOutcome> outcome = ctx.data.ListSet(ctx.args[1], *index, ctx.args[3]);
  if (!outcome.ok()) return ReplyStatus(ctx.reply, outcome.status());
  switch (*outcome) {
    case ListSetOutcome::kSet:
      return ctx.reply.Ok();
    case ListSetOutcome::kNoSuchKey:
      return ctx.reply.Error(kNoSuchKey);
    case ListSetOutcome::kOutOfRange:
      return ctx.reply.Error(kIndexOutOfRange);
  }
}

void LRem(CommandContext& ctx) {
  const std::optional<std::int64_t> count = ParseInt64(ctx.args[2]);
  if (!count) return ctx.reply.Error(kNotInteger);
  Result<std::uint64_t> removed = ctx.data.ListRemove(ctx.args[1], *count, ctx.args[3]);
  if (!removed.ok()) return ReplyStatus(ctx.reply, removed.status());
  ctx.reply.Integer(static_cast<std::int64_t>(*removed));
}

void LTrim(CommandContext& ctx) {
  const std::optional<std::int64_t> start = ParseInt64(ctx.args[2]);
  const std::optional<std::int64_t> stop = ParseInt64(ctx.args[3]);
  if (!start || !stop) return ctx.reply.Error(kNotInteger);
  Result<std::uint64_t> left = ctx.data.ListTrim(ctx.args[1], *start, *stop);
  if (!left.ok()) return ReplyStatus(ctx.reply, left.status());
  ctx.reply.Ok();
}

// LINSERT key BEFORE|AFTER pivot element
void LInsert(CommandContext& ctx) {
  bool before = false;
  if (EqualsIgnoreCase(ctx.args[2], "before")) {
    before = true;
  } else if (!EqualsIgnoreCase(ctx.args[2], "after")) {
    return ctx.reply.Error(kSyntaxError);
  }
  Result<std::int64_t> length = ctx.data.ListInsert(ctx.args[1], before, ctx.args[3], ctx.args[4]);
  if (!length.ok()) return ReplyStatus(ctx.reply, length.status());
  ctx.reply.Integer(*length);
}

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]: with COUNT an array of
// indexes, without it the first index or nil. A RANK of INT64_MIN is refused as Redis 7.2
// refuses it (7.0 negated it into an overflow).
void LPos(CommandContext& ctx) {
  ListPositionOptions options;
  bool with_count = false;
  OptionParser p(ctx.args, 3);
  while (!p.Done()) {
    if (p.Left() < 2) return ctx.reply.Error(kSyntaxError);  // Options come in pairs.
    const std::optional<std::size_t> option = p.OneOf({"rank", "count", "maxlen"});
    if (!option) return ctx.reply.Error(kSyntaxError);
    const Parsed<std::int64_t> n = p.Integer();
    if (*option == 0) {
      if (!n.ok()) return ctx.reply.Error(kNotInteger);
      if (*n == INT64_MIN) {
        return ctx.reply.Error(
            "ERR value is out of range, value must between -9223372036854775807 and "
            "9223372036854775807");
      }
      if (*n == 0) {
        return ctx.reply.Error(
            "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
            "or use negative to start from the end of the list");
      }
      options.rank = *n;
    } else if (*option == 1) {
      if (!n.ok() || *n < 0) return ctx.reply.Error("ERR COUNT can't be negative");
      options.count = static_cast<std::uint64_t>(*n);
      with_count = true;
    } else {
      if (!n.ok() || *n < 0) return ctx.reply.Error("ERR MAXLEN can't be negative");
      options.max_len = static_cast<std::uint64_t>(*n);
    }
  }
  Result<std::vector<std::uint64_t>> found =
      ctx.data.ListPosition(ctx.args[1], ctx.args[2], options);
  if (!found.ok()) return ReplyStatus(ctx.reply, found.status());
  if (!with_count) {
    return found->empty() ? ctx.reply.Null()
                          : ctx.reply.Integer(static_cast<std::int64_t>(found->front()));
  }
  ctx.reply.ArrayHeader(found->size());
  for (std::uint64_t i : *found) ctx.reply.Integer(static_cast<std::int64_t>(i));
}

void Move(CommandContext& ctx, ListEnd from_end, ListEnd to_end) {
  Result<std::optional<std::string>> moved =
      ctx.data.ListMove(ctx.args[1], ctx.args[2], from_end, to_end);
  if (!moved.ok()) return ReplyStatus(ctx.reply, moved.status());
  ReplyItem(ctx, *moved);
}

// LMOVE source destination LEFT|RIGHT LEFT|RIGHT
void LMove(CommandContext& ctx) {
  const std::optional<ListEnd> from_end = ParseEnd(ctx.args[3]);
  const std::optional<ListEnd> to_end = ParseEnd(ctx.args[4]);
  if (!from_end || !to_end) return ctx.reply.Error(kSyntaxError);
  Move(ctx, *from_end, *to_end);
}

void RPopLPush(CommandContext& ctx) { Move(ctx, ListEnd::kTail, ListEnd::kHead); }

// The pop of the commands that name the list they served (blocking.h's PopFromKey): up to
// `count` items from `end`, replied as [key, item] (BLPOP, one item) or, `as_array`, as
// [key, [item, …]] (LMPOP). False when the list is absent.
Result<bool> PopAndReply(Records& data, const std::string& key, ListEnd end, std::uint64_t count,
                         bool as_array, resp::ReplyWriter& reply) {
  Result<std::optional<std::vector<std::string>>> popped = data.ListPop(key, end, count);
  if (!popped.ok()) return popped.status();
  if (!*popped || (*popped)->empty()) return false;
  reply.ArrayHeader(2);
  reply.Bulk(key);
  as_array ? ReplyItems(reply, **popped) : reply.Bulk((**popped)[0]);
  return true;
}

// BLPOP key [key …] timeout, BRPOP likewise: [key, item] from the first key (in argument
// order) that has an item.
void BlockingPop(CommandContext& ctx, ListEnd end) {
  const std::optional<std::int64_t> timeout_ms = ParseBlockingTimeout(ctx.args.back(), ctx.reply);
  if (!timeout_ms) return;
  BlockingCommand command;
  command.keys.assign(ctx.args.begin() + 1, ctx.args.end() - 1);
  command.timeout_ms = *timeout_ms;
  PopFromFirstKey(command, [end](Records& data, const std::string& key, resp::ReplyWriter& reply) {
    return PopAndReply(data, key, end, 1, false, reply);
  });
  RunBlocking(ctx, std::move(command));
}
void BLPop(CommandContext& ctx) { BlockingPop(ctx, ListEnd::kHead); }
void BRPop(CommandContext& ctx) { BlockingPop(ctx, ListEnd::kTail); }

// BLMOVE's and BRPOPLPUSH's wait: the item moved, or a null bulk string at the timeout.
void BlockingMove(CommandContext& ctx, ListEnd from_end, ListEnd to_end, std::string_view timeout) {
  const std::optional<std::int64_t> timeout_ms = ParseBlockingTimeout(timeout, ctx.reply);
  if (!timeout_ms) return;
  BlockingCommand command;
  command.keys = {std::string(ctx.args[1])};
  command.also_writes = {std::string(ctx.args[2])};
  command.timeout_ms = *timeout_ms;
  command.null_array_on_timeout = false;
  command.attempt = [source = command.keys[0], destination = command.also_writes[0], from_end,
                     to_end](Records& data, resp::ReplyWriter& reply) -> Result<bool> {
    Result<std::optional<std::string>> moved = data.ListMove(source, destination, from_end, to_end);
    if (!moved.ok()) return moved.status();
    if (!*moved) return false;
    reply.Bulk(**moved);
    return true;
  };
  RunBlocking(ctx, std::move(command));
}

// BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout
void BLMove(CommandContext& ctx) {
  const std::optional<ListEnd> from_end = ParseEnd(ctx.args[3]);
  const std::optional<ListEnd> to_end = ParseEnd(ctx.args[4]);
  if (!from_end || !to_end) return ctx.reply.Error(kSyntaxError);
  BlockingMove(ctx, *from_end, *to_end, ctx.args[5]);
}

// BRPOPLPUSH source destination timeout
void BRPopLPush(CommandContext& ctx) {
  BlockingMove(ctx, ListEnd::kTail, ListEnd::kHead, ctx.args[3]);
}

// LMPOP's and BLMPOP's pop (multi_pop.h).
Result<bool> PopItems(Records& data, const std::string& key, bool right, std::int64_t count,
                      resp::ReplyWriter& reply) {
  return PopAndReply(data, key, right ? ListEnd::kTail : ListEnd::kHead,
                     static_cast<std::uint64_t>(count), true, reply);
}
constexpr MultiPopKind kListMultiPop = {"left", "right", PopItems};
void LMPop(CommandContext& ctx) { MultiPop(ctx, kListMultiPop); }
void BLMPop(CommandContext& ctx) { BlockingMultiPop(ctx, kListMultiPop); }

}  // namespace

void RegisterListCommands(CommandTable& table) {
  const std::uint32_t read = kReadOnly | kFast, fast_write = kWrite | kFast | kBatch,
                      write = kWrite | kBatch;
  table.Register({"lpush", -3, fast_write, 1, 1, 1, LPush, "list",
                  "Prepends one or more elements to a list.", "1.0.0"});
  table.Register({"rpush", -3, fast_write, 1, 1, 1, RPush, "list",
                  "Appends one or more elements to a list.", "1.0.0"});
  table.Register({"lpushx", -3, fast_write, 1, 1, 1, LPushX, "list",
                  "Prepends one or more elements to a list only when the list exists.", "2.2.0"});
  table.Register({"rpushx", -3, fast_write, 1, 1, 1, RPushX, "list",
                  "Appends an element to a list only when the list exists.", "2.2.0"});
  table.Register({"lpop", -2, fast_write, 1, 1, 1, LPop, "list",
                  "Returns the first elements in a list after removing it.", "1.0.0"});
  table.Register({"rpop", -2, fast_write, 1, 1, 1, RPop, "list",
                  "Returns and removes the last elements of the list.", "1.0.0"});
  table.Register(
      {"llen", 2, read, 1, 1, 1, LLen, "list", "Returns the length of a list.", "1.0.0"});
  table.Register({"lrange", 4, kReadOnly, 1, 1, 1, LRange, "list",
                  "Returns a range of elements from a list.", "1.0.0"});
  table.Register({"lindex", 3, kReadOnly, 1, 1, 1, LIndex, "list",
                  "Returns an element from a list by its index.", "1.0.0"});
  table.Register({"lset", 4, write, 1, 1, 1, LSet, "list",
                  "Sets the value of an element in a list by its index.", "1.0.0"});
  table.Register(
      {"lrem", 4, write, 1, 1, 1, LRem, "list", "Removes elements from a list.", "1.0.0"});
  table.Register({"ltrim", 4, write, 1, 1, 1, LTrim, "list",
                  "Removes elements from both ends a list.", "1.0.0"});
  table.Register({"linsert", 5, write, 1, 1, 1, LInsert, "list",
                  "Inserts an element before or after another element.", "2.2.0"});
  table.Register({"lpos", -3, kReadOnly, 1, 1, 1, LPos, "list",
                  "Returns the index of matching elements in a list.", "6.0.6"});
  table.Register({"lmove", 5, write, 1, 2, 1, LMove, "list",
                  "Returns an element after popping it from one list and pushing it to another.",
                  "6.2.0"});
  table.Register(
      {"rpoplpush", 3, write, 1, 2, 1, RPopLPush, "list",
       "Returns the last element of a list after removing and pushing it to another list.",
       "1.2.0"});
  // Redis 7.0 refuses the older blocking commands in scripts (noscript), not BLMPOP.
  const std::uint32_t blocking = kWrite | kBlocking | kNoScript;
  table.Register(
      {"blpop", -3, blocking | kFast, 1, -2, 1, BLPop, "list",
       "Removes and returns the first element in a list. Blocks until an element is available "
       "otherwise.",
       "2.0.0"});
  table.Register(
      {"brpop", -3, blocking | kFast, 1, -2, 1, BRPop, "list",
       "Removes and returns the last element in a list. Blocks until an element is available "
       "otherwise.",
       "2.0.0"});
  table.Register(
      {"blmove", 6, blocking, 1, 2, 1, BLMove, "list",
       "Pops an element from a list, pushes it to another list and returns it. Blocks until an "
       "element is available otherwise.",
       "6.2.0"});
  table.Register(
      {"brpoplpush", 4, blocking, 1, 2, 1, BRPopLPush, "list",
       "Pops an element from a list, pushes it to another list and returns it. Blocks until an "
       "element is available otherwise.",
       "2.2.0"});
  // Their keys follow numkeys (Redis's movable keys): COMMAND reports no fixed positions.
  table.Register({"lmpop", -4, kWrite | kBatch | kMovableKeys, 0, 0, 0, LMPop, "list",
                  "Pops elements from the first of several lists that is not empty.", "7.0.0", 1});
  table.Register({"blmpop", -5, kWrite | kBlocking | kMovableKeys, 0, 0, 0, BLMPop, "list",
                  "Pops elements from the first of several lists that is not empty. Blocks until "
                  "an element is available otherwise.",
                  "7.0.0", 2});
}

}  // namespace cairn::server
