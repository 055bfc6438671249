// Renders user bytes (keys, values) for error messages: printable ASCII as is, everything else
// as \xNN, cut to a readable length.
#pragma once

#include <string>
#include <string_view>

namespace cairn::internal {

std::string Printable(std::string_view bytes, std::size_t max_chars = 64);

}  // namespace cairn::internal
