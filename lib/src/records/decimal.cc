#include "records/decimal.h"

#include <charconv>

namespace cairn::internal {

std::optional<std::int64_t> ParseCanonicalInt64(std::string_view text) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  // from_chars accepts leading zeros and "-0"; Redis does not treat those as integers.
  if (FormatInt64(value) != text) return std::nullopt;
  return value;
}

std::string FormatInt64(std::int64_t value) {
  char buf[24];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, ptr);
}

}  // namespace cairn::internal
