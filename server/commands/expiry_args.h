// The expiry options SET and GETEX share (EX, PX, EXAT, PXAT, KEEPTTL, PERSIST), parsed and
// checked as Redis does: a non-integer is "not an integer", a value <= 0 or one that overflows
// milliseconds is "invalid expire time in '<cmd>' command".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "args/option_parser.h"
#include "cairn/records.h"

namespace cairn::server {

enum class ExpiryUnit { kSeconds, kMilliseconds, kUnixSeconds, kUnixMilliseconds };

// Takes the next argument when it is an expiry option word (EX, PX, EXAT, PXAT, any case) and
// answers its unit; nullopt (taking nothing) for any other argument.
std::optional<ExpiryUnit> TakeExpiryUnit(OptionParser& p);

// Takes the next argument as an expiry in `unit`, checked as the top of this file says.
Parsed<Expiry> TakeExpiry(OptionParser& p, ExpiryUnit unit, std::string_view command,
                          std::int64_t now_ms);

}  // namespace cairn::server
