// Field-value pairs: the fields of a hash and of a stream entry.
#pragma once

#include <string>
#include <string_view>

namespace cairn {

// One field of a hash or a stream entry, to write.
struct HashField {
  std::string_view field;
  std::string_view value;
};

struct HashEntry {
  std::string field;
  std::string value;
};

}  // namespace cairn
