#include "execution/dispatch.h"

#include <optional>

#include "args/arguments.h"
#include "args/errors.h"
#include "execution/pubsub_session.h"

namespace cairn::server {

std::string UnknownCommand(const std::vector<std::string_view>& args) {
  // Redis quotes at most 128 bytes of the name and about 128 bytes of arguments.
  std::string out = "ERR unknown command '" + std::string(args[0].substr(0, 128)) +
                    "', with args beginning with: ";
  std::string quoted;
  for (std::size_t i = 1; i < args.size() && quoted.size() < 128; ++i) {
    quoted += "'" + std::string(args[i].substr(0, 128 - quoted.size())) + "' ";
  }
  return out + quoted;
}

namespace {

// The keys after the count at args[numkeys_at]. None when the count is not a positive number
// or names more arguments than follow: the command refuses it before it touches a key.
std::vector<std::string_view> CountedKeys(int numkeys_at,
                                          const std::vector<std::string_view>& args) {
  const auto at = static_cast<std::size_t>(numkeys_at);
  if (at >= args.size()) return {};
  const std::optional<std::int64_t> count = ParseInt64(args[at]);
  if (!count || *count <= 0 || static_cast<std::uint64_t>(*count) > args.size() - at - 1) {
    return {};
  }
  const auto first = args.begin() + static_cast<std::ptrdiff_t>(at + 1);
  return {first, first + static_cast<std::ptrdiff_t>(*count)};
}

}  // namespace

std::vector<std::string_view> CommandKeys(const CommandSpec& spec,
                                          const std::vector<std::string_view>& args) {
  std::vector<std::string_view> keys;
  if (spec.numkeys_at > 0) return CountedKeys(spec.numkeys_at, args);
  if (spec.first_key <= 0 || spec.key_step <= 0) return keys;
  const int argc = static_cast<int>(args.size());
  const int last = spec.last_key < 0 ? argc + spec.last_key : spec.last_key;
  for (int i = spec.first_key; i <= last && i < argc; i += spec.key_step) {
    keys.push_back(args[static_cast<std::size_t>(i)]);
  }
  return keys;
}

namespace {

// The -MISCONF reply for a write while the store takes none, or nothing (one atomic load when
// it takes them).
std::optional<std::string> WriteRefusal(ServerState& server) {
  if (server.store().Writable()) return std::nullopt;
  const Status cause = server.store().Health().write_status;
  if (cause.ok()) return std::nullopt;
  return StorageRefusal(cause);
}

}  // namespace

void RunChecked(ServerState& server, Session& session, const CommandSpec& spec,
                const std::vector<std::string_view>& args, resp::ReplyWriter& reply, Records& data,
                Transaction* txn) {
  if (spec.Has(kWrite)) {
    // Refused before it runs, as Redis refuses writes it could not persist: here, directly,
    // inside EXEC and from scripts alike. Reads go on.
    if (std::optional<std::string> refused = WriteRefusal(server)) return reply.Error(*refused);
    if (!spec.Has(kGroupStateOnly)) {
      for (std::string_view key : CommandKeys(spec, args)) {
        server.watches().Touch(key);
        session.touched.push_back(KeyWaiters::KeyHash(key));
      }
    }
    session.wrote = true;
  }
  if (spec.Has(kReadOnly) || spec.Has(kWrite)) session.read_data = true;
  CommandContext ctx{args, reply, session, server, data, txn};
  spec.handler(ctx);
  server.commands_processed.fetch_add(1, std::memory_order_relaxed);
}

void RunUndoingOnError(ServerState& server, Session& session, const CommandSpec& spec,
                       const std::vector<std::string_view>& args, resp::ReplyWriter& reply,
                       Records& data, Transaction& txn) {
  if (!spec.MayHalfApply()) return RunChecked(server, session, spec, args, reply, data, &txn);
  const std::size_t reply_at = reply.buffer()->size();
  txn.SetSavePoint();
  RunChecked(server, session, spec, args, reply, data, &txn);
  const bool failed = resp::IsErrorReply(std::string_view(*reply.buffer()).substr(reply_at));
  // A rollback that fails leaves the transaction unusable; its commit then fails and the
  // whole EXEC or script reports it, so nothing half-applied is kept either way.
  (void)(failed ? txn.RollbackToSavePoint() : txn.PopSavePoint());
}

void Dispatch(ServerState& server, Session& session, const CommandSpec* spec,
              const std::vector<std::string_view>& args, resp::ReplyWriter& reply, Records& data,
              Transaction* txn) {
  auto reject = [&](std::string_view error) {
    // Inside MULTI a command that cannot be queued dooms the transaction (EXECABORT).
    if (session.in_multi) session.multi_failed = true;
    reply.Error(error);
  };
  if (spec == nullptr) return reject(UnknownCommand(args));
  if (!spec->ArityOk(args.size())) return reject(WrongArity(spec->name));
  if (!session.authenticated && !spec->Has(kNoAuth) && server.RequiresAuth()) {
    return reject(kNoAuthError);
  }
  // A RESP2 client with subscriptions reads messages as they come: a reply to anything else
  // would be mistaken for one. RESP3 tells pushes from replies, so it may run anything.
  if (session.protocol == 2 && session.pubsub.count() > 0 && !spec->Has(kSubscribedMode)) {
    return reject(SubscribedModeError(*spec, args));
  }
  if (spec->Has(kSubcommands)) {
    session.set_last_command(spec->FullName(args));
  } else {
    session.set_last_command(spec->name);  // Without building a string for every command.
  }
  if (session.in_multi && spec->Has(kNoMulti)) {
    return reject("ERR Command not allowed inside a transaction");
  }
  if (session.in_multi && !spec->Has(kMultiControl) && spec->Has(kWrite)) {
    if (std::optional<std::string> refused = WriteRefusal(server)) return reject(*refused);
  }
  if (session.in_multi && !spec->Has(kMultiControl)) {
    // The queue is a copy of what the client sent, kept until EXEC: bounded as its input is,
    // or a client could grow it without end one small command at a time.
    std::size_t bytes = 0;
    for (std::string_view a : args) bytes += a.size() + sizeof(std::string);
    if (session.queued_bytes + bytes > server.client_query_buffer_limit()) {
      return reject("ERR the queued commands of this MULTI passed client-query-buffer-limit");
    }
    session.queued_bytes += bytes;
    session.queued.emplace_back(args.begin(), args.end());
    reply.SimpleString("QUEUED");
    return;
  }
  RunChecked(server, session, *spec, args, reply, data, txn);
}

}  // namespace cairn::server
