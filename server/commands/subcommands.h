// Commands made of subcommands (XINFO STREAM, XGROUP CREATE, …): each subcommand with its
// arity as Redis declares it, so that a wrong count is refused in Redis's words
// ('xinfo|stream') before the subcommand runs.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "args/ascii.h"
#include "execution/command.h"

namespace cairn::server {

struct Subcommand {
  std::string_view name;  // Lower case.
  int arity;              // Counting the command and the subcommand; negative: at least.
  CommandHandler handler;
};

// Runs the subcommand ctx.args[1] names (any case) from `table`, or replies Redis's error;
// `command` is the command's name in upper case, as the error's "Try XINFO HELP." says it.
inline void RunSubcommand(CommandContext& ctx, std::span<const Subcommand> table,
                          std::string_view command) {
  const std::string_view sub = ctx.args[1];
  for (const Subcommand& known : table) {
    if (!EqualsIgnoreCase(sub, known.name)) continue;
    const auto argc = static_cast<int>(ctx.args.size());
    if (known.arity > 0 ? argc != known.arity : argc < -known.arity) {
      return ctx.reply.Error("ERR wrong number of arguments for '" + ToLower(command) + "|" +
                             std::string(known.name) + "' command");
    }
    return known.handler(ctx);
  }
  ctx.reply.Error("ERR unknown subcommand '" + std::string(sub.substr(0, 128)) + "'. Try " +
                  std::string(command) + " HELP.");
}

}  // namespace cairn::server
