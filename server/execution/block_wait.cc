#include "execution/block_wait.h"

#include "args/arguments.h"
#include "args/errors.h"

namespace cairn::server {

std::optional<std::int64_t> ParseBlockMs(std::string_view arg, resp::ReplyWriter& reply) {
  const std::optional<std::int64_t> ms = ParseInt64(arg);
  if (!ms) {
    reply.Error("ERR timeout is not an integer or out of range");
    return std::nullopt;
  }
  if (*ms < 0) {
    reply.Error("ERR timeout is negative");
    return std::nullopt;
  }
  return ms;
}

}  // namespace cairn::server
