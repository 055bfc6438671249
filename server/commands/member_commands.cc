#include "commands/member_commands.h"

#include <algorithm>
#include <numeric>

#include "args/arguments.h"
#include "args/ascii.h"
#include "args/errors.h"
#include "args/option_parser.h"
#include "cairn/limits.h"
#include "execution/server_state.h"

namespace cairn::server {

std::optional<MemberScanArgs> ParseMemberScan(CommandContext& ctx, SizeCall size_of) {
  MemberScanArgs args;
  const std::optional<std::int64_t> cursor = ParseInt64(ctx.args[2]);
  if (!cursor || *cursor < 0) {
    ctx.reply.Error("ERR invalid cursor");
    return std::nullopt;
  }
  if (*cursor != 0) {
    std::optional<std::string> resume =
        ctx.server.scan_cursors().Get(static_cast<std::uint64_t>(*cursor));
    if (!resume) {
      ctx.reply.Error("ERR invalid cursor");
      return std::nullopt;
    }
    args.resume = std::move(*resume);
  }
  // Redis looks the key up before it reads the options: a missing key answers an empty scan
  // whatever follows, a key of another kind WRONGTYPE.
  Result<std::uint64_t> size = (ctx.data.*size_of)(ctx.args[1]);
  if (!size.ok()) {
    ReplyStatus(ctx.reply, size.status());
    return std::nullopt;
  }
  if (*size == 0) {
    ReplyMemberScan(ctx, {}, {});
    return std::nullopt;
  }
  args.size = *size;
  OptionParser p(ctx.args, 3);
  while (!p.Done()) {
    if (p.Left() < 2) {  // Options come in pairs.
      ctx.reply.Error(kSyntaxError);
      return std::nullopt;
    }
    if (p.Word("match")) {
      args.pattern = *p.Text();
    } else if (p.Word("count")) {
      const Parsed<std::int64_t> n = p.Integer();
      if (!n.ok()) {
        ctx.reply.Error(n.error());
        return std::nullopt;
      }
      if (*n < 1) {
        ctx.reply.Error(kSyntaxError);
        return std::nullopt;
      }
      args.count = *n;
    } else {
      ctx.reply.Error(kSyntaxError);
      return std::nullopt;
    }
  }
  return args;
}

std::size_t MemberScanPageSize(const MemberScanArgs& args) {
  if (args.size <= kWholeScanMembers) return kMaxScanCount;
  return static_cast<std::size_t>(std::min<std::int64_t>(args.count, kMaxScanCount));
}

void ReplyMemberScan(CommandContext& ctx, std::string cursor,
                     const std::vector<std::string_view>& items) {
  const std::uint64_t next = cursor.empty() ? 0 : ctx.server.scan_cursors().Put(std::move(cursor));
  ctx.reply.ArrayHeader(2);
  ctx.reply.Bulk(std::to_string(next));
  ctx.reply.ArrayHeader(items.size());
  for (std::string_view item : items) ctx.reply.Bulk(item);
}

std::vector<std::size_t> RandomPicks(std::size_t size, std::int64_t count, std::mt19937_64& rng) {
  std::vector<std::size_t> picks;
  if (size == 0) return picks;
  if (count < 0) {
    std::uniform_int_distribution<std::size_t> pick(0, size - 1);
    const std::uint64_t n = static_cast<std::uint64_t>(-(count + 1)) + 1;
    picks.reserve(n);
    for (std::uint64_t i = 0; i < n; ++i) picks.push_back(pick(rng));
    return picks;
  }
  picks.resize(size);
  std::iota(picks.begin(), picks.end(), std::size_t{0});
  if (static_cast<std::uint64_t>(count) < size) {
    std::shuffle(picks.begin(), picks.end(), rng);
    picks.resize(static_cast<std::size_t>(count));
  }
  return picks;
}

std::mt19937_64& ThreadRng() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return rng;
}

}  // namespace cairn::server
