#include "commands/command_table.h"

#include <algorithm>
#include <cassert>

#include "commands/ascii.h"

namespace cairn::server {

std::string CommandSpec::FullName(const std::vector<std::string_view>& args) const {
  std::string full(name);
  if (Has(kSubcommands) && args.size() > 1) full += "|" + ToLower(args[1]);
  return full;
}

void CommandTable::Register(const CommandSpec& spec) {
  assert(ToLower(spec.name) == spec.name);
  assert(spec.name.size() <= kMaxNameBytes);
  const bool added = by_name_.emplace(std::string(spec.name), specs_.size()).second;
  longest_name_ = std::max(longest_name_, spec.name.size());
  assert(added);
  (void)added;
  specs_.push_back(spec);
}

const CommandSpec* CommandTable::Find(std::string_view name) const {
  // Command names are short: lower-cased on the stack (scripts look one up for every call),
  // then hashed as usual.
  char lower[kMaxNameBytes];
  if (name.size() > longest_name_ || name.size() > kMaxNameBytes) return nullptr;
  for (std::size_t i = 0; i < name.size(); ++i) lower[i] = AsciiLower(name[i]);
  auto it = by_name_.find(std::string_view(lower, name.size()));
  return it == by_name_.end() ? nullptr : &specs_[it->second];
}

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
  return table;
}

}  // namespace cairn::server
