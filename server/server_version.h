// Versions cairn-server reports: its own, and the Redis version whose behaviour it follows
// (INFO's redis_version, HELLO's version): clients pick features by it.
#pragma once

#include <string_view>

namespace cairn::server {

inline constexpr std::string_view kCairnVersion = "0.1.0";
inline constexpr std::string_view kRedisVersion = "7.2.4";

}  // namespace cairn::server
