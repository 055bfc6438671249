// ASCII case helpers for command names and option words, which Redis matches without regard
// to letter case (and only in ASCII, whatever the locale).
#pragma once

#include <string>
#include <string_view>

namespace cairn::server {

inline char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

inline std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

// True when a equals b ignoring ASCII letter case. `b` is usually a lower-case literal.
inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

}  // namespace cairn::server
