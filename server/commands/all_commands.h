// Every command family of cairn-server, each registering its commands in the table
// (execution/command_table.h): the one list of them.
#pragma once

#include "execution/command_table.h"

namespace cairn::server {

// The table with every command family registered.
CommandTable BuildCommandTable();

// Each family's registration (commands/*_commands.cc): one table.Register({…}) per command,
// the CommandSpec written out whole — name, arity, flags, first/last key and step, handler,
// group, summary, since — as Redis's own command table lists them.
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
void RegisterLeaseCommands(CommandTable& table);
void RegisterRateLimitCommands(CommandTable& table);
void RegisterQueueCommands(CommandTable& table);
// EVAL, EVALSHA, EVAL_RO, EVALSHA_RO, SCRIPT.
void RegisterScriptCommands(CommandTable& table);
// SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, PUBLISH, PUBSUB.
void RegisterPubSubCommands(CommandTable& table);
void RegisterDebugCommands(CommandTable& table);

}  // namespace cairn::server
