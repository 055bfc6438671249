// The one shape of bounds check every engine uses for its inputs, so that messages read alike:
// "<what> must be between <min> and <max><unit>, got <value><unit>" (kInvalidArgument).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "cairn/status.h"

namespace cairn::internal {

inline Status CheckRange(std::string_view what, std::int64_t value, std::int64_t min,
                         std::int64_t max, std::string_view unit = "") {
  if (value >= min && value <= max) return Status::Ok();
  return Status::InvalidArgument(std::string(what) + " must be between " + std::to_string(min) +
                                 " and " + std::to_string(max) + std::string(unit) + ", got " +
                                 std::to_string(value) + std::string(unit));
}

// The same for a size in bytes.
inline Status CheckSize(std::string_view what, std::size_t size, std::size_t min, std::size_t max) {
  return CheckRange(what, static_cast<std::int64_t>(size), static_cast<std::int64_t>(min),
                    static_cast<std::int64_t>(max), " bytes");
}

}  // namespace cairn::internal
