#include "commands/blocking.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>

#include "commands/arguments.h"
#include "commands/errors.h"
#include "commands/key_waiters.h"
#include "commands/server_state.h"

namespace cairn::server {
namespace {

// One try on its own store transaction; *reply holds the reply of the last run.
Result<bool> TryOnStore(Store& store, const BlockingCommand& command, int protocol,
                        std::string* reply) {
  bool served = false;
  Status s = store.RunTransaction([&](Transaction& txn) -> Status {
    reply->clear();
    resp::ReplyWriter writer(reply, protocol);
    Result<bool> r = command.attempt(txn, writer);
    if (!r.ok()) return r.status();
    served = *r;
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return served;
}

void WriteTimeout(resp::ReplyWriter& reply, const BlockingCommand& command) {
  command.null_array_on_timeout ? reply.NullArray() : reply.Null();
}

// The parked wait: tries again after each wake-up until served, timed out or stopped.
ParkedCall Park(ServerState& server, BlockingCommand command, int protocol) {
  auto waiter = std::make_shared<KeyWaiter>(command.keys);
  ParkedCall parked;
  parked.wake = [waiter] { waiter->Interrupt(); };
  parked.wait = [&server, waiter, command = std::move(command),
                 protocol](const std::atomic<bool>& stop) {
    using Steady = std::chrono::steady_clock;
    const Steady::time_point deadline =
        command.timeout_ms > 0 ? Steady::now() + std::chrono::milliseconds(command.timeout_ms)
                               : Steady::time_point::max();
    server.key_waiters().Add(waiter);
    std::string out;
    bool served = false;
    while (true) {
      waiter->TakeWakeup();
      Result<bool> tried = TryOnStore(server.store(), command, protocol, &out);
      if (!tried.ok()) {
        out.clear();
        resp::ReplyWriter writer(&out, protocol);
        ReplyStatus(writer, tried.status());
        break;
      }
      served = *tried;
      if (served) break;
      if (stop.load() || waiter->interrupted() || Steady::now() >= deadline) {
        out.clear();
        resp::ReplyWriter writer(&out, protocol);
        WriteTimeout(writer, command);
        break;
      }
      waiter->WaitUntil(deadline);
    }
    server.key_waiters().Remove(waiter);
    if (served) {
      // What it left behind, or wrote elsewhere, may serve the next waiters.
      server.key_waiters().Signal(command.keys);
      server.key_waiters().Signal(command.also_writes);
    }
    return out;
  };
  return parked;
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

void RunBlocking(CommandContext& ctx, BlockingCommand command) {
  // First on the io thread, in the caller's transaction when there is one: most calls are
  // served at once.
  if (ctx.txn != nullptr) {
    Result<bool> served = command.attempt(ctx.data, ctx.reply);
    if (!served.ok()) return ReplyStatus(ctx.reply, served.status());
    if (!*served) WriteTimeout(ctx.reply, command);
    return;
  }
  std::string out;
  Result<bool> served = TryOnStore(ctx.server.store(), command, ctx.session.protocol, &out);
  if (!served.ok()) return ReplyStatus(ctx.reply, served.status());
  if (*served) {
    ctx.reply.buffer()->append(out);
    return;
  }
  ctx.session.parked = Park(ctx.server, std::move(command), ctx.session.protocol);
}

}  // namespace cairn::server
