// Big-endian integers, so that byte order is numeric order in keys and headers.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>

namespace cairn::internal {

// To or from big-endian order (a byte swap on a little-endian machine, else nothing).
inline std::uint64_t BigEndian64(std::uint64_t v) {
  return std::endian::native == std::endian::little ? __builtin_bswap64(v) : v;
}
inline std::uint32_t BigEndian32(std::uint32_t v) {
  return std::endian::native == std::endian::little ? __builtin_bswap32(v) : v;
}

// One append of all the bytes: keys and rows are built of these, and a push_back per byte
// checked the capacity and wrote the terminator eight times over.
inline void AppendBigEndian64(std::string* out, std::uint64_t v) {
  char bytes[8];
  const std::uint64_t ordered = BigEndian64(v);
  std::memcpy(bytes, &ordered, sizeof bytes);
  out->append(bytes, sizeof bytes);
}

inline void AppendBigEndian32(std::string* out, std::uint32_t v) {
  char bytes[4];
  const std::uint32_t ordered = BigEndian32(v);
  std::memcpy(bytes, &ordered, sizeof bytes);
  out->append(bytes, sizeof bytes);
}

inline std::uint64_t ReadBigEndian64(const char* p) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, sizeof v);
  return BigEndian64(v);
}

inline std::uint32_t ReadBigEndian32(const char* p) {
  std::uint32_t v = 0;
  std::memcpy(&v, p, sizeof v);
  return BigEndian32(v);
}

}  // namespace cairn::internal
