#include "commands/all_commands.h"

namespace cairn::server {

CommandTable BuildCommandTable() {
  CommandTable table;
  RegisterConnectionCommands(table);
  RegisterServerCommands(table);
  RegisterStringCommands(table);
  RegisterKeyCommands(table);
  RegisterHashCommands(table);
  RegisterSetCommands(table);
  RegisterZSetCommands(table);
  RegisterListCommands(table);
  RegisterStreamCommands(table);
  RegisterStreamGroupCommands(table);
  RegisterTransactionCommands(table);
  RegisterIdempotencyCommands(table);
  RegisterLeaseCommands(table);
  RegisterRateLimitCommands(table);
  RegisterQueueCommands(table);
  RegisterScriptCommands(table);
  RegisterPubSubCommands(table);
  RegisterDebugCommands(table);
  return table;
}

}  // namespace cairn::server
