#include "execution/blocking.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>

#include "args/arguments.h"
#include "args/errors.h"
#include "execution/key_waiters.h"
#include "execution/parked_call.h"
#include "execution/server_state.h"

namespace cairn::server {
namespace {

// One try on its own store transaction; *reply holds the reply of the last run. With
// `watches`, a try that serves touches the keys it wrote (a pop, a move's destination) before
// it commits, as dispatch does for every other write, so that an EXEC queued behind it sees
// the change (watch_registry.h). A `parked` try (a waiter's, after its first) first checks that
// what it waits on is still there (BlockingCommand::vanished).
Result<bool> TryOnStore(Store& store, const BlockingCommand& command, int protocol,
                        std::string* reply, WatchRegistry* watches = nullptr, bool parked = false) {
  bool served = false;
  Status s = store.RunTransaction([&](Transaction& txn) -> Status {
    reply->clear();
    served = false;
    resp::ReplyWriter writer(reply, protocol);
    if (parked && command.vanished) {
      Result<bool> gone = command.vanished(txn);
      if (!gone.ok()) return gone.status();
      if (*gone) {
        writer.Error(command.vanished_error);
        served = true;
        return Status::Ok();
      }
    }
    Result<bool> r = command.attempt(txn, writer);
    if (!r.ok()) return r.status();
    served = *r;
    if (served && watches != nullptr && command.takes && command.watched_write) {
      for (const std::string& key : command.keys) watches->Touch(key);
      for (const std::string& key : command.also_writes) watches->Touch(key);
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return served;
}

void WriteTimeout(resp::ReplyWriter& reply, const BlockingCommand& command) {
  command.null_array_on_timeout ? reply.NullArray() : reply.Null();
}

// The parked client: a waiter entry on its keys (key_waiters.h), tried on the executor each
// time one of them is written, answered when a try serves it or its timeout passes.
ParkedCall Park(ServerState& server, BlockingCommand command, int protocol) {
  return ParkAsWaiter(server.key_waiters(),
                      [&server, command = std::move(command), protocol](ParkedCall::Answer answer) {
                        KeyWaiters::Waiter waiter;
                        for (const std::string& key : command.keys) {
                          waiter.key_hashes.push_back(KeyWaiters::KeyHash(key));
                        }
                        waiter.takes = command.takes;
                        waiter.line = command.line;
                        waiter.deadline = KeyWaiters::After(command.timeout_ms);
                        waiter.try_serve = [&server, command, protocol, answer] {
                          std::string out;
                          // Outside dispatch, which touches the keys of every other write for
                          // WATCH.
                          Result<bool> tried = TryOnStore(server.store(), command, protocol, &out,
                                                          &server.watches(), true);
                          if (tried.ok() && !*tried) return false;
                          if (!tried.ok()) {
                            out.clear();
                            resp::ReplyWriter writer(&out, protocol);
                            ReplyStatus(writer, tried.status());
                          }
                          answer(std::move(out));
                          // What it moved (BLMOVE's destination) may serve others, still before
                          // anything else runs.
                          if (tried.ok()) server.key_waiters().Signal(command.also_writes);
                          return true;
                        };
                        waiter.time_out = [command, protocol, answer] {
                          std::string out;
                          resp::ReplyWriter writer(&out, protocol);
                          WriteTimeout(writer, command);
                          answer(std::move(out));
                        };
                        return waiter;
                      });
}

}  // namespace

std::optional<std::int64_t> ParseBlockingTimeout(std::string_view arg, resp::ReplyWriter& reply) {
  const std::optional<long double> seconds = ParseLongDouble(arg);
  if (!seconds || std::isinf(*seconds)) {
    reply.Error("ERR timeout is not a float or out of range");
    return std::nullopt;
  }
  if (*seconds < 0) {
    reply.Error("ERR timeout is negative");
    return std::nullopt;
  }
  // Whole milliseconds, truncated as Redis truncates them (so 0.0001 waits without limit).
  const long double ms = *seconds * 1000.0L;
  if (ms > static_cast<long double>(std::numeric_limits<std::int64_t>::max() / 2)) {
    reply.Error("ERR timeout is out of range");
    return std::nullopt;
  }
  return static_cast<std::int64_t>(ms);
}

void PopFromFirstKey(BlockingCommand& command, PopFromKey pop) {
  command.attempt = [keys = command.keys, pop = std::move(pop)](
                        Records& data, resp::ReplyWriter& reply) -> Result<bool> {
    for (const std::string& key : keys) {
      Result<bool> served = pop(data, key, reply);
      if (!served.ok() || *served) return served;
    }
    return false;
  };
}

void RunBlocking(CommandContext& ctx, BlockingCommand command) {
  // First at once, in the caller's transaction when there is one (MULTI, a script: then it
  // never waits): most calls are served at once.
  if (ctx.txn != nullptr) {
    Result<bool> served = command.attempt(ctx.data, ctx.reply);
    if (!served.ok()) return ReplyStatus(ctx.reply, served.status());
    if (!*served) WriteTimeout(ctx.reply, command);
    return;
  }
  // On the executor, which is the only thread that writes keys: nothing can write between
  // this try and the registration of the waiter (at the connection's StartParkedCall), and
  // clients queue in the order their commands ran.
  std::string out;
  Result<bool> served = TryOnStore(ctx.server.store(), command, ctx.session.protocol, &out);
  if (!served.ok()) return ReplyStatus(ctx.reply, served.status());
  if (*served) {
    ctx.reply.buffer()->append(out);
    return;
  }
  if (!command.may_wait) return WriteTimeout(ctx.reply, command);
  ctx.session.parked = Park(ctx.server, std::move(command), ctx.session.protocol);
}

}  // namespace cairn::server
