// The BLOCK option of the blocking native commands (QUEUE.CLAIM, LEASE.ACQUIRE): a wait in
// milliseconds, where 0 means no time limit, as BLOCK 0 does for Redis's XREAD and BLPOP.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "cairn/clock.h"
#include "resp/reply_writer.h"

namespace cairn::server {

// The BLOCK value, or nullopt after replying with the error (not an integer, negative).
std::optional<std::int64_t> ParseBlockMs(std::string_view arg, resp::ReplyWriter& reply);

// When a BLOCK wait ends. The library bounds each wait (a week), so a longer or unlimited
// BLOCK waits in slices: each call waits NextWait() at most, until Expired().
class BlockDeadline {
 public:
  BlockDeadline(const Clock& clock, std::int64_t block_ms);

  // The next slice: the time left, at most max_ms (all of max_ms without a limit).
  std::int64_t NextWait(std::int64_t max_ms) const;
  bool Expired() const;

 private:
  const Clock& clock_;
  std::optional<std::int64_t> deadline_ms_;  // None: no time limit.
};

}  // namespace cairn::server
