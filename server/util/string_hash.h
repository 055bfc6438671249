// Hashes std::string and std::string_view alike: an unordered container keyed by std::string
// with this hash and std::equal_to<> is looked up by view, without building a string.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

namespace cairn::server {

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

}  // namespace cairn::server
