// Writing a word for an inline command (Redis's sdssplitargs quoting) so that the server reads
// back exactly `word`, whatever its bytes: in double quotes, with \" \\ and \xHH escapes.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace cairn::test {

inline std::string DoubleQuoted(std::string_view word) {
  std::string out = "\"";
  for (const char c : word) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte > 0x7e) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", byte);
      out += hex;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace cairn::test
