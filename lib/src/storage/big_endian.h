// Big-endian integers, so that byte order is numeric order in keys and headers.
#pragma once

#include <cstdint>
#include <string>

namespace cairn::internal {

inline void AppendBigEndian64(std::string* out, std::uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out->push_back(static_cast<char>(v >> shift));
}

inline void AppendBigEndian32(std::string* out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(v >> shift));
}

inline std::uint64_t ReadBigEndian64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

inline std::uint32_t ReadBigEndian32(const char* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

}  // namespace cairn::internal
