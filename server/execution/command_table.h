// The command table: every command cairn-server knows, registered explicitly by each command
// family (commands/all_commands.h; no static self-registration) before the server starts,
// then only read. Lookup is case-insensitive, as Redis's is. Thread-safe once built.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "execution/command.h"

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

}  // namespace cairn::server
