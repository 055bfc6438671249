// Lease commands: LEASE.ACQUIRE, LEASE.EXTEND, LEASE.RELEASE and LEASE.INFO, over the server's
// cairn::LeaseManager (locks with owner tokens, fencing numbers and counting semaphores).
// server/docs/leases.md is their reference.
//
// Every command is one call of the library, which checks its arguments before it touches the
// store; the handlers parse and range-check what the library cannot see (integers, option
// words, values that must fit a narrower type). None of them waits: an acquisition of a held
// lease answers at once with who holds it and for how long, because a command runs on its
// connection's io thread and must not park it.
#include <algorithm>
#include <optional>
#include <string>
#include <variant>

#include "cairn/lease.h"
#include "commands/arguments.h"
#include "commands/ascii.h"
#include "commands/command_table.h"
#include "commands/errors.h"
#include "commands/server_state.h"

namespace cairn::server {
namespace {

LeaseManager& Leases(CommandContext& ctx) { return ctx.server.engines().leases; }

// A lost lease is an error, not a 0: a holder that extends or releases a lease it no longer
// holds may have overlapped with the next holder, and client libraries raise errors where
// they would let an integer pass unread.
void ReplyNotOwner(CommandContext& ctx) {
  ctx.reply.Error("NOTOWNER the token does not hold lease '" + std::string(ctx.args[1]) +
                  "': it expired, was released or was taken over");
}

// A TTL in milliseconds; the library checks its range (1 ms to 7 days).
bool ParseTtl(CommandContext& ctx, std::string_view arg, std::int64_t* ttl_ms) {
  const std::optional<std::int64_t> ttl = ParseInt64(arg);
  if (!ttl) {
    ctx.reply.Error(kNotInteger);
    return false;
  }
  *ttl_ms = *ttl;
  return true;
}

// LEASE.ACQUIRE resource owner ttl_ms [LIMIT n]
void Acquire(CommandContext& ctx) {
  std::int64_t ttl_ms = 0;
  if (!ParseTtl(ctx, ctx.args[3], &ttl_ms)) return;
  std::optional<std::uint32_t> limit;
  for (std::size_t i = 4; i < ctx.args.size(); ++i) {
    if (EqualsIgnoreCase(ctx.args[i], "limit") && !limit && i + 1 < ctx.args.size()) {
      const std::optional<std::int64_t> n = ParseInt64(ctx.args[++i]);
      if (!n) return ctx.reply.Error(kNotInteger);
      // Checked here: the library takes a uint32_t, which a larger number would wrap into.
      if (*n < 1 || *n > kMaxSemaphoreLimit) {
        return ctx.reply.Error("ERR LIMIT must be between 1 and " +
                               std::to_string(kMaxSemaphoreLimit));
      }
      limit = static_cast<std::uint32_t>(*n);
    } else {
      return ctx.reply.Error(kSyntaxError);
    }
  }
  const std::string_view resource = ctx.args[1], owner = ctx.args[2];
  Result<AcquireResult> result = limit ? Leases(ctx).TryAcquireSlot(resource, owner, *limit, ttl_ms)
                                       : Leases(ctx).TryAcquire(resource, owner, ttl_ms);
  if (!result.ok()) return ReplyStatus(ctx.reply, result.status());
  if (const auto* lease = std::get_if<Lease>(&*result)) {
    ctx.reply.MapHeader(5);
    ctx.reply.Bulk("acquired");
    ctx.reply.Boolean(true);
    ctx.reply.Bulk("token");
    ctx.reply.Bulk(lease->token);
    ctx.reply.Bulk("fencing");
    ctx.reply.Integer(static_cast<std::int64_t>(lease->fencing));
    ctx.reply.Bulk("expires_at_ms");
    ctx.reply.Integer(lease->expires_at_ms);
    // The lease lasts ttl_ms from the instant of acquisition: the TTL asked for, exactly.
    ctx.reply.Bulk("ttl_ms");
    ctx.reply.Integer(ttl_ms);
    return;
  }
  const auto& busy = std::get<LeaseBusy>(*result);
  ctx.reply.MapHeader(3);
  ctx.reply.Bulk("acquired");
  ctx.reply.Boolean(false);
  ctx.reply.Bulk("holder");
  ctx.reply.Bulk(busy.holder);
  ctx.reply.Bulk("retry_after_ms");
  ctx.reply.Integer(busy.retry_after_ms);
}

// LEASE.EXTEND resource token ttl_ms
void Extend(CommandContext& ctx) {
  std::int64_t ttl_ms = 0;
  if (!ParseTtl(ctx, ctx.args[3], &ttl_ms)) return;
  Result<OwnerResult> result = Leases(ctx).Extend(ctx.args[1], ctx.args[2], ttl_ms);
  if (!result.ok()) return ReplyStatus(ctx.reply, result.status());
  if (*result == OwnerResult::kNotOwner) return ReplyNotOwner(ctx);
  ctx.reply.Ok();
}

// LEASE.RELEASE resource token
void Release(CommandContext& ctx) {
  Result<OwnerResult> result = Leases(ctx).Release(ctx.args[1], ctx.args[2]);
  if (!result.ok()) return ReplyStatus(ctx.reply, result.status());
  if (*result == OwnerResult::kNotOwner) return ReplyNotOwner(ctx);
  ctx.reply.Ok();
}

// LEASE.INFO resource: nil for a resource never leased. Holders are shown without their
// tokens: a token is the capability to extend or release, and handing it to every reader
// would let any client end a lease it does not hold.
void Info(CommandContext& ctx) {
  Result<LeaseState> state = Leases(ctx).Inspect(ctx.args[1]);
  if (!state.ok()) return ReplyStatus(ctx.reply, state.status());
  if (state->holders.empty() && state->highest_fencing == 0) return ctx.reply.Null();
  const std::int64_t now = ctx.server.clock().NowMs();
  ctx.reply.MapHeader(2);
  ctx.reply.Bulk("highest_fencing");
  ctx.reply.Integer(static_cast<std::int64_t>(state->highest_fencing));
  ctx.reply.Bulk("holders");
  ctx.reply.ArrayHeader(state->holders.size());
  for (const LeaseHolder& holder : state->holders) {
    ctx.reply.MapHeader(5);
    ctx.reply.Bulk("owner");
    ctx.reply.Bulk(holder.owner);
    ctx.reply.Bulk("fencing");
    ctx.reply.Integer(static_cast<std::int64_t>(holder.fencing));
    ctx.reply.Bulk("acquired_at_ms");
    ctx.reply.Integer(holder.acquired_at_ms);
    ctx.reply.Bulk("expires_at_ms");
    ctx.reply.Integer(holder.expires_at_ms);
    ctx.reply.Bulk("ttl_ms");
    ctx.reply.Integer(std::max<std::int64_t>(holder.expires_at_ms - now, 0));
  }
}

}  // namespace

void RegisterLeaseCommands(CommandTable& table) {
  auto add = [&](std::string_view name, int arity, std::uint32_t flags, CommandHandler handler,
                 std::string_view summary) {
    table.Register(
        {name, arity, flags | kNoMulti, 1, 1, 1, handler, "lease", summary, "cairn-0.1"});
  };
  add("lease.acquire", -4, kWrite | kFast, Acquire,
      "Acquires a lease (or, with LIMIT, a semaphore slot) without waiting; returns its token and "
      "fencing number, or who holds it.");
  add("lease.extend", 4, kWrite | kFast, Extend,
      "Moves the expiry of a held lease to now plus a TTL in milliseconds.");
  add("lease.release", 3, kWrite | kFast, Release, "Releases a held lease by its token.");
  add("lease.info", 2, kReadOnly | kFast, Info,
      "Returns the live holders of a lease and its newest fencing number.");
}

}  // namespace cairn::server
