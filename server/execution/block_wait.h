// The BLOCK option of the blocking native commands (QUEUE.CLAIM, LEASE.ACQUIRE): a wait in
// milliseconds, where 0 means no time limit, as BLOCK 0 does for Redis's XREAD and BLPOP.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "resp/reply_writer.h"

namespace cairn::server {

// The BLOCK value, or nullopt after replying with the error (not an integer, negative).
std::optional<std::int64_t> ParseBlockMs(std::string_view arg, resp::ReplyWriter& reply);

}  // namespace cairn::server
