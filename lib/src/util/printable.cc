#include "util/printable.h"

#include <cstdio>

namespace cairn::internal {

std::string Printable(std::string_view bytes, std::size_t max_chars) {
  std::string out;
  for (unsigned char c : bytes) {
    if (out.size() >= max_chars) {
      out += "...";
      break;
    }
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char buf[5];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

}  // namespace cairn::internal
