#include "execution/command_table.h"

#include <algorithm>
#include <cassert>

#include "args/ascii.h"

namespace cairn::server {

std::string CommandSpec::FullName(const std::vector<std::string_view>& args) const {
  std::string full(name);
  if (Has(kSubcommands) && args.size() > 1) full += "|" + ToLower(args[1]);
  return full;
}

namespace {

// FNV-1a over the name's bytes, lower-cased.
std::uint32_t NameHash(std::string_view name) {
  std::uint32_t hash = 2166136261u;
  for (char c : name) {
    hash ^= static_cast<unsigned char>(AsciiLower(c));
    hash *= 16777619u;
  }
  return hash;
}

}  // namespace

void CommandTable::Register(const CommandSpec& spec) {
  assert(ToLower(spec.name) == spec.name);
  assert(Find(spec.name) == nullptr);
  specs_.push_back(spec);
  if (specs_.size() * 4 > slots_.size()) {
    slots_.assign(std::max<std::size_t>(256, slots_.size() * 2), 0);
    for (std::size_t i = 0; i < specs_.size(); ++i) Index(i);
  } else {
    Index(specs_.size() - 1);
  }
}

void CommandTable::Index(std::size_t spec) {
  slots_[SlotOf(specs_[spec].name)] = static_cast<std::uint32_t>(spec + 1);
}

std::size_t CommandTable::SlotOf(std::string_view name) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = NameHash(name) & mask;; i = (i + 1) & mask) {
    if (slots_[i] == 0) return i;
    const std::string_view candidate = specs_[slots_[i] - 1].name;
    if (candidate.size() == name.size() && EqualsIgnoreCase(candidate, name)) return i;
  }
}

const CommandSpec* CommandTable::Find(std::string_view name) const {
  if (slots_.empty()) return nullptr;
  const std::uint32_t at = slots_[SlotOf(name)];
  return at == 0 ? nullptr : &specs_[at - 1];
}

}  // namespace cairn::server
