#include "args/arguments.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace cairn::server {

std::optional<std::int64_t> ParseInt64(std::string_view s) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  std::size_t i = 0;
  const bool negative = s[0] == '-';
  if (negative) i = 1;
  if (i == s.size()) return std::nullopt;
  if (s[i] == '0' && s.size() > i + 1) return std::nullopt;  // No leading zeros.
  if (negative && s[i] == '0') return std::nullopt;          // "-0" is not Redis's form.
  std::uint64_t v = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - digit) / 10) return std::nullopt;
    v = v * 10 + digit;
  }
  if (negative) {
    if (v > static_cast<std::uint64_t>(INT64_MAX) + 1) return std::nullopt;
    return static_cast<std::int64_t>(0 - v);
  }
  if (v > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<std::int64_t>(v);
}

namespace {

bool HasSpaceOrEmpty(std::string_view s) {
  if (s.empty()) return true;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') return true;
  }
  return false;
}

}  // namespace

std::optional<double> ParseDouble(std::string_view s) {
  if (HasSpaceOrEmpty(s) || s.size() > 5000) return std::nullopt;
  const std::string text(s);
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || std::isnan(v)) return std::nullopt;
  if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || v == 0)) return std::nullopt;
  return v;
}

std::optional<long double> ParseLongDouble(std::string_view s) {
  if (HasSpaceOrEmpty(s) || s.size() > 5000) return std::nullopt;
  const std::string text(s);
  errno = 0;
  char* end = nullptr;
  const long double v = std::strtold(text.c_str(), &end);
  if (end != text.c_str() + text.size() || std::isnan(v)) return std::nullopt;
  if (errno == ERANGE && (v == HUGE_VALL || v == -HUGE_VALL || v == 0)) return std::nullopt;
  return v;
}

std::string FormatLongDouble(long double value) {
  char buf[5600];
  const int n = std::snprintf(buf, sizeof(buf), "%.17Lf", value);
  std::string out(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
  if (out.find('.') != std::string::npos) {
    while (!out.empty() && out.back() == '0') out.pop_back();
    if (!out.empty() && out.back() == '.') out.pop_back();
  }
  if (out == "-0") out.erase(0, 1);
  return out;
}

std::string_view AddFloat(const std::optional<std::string>& stored, long double delta,
                          std::string_view not_float, std::string* formatted) {
  long double current = 0;
  if (stored) {
    const std::optional<long double> parsed = ParseLongDouble(*stored);
    if (!parsed) return not_float;
    current = *parsed;
  }
  const long double next = current + delta;
  if (std::isnan(next) || std::isinf(next)) return "ERR increment would produce NaN or Infinity";
  *formatted = FormatLongDouble(next);
  return {};
}

}  // namespace cairn::server
