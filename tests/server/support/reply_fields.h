// Reading the fields of the native commands' replies: a RESP3 map, or under RESP2 the flat
// array of field, value, … that stands for it.
#pragma once

#include <string>
#include <string_view>

#include "server/support/resp_client.h"

namespace cairn::test {

// The value of field `name`; an error reply saying so when there is none, so that a lookup
// of a missing field fails the comparison that uses it.
inline Reply Field(const Reply& reply, std::string_view name) {
  for (std::size_t i = 0; i + 1 < reply.elements.size(); i += 2) {
    if (reply.elements[i].str == name) return reply.elements[i + 1];
  }
  Reply missing;
  missing.type = Reply::Type::kError;
  missing.str = "no field '" + std::string(name) + "' in " + reply.ToString();
  return missing;
}

inline bool HasField(const Reply& reply, std::string_view name) {
  for (std::size_t i = 0; i + 1 < reply.elements.size(); i += 2) {
    if (reply.elements[i].str == name) return true;
  }
  return false;
}

// The field names, comma-separated: the reply's shape.
inline std::string MapKeys(const Reply& reply) {
  std::string out;
  for (std::size_t i = 0; i + 1 < reply.elements.size(); i += 2) {
    out += (i > 0 ? "," : "") + reply.elements[i].str;
  }
  return out;
}

}  // namespace cairn::test
