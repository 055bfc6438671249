// Redis's blocking commands (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BZPOPMIN, BZPOPMAX, BLMPOP,
// BZMPOP): one try at once; when it finds nothing, the client is parked (parked_call.h) and
// waits on its keys (key_waiters.h) until a write lets a try serve it, or the timeout passes.
// Inside MULTI or a script the command never waits: it answers as a timeout does, as in Redis.
// LMPOP and ZMPOP are their forms that never wait anywhere.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "execution/command.h"

namespace cairn::server {

struct BlockingCommand {
  // The keys it waits on.
  std::vector<std::string> keys;
  // How long it may wait; 0: without limit.
  std::int64_t timeout_ms = 0;
  // What a timeout answers: a null array (BLPOP, BZPOPMIN) or a null bulk (BLMOVE).
  bool null_array_on_timeout = true;
  // Whether a serving try takes what it found (BLPOP), or only reads it (XREAD): every reader
  // is woken by a write, only the oldest taker.
  bool takes = true;
  // The takers' line it waits in (key_waiters.h): "" for the pops, the group for XREADGROUP.
  std::string line;
  // Whether a serving try is a write that WATCH sees (a pop). XREADGROUP's is not: it changes
  // only its group's state, which Redis's WATCH does not see either.
  bool watched_write = true;
  // False for a command that never waits (LMPOP, ZMPOP): a try that finds nothing answers as
  // a timeout does, at once.
  bool may_wait = true;
  // Keys a serving try writes besides the ones it waits on (BLMOVE's destination); they are
  // signalled after it.
  std::vector<std::string> also_writes;
  // For a waiter whose wait depends on its keys staying what they are (XREADGROUP: its group
  // lives in the stream): when, woken, `vanished` finds one gone — deleted, flushed, renamed
  // away or now of another type — the waiter is answered `vanished_error` instead of trying
  // (Redis 7.0's -UNBLOCKED). Unset: it tries as usual.
  std::function<Result<bool>(Records& data)> vanished;
  std::string vanished_error;
  // One try, through `data` (one transaction): writes the whole reply and returns true when
  // it can serve the client now, writes nothing and returns false otherwise. It may run again
  // after a conflict, with a fresh reply.
  std::function<Result<bool>(Records& data, resp::ReplyWriter& reply)> attempt;
};

// Pops from one key: when the key has something, takes it, writes the command's whole reply
// and returns true; returns false, having written nothing, when the key is empty or absent.
using PopFromKey =
    std::function<Result<bool>(Records& data, const std::string& key, resp::ReplyWriter& reply)>;

// Sets command.attempt to the try of the commands that pop from the first of their keys that
// has something (BLPOP, BZPOPMIN, BLMPOP, …): `pop` on each key in argument order, until one
// serves. A key of another kind fails the try (WRONGTYPE) when it comes before the one served.
void PopFromFirstKey(BlockingCommand& command, PopFromKey pop);

// The timeout argument of BLPOP & co.: seconds, fractions allowed, 0 for none. Returns the
// milliseconds, or nullopt after replying with Redis's error.
std::optional<std::int64_t> ParseBlockingTimeout(std::string_view arg, resp::ReplyWriter& reply);

// Runs the command: replies now, or parks the client (ctx.session.parked).
void RunBlocking(CommandContext& ctx, BlockingCommand command);

}  // namespace cairn::server
