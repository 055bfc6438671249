// Scores of sorted sets as 8 bytes whose byte order is numeric order, so that a sorted set's
// score index is a plain range of keys: the IEEE-754 bits, big-endian, with the sign bit
// flipped for positive numbers and every bit flipped for negative ones. -0 is stored as 0
// (Redis keeps no negative zero in a sorted set); NaN is never stored.
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>

#include "storage/big_endian.h"

namespace cairn::internal {

inline constexpr std::size_t kScoreBytes = 8;

inline std::uint64_t ScoreBits(double score) {
  if (score == 0) score = 0;  // -0 → +0.
  const auto bits = std::bit_cast<std::uint64_t>(score);
  return (bits & (1ull << 63)) != 0 ? ~bits : bits | (1ull << 63);
}

inline void AppendScore(std::string* out, double score) {
  AppendBigEndian64(out, ScoreBits(score));
}

inline double DecodeScore(const char* p) {
  const std::uint64_t ordered = ReadBigEndian64(p);
  const std::uint64_t bits = (ordered & (1ull << 63)) != 0 ? ordered & ~(1ull << 63) : ~ordered;
  return std::bit_cast<double>(bits);
}

}  // namespace cairn::internal
