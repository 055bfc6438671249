// The command table: every command cairn-server knows, registered explicitly by each command
// family (RegisterStringCommands(table), …; no static self-registration) before the server
// starts, then only read. Lookup is case-insensitive, as Redis's is. Thread-safe once built.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "commands/command.h"

namespace cairn::server {

class CommandTable {
 public:
  // REQUIRES: spec.name is lower case and not yet registered.
  void Register(const CommandSpec& spec);

  // nullptr when no command has that name (in any letter case).
  const CommandSpec* Find(std::string_view name) const;

  // Every command, in registration order.
  const std::vector<CommandSpec>& all() const { return specs_; }

 private:
  // The slot of `name` (letter case aside): its command's, or the empty one where it would go.
  std::size_t SlotOf(std::string_view name) const;
  void Index(std::size_t spec);

  std::vector<CommandSpec> specs_;
  // Open addressing, at most a quarter full: 1 + the index in specs_, 0 for an empty slot.
  // A script looks a command up for every call: this takes one pass over the name to hash
  // it, case folded, and one compare, where a map keyed by the lower-cased name took a copy,
  // a hash and a compare.
  std::vector<std::uint32_t> slots_;
};

// The table with every command family registered.
CommandTable BuildCommandTable();

// Each family's registration (commands/*_commands.cc).
void RegisterConnectionCommands(CommandTable& table);
void RegisterServerCommands(CommandTable& table);
void RegisterStringCommands(CommandTable& table);
void RegisterKeyCommands(CommandTable& table);
void RegisterHashCommands(CommandTable& table);
void RegisterSetCommands(CommandTable& table);
void RegisterZSetCommands(CommandTable& table);
void RegisterListCommands(CommandTable& table);
void RegisterStreamCommands(CommandTable& table);
void RegisterStreamGroupCommands(CommandTable& table);
void RegisterTransactionCommands(CommandTable& table);
// The native engines (IDEM.*, LEASE.*, RATE.*, QUEUE.*).
void RegisterIdempotencyCommands(CommandTable& table);

// A native engine command as the table declares it: one key, at `key` (the engine's name for
// its object: the queue, the resource, …), refused inside MULTI (kNoMulti: each engine commits
// its own store transactions), documented as new in Cairn 0.1 under `group`.
CommandSpec NativeCommand(std::string_view group, std::string_view name, int arity,
                          std::uint32_t flags, int key, CommandHandler handler,
                          std::string_view summary);
void RegisterLeaseCommands(CommandTable& table);
void RegisterRateLimitCommands(CommandTable& table);
void RegisterQueueCommands(CommandTable& table);
// EVAL, EVALSHA, EVAL_RO, EVALSHA_RO, SCRIPT.
void RegisterScriptCommands(CommandTable& table);
// SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, PUBLISH, PUBSUB.
void RegisterPubSubCommands(CommandTable& table);
void RegisterDebugCommands(CommandTable& table);

}  // namespace cairn::server
