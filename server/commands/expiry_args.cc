#include "commands/expiry_args.h"

#include "args/errors.h"

namespace cairn::server {

std::optional<ExpiryUnit> TakeExpiryUnit(OptionParser& p) {
  // In ExpiryUnit's order.
  const std::optional<std::size_t> word = p.OneOf({"ex", "px", "exat", "pxat"});
  if (!word) return std::nullopt;
  return static_cast<ExpiryUnit>(*word);
}

Parsed<Expiry> TakeExpiry(OptionParser& p, ExpiryUnit unit, std::string_view command,
                          std::int64_t now_ms) {
  const Parsed<std::int64_t> n = p.Integer();
  if (!n.ok()) return Parsed<Expiry>::Error(n.error());
  const bool seconds = unit == ExpiryUnit::kSeconds || unit == ExpiryUnit::kUnixSeconds;
  if (*n <= 0 || (seconds && *n > INT64_MAX / 1000)) {
    return Parsed<Expiry>::Error(InvalidExpire(command));
  }
  const std::int64_t ms = seconds ? *n * 1000 : *n;
  if (unit == ExpiryUnit::kSeconds || unit == ExpiryUnit::kMilliseconds) {
    if (ms > INT64_MAX - now_ms) return Parsed<Expiry>::Error(InvalidExpire(command));
    return Expiry::At(now_ms + ms);
  }
  return Expiry::At(ms);
}

}  // namespace cairn::server
