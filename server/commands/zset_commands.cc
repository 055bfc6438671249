// Sorted-set commands: ZADD (NX, XX, GT, LT, CH, INCR), ZINCRBY, ZREM, ZSCORE, ZMSCORE, ZCARD,
// ZCOUNT, ZLEXCOUNT, ZRANGE (BYSCORE, BYLEX, REV, LIMIT, WITHSCORES) and its older forms,
// ZRANGESTORE, ZRANK, ZREVRANK, ZPOPMIN, ZPOPMAX, BZPOPMIN, BZPOPMAX (blocking.h), ZMPOP,
// BZMPOP (multi_pop.h), ZREMRANGEBYRANK/SCORE/LEX, ZSCAN.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "args/arguments.h"
#include "args/ascii.h"
#include "args/errors.h"
#include "args/option_parser.h"
#include "cairn/limits.h"
#include "commands/all_commands.h"
#include "commands/member_commands.h"
#include "commands/multi_pop.h"
#include "commands/zset_support.h"
#include "config/server_config.h"
#include "execution/atomically.h"
#include "execution/blocking.h"
#include "execution/command_table.h"
#include "execution/server_state.h"

namespace cairn::server {
namespace {

constexpr std::string_view kNotFloatBound = "ERR min or max is not a float";
constexpr std::string_view kNotLexBound = "ERR min or max not valid string range item";
constexpr std::string_view kNaNScore = "ERR resulting score is not a number (NaN)";

// A score range bound: "1.5", "(1.5" (exclusive), "-inf", "+inf".
std::optional<ZRangeRequest::ScoreBound> ParseScoreBound(std::string_view arg) {
  ZRangeRequest::ScoreBound bound;
  if (!arg.empty() && arg[0] == '(') {
    bound.exclusive = true;
    arg.remove_prefix(1);
  }
  // strtod's own rules, as Redis's: leading spaces and an empty number (0) pass.
  const std::string text(arg);
  char* end = nullptr;
  bound.value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || std::isnan(bound.value)) return std::nullopt;
  return bound;
}

// A member range bound: "-" (below every member), "+" (above every member), "[m" (m
// included), "(m" (m excluded).
struct LexBound {
  enum class Kind { kMinusInfinity, kPlusInfinity, kMember } kind = Kind::kMember;
  std::string_view member;
  bool exclusive = false;
};
std::optional<LexBound> ParseLexBound(std::string_view arg) {
  if (arg == "-") return LexBound{LexBound::Kind::kMinusInfinity};
  if (arg == "+") return LexBound{LexBound::Kind::kPlusInfinity};
  if (arg.empty() || (arg[0] != '[' && arg[0] != '(')) return std::nullopt;
  return LexBound{LexBound::Kind::kMember, arg.substr(1), arg[0] == '('};
}

// Fills the request's member bounds; false when no member can lie between them ("+" as the
// minimum, "-" as the maximum).
bool SetLexBounds(const LexBound& min, const LexBound& max, ZRangeRequest& r) {
  using Kind = LexBound::Kind;
  if (min.kind == Kind::kPlusInfinity || max.kind == Kind::kMinusInfinity) return false;
  r.min_member = {min.member, min.exclusive, min.kind == Kind::kMinusInfinity};
  r.max_member = {max.member, max.exclusive, max.kind == Kind::kPlusInfinity};
  return true;
}

// The range arguments of ZRANGE and its older forms, parsed as Redis parses them.
struct RangeCommand {
  ZRangeRequest request;
  bool with_scores = false;
  bool empty = false;  // The bounds admit no member: reply empty without reading.
};

enum class RangeSyntax {
  kZRange,   // ZRANGE/ZRANGESTORE: BYSCORE, BYLEX, REV, LIMIT, WITHSCORES (not STORE).
  kByScore,  // ZRANGEBYSCORE, ZREVRANGEBYSCORE: WITHSCORES, LIMIT.
  kByLex,    // ZRANGEBYLEX, ZREVRANGEBYLEX: LIMIT.
  kByRank,   // ZREVRANGE: WITHSCORES.
};

// Parses `<min> <max> [options…]` starting at args[first] (the key is args[first - 1]). On bad
// input replies with Redis's error and returns nullopt.
std::optional<RangeCommand> ParseRange(CommandContext& ctx, std::size_t first, RangeSyntax syntax,
                                       bool reverse, bool allow_scores) {
  using By = ZRangeRequest::By;
  RangeCommand cmd;
  ZRangeRequest& r = cmd.request;
  r.reverse = reverse;
  std::optional<By> by;
  if (syntax == RangeSyntax::kByScore) by = By::kScore;
  if (syntax == RangeSyntax::kByLex) by = By::kLex;
  if (syntax == RangeSyntax::kByRank) by = By::kRank;
  bool rev_given = syntax != RangeSyntax::kZRange;
  std::int64_t offset = 0, limit = -1;
  const auto& args = ctx.args;
  OptionParser p(args, first + 2);
  while (!p.Done()) {
    if (allow_scores && p.Word("withscores")) {
      cmd.with_scores = true;
    } else if (p.Left() >= 3 && p.Word("limit")) {  // LIMIT without both values: syntax.
      const Parsed<std::int64_t> o = p.Integer();
      const Parsed<std::int64_t> l = p.Integer();
      if (!o.ok() || !l.ok()) {
        ctx.reply.Error(kNotInteger);
        return std::nullopt;
      }
      offset = *o;
      limit = *l;
    } else if (!rev_given && p.Word("rev")) {
      rev_given = true;
      r.reverse = true;
    } else if (!by && p.Word("bylex")) {
      by = By::kLex;
    } else if (!by && p.Word("byscore")) {
      by = By::kScore;
    } else {
      ctx.reply.Error(kSyntaxError);
      return std::nullopt;
    }
  }
  r.by = by.value_or(By::kRank);
  if (limit != -1 && r.by == By::kRank) {
    ctx.reply.Error(
        "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
    return std::nullopt;
  }
  if (cmd.with_scores && r.by == By::kLex) {
    ctx.reply.Error("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
    return std::nullopt;
  }
  // Reversed score and member ranges name the maximum first.
  const bool swapped = r.reverse && r.by != By::kRank;
  const std::string_view min_arg = args[swapped ? first + 1 : first];
  const std::string_view max_arg = args[swapped ? first : first + 1];
  switch (r.by) {
    case By::kRank: {
      const std::optional<std::int64_t> start = ParseInt64(min_arg), stop = ParseInt64(max_arg);
      if (!start || !stop) {
        ctx.reply.Error(kNotInteger);
        return std::nullopt;
      }
      r.start = *start;
      r.stop = *stop;
      break;
    }
    case By::kScore: {
      const auto min = ParseScoreBound(min_arg), max = ParseScoreBound(max_arg);
      if (!min || !max) {
        ctx.reply.Error(kNotFloatBound);
        return std::nullopt;
      }
      r.min_score = *min;
      r.max_score = *max;
      break;
    }
    case By::kLex: {
      const auto min = ParseLexBound(min_arg), max = ParseLexBound(max_arg);
      if (!min || !max) {
        ctx.reply.Error(kNotLexBound);
        return std::nullopt;
      }
      cmd.empty = !SetLexBounds(*min, *max, r);
      break;
    }
  }
  // A negative offset selects nothing, as in Redis; a negative limit means no limit.
  if (offset < 0) cmd.empty = true;
  r.offset = offset;
  r.limit = limit < 0 ? -1 : limit;
  return cmd;
}

Result<std::vector<ScoredMember>> RunRange(Records& data, std::string_view key,
                                           const RangeCommand& cmd) {
  if (!cmd.empty) return data.ZSetRange(key, cmd.request);
  // Still answer WRONGTYPE for a key of another kind, as Redis looks the key up first.
  Result<std::uint64_t> size = data.ZSetSize(key);
  if (!size.ok()) return size.status();
  return std::vector<ScoredMember>();
}

void RangeCommandReply(CommandContext& ctx, RangeSyntax syntax, bool reverse) {
  std::optional<RangeCommand> cmd = ParseRange(ctx, 2, syntax, reverse, true);
  if (!cmd) return;
  Result<std::vector<ScoredMember>> members = RunRange(ctx.data, ctx.args[1], *cmd);
  if (!members.ok()) return ReplyStatus(ctx.reply, members.status());
  ReplyScoredMembers(ctx.reply, *members, cmd->with_scores);
}

void ZRange(CommandContext& ctx) { RangeCommandReply(ctx, RangeSyntax::kZRange, false); }
void ZRangeByScore(CommandContext& ctx) { RangeCommandReply(ctx, RangeSyntax::kByScore, false); }
void ZRevRangeByScore(CommandContext& ctx) { RangeCommandReply(ctx, RangeSyntax::kByScore, true); }
void ZRangeByLex(CommandContext& ctx) { RangeCommandReply(ctx, RangeSyntax::kByLex, false); }
void ZRevRangeByLex(CommandContext& ctx) { RangeCommandReply(ctx, RangeSyntax::kByLex, true); }
void ZRevRange(CommandContext& ctx) { RangeCommandReply(ctx, RangeSyntax::kByRank, true); }

// Replaces whatever `key` holds with `members`, or deletes it when there are none.
Status StoreZSet(Records& data, std::string_view key, const std::vector<ScoredMember>& members) {
  Result<bool> deleted = data.Delete(key);
  if (!deleted.ok()) return deleted.status();
  for (std::size_t start = 0; start < members.size(); start += kMaxScanCount) {
    const std::size_t end = std::min(members.size(), start + kMaxScanCount);
    std::vector<ZSetEntry> chunk;
    chunk.reserve(end - start);
    for (std::size_t i = start; i < end; ++i)
      chunk.push_back({members[i].member, members[i].score});
    Result<std::size_t> added = data.ZSetPut(key, chunk);
    if (!added.ok()) return added.status();
  }
  return Status::Ok();
}

// ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT offset count]
void ZRangeStore(CommandContext& ctx) {
  std::optional<RangeCommand> cmd = ParseRange(ctx, 3, RangeSyntax::kZRange, false, false);
  if (!cmd) return;
  std::size_t stored = 0;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    Result<std::vector<ScoredMember>> members = RunRange(data, ctx.args[2], *cmd);
    if (!members.ok()) return members.status();
    stored = members->size();
    return StoreZSet(data, ctx.args[1], *members);
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  ctx.reply.Integer(static_cast<std::int64_t>(stored));
}

// ZADD's options.
struct AddFlags {
  bool nx = false, xx = false, gt = false, lt = false, ch = false, incr = false;
};

// The score a member ends with under the flags, or nullopt when it is left alone. Sets
// *nan when an increment gives NaN (+inf plus -inf).
std::optional<double> NewScore(const AddFlags& f, std::optional<double> current, double score,
                               bool* nan) {
  if (current ? f.nx : f.xx) return std::nullopt;
  if (!current) return score;
  double next = score;
  if (f.incr) {
    next = *current + score;
    if (std::isnan(next)) {
      *nan = true;
      return std::nullopt;
    }
  }
  if ((f.gt && next <= *current) || (f.lt && next >= *current)) return std::nullopt;
  return next;
}

// ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member …]
void ZAdd(CommandContext& ctx) {
  AddFlags f;
  OptionParser p(ctx.args, 2);
  // The flags come first, in any order; the first other argument starts the pairs.
  bool* const flags[] = {&f.nx, &f.xx, &f.gt, &f.lt, &f.ch, &f.incr};
  while (const std::optional<std::size_t> flag = p.OneOf({"nx", "xx", "gt", "lt", "ch", "incr"})) {
    *flags[*flag] = true;
  }
  std::size_t i = p.Position();
  const std::size_t elements = p.Left();
  if (elements == 0 || elements % 2 != 0) return ctx.reply.Error(kSyntaxError);
  if (f.nx && f.xx) {
    return ctx.reply.Error("ERR XX and NX options at the same time are not compatible");
  }
  if ((f.gt && f.nx) || (f.lt && f.nx) || (f.gt && f.lt)) {
    return ctx.reply.Error("ERR GT, LT, and/or NX options at the same time are not compatible");
  }
  if (f.incr && elements > 2) {
    return ctx.reply.Error("ERR INCR option supports a single increment-element pair");
  }
  std::vector<ZSetEntry> entries;
  entries.reserve(elements / 2);
  for (; i < ctx.args.size(); i += 2) {
    const std::optional<double> score = ParseDouble(ctx.args[i]);
    if (!score) return ctx.reply.Error(kNotFloat);
    entries.push_back({ctx.args[i + 1], *score});
  }
  const bool plain = !f.nx && !f.xx && !f.gt && !f.lt && !f.incr;
  if (plain && !f.ch) {
    // The common case needs no read of its own: the library counts the new members.
    Result<std::size_t> added = ctx.data.ZSetPut(ctx.args[1], entries);
    if (!added.ok()) return ReplyStatus(ctx.reply, added.status());
    return ctx.reply.Integer(static_cast<std::int64_t>(*added));
  }
  std::int64_t changed = 0;
  std::optional<double> incr_result;
  bool nan = false;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    changed = 0;
    incr_result.reset();
    nan = false;
    std::vector<ZSetEntry> writes;
    for (const ZSetEntry& e : entries) {
      Result<std::optional<double>> current = data.ZSetScore(ctx.args[1], e.member);
      if (!current.ok()) return current.status();
      const std::optional<double> next = NewScore(f, *current, e.score, &nan);
      if (nan) return Status::Ok();
      if (!next) continue;
      if (f.incr) incr_result = next;
      if (*current && *next == **current) continue;
      changed += (!*current || f.ch) ? 1 : 0;
      writes.push_back({e.member, *next});
    }
    if (writes.empty()) return Status::Ok();
    return data.ZSetPut(ctx.args[1], writes).status();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  if (nan) return ctx.reply.Error(kNaNScore);
  if (!f.incr) return ctx.reply.Integer(changed);
  if (!incr_result) return ctx.reply.Null();
  ctx.reply.Double(*incr_result);
}

// ZINCRBY key increment member
void ZIncrBy(CommandContext& ctx) {
  const std::optional<double> delta = ParseDouble(ctx.args[2]);
  if (!delta) return ctx.reply.Error(kNotFloat);
  double result = 0;
  bool nan = false;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    Result<std::optional<double>> current = data.ZSetScore(ctx.args[1], ctx.args[3]);
    if (!current.ok()) return current.status();
    // A new member takes the increment as it is (-0 stays -0 in the reply, as in Redis).
    result = *current ? **current + *delta : *delta;
    nan = std::isnan(result);
    if (nan) return Status::Ok();
    const ZSetEntry entry{ctx.args[3], result};
    return data.ZSetPut(ctx.args[1], {&entry, 1}).status();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  if (nan) return ctx.reply.Error(kNaNScore);
  ctx.reply.Double(result);
}

void ZRem(CommandContext& ctx) {
  const std::vector<std::string_view> members(ctx.args.begin() + 2, ctx.args.end());
  Result<std::size_t> removed = ctx.data.ZSetRemove(ctx.args[1], members);
  if (!removed.ok()) return ReplyStatus(ctx.reply, removed.status());
  ctx.reply.Integer(static_cast<std::int64_t>(*removed));
}

void ZScore(CommandContext& ctx) {
  Result<std::optional<double>> score = ctx.data.ZSetScore(ctx.args[1], ctx.args[2]);
  if (!score.ok()) return ReplyStatus(ctx.reply, score.status());
  if (!*score) return ctx.reply.Null();
  ctx.reply.Double(**score);
}

void ZMScore(CommandContext& ctx) {
  std::vector<std::optional<double>> scores;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    scores.clear();
    for (std::size_t i = 2; i < ctx.args.size(); ++i) {
      Result<std::optional<double>> one = data.ZSetScore(ctx.args[1], ctx.args[i]);
      if (!one.ok()) return one.status();
      scores.push_back(*one);
    }
    return Status::Ok();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  ctx.reply.ArrayHeader(scores.size());
  for (const std::optional<double>& score : scores) {
    score ? ctx.reply.Double(*score) : ctx.reply.Null();
  }
}

void ZCard(CommandContext& ctx) {
  Result<std::uint64_t> size = ctx.data.ZSetSize(ctx.args[1]);
  if (!size.ok()) return ReplyStatus(ctx.reply, size.status());
  ctx.reply.Integer(static_cast<std::int64_t>(*size));
}

// ZCOUNT key min max and ZLEXCOUNT key min max: the size of a score or member range.
void CountRange(CommandContext& ctx, RangeSyntax syntax) {
  std::optional<RangeCommand> cmd = ParseRange(ctx, 2, syntax, false, false);
  if (!cmd) return;
  Result<std::vector<ScoredMember>> members = RunRange(ctx.data, ctx.args[1], *cmd);
  if (!members.ok()) return ReplyStatus(ctx.reply, members.status());
  ctx.reply.Integer(static_cast<std::int64_t>(members->size()));
}
void ZCount(CommandContext& ctx) { CountRange(ctx, RangeSyntax::kByScore); }
void ZLexCount(CommandContext& ctx) { CountRange(ctx, RangeSyntax::kByLex); }

// ZRANK key member [WITHSCORE], ZREVRANK likewise.
void RankCommand(CommandContext& ctx, bool reverse) {
  bool with_score = false;
  if (ctx.args.size() > 4) return ctx.reply.Error(WrongArity(ctx.args[0]));
  if (ctx.args.size() == 4) {
    if (!EqualsIgnoreCase(ctx.args[3], "withscore")) return ctx.reply.Error(kSyntaxError);
    with_score = true;
  }
  std::optional<std::uint64_t> rank;
  std::optional<double> score;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    Result<std::optional<std::uint64_t>> r = data.ZSetRank(ctx.args[1], ctx.args[2], reverse);
    if (!r.ok()) return r.status();
    rank = *r;
    if (!rank || !with_score) return Status::Ok();
    Result<std::optional<double>> sc = data.ZSetScore(ctx.args[1], ctx.args[2]);
    if (!sc.ok()) return sc.status();
    score = *sc;
    return Status::Ok();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  if (!rank) return with_score ? ctx.reply.NullArray() : ctx.reply.Null();
  if (!with_score) return ctx.reply.Integer(static_cast<std::int64_t>(*rank));
  ctx.reply.ArrayHeader(2);
  ctx.reply.Integer(static_cast<std::int64_t>(*rank));
  ctx.reply.Double(score.value_or(0));
}
void ZRank(CommandContext& ctx) { RankCommand(ctx, false); }
void ZRevRank(CommandContext& ctx) { RankCommand(ctx, true); }

// ZPOPMIN key [count], ZPOPMAX likewise.
void PopCommand(CommandContext& ctx, bool max) {
  std::optional<std::int64_t> count;
  if (ctx.args.size() > 3) return ctx.reply.Error(kSyntaxError);
  if (ctx.args.size() == 3) {
    count = ParseInt64(ctx.args[2]);
    if (!count || *count < 0) return ctx.reply.Error("ERR value is out of range, must be positive");
  }
  std::vector<ScoredMember> popped;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    Result<std::vector<ScoredMember>> taken =
        PopExtremes(data, ctx.args[1], max, count.value_or(1));
    if (!taken.ok()) return taken.status();
    popped = std::move(*taken);
    return Status::Ok();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  ReplyPopped(ctx.reply, popped, count.has_value());
}
void ZPopMin(CommandContext& ctx) { PopCommand(ctx, false); }
void ZPopMax(CommandContext& ctx) { PopCommand(ctx, true); }

// The pop of the commands that name the sorted set they served (blocking.h's PopFromKey): up
// to `count` of the lowest (highest, with `max`) members, replied as [key, member, score]
// (BZPOPMIN, one member) or, `as_pairs`, as [key, [[member, score], …]] (ZMPOP). False when
// the sorted set is absent.
Result<bool> PopAndReply(Records& data, const std::string& key, bool max, std::int64_t count,
                         bool as_pairs, resp::ReplyWriter& reply) {
  Result<std::vector<ScoredMember>> popped = PopExtremes(data, key, max, count);
  if (!popped.ok()) return popped.status();
  if (popped->empty()) return false;
  reply.ArrayHeader(as_pairs ? 2 : 3);
  reply.Bulk(key);
  if (as_pairs) {
    ReplyScorePairs(reply, *popped);
  } else {
    reply.Bulk((*popped)[0].member);
    reply.Double((*popped)[0].score);
  }
  return true;
}

// BZPOPMIN key [key …] timeout, BZPOPMAX likewise: [key, member, score] from the first key
// (in argument order) that has a member.
void BlockingPop(CommandContext& ctx, bool max) {
  const std::optional<std::int64_t> timeout_ms = ParseBlockingTimeout(ctx.args.back(), ctx.reply);
  if (!timeout_ms) return;
  BlockingCommand command;
  command.keys.assign(ctx.args.begin() + 1, ctx.args.end() - 1);
  command.timeout_ms = *timeout_ms;
  PopFromFirstKey(command, [max](Records& data, const std::string& key, resp::ReplyWriter& reply) {
    return PopAndReply(data, key, max, 1, false, reply);
  });
  RunBlocking(ctx, std::move(command));
}
void BZPopMin(CommandContext& ctx) { BlockingPop(ctx, false); }
void BZPopMax(CommandContext& ctx) { BlockingPop(ctx, true); }

// ZMPOP's and BZMPOP's pop (multi_pop.h).
Result<bool> PopMembers(Records& data, const std::string& key, bool max, std::int64_t count,
                        resp::ReplyWriter& reply) {
  return PopAndReply(data, key, max, count, true, reply);
}
constexpr MultiPopKind kZSetMultiPop = {"min", "max", PopMembers};
void ZMPop(CommandContext& ctx) { MultiPop(ctx, kZSetMultiPop); }
void BZMPop(CommandContext& ctx) { BlockingMultiPop(ctx, kZSetMultiPop); }

// ZREMRANGEBYRANK/BYSCORE/BYLEX key min max: removes a range, returns how many went.
void RemoveRange(CommandContext& ctx, RangeSyntax syntax) {
  std::optional<RangeCommand> cmd;
  if (syntax == RangeSyntax::kByRank) {
    const std::optional<std::int64_t> start = ParseInt64(ctx.args[2]);
    const std::optional<std::int64_t> stop = ParseInt64(ctx.args[3]);
    if (!start || !stop) return ctx.reply.Error(kNotInteger);
    cmd.emplace();
    cmd->request.start = *start;
    cmd->request.stop = *stop;
  } else {
    cmd = ParseRange(ctx, 2, syntax, false, false);
    if (!cmd) return;
  }
  std::size_t removed = 0;
  Status s = Atomically(ctx, [&](Records& data) -> Status {
    removed = 0;
    Result<std::vector<ScoredMember>> members = RunRange(data, ctx.args[1], *cmd);
    if (!members.ok()) return members.status();
    if (members->empty()) return Status::Ok();
    std::vector<std::string_view> names;
    names.reserve(members->size());
    for (const ScoredMember& m : *members) names.push_back(m.member);
    Result<std::size_t> gone = data.ZSetRemove(ctx.args[1], names);
    if (!gone.ok()) return gone.status();
    removed = *gone;
    return Status::Ok();
  });
  if (!s.ok()) return ReplyStatus(ctx.reply, s);
  ctx.reply.Integer(static_cast<std::int64_t>(removed));
}
void ZRemRangeByRank(CommandContext& ctx) { RemoveRange(ctx, RangeSyntax::kByRank); }
void ZRemRangeByScore(CommandContext& ctx) { RemoveRange(ctx, RangeSyntax::kByScore); }
void ZRemRangeByLex(CommandContext& ctx) { RemoveRange(ctx, RangeSyntax::kByLex); }

// ZSCAN key cursor [MATCH pattern] [COUNT count]. A sorted set small enough for Redis's
// compact encoding comes back whole, in score order, as Redis returns it; a larger one in
// pages in member order.
void ZScan(CommandContext& ctx) {
  std::optional<MemberScanArgs> args = ParseMemberScan(ctx, &Records::ZSetSize);
  if (!args) return;
  std::vector<ScoredMember> entries;
  std::string cursor;
  if (args->size <= kWholeScanMembers && args->resume.empty()) {
    Result<std::vector<ScoredMember>> all = ctx.data.ZSetRange(ctx.args[1], {});
    if (!all.ok()) return ReplyStatus(ctx.reply, all.status());
    entries = std::move(*all);
  } else {
    Result<ZSetPage> page = ctx.data.ZSetScan(
        ctx.args[1], {.cursor = args->resume, .count = MemberScanPageSize(*args)});
    if (!page.ok()) return ReplyStatus(ctx.reply, page.status());
    entries = std::move(page->entries);
    cursor = std::move(page->cursor);
  }
  // Reserved up front: `items` points into `scores`, which must not move.
  std::vector<std::string> scores;
  scores.reserve(entries.size());
  std::vector<std::string_view> items;
  for (const ScoredMember& e : entries) {
    if (args->pattern && !GlobMatch(*args->pattern, e.member, false)) continue;
    items.push_back(e.member);
    items.push_back(scores.emplace_back(ScoreText(e.score)));
  }
  ReplyMemberScan(ctx, std::move(cursor), items);
}

}  // namespace

void RegisterZSetCommands(CommandTable& table) {
  const std::uint32_t read = kReadOnly | kFast, write = kWrite | kFast | kBatch;
  table.Register({"zadd", -4, write, 1, 1, 1, ZAdd, "sorted-set",
                  "Adds one or more members to a sorted set, or updates their scores.", "1.2.0"});
  table.Register({"zincrby", 4, write, 1, 1, 1, ZIncrBy, "sorted-set",
                  "Increments the score of a member in a sorted set.", "1.2.0"});
  table.Register({"zrem", -3, write, 1, 1, 1, ZRem, "sorted-set",
                  "Removes one or more members from a sorted set.", "1.2.0"});
  table.Register({"zscore", 3, read, 1, 1, 1, ZScore, "sorted-set",
                  "Returns the score of a member in a sorted set.", "1.2.0"});
  table.Register({"zmscore", -3, read, 1, 1, 1, ZMScore, "sorted-set",
                  "Returns the score of one or more members in a sorted set.", "6.2.0"});
  table.Register({"zcard", 2, read, 1, 1, 1, ZCard, "sorted-set",
                  "Returns the number of members in a sorted set.", "1.2.0"});
  table.Register({"zcount", 4, read, 1, 1, 1, ZCount, "sorted-set",
                  "Returns the count of members in a sorted set that have scores within a range.",
                  "2.0.0"});
  table.Register({"zlexcount", 4, read, 1, 1, 1, ZLexCount, "sorted-set",
                  "Returns the number of members in a sorted set within a lexicographical range.",
                  "2.8.9"});
  table.Register({"zrange", -4, kReadOnly, 1, 1, 1, ZRange, "sorted-set",
                  "Returns members in a sorted set within a range of indexes, scores or members.",
                  "1.2.0"});
  table.Register({"zrangebyscore", -4, kReadOnly, 1, 1, 1, ZRangeByScore, "sorted-set",
                  "Returns members in a sorted set within a range of scores.", "1.0.5"});
  table.Register({"zrevrangebyscore", -4, kReadOnly, 1, 1, 1, ZRevRangeByScore, "sorted-set",
                  "Returns members in a sorted set within a range of scores in reverse order.",
                  "2.2.0"});
  table.Register({"zrangebylex", -4, kReadOnly, 1, 1, 1, ZRangeByLex, "sorted-set",
                  "Returns members in a sorted set within a lexicographical range.", "2.8.9"});
  table.Register(
      {"zrevrangebylex", -4, kReadOnly, 1, 1, 1, ZRevRangeByLex, "sorted-set",
       "Returns members in a sorted set within a lexicographical range in reverse order.",
       "2.8.9"});
  table.Register({"zrevrange", -4, kReadOnly, 1, 1, 1, ZRevRange, "sorted-set",
                  "Returns members in a sorted set within a range of indexes in reverse order.",
                  "1.2.0"});
  table.Register({"zrangestore", -5, kWrite | kBatch, 1, 2, 1, ZRangeStore, "sorted-set",
                  "Stores a range of members from sorted set in a key.", "6.2.0"});
  table.Register({"zrank", -3, read, 1, 1, 1, ZRank, "sorted-set",
                  "Returns the index of a member in a sorted set.", "2.0.0"});
  table.Register({"zrevrank", -3, read, 1, 1, 1, ZRevRank, "sorted-set",
                  "Returns the index of a member in a sorted set ordered by descending scores.",
                  "2.0.0"});
  table.Register({"zpopmin", -2, write, 1, 1, 1, ZPopMin, "sorted-set",
                  "Returns the lowest-scoring members from a sorted set after removing them.",
                  "5.0.0"});
  table.Register({"zpopmax", -2, write, 1, 1, 1, ZPopMax, "sorted-set",
                  "Returns the highest-scoring members from a sorted set after removing them.",
                  "5.0.0"});
  // Redis 7.0 refuses BZPOPMIN and BZPOPMAX in scripts (noscript), not BZMPOP.
  table.Register(
      {"bzpopmin", -3, kWrite | kFast | kBlocking | kNoScript, 1, -2, 1, BZPopMin, "sorted-set",
       "Removes and returns the member with the lowest score from one or more sorted sets. "
       "Blocks until a member is available otherwise.",
       "5.0.0"});
  table.Register(
      {"bzpopmax", -3, kWrite | kFast | kBlocking | kNoScript, 1, -2, 1, BZPopMax, "sorted-set",
       "Removes and returns the member with the highest score from one or more sorted sets. "
       "Blocks until a member is available otherwise.",
       "5.0.0"});
  // Their keys follow numkeys (Redis's movable keys): COMMAND reports no fixed positions.
  table.Register({"zmpop", -4, kWrite | kBatch | kMovableKeys, 0, 0, 0, ZMPop, "sorted-set",
                  "Pops the lowest- or highest-scoring members from the first of several sorted "
                  "sets that is not empty.",
                  "7.0.0", 1});
  table.Register({"bzmpop", -5, kWrite | kBlocking | kMovableKeys, 0, 0, 0, BZMPop, "sorted-set",
                  "Pops the lowest- or highest-scoring members from the first of several sorted "
                  "sets that is not empty. Blocks until a member is available otherwise.",
                  "7.0.0", 2});
  table.Register({"zremrangebyrank", 4, kWrite | kBatch, 1, 1, 1, ZRemRangeByRank, "sorted-set",
                  "Removes members in a sorted set within a range of indexes.", "2.0.0"});
  table.Register({"zremrangebyscore", 4, kWrite | kBatch, 1, 1, 1, ZRemRangeByScore, "sorted-set",
                  "Removes members in a sorted set within a range of scores.", "1.2.0"});
  table.Register({"zremrangebylex", 4, kWrite | kBatch, 1, 1, 1, ZRemRangeByLex, "sorted-set",
                  "Removes members in a sorted set within a lexicographical range.", "2.8.9"});
  table.Register({"zscan", -3, kReadOnly, 1, 1, 1, ZScan, "sorted-set",
                  "Iterates over members and scores of a sorted set.", "2.8.0"});
}

}  // namespace cairn::server
