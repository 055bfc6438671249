#include "commands/stream_read_args.h"

#include <string>

#include "commands/arguments.h"
#include "commands/ascii.h"
#include "commands/errors.h"
#include "commands/session.h"

namespace cairn::server {

std::optional<StreamReadArgs> ParseStreamReadArgs(CommandContext& ctx, bool group_read) {
  const std::vector<std::string_view>& args = ctx.args;
  StreamReadArgs out;
  bool grouped = false;
  auto fail = [&](std::string_view error) {
    ctx.reply.Error(error);
    return std::nullopt;
  };
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::size_t more = args.size() - 1 - i;
    const std::string_view opt = args[i];
    if (EqualsIgnoreCase(opt, "block") && more > 0) {
      if (ctx.session.in_script) {
        // Named as the script called it, as Redis does.
        return fail("ERR " + std::string(args[0]) +
                    " command is not allowed with BLOCK option from scripts");
      }
      out.block_ms = ParseInt64(args[++i]);
      if (!out.block_ms) return fail("ERR timeout is not an integer or out of range");
      if (*out.block_ms < 0) return fail("ERR timeout is negative");
    } else if (EqualsIgnoreCase(opt, "count") && more > 0) {
      const std::optional<std::int64_t> n = ParseInt64(args[++i]);
      if (!n) return fail(kNotInteger);
      out.count = *n > 0 ? static_cast<std::uint64_t>(*n) : 0;
    } else if (EqualsIgnoreCase(opt, "streams") && more > 0) {
      out.streams_at = i + 1;
      if ((args.size() - out.streams_at) % 2 != 0) {
        // Redis 7.0 words it so for XREADGROUP too.
        return fail(
            "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be "
            "specified.");
      }
      out.streams = (args.size() - out.streams_at) / 2;
      break;
    } else if (EqualsIgnoreCase(opt, "group") && more >= 2) {
      if (!group_read) {
        return fail(
            "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
      }
      grouped = true;
      out.group = args[i + 1];
      out.consumer = args[i + 2];
      i += 2;
    } else if (EqualsIgnoreCase(opt, "noack")) {
      if (!group_read) {
        return fail(
            "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
      }
      out.no_ack = true;
    } else {
      return fail(kSyntaxError);
    }
  }
  if (out.streams_at == 0) return fail(kSyntaxError);
  if (group_read && !grouped) return fail("ERR Missing GROUP option for XREADGROUP");
  return out;
}

}  // namespace cairn::server
