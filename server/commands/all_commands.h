// Every command family of cairn-server, each registering its commands in the table
// (execution/command_table.h): the one list of them.
#pragma once

#include <cstdint>
#include <string_view>

#include "execution/command_table.h"

namespace cairn::server {

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
