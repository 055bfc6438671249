#include "commands/blocking.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>

#include "commands/arguments.h"
#include "commands/errors.h"
#include "commands/key_waiters.h"
#include "commands/server_state.h"

namespace cairn::server {
namespace {

// One try on its own store transaction; *reply holds the reply of the last run. With
// `watches`, a try that serves touches the keys it wrote (a pop, a move's destination) before
// it commits, as dispatch does for every other write: its transaction holds their locks by
// then, so an EXEC that compared versions earlier has finished, and one that compares later
// sees the change (watch_registry.h).
//
// A parked try passes its `waiter`: the try then runs only if the wait was not interrupted,
// and *ran says whether it did. The check comes inside the transaction, after its begin: with
// the keyspace taken in turns (Options::serialize_keyspace), the begin waits for the io
// thread's turn, and the io thread may interrupt the waiter meanwhile (its client closed),
// which waits for a try under way — so a try must not be under way while it waits for the turn.
Result<bool> TryOnStore(Store& store, const BlockingCommand& command, int protocol,
                        std::string* reply, WatchRegistry* watches = nullptr,
                        KeyWaiter* waiter = nullptr, bool* ran = nullptr) {
  bool served = false;
  Status s = store.RunTransaction([&](Transaction& txn) -> Status {
    reply->clear();
    served = false;
    Status attempt_status;
    auto attempt = [&] {
      resp::ReplyWriter writer(reply, protocol);
      // A parked try (waiter set) first checks that what it waits on is still there.
      if (waiter != nullptr && command.vanished) {
        Result<bool> gone = command.vanished(txn);
        if (!gone.ok()) {
          attempt_status = gone.status();
          return;
        }
        if (*gone) {
          writer.Error(command.vanished_error);
          served = true;
          return;
        }
      }
      Result<bool> r = command.attempt(txn, writer);
      if (!r.ok()) {
        attempt_status = r.status();
        return;
      }
      served = *r;
      if (served && watches != nullptr && command.takes && command.watched_write) {
        for (const std::string& key : command.keys) watches->Touch(key);
        for (const std::string& key : command.also_writes) watches->Touch(key);
      }
    };
    if (waiter == nullptr) {
      attempt();
    } else {
      *ran = waiter->TryUnlessInterrupted(attempt);
    }
    return attempt_status;
  });
  if (!s.ok()) return s;
  return served;
}

void WriteTimeout(resp::ReplyWriter& reply, const BlockingCommand& command) {
  command.null_array_on_timeout ? reply.NullArray() : reply.Null();
}

// Keeps a waiter queued on its keys until Leave(), or until the parked call that owns it is
// dropped without running (the connection closed first).
class Registration {
 public:
  Registration(KeyWaiters& waiters, std::shared_ptr<KeyWaiter> waiter)
      : waiters_(waiters), waiter_(std::move(waiter)) {
    waiters_.Add(waiter_);
  }
  ~Registration() { Leave(); }
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;
  void Leave() {
    if (!std::exchange(left_, true)) waiters_.Remove(waiter_);
  }

 private:
  KeyWaiters& waiters_;
  std::shared_ptr<KeyWaiter> waiter_;
  bool left_ = false;
};

// The parked wait: tries again after each wake-up until served, timed out or stopped. Its
// first try was the one on the io thread, made after it queued.
ParkedCall Park(ServerState& server, BlockingCommand command, int protocol,
                std::shared_ptr<KeyWaiter> waiter, std::shared_ptr<Registration> queued) {
  ParkedCall parked;
  parked.wake = [waiter] { waiter->Interrupt(); };
  parked.wait = [&server, waiter, queued, command = std::move(command),
                 protocol](const std::atomic<bool>& stop) {
    using Steady = std::chrono::steady_clock;
    const Steady::time_point deadline =
        command.timeout_ms > 0 ? Steady::now() + std::chrono::milliseconds(command.timeout_ms)
                               : Steady::time_point::max();
    std::string out;
    bool served = false;
    bool ended = false;  // Without being served: stopped, or the timeout passed.
    bool again = false;  // The last try could not begin (the keyspace stayed busy): try again.
    while (true) {
      if (!again) waiter->WaitUntil(deadline);
      if (waiter->TakeWakeup() || std::exchange(again, false)) {
        Result<bool> tried = false;
        // A client gone (or killed) is not served: its reply would be for nobody.
        bool ran = false;
        if (!stop.load()) {
          // Outside dispatch, which touches the keys of every other write for WATCH.
          tried = TryOnStore(server.store(), command, protocol, &out, &server.watches(),
                             waiter.get(), &ran);
        }
        // Busy before the try ran: the io thread held the keyspace for lock_timeout_ms (a
        // long script). The client still waits, as on Redis.
        again = !ran && !tried.ok() && tried.status().IsBusy();
        if (!again && !tried.ok()) {
          out.clear();
          resp::ReplyWriter writer(&out, protocol);
          ReplyStatus(writer, tried.status());
          break;
        }
        served = ran && tried.ok() && *tried;
        if (served) break;
        ended = !ran && !again;
      }
      if (ended || stop.load() || waiter->interrupted() || Steady::now() >= deadline) {
        out.clear();
        resp::ReplyWriter writer(&out, protocol);
        WriteTimeout(writer, command);
        break;
      }
    }
    // Leaving signals the keys it waited on, for the waiters behind it.
    queued->Leave();
    if (served) server.key_waiters().Signal(command.also_writes);
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
  // First on the io thread, in the caller's transaction when there is one: most calls are
  // served at once.
  if (ctx.txn != nullptr) {
    Result<bool> served = command.attempt(ctx.data, ctx.reply);
    if (!served.ok()) return ReplyStatus(ctx.reply, served.status());
    if (!*served) WriteTimeout(ctx.reply, command);
    return;
  }
  // Queued before the try, so that a write committed after the try began wakes it; and on
  // the io thread, so that clients queue in the order their commands arrived.
  std::shared_ptr<KeyWaiter> waiter;
  std::shared_ptr<Registration> queued;
  if (command.may_wait) {
    waiter = std::make_shared<KeyWaiter>(command.keys, command.takes, command.line);
    queued = std::make_shared<Registration>(ctx.server.key_waiters(), waiter);
  }
  std::string out;
  Result<bool> served = TryOnStore(ctx.server.store(), command, ctx.session.protocol, &out);
  if (!served.ok() || *served || !command.may_wait) {
    if (queued) queued->Leave();
    if (!served.ok()) return ReplyStatus(ctx.reply, served.status());
    if (!*served) return WriteTimeout(ctx.reply, command);
    ctx.reply.buffer()->append(out);
    return;
  }
  ctx.session.parked =
      Park(ctx.server, std::move(command), ctx.session.protocol, waiter, std::move(queued));
}

}  // namespace cairn::server
