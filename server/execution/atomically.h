// Read-modify-write commands (GETDEL, APPEND, MSET, RENAME, …) run their reads and writes as
// one transaction: inside EXEC or a write batch on that transaction (ctx.data then is it),
// otherwise on a store transaction of their own that RunTransaction retries on conflicts. `fn` may
// run more than once; it must only record its outcome, and the caller replies after Atomically
// returns.
#pragma once

#include <functional>

#include "execution/command.h"
#include "execution/server_state.h"

namespace cairn::server {

inline Status Atomically(CommandContext& ctx, const std::function<Status(Records&)>& fn) {
  if (ctx.txn != nullptr) return fn(ctx.data);
  return ctx.server.store().RunTransaction([&](Transaction& txn) { return fn(txn); });
}

}  // namespace cairn::server
