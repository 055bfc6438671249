#include "cairn/options.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace cairn {

std::string_view DurabilityName(Durability durability) {
  switch (durability) {
    case Durability::kAlways:
      return "always";
    case Durability::kEverySec:
      return "everysec";
    case Durability::kNone:
      return "none";
  }
  return "unknown";
}

Result<Durability> ParseDurability(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (Durability d : {Durability::kAlways, Durability::kEverySec, Durability::kNone}) {
    if (lower == DurabilityName(d)) return d;
  }
  return Status::InvalidArgument("unknown durability '" + std::string(name) +
                                 "'; expected always, everysec or none");
}

}  // namespace cairn
