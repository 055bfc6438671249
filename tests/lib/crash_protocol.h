// What crash_writer writes and prints, shared by the writer and crash_safety_test.cc.
//
// Write n (n = 0, 1, 2, ...) stores ValueFor(n). Every kTransactionEvery-th write is a
// transaction setting "t<n>a" and "t<n>b" (printed "t<n>" after its commit); every other write
// sets "k<n>" (printed "<n>" after Set returned OK).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace cairn::crash {

// Bytes of filler after the "v<n>-" prefix of every value.
inline constexpr std::size_t kFillerBytes = 100;
inline constexpr std::uint64_t kTransactionEvery = 10;

inline bool IsTransaction(std::uint64_t n) {
  return n % kTransactionEvery == kTransactionEvery - 1;
}

inline std::string ValueFor(std::uint64_t n) {
  std::string value = "v" + std::to_string(n) + "-";
  value.append(kFillerBytes, static_cast<char>('a' + n % 26));
  return value;
}

}  // namespace cairn::crash
