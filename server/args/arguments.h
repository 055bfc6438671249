// Parsing of command arguments as Redis parses them: integers in the exact decimal form
// (no sign '+', no spaces, no leading zeros, within int64), doubles as strtod reads them (no
// spaces, no NaN), option words without regard to letter case.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cairn::server {

std::optional<std::int64_t> ParseInt64(std::string_view s);
std::optional<double> ParseDouble(std::string_view s);
std::optional<long double> ParseLongDouble(std::string_view s);

// Formats a long double as Redis does for INCRBYFLOAT replies: fixed notation with up to 17
// decimals, trailing zeros (and a trailing point) removed.
std::string FormatLongDouble(long double value);

// INCRBYFLOAT's arithmetic, shared with HINCRBYFLOAT: adds delta to the stored value (absent:
// 0) and sets *formatted to the result. Returns the error reply instead when the stored value
// is not a float (`not_float`) or the result is NaN or infinite; empty on success.
std::string_view AddFloat(const std::optional<std::string>& stored, long double delta,
                          std::string_view not_float, std::string* formatted);

}  // namespace cairn::server
