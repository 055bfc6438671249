// The arguments XREAD and XREADGROUP share, parsed in the order Redis parses them, so that the
// same bad request gets the same error from either.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "execution/command.h"

namespace cairn::server {

struct StreamReadArgs {
  std::uint64_t count = 0;  // 0: all.
  std::optional<std::int64_t> block_ms;
  bool no_ack = false;
  std::string_view group;  // XREADGROUP's GROUP group consumer.
  std::string_view consumer;
  std::size_t streams_at = 0;  // Where the keys start; as many ids follow them.
  std::size_t streams = 0;
};

// Parses ctx.args as XREAD (group_read false) or XREADGROUP; nullopt after replying with
// Redis's error.
std::optional<StreamReadArgs> ParseStreamReadArgs(CommandContext& ctx, bool group_read);

}  // namespace cairn::server
