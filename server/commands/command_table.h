// The command table: every command cairn-server knows, registered explicitly by each command
// family (RegisterStringCommands(table), …; no static self-registration) before the server
// starts, then only read. Lookup is case-insensitive, as Redis's is. Thread-safe once built.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "commands/command.h"
#include "util/string_hash.h"

namespace cairn::server {

class CommandTable {
 public:
  // Longer than any command name (Redis's longest has 20 bytes).
  static constexpr std::size_t kMaxNameBytes = 64;

  // REQUIRES: spec.name is lower case, at most kMaxNameBytes long, and not yet registered.
  void Register(const CommandSpec& spec);

  // nullptr when no command has that name (in any letter case).
  const CommandSpec* Find(std::string_view name) const;

  // Every command, in registration order.
  const std::vector<CommandSpec>& all() const { return specs_; }

 private:
  std::vector<CommandSpec> specs_;
  std::unordered_map<std::string, std::size_t, StringHash, std::equal_to<>> by_name_;
  std::size_t longest_name_ = 0;
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

}  // namespace cairn::server
