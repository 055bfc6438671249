// Set commands: SADD, SREM, SCARD, SISMEMBER, SMISMEMBER, SMEMBERS, SPOP, SRANDMEMBER, SMOVE,
// SINTER, SUNION, SDIFF and their STORE forms, SINTERCARD, SSCAN. Members come back in byte
// order (Redis leaves the order unspecified).
#include <algorithm>
#include <iterator>
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

// Every member of the set at key, in byte order (none when absent). A set of up to
// kMaxScanCount members is one page, read from one snapshot.
Result<std::vector<std::string>> AllMembers(Records& data, std::string_view key) {
  std::vector<std::string> members;
  std::string cursor;
  do {
    Result<SetPage> page = data.SetScan(key, {.cursor = cursor, .count = kMaxScanCount});
    if (!page.ok()) return page.status();
    if (members.empty()) {
      members = std::move(page->members);
    } else {
      std::move(page->members.begin(), page->members.end(), std::back_inserter(members));
    }
    cursor = std::move(page->cursor);
  } while (!cursor.empty());
  return members;
}

std::vector<std::string_view> Args(CommandContext& ctx, std::size_t first) {
  return {ctx.args.begin() + static_cast<std::ptrdiff_t>(first), ctx.args.end()};
}

// Replaces whatever `key` holds with a set of `members` (sorted), or deletes it when there
// are none.
Status StoreSet(Records& data, std::string_view key, const std::vector<std::string>& members) {
  Result<bool> deleted = data.Delete(key);
  if (!deleted.ok()) return deleted.status();
  for (std::size_t start = 0; start < members.size(); start += kMaxScanCount) {
    const std::size_t end = std::min(members.size(), start + kMaxScanCount);
    const std::vector<std::string_view> chunk(members.begin() + start, members.begin() + end);
    Result<std::size_t> added = data.SetAdd(key, chunk);
    if (!added.ok()) return added.status();
  }
  return Status::Ok();
}

void ReplyMembers(CommandContext& ctx, const std::vector<std::string>& members) {
  ctx.reply.SetHeader(members.size());
  for (const std::string& m : members) ctx.reply.Bulk(m);
}

void SAdd(CommandContext& ctx) {
  Result<std::size_t> added = ctx.data.SetAdd(ctx.args[1], Args(ctx, 2));
  if (!added.ok()) return ReplyStatus(ctx.reply, added.status());
  ctx.reply.Integer(static_cast<std::int64_t>(*added));
}

void SRem(CommandContext& ctx) {
  Result<std::size_t> removed = ctx.data.SetRemove(ctx.args[1], Args(ctx, 2));
  if (!removed.ok()) return ReplyStatus(ctx.reply, removed.status());
  ctx.reply.Integer(static_cast<std::int64_t>(*removed));
}

void SCard(CommandContext& ctx) {
  Result<std::uint64_t> size = ctx.data.SetSize(ctx.args[1]);
  if (!size.ok()) return ReplyStatus(ctx.reply, size.status());
  ctx.reply.Integer(static_cast<std::int64_t>(*size));
}

void SIsMember(CommandContext& ctx) {
  Result<bool> found = ctx.data.SetContains(ctx.args[1], ctx.args[2]);
  if (!found.ok()) return ReplyStatus(ctx.reply, found.status());
  ctx.reply.Integer(*found ? 1 : 0);
}

void SMIsMember(CommandContext& ctx) {
  std::vector<bool> found;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    found.clear();
    for (std::size_t i = 2; i < ctx.args.size(); ++i) {
      Result<bool> one = data.SetContains(ctx.args[1], ctx.args[i]);
      if (!one.ok()) return one.status();
      found.push_back(*one);
    }
    return Status::Ok();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  ctx.reply.ArrayHeader(found.size());
  for (bool f : found) ctx.reply.Integer(f ? 1 : 0);
}

void SMembers(CommandContext& ctx) {
  Result<std::vector<std::string>> members = AllMembers(ctx.data, ctx.args[1]);
  if (!members.ok()) return ReplyStatus(ctx.reply, members.status());
  ReplyMembers(ctx, *members);
}

// SPOP key [count]
void SPop(CommandContext& ctx) {
  std::optional<std::int64_t> count;
  if (ctx.args.size() > 3) return ctx.reply.Error(kSyntaxError);
  if (ctx.args.size() == 3) {
    count = ParseInt64(ctx.args[2]);
    if (!count || *count < 0) return ctx.reply.Error("ERR value is out of range, must be positive");
  }
  std::vector<std::string> popped;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    popped.clear();
    Result<std::vector<std::string>> members = AllMembers(data, ctx.args[1]);
    if (!members.ok()) return members.status();
    for (std::size_t i : RandomPicks(members->size(), count.value_or(1), ThreadRng())) {
      popped.push_back(std::move((*members)[i]));
    }
    if (popped.empty()) return Status::Ok();
    const std::vector<std::string_view> gone(popped.begin(), popped.end());
    return data.SetRemove(ctx.args[1], gone).status();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  if (!count) return popped.empty() ? ctx.reply.Null() : ctx.reply.Bulk(popped[0]);
  ReplyMembers(ctx, popped);
}

// SRANDMEMBER key [count]
void SRandMember(CommandContext& ctx) {
  std::optional<std::int64_t> count;
  if (ctx.args.size() > 3) return ctx.reply.Error(kSyntaxError);
  if (ctx.args.size() == 3) {
    count = ParseInt64(ctx.args[2]);
    if (!count || *count < -INT64_MAX) return ctx.reply.Error(kNotInteger);
    if (*count < -kMaxRandomPicks) return ctx.reply.Error("ERR value is out of range");
  }
  Result<std::vector<std::string>> members = AllMembers(ctx.data, ctx.args[1]);
  if (!members.ok()) return ReplyStatus(ctx.reply, members.status());
  const std::vector<std::size_t> picks =
      RandomPicks(members->size(), count.value_or(1), ThreadRng());
  if (!count) return picks.empty() ? ctx.reply.Null() : ctx.reply.Bulk((*members)[picks[0]]);
  ctx.reply.ArrayHeader(picks.size());
  for (std::size_t i : picks) ctx.reply.Bulk((*members)[i]);
}

// SMOVE source destination member
void SMove(CommandContext& ctx) {
  const std::string_view from = ctx.args[1], to = ctx.args[2], member = ctx.args[3];
  bool moved = false;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    moved = false;
    Result<std::uint64_t> size = data.SetSize(from);
    if (!size.ok()) return size.status();
    if (*size == 0) return Status::Ok();  // Redis answers 0 before looking at the destination.
    Result<KeyType> target = data.Type(to);
    if (!target.ok()) return target.status();
    if (*target != KeyType::kNone && *target != KeyType::kSet) {
      return Status::WrongType("the destination is not a set");
    }
    if (from == to) {
      Result<bool> found = data.SetContains(from, member);
      if (!found.ok()) return found.status();
      moved = *found;
      return Status::Ok();
    }
    Result<std::size_t> removed = data.SetRemove(from, {&member, 1});
    if (!removed.ok()) return removed.status();
    if (*removed == 0) return Status::Ok();
    moved = true;
    return data.SetAdd(to, {&member, 1}).status();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  ctx.reply.Integer(moved ? 1 : 0);
}

enum class SetOp { kInter, kUnion, kDiff };

// Combines the sets named by keys (missing ones are empty), checking every key's type as
// Redis does, even after the result is known to be empty.
Result<std::vector<std::string>> Combine(Records& data, SetOp op,
                                         const std::vector<std::string_view>& keys) {
  std::vector<std::string> result;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    Result<std::vector<std::string>> members = AllMembers(data, keys[i]);
    if (!members.ok()) return members.status();
    if (i == 0) {
      result = std::move(*members);
      continue;
    }
    std::vector<std::string> next;
    switch (op) {
      case SetOp::kInter:
        std::set_intersection(result.begin(), result.end(), members->begin(), members->end(),
                              std::back_inserter(next));
        break;
      case SetOp::kUnion:
        std::set_union(result.begin(), result.end(), members->begin(), members->end(),
                       std::back_inserter(next));
        break;
      case SetOp::kDiff:
        std::set_difference(result.begin(), result.end(), members->begin(), members->end(),
                            std::back_inserter(next));
        break;
    }
    result = std::move(next);
  }
  return result;
}

void CombineCommand(CommandContext& ctx, SetOp op) {
  std::vector<std::string> result;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    Result<std::vector<std::string>> combined = Combine(data, op, Args(ctx, 1));
    if (!combined.ok()) return combined.status();
    result = std::move(*combined);
    return Status::Ok();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  ReplyMembers(ctx, result);
}
void SInter(CommandContext& ctx) { CombineCommand(ctx, SetOp::kInter); }
void SUnion(CommandContext& ctx) { CombineCommand(ctx, SetOp::kUnion); }
void SDiff(CommandContext& ctx) { CombineCommand(ctx, SetOp::kDiff); }

void CombineStore(CommandContext& ctx, SetOp op) {
  std::size_t size = 0;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    Result<std::vector<std::string>> combined = Combine(data, op, Args(ctx, 2));
    if (!combined.ok()) return combined.status();
    size = combined->size();
    return StoreSet(data, ctx.args[1], *combined);
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  ctx.reply.Integer(static_cast<std::int64_t>(size));
}
void SInterStore(CommandContext& ctx) { CombineStore(ctx, SetOp::kInter); }
void SUnionStore(CommandContext& ctx) { CombineStore(ctx, SetOp::kUnion); }
void SDiffStore(CommandContext& ctx) { CombineStore(ctx, SetOp::kDiff); }

// SINTERCARD numkeys key [key ...] [LIMIT limit]
void SInterCard(CommandContext& ctx) {
  const std::optional<std::int64_t> numkeys = ParseInt64(ctx.args[1]);
  if (!numkeys || *numkeys <= 0) return ctx.reply.Error("ERR numkeys should be greater than 0");
  if (static_cast<std::uint64_t>(*numkeys) > ctx.args.size() - 2) {
    return ctx.reply.Error("ERR Number of keys can't be greater than number of args");
  }
  const std::size_t end = 2 + static_cast<std::size_t>(*numkeys);
  std::int64_t limit = 0;
  for (std::size_t i = end; i < ctx.args.size(); i += 2) {
    if (!EqualsIgnoreCase(ctx.args[i], "limit") || i + 1 >= ctx.args.size()) {
      return ctx.reply.Error(kSyntaxError);
    }
    const std::optional<std::int64_t> n = ParseInt64(ctx.args[i + 1]);
    if (!n || *n < 0) return ctx.reply.Error("ERR LIMIT can't be negative");
    limit = *n;
  }
  std::size_t size = 0;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    const std::vector<std::string_view> keys(ctx.args.begin() + 2,
                                             ctx.args.begin() + static_cast<std::ptrdiff_t>(end));
    Result<std::vector<std::string>> combined = Combine(data, SetOp::kInter, keys);
    if (!combined.ok()) return combined.status();
    size = combined->size();
    return Status::Ok();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  if (limit > 0) size = std::min<std::size_t>(size, static_cast<std::size_t>(limit));
  ctx.reply.Integer(static_cast<std::int64_t>(size));
}

// SSCAN key cursor [MATCH pattern] [COUNT count]
void SScan(CommandContext& ctx) {
  std::optional<MemberScanArgs> args = ParseMemberScan(ctx, &Records::SetSize);
  if (!args) return;
  Result<SetPage> page =
      ctx.data.SetScan(ctx.args[1], {.cursor = args->resume, .count = MemberScanPageSize(*args)});
  if (!page.ok()) return ReplyStatus(ctx.reply, page.status());
  std::vector<std::string_view> items;
  for (const std::string& m : page->members) {
    if (!args->pattern || GlobMatch(*args->pattern, m, false)) items.push_back(m);
  }
  ReplyMemberScan(ctx, std::move(page->cursor), items);
}

}  // namespace

void RegisterSetCommands(CommandTable& table) {
  const std::uint32_t read = kReadOnly | kFast, write = kWrite | kFast | kBatch;
  table.Register(
      {"sadd", -3, write, 1, 1, 1, SAdd, "set", "Adds one or more members to a set.", "1.0.0"});
  table.Register({"srem", -3, write, 1, 1, 1, SRem, "set",
                  "Removes one or more members from a set.", "1.0.0"});
  table.Register({"scard", 2, read, 1, 1, 1, SCard, "set",
                  "Returns the number of members in a set.", "1.0.0"});
  table.Register({"sismember", 3, read, 1, 1, 1, SIsMember, "set",
                  "Determines whether a member belongs to a set.", "1.0.0"});
  table.Register({"smismember", -3, read, 1, 1, 1, SMIsMember, "set",
                  "Determines whether multiple members belong to a set.", "6.2.0"});
  table.Register({"smembers", 2, kReadOnly, 1, 1, 1, SMembers, "set",
                  "Returns all members of a set.", "1.0.0"});
  table.Register({"spop", -2, write, 1, 1, 1, SPop, "set",
                  "Returns one or more random members from a set after removing them.", "1.0.0"});
  table.Register({"srandmember", -2, kReadOnly, 1, 1, 1, SRandMember, "set",
                  "Get one or multiple random members from a set", "1.0.0"});
  table.Register({"smove", 4, write, 1, 2, 1, SMove, "set",
                  "Moves a member from one set to another.", "1.0.0"});
  table.Register({"sinter", -2, kReadOnly, 1, -1, 1, SInter, "set",
                  "Returns the intersect of multiple sets.", "1.0.0"});
  table.Register({"sunion", -2, kReadOnly, 1, -1, 1, SUnion, "set",
                  "Returns the union of multiple sets.", "1.0.0"});
  table.Register({"sdiff", -2, kReadOnly, 1, -1, 1, SDiff, "set",
                  "Returns the difference of multiple sets.", "1.0.0"});
  table.Register({"sinterstore", -3, kWrite | kBatch, 1, -1, 1, SInterStore, "set",
                  "Stores the intersect of multiple sets in a key.", "1.0.0"});
  table.Register({"sunionstore", -3, kWrite | kBatch, 1, -1, 1, SUnionStore, "set",
                  "Stores the union of multiple sets in a key.", "1.0.0"});
  table.Register({"sdiffstore", -3, kWrite | kBatch, 1, -1, 1, SDiffStore, "set",
                  "Stores the difference of multiple sets in a key.", "1.0.0"});
  table.Register({"sintercard", -3, kReadOnly | kMovableKeys, 0, 0, 0, SInterCard, "set",
                  "Returns the number of members of the intersect of multiple sets.", "7.0.0"});
  table.Register(
      {"sscan", -3, kReadOnly, 1, 1, 1, SScan, "set", "Iterates over members of a set.", "2.6.0"});
}

}  // namespace cairn::server
