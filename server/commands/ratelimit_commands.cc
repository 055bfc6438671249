// Rate limits as native commands: RATE.TAKE, RATE.PEEK, RATE.RESET, over the server's
// cairn::RateLimiter (server/docs/ratelimits.md).
//
// The limit travels with every call, as with the library: the server keeps only each key's
// state (in the store's buckets, apart from the string keyspace), and a call with a new limit
// carries that state over, which is how a plan change takes effect. Every argument is parsed
// and checked before the store is touched.
#include <optional>
#include <string>

#include "args/arguments.h"
#include "args/ascii.h"
#include "args/errors.h"
#include "args/option_parser.h"
#include "cairn/ratelimit.h"
#include "commands/all_commands.h"
#include "execution/command_table.h"
#include "execution/server_state.h"
#include "execution/session.h"

namespace cairn::server {
namespace {

RateLimiter& Engine(CommandContext& ctx) { return ctx.server.engines().rate_limits; }

struct TakeArgs {
  std::optional<Limit> limit;
  std::int64_t cost = 1;
  bool dry_run = false;
};

// Reads `count` integers from args[first]: the limit's parameters. Replies the error itself
// and returns false when one is not an integer.
bool ParseNumbers(CommandContext& ctx, std::size_t first, std::size_t count, std::int64_t* out) {
  for (std::size_t i = 0; i < count; ++i) {
    const std::optional<std::int64_t> n = ParseInt64(ctx.args[first + i]);
    if (!n) {
      ctx.reply.Error(kNotInteger);
      return false;
    }
    out[i] = *n;
  }
  return true;
}

// key algorithm params… [COST n] [DRYRUN], where algorithm and params are
//   FIXED limit window_ms | SLIDING limit window_ms
//   | BUCKET capacity tokens period_ms | GCRA burst count period_ms
// The first number is always the most one take may cost (limit, capacity or burst), the others
// a rate: `tokens` (or `count`) per `period_ms`. Replies the error itself and returns nullopt
// when something is wrong; DRYRUN is accepted only when allow_dry_run (PEEK is always one).
std::optional<TakeArgs> ParseTake(CommandContext& ctx, bool allow_dry_run) {
  const std::string_view algorithm = ctx.args[2];
  std::size_t params = 0;
  if (EqualsIgnoreCase(algorithm, "fixed") || EqualsIgnoreCase(algorithm, "sliding")) {
    params = 2;
  } else if (EqualsIgnoreCase(algorithm, "bucket") || EqualsIgnoreCase(algorithm, "gcra")) {
    params = 3;
  } else {
    ctx.reply.Error("ERR unknown rate limit algorithm '" + std::string(algorithm) +
                    "' (expected FIXED, SLIDING, BUCKET or GCRA)");
    return std::nullopt;
  }
  if (ctx.args.size() < 3 + params) {
    ctx.reply.Error(kSyntaxError);
    return std::nullopt;
  }
  std::int64_t n[3] = {0, 0, 0};
  if (!ParseNumbers(ctx, 3, params, n)) return std::nullopt;

  TakeArgs take;
  bool has_cost = false;
  OptionParser p(ctx.args, 3 + params);
  while (!p.Done()) {
    if (!has_cost && p.Word("cost")) {
      const Parsed<std::int64_t> cost = p.Integer();
      if (!cost.ok()) {
        ctx.reply.Error(cost.error());
        return std::nullopt;
      }
      take.cost = *cost;
      has_cost = true;
    } else if (allow_dry_run && !take.dry_run && p.Word("dryrun")) {
      take.dry_run = true;
    } else {
      ctx.reply.Error(kSyntaxError);
      return std::nullopt;
    }
  }

  if (EqualsIgnoreCase(algorithm, "fixed")) {
    take.limit = Limit::FixedWindow(n[0], n[1]);
  } else if (EqualsIgnoreCase(algorithm, "sliding")) {
    take.limit = Limit::SlidingWindow(n[0], n[1]);
  } else if (EqualsIgnoreCase(algorithm, "bucket")) {
    take.limit = Limit::TokenBucket(n[0], n[1], n[2]);
  } else {
    take.limit = Limit::Gcra(n[1], n[2], n[0]);
  }
  // The factories only record what is wrong; check it here so that a bad limit is refused
  // before the key's state is read.
  if (!take.limit->validity().ok()) {
    ReplyStatus(ctx.reply, take.limit->validity());
    return std::nullopt;
  }
  if (take.cost < 1 || take.cost > take.limit->capacity()) {
    ctx.reply.Error("ERR COST must be between 1 and the limit's capacity (" +
                    std::to_string(take.limit->capacity()) + ")");
    return std::nullopt;
  }
  return take;
}

void ReplyDecision(resp::ReplyWriter& reply, const Decision& d) {
  reply.MapHeader(5);
  reply.Bulk("allowed");
  reply.Boolean(d.allowed);
  reply.Bulk("remaining");
  reply.Integer(d.remaining);
  reply.Bulk("limit");
  reply.Integer(d.limit);
  reply.Bulk("retry_after_ms");
  reply.Integer(d.retry_after_ms);
  reply.Bulk("reset_after_ms");
  reply.Integer(d.reset_after_ms);
}

void Run(CommandContext& ctx, bool peek) {
  const std::optional<TakeArgs> take = ParseTake(ctx, /*allow_dry_run=*/!peek);
  if (!take) return;
  Result<Decision> decision =
      Engine(ctx).Take(ctx.args[1], *take->limit, take->cost, peek || take->dry_run);
  if (!decision.ok()) return ReplyStatus(ctx.reply, decision.status());
  ReplyDecision(ctx.reply, *decision);
}

// RATE.TAKE key algorithm params… [COST n] [DRYRUN]
void Take(CommandContext& ctx) { Run(ctx, /*peek=*/false); }

// RATE.PEEK key algorithm params… [COST n]: TAKE's answer without taking.
void Peek(CommandContext& ctx) { Run(ctx, /*peek=*/true); }

// RATE.RESET key: 1 if the key had state.
void Reset(CommandContext& ctx) {
  Result<bool> reset = Engine(ctx).Reset(ctx.args[1]);
  if (!reset.ok()) return ReplyStatus(ctx.reply, reset.status());
  ctx.reply.Integer(*reset ? 1 : 0);
}

}  // namespace

void RegisterRateLimitCommands(CommandTable& table) {
  table.Register(
      {"rate.take", -5, kWrite | kFast | kNative, 1, 1, 1, Take, "ratelimit",
       "Takes from a key's rate limit, or tells how long to wait before it allows the take.",
       kNativeSince});
  table.Register({"rate.peek", -5, kReadOnly | kFast | kNative, 1, 1, 1, Peek, "ratelimit",
                  "Returns what RATE.TAKE would answer, without taking.", kNativeSince});
  table.Register({"rate.reset", 2, kWrite | kFast | kNative, 1, 1, 1, Reset, "ratelimit",
                  "Forgets a key's rate limit state.", kNativeSince});
}

}  // namespace cairn::server
