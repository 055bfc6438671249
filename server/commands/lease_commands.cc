// Lease commands: LEASE.ACQUIRE, LEASE.EXTEND, LEASE.RELEASE, LEASE.INFO and LEASE.FENCEDSET,
// over the server's cairn::LeaseManager (locks with owner tokens, fencing numbers and counting
// semaphores).
// server/docs/leases.md is their reference.
//
// Every command is one call of the library, which checks its arguments before it touches the
// store; the handlers parse and range-check what the library cannot see (integers, option
// words, values that must fit a narrower type). An acquisition of a held lease answers at
// once with who holds it and for how long; with BLOCK it parks its connection instead
// (parked_call.h): a waiter entry, no thread, until a release or expiry lets it in.
#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "args/arguments.h"
#include "args/ascii.h"
#include "args/errors.h"
#include "args/option_parser.h"
#include "cairn/lease.h"
#include "commands/all_commands.h"
#include "execution/block_wait.h"
#include "execution/command_table.h"
#include "execution/key_waiters.h"
#include "execution/parked_call.h"
#include "execution/server_state.h"

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

void WriteAcquired(resp::ReplyWriter& reply, const Result<AcquireResult>& result,
                   std::int64_t ttl_ms) {
  if (!result.ok()) return ReplyStatus(reply, result.status());
  if (const auto* lease = std::get_if<Lease>(&*result)) {
    reply.MapHeader(5);
    reply.Bulk("acquired");
    reply.Boolean(true);
    reply.Bulk("token");
    reply.Bulk(lease->token);
    reply.Bulk("fencing");
    reply.Integer(static_cast<std::int64_t>(lease->fencing));
    reply.Bulk("expires_at_ms");
    reply.Integer(lease->expires_at_ms);
    // The lease lasts ttl_ms from the instant of acquisition: the TTL asked for, exactly.
    reply.Bulk("ttl_ms");
    reply.Integer(ttl_ms);
    return;
  }
  const auto& busy = std::get<LeaseBusy>(*result);
  reply.MapHeader(3);
  reply.Bulk("acquired");
  reply.Boolean(false);
  reply.Bulk("holder");
  reply.Bulk(busy.holder);
  reply.Bulk("retry_after_ms");
  reply.Integer(busy.retry_after_ms);
}

// One try to take the lease (or a slot of it) now.
Result<AcquireResult> TryAcquire(LeaseManager& leases, const std::string& resource,
                                 const std::string& owner, std::optional<std::uint32_t> limit,
                                 std::int64_t ttl_ms) {
  return limit ? leases.TryAcquireSlot(resource, owner, *limit, ttl_ms)
               : leases.TryAcquire(resource, owner, ttl_ms);
}

// LEASE.ACQUIRE with BLOCK, when the lease was held: a waiter entry on the executor
// (key_waiters.h), tried when a LEASE.RELEASE of the resource signals it and when the holder's
// lease expires (retry_at), in arrival order, until its BLOCK time is up; then it looks once
// more and answers what it finds.
ParkedCall ParkAcquire(CommandContext& ctx, std::optional<std::uint32_t> limit, std::int64_t ttl_ms,
                       std::int64_t block_ms, const LeaseBusy& first) {
  LeaseManager& leases = Leases(ctx);
  const int protocol = ctx.session.protocol;
  std::string resource(ctx.args[1]), owner(ctx.args[2]);
  return ParkAsWaiter(
      ctx.server.key_waiters(), [&leases, protocol, resource, owner, limit, ttl_ms, block_ms,
                                 first_retry_ms = first.retry_after_ms](ParkedCall::Answer answer) {
        using Clock = KeyWaiters::Clock;
        // When the lease that ends first expires, as the last try found it (the command's own,
        // first).
        auto retry = std::make_shared<Clock::time_point>(
            KeyWaiters::After(std::max<std::int64_t>(1, first_retry_ms)));
        auto serve = [&leases, protocol, resource, owner, limit, ttl_ms, retry, answer](bool last) {
          Result<AcquireResult> result = TryAcquire(leases, resource, owner, limit, ttl_ms);
          if (!last && result.ok()) {
            if (const auto* busy = std::get_if<LeaseBusy>(&*result)) {
              *retry = KeyWaiters::After(std::max<std::int64_t>(1, busy->retry_after_ms));
              return false;
            }
          }
          std::string out;
          resp::ReplyWriter reply(&out, protocol);
          WriteAcquired(reply, result, ttl_ms);
          answer(std::move(out));
          return true;
        };
        KeyWaiters::Waiter waiter;
        // The resource is the command's key: a LEASE.RELEASE of it signals its waiters, as every
        // write signals its keys (dispatch.cc), and they are tried once that command is done.
        waiter.key_hashes = {KeyWaiters::KeyHash(resource)};
        waiter.deadline = KeyWaiters::After(block_ms);
        waiter.try_serve = [serve] { return serve(false); };
        waiter.time_out = [serve] { (void)serve(true); };
        waiter.retry_at = [retry] { return *retry; };
        return waiter;
      });
}

// LEASE.ACQUIRE resource owner ttl_ms [LIMIT n] [BLOCK ms]
void Acquire(CommandContext& ctx) {
  std::int64_t ttl_ms = 0;
  if (!ParseTtl(ctx, ctx.args[3], &ttl_ms)) return;
  std::optional<std::uint32_t> limit;
  std::optional<std::int64_t> block_ms;
  OptionParser p(ctx.args, 4);
  while (!p.Done()) {
    if (!limit && p.Word("limit")) {
      // Bounded: the library takes a uint32_t, which a larger number would wrap into.
      CAIRN_ARG_OR_REPLY(ctx.reply, const std::int64_t n,
                         p.Integer(1, kMaxSemaphoreLimit, "LIMIT"));
      limit = static_cast<std::uint32_t>(n);
    } else if (!block_ms && p.Word("block")) {
      CAIRN_ARG_OR_REPLY(ctx.reply, const std::string_view timeout, p.Text());
      block_ms = ParseBlockMs(timeout, ctx.reply);
      if (!block_ms) return;
    } else {
      return ctx.reply.Error(kSyntaxError);
    }
  }
  const std::string resource(ctx.args[1]), owner(ctx.args[2]);
  // First without waiting: a free lease is taken at once.
  Result<AcquireResult> result = TryAcquire(Leases(ctx), resource, owner, limit, ttl_ms);
  if (block_ms && result.ok() && std::holds_alternative<LeaseBusy>(*result)) {
    ctx.session.parked = ParkAcquire(ctx, limit, ttl_ms, *block_ms, std::get<LeaseBusy>(*result));
    return;
  }
  WriteAcquired(ctx.reply, result, ttl_ms);
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

// LEASE.FENCEDSET resource fencing key value: SET key value, only while `fencing` is the newest
// number issued for resource. The check and the write are one store transaction that locks
// the lease row, so no acquisition slips in between: a holder paused past its TTL cannot
// overwrite what was written under a newer lease.
void FencedSet(CommandContext& ctx) {
  const std::optional<std::int64_t> fencing = ParseInt64(ctx.args[2]);
  if (!fencing) return ctx.reply.Error(kNotInteger);
  if (*fencing < 1) return ctx.reply.Error("ERR fencing number must be 1 or more");
  Result<SetResult> result = Leases(ctx).FencedSet(
      ctx.args[1], static_cast<std::uint64_t>(*fencing), ctx.args[3], ctx.args[4]);
  if (result.ok()) return ctx.reply.Ok();
  // Its own error code: a client tells "someone newer holds the lease" from a bad argument
  // without parsing the text.
  if (result.status().code() == StatusCode::kStaleFence) {
    return ctx.reply.Error("STALEFENCE " + std::string(result.status().message()));
  }
  ReplyStatus(ctx.reply, result.status());
}

}  // namespace

void RegisterLeaseCommands(CommandTable& table) {
  table.Register(
      {"lease.acquire", -4, kWrite | kFast | kBlocking | kNative, 1, 1, 1, Acquire, "lease",
       "Acquires a lease (or, with LIMIT, a semaphore slot), waiting up to BLOCK ms if given; "
       "returns its token and fencing number, or who holds it.",
       kNativeSince});
  table.Register({"lease.extend", 4, kWrite | kFast | kNative, 1, 1, 1, Extend, "lease",
                  "Moves the expiry of a held lease to now plus a TTL in milliseconds.",
                  kNativeSince});
  table.Register({"lease.release", 3, kWrite | kFast | kNative, 1, 1, 1, Release, "lease",
                  "Releases a held lease by its token.", kNativeSince});
  table.Register({"lease.info", 2, kReadOnly | kFast | kNative, 1, 1, 1, Info, "lease",
                  "Returns the live holders of a lease and its newest fencing number.",
                  kNativeSince});
  // Two keys: the resource (1) and the string key it writes (3), so that WATCH sees the write.
  table.Register(
      {"lease.fencedset", 5, kWrite | kFast | kNative, 1, 3, 2, FencedSet, "lease",
       "Sets a string key only while the fencing number is the newest issued for the lease.",
       kNativeSince});
}

}  // namespace cairn::server
