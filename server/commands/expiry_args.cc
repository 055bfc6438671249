#include "commands/expiry_args.h"

#include "commands/arguments.h"
#include "commands/ascii.h"
#include "commands/errors.h"

namespace cairn::server {

std::optional<ExpiryUnit> ExpiryOption(std::string_view word) {
  if (EqualsIgnoreCase(word, "ex")) return ExpiryUnit::kSeconds;
  if (EqualsIgnoreCase(word, "px")) return ExpiryUnit::kMilliseconds;
  if (EqualsIgnoreCase(word, "exat")) return ExpiryUnit::kUnixSeconds;
  if (EqualsIgnoreCase(word, "pxat")) return ExpiryUnit::kUnixMilliseconds;
  return std::nullopt;
}

std::optional<Expiry> ParseExpiry(std::string_view value, ExpiryUnit unit, std::string_view command,
                                  std::int64_t now_ms, std::string* error) {
  const std::optional<std::int64_t> n = ParseInt64(value);
  if (!n) {
    *error = kNotInteger;
    return std::nullopt;
  }
  const bool seconds = unit == ExpiryUnit::kSeconds || unit == ExpiryUnit::kUnixSeconds;
  if (*n <= 0 || (seconds && *n > INT64_MAX / 1000)) {
    *error = InvalidExpire(command);
    return std::nullopt;
  }
  const std::int64_t ms = seconds ? *n * 1000 : *n;
  if (unit == ExpiryUnit::kSeconds || unit == ExpiryUnit::kMilliseconds) {
    if (ms > INT64_MAX - now_ms) {
      *error = InvalidExpire(command);
      return std::nullopt;
    }
    return Expiry::At(now_ms + ms);
  }
  return Expiry::At(ms);
}

}  // namespace cairn::server
