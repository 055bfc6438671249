#include "commands/stream_read_args.h"

#include <string>

#include "args/arguments.h"
#include "args/ascii.h"
#include "args/errors.h"
#include "args/option_parser.h"
#include "execution/session.h"

namespace cairn::server {

std::optional<StreamReadArgs> ParseStreamReadArgs(CommandContext& ctx, bool group_read) {
  const std::vector<std::string_view>& args = ctx.args;
  StreamReadArgs out;
  bool grouped = false;
  auto fail = [&](std::string_view error) {
    ctx.reply.Error(error);
    return std::nullopt;
  };
  OptionParser p(args, 1);
  while (!p.Done()) {
    // Each option needs its values after it; without them it is a syntax error.
    if (p.Left() >= 2 && p.Word("block")) {
      if (ctx.session.in_script) {
        // Named as the script called it, as Redis does.
        return fail("ERR " + std::string(args[0]) +
                    " command is not allowed with BLOCK option from scripts");
      }
      const Parsed<std::int64_t> block_ms = p.Integer();
      if (!block_ms.ok()) return fail("ERR timeout is not an integer or out of range");
      out.block_ms = *block_ms;
      if (*out.block_ms < 0) return fail("ERR timeout is negative");
    } else if (p.Left() >= 2 && p.Word("count")) {
      const Parsed<std::int64_t> n = p.Integer();
      if (!n.ok()) return fail(n.error());
      out.count = *n > 0 ? static_cast<std::uint64_t>(*n) : 0;
    } else if (p.Left() >= 2 && p.Word("streams")) {
      out.streams_at = p.Position();
      if ((args.size() - out.streams_at) % 2 != 0) {
        // Redis 7.0 words it so for XREADGROUP too.
        return fail(
            "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be "
            "specified.");
      }
      out.streams = (args.size() - out.streams_at) / 2;
      break;
    } else if (p.Left() >= 3 && p.Word("group")) {
      if (!group_read) {
        return fail(
            "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
      }
      grouped = true;
      out.group = *p.Text();
      out.consumer = *p.Text();
    } else if (p.Word("noack")) {
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
