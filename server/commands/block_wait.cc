#include "commands/block_wait.h"

#include <algorithm>
#include <limits>

#include "commands/arguments.h"
#include "commands/errors.h"

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

BlockDeadline::BlockDeadline(const Clock& clock, std::int64_t block_ms) : clock_(clock) {
  const std::int64_t now = clock.NowMs();
  // A limit beyond what int64 milliseconds can reach is no limit.
  if (block_ms > 0 && block_ms <= std::numeric_limits<std::int64_t>::max() - now) {
    deadline_ms_ = now + block_ms;
  }
}

std::int64_t BlockDeadline::NextWait(std::int64_t max_ms) const {
  if (!deadline_ms_) return max_ms;
  return std::clamp<std::int64_t>(*deadline_ms_ - clock_.NowMs(), 0, max_ms);
}

bool BlockDeadline::Expired() const { return deadline_ms_ && clock_.NowMs() >= *deadline_ms_; }

}  // namespace cairn::server
