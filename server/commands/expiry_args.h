// The expiry options SET and GETEX share (EX, PX, EXAT, PXAT, KEEPTTL, PERSIST), parsed and
// checked as Redis does: a non-integer is "not an integer", a value <= 0 or one that overflows
// milliseconds is "invalid expire time in '<cmd>' command".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cairn/records.h"

namespace cairn::server {

enum class ExpiryUnit { kSeconds, kMilliseconds, kUnixSeconds, kUnixMilliseconds };

// Converts an expiry argument to an Expiry; on error fills *error with the reply text.
std::optional<Expiry> ParseExpiry(std::string_view value, ExpiryUnit unit, std::string_view command,
                                  std::int64_t now_ms, std::string* error);

// The unit an option word names (EX, PX, EXAT, PXAT, any case); nullopt for other words.
std::optional<ExpiryUnit> ExpiryOption(std::string_view word);

}  // namespace cairn::server
