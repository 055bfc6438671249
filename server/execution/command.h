// A command of cairn-server as the command table declares it: name, arity, flags, key
// positions, handler and the documentation COMMAND reports. Dispatch, COMMAND, arity checks,
// MULTI queuing and the auth gate all read these declarations; nothing else lists commands.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cairn/records.h"
#include "cairn/transaction.h"
#include "resp/reply_writer.h"

namespace cairn::server {

class Session;
class ServerState;

enum CommandFlag : std::uint32_t {
  kWrite = 1u << 0,         // May modify the keyspace.
  kReadOnly = 1u << 1,      // Reads data, never writes it.
  kAdmin = 1u << 2,         // Server administration (CONFIG, SHUTDOWN, …).
  kNoAuth = 1u << 3,        // Allowed before AUTH when a password is set (AUTH, HELLO, QUIT…).
  kMultiControl = 1u << 4,  // Runs at once inside MULTI instead of being queued (EXEC, WATCH…).
  kFast = 1u << 5,          // O(1) or O(log n); reported by COMMAND.
  kBlocking = 1u << 6,      // May park the connection.
  kNoScript = 1u << 7,      // Not callable from scripts.
  kLoading = 1u << 8,       // Allowed while loading (always true here: the store opens first).
  kStale = 1u << 9,         // Allowed on a stale replica (reported for client compatibility).
  // Refused inside MULTI (the transaction then fails with EXECABORT), as Redis's no-multi
  // commands are: the native engines commit their own store transactions, which can neither
  // join EXEC's nor run twice when EXEC retries after a conflict.
  kNoMulti = 1u << 10,
  // May share one store transaction with the commands around it in a pipeline
  // (write_batch.h): a write that touches nothing but the keyspace, through ctx.data.
  kBatch = 1u << 11,
  // Its keys are named by its arguments (EVAL's numkeys), not by fixed positions; COMMAND
  // reports "movablekeys", and it may touch several keys.
  kMovableKeys = 1u << 12,
  // Blocks only when an option asks it to (XREAD BLOCK): COMMAND reports it "blocking", but
  // scripts may call it; the command itself refuses the option there.
  kBlocksOnRequest = 1u << 13,
  // Its first argument names a subcommand (CLIENT LIST): errors that name the command name
  // both, as Redis does ('client|list').
  kSubcommands = 1u << 14,
  // A pub/sub command (COMMAND reports "pubsub").
  kPubSub = 1u << 15,
  // Not a keyspace write, but one that Redis replicates (PUBLISH): refused in read-only
  // scripts as writes are.
  kMayReplicate = 1u << 16,
  // Allowed to a RESP2 client with subscriptions (SUBSCRIBE, PING, QUIT, …); that client gets
  // an error for any other command.
  kSubscribedMode = 1u << 17,
  // A write of a stream's consumer-group state only (XACK, XCLAIM, …), which WATCH does not
  // see and which makes nothing new for blocked clients, as in Redis 7.0.
  kGroupStateOnly = 1u << 18,
};

// A native engine command (IDEM.*, LEASE.*, RATE.*, QUEUE.*): refused inside MULTI, since
// each engine commits its own store transactions (see kNoMulti); documented as new in
// Cairn 0.1.
inline constexpr std::uint32_t kNative = kNoMulti;
inline constexpr std::string_view kNativeSince = "cairn-0.1";

// What a handler works with. `data` is the store, or the transaction of the EXEC that runs
// the command (then `txn` is that transaction too), so a handler written once serves both.
struct CommandContext {
  const std::vector<std::string_view>& args;  // args[0] is the command name as sent.
  resp::ReplyWriter& reply;
  Session& session;
  ServerState& server;
  Records& data;
  Transaction* txn = nullptr;
};

using CommandHandler = void (*)(CommandContext& ctx);

struct CommandSpec {
  std::string_view name;  // Lower case, as COMMAND reports it.
  // Redis's convention: n > 0 exactly n arguments (the name included), n < 0 at least -n.
  int arity = 0;
  std::uint32_t flags = 0;
  // Key positions, as COMMAND reports them: first, last (-1: the last argument), step.
  int first_key = 0;
  int last_key = 0;
  int key_step = 0;
  CommandHandler handler = nullptr;
  std::string_view group;    // "string", "generic", "connection", "server", "pubsub", ….
  std::string_view summary;  // One line, for COMMAND DOCS.
  std::string_view since;    // The Redis version that introduced it, for COMMAND DOCS.
  // For a kMovableKeys command whose keys follow a count of them (LMPOP's numkeys; Redis's
  // "keynum" key spec): that count's position. Its keys are the arguments after it, so that
  // a write command's keys are known (for WATCH) without fixed positions. 0: none.
  int numkeys_at = 0;

  bool Has(CommandFlag flag) const { return (flags & flag) != 0; }
  // Its name as Redis reports a call of it (CLIENT LIST's cmd=, some errors): with its
  // subcommand for a kSubcommands command ("client|list"), in lower case.
  std::string FullName(const std::vector<std::string_view>& args) const;
  // Whether its declared key positions allow more than one key.
  bool MayTouchSeveralKeys() const { return last_key != first_key || Has(kMovableKeys); }
  // Whether it may write more than one row (several keys, or a variable number of fields,
  // members or items), so that an error met part-way could leave some of them written. On a
  // transaction it runs under a save point, and an error reply takes its writes back
  // (UndoesOnError): an error means nothing was written, in a pipeline, in EXEC and in scripts.
  bool MayHalfApply() const { return Has(kWrite) && (arity < 0 || MayTouchSeveralKeys()); }
  bool ArityOk(std::size_t argc) const {
    return arity >= 0 ? argc == static_cast<std::size_t>(arity)
                      : argc >= static_cast<std::size_t>(-arity);
  }
};

}  // namespace cairn::server
