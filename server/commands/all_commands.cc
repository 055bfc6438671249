#include "commands/all_commands.h"

namespace cairn::server {

CommandSpec NativeCommand(std::string_view group, std::string_view name, int arity,
                          std::uint32_t flags, int key, CommandHandler handler,
                          std::string_view summary) {
  return {name, arity, flags | kNoMulti, key, key, 1, handler, group, summary, "cairn-0.1"};
}

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
