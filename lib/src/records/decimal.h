// Integers stored as decimal text, as Redis stores them, so INCR and GET agree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cairn::internal {

// Parses a canonical decimal int64: optional '-', digits, no leading zeros, no '+', no spaces,
// no "-0". nullopt otherwise (including overflow).
std::optional<std::int64_t> ParseCanonicalInt64(std::string_view text);

std::string FormatInt64(std::int64_t value);

}  // namespace cairn::internal
