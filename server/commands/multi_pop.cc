#include "commands/multi_pop.h"

#include <optional>
#include <utility>
#include <vector>

#include "args/arguments.h"
#include "args/ascii.h"
#include "args/errors.h"
#include "args/option_parser.h"
#include "execution/blocking.h"

namespace cairn::server {
namespace {

struct MultiPopArgs {
  std::vector<std::string> keys;
  bool second_end = false;
  std::int64_t count = 1;
};

// Parses `numkeys key [key …] <end> [COUNT count]` from args[numkeys_at]. On bad input replies
// with Redis's error and returns nullopt. Nothing here looks at a key: every argument error
// comes before WRONGTYPE, as in Redis.
std::optional<MultiPopArgs> Parse(CommandContext& ctx, const MultiPopKind& kind,
                                  std::size_t numkeys_at) {
  const std::vector<std::string_view>& args = ctx.args;
  const std::optional<std::int64_t> numkeys = ParseInt64(args[numkeys_at]);
  if (!numkeys || *numkeys <= 0) {
    ctx.reply.Error("ERR numkeys should be greater than 0");
    return std::nullopt;
  }
  // The keys must leave room for the end's word. The arity check guarantees at least two
  // arguments after numkeys.
  if (static_cast<std::uint64_t>(*numkeys) >= args.size() - numkeys_at - 1) {
    ctx.reply.Error(kSyntaxError);
    return std::nullopt;
  }
  const std::size_t end_at = numkeys_at + 1 + static_cast<std::size_t>(*numkeys);
  MultiPopArgs parsed;
  parsed.keys.assign(args.begin() + static_cast<std::ptrdiff_t>(numkeys_at + 1),
                     args.begin() + static_cast<std::ptrdiff_t>(end_at));
  parsed.second_end = EqualsIgnoreCase(args[end_at], kind.second_end);
  if (!parsed.second_end && !EqualsIgnoreCase(args[end_at], kind.first_end)) {
    ctx.reply.Error(kSyntaxError);
    return std::nullopt;
  }
  // COUNT at most once, with its value; nothing else may follow the end.
  bool counted = false;
  OptionParser p(args, end_at + 1);
  while (!p.Done()) {
    if (counted || p.Left() < 2 || !p.Word("count")) {
      ctx.reply.Error(kSyntaxError);
      return std::nullopt;
    }
    const Parsed<std::int64_t> count = p.Integer();
    if (!count.ok() || *count <= 0) {
      ctx.reply.Error("ERR count should be greater than 0");
      return std::nullopt;
    }
    parsed.count = *count;
    counted = true;
  }
  return parsed;
}

void Run(CommandContext& ctx, const MultiPopKind& kind, bool blocking) {
  std::optional<MultiPopArgs> parsed = Parse(ctx, kind, blocking ? 2 : 1);
  if (!parsed) return;
  BlockingCommand command;
  command.keys = std::move(parsed->keys);
  command.may_wait = blocking;
  if (blocking) {
    // Redis reads the timeout after the other arguments: their errors come first.
    const std::optional<std::int64_t> timeout_ms = ParseBlockingTimeout(ctx.args[1], ctx.reply);
    if (!timeout_ms) return;
    command.timeout_ms = *timeout_ms;
  }
  PopFromFirstKey(command, [pop = kind.pop, second = parsed->second_end, count = parsed->count](
                               Records& data, const std::string& key, resp::ReplyWriter& reply) {
    return pop(data, key, second, count, reply);
  });
  RunBlocking(ctx, std::move(command));
}

}  // namespace

void MultiPop(CommandContext& ctx, const MultiPopKind& kind) { Run(ctx, kind, false); }

void BlockingMultiPop(CommandContext& ctx, const MultiPopKind& kind) { Run(ctx, kind, true); }

}  // namespace cairn::server
