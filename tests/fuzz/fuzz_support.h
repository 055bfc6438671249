// What the fuzz targets share: FUZZ_CHECK, what a target does when an invariant fails (says
// which, then aborts, so that libFuzzer saves the input as a crash: a check that only logged
// would be lost among the executions); and RespArray, a command as a client sends it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#define FUZZ_CHECK(condition)                                                                 \
  do {                                                                                        \
    if (!(condition)) {                                                                       \
      std::fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                           \
    }                                                                                         \
  } while (0)

namespace cairn::fuzz {

// The arguments as one RESP array of bulk strings.
inline std::string RespArray(const std::vector<std::string_view>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (std::string_view a : args) {
    out += "$" + std::to_string(a.size()) + "\r\n";
    out.append(a);
    out += "\r\n";
  }
  return out;
}

}  // namespace cairn::fuzz
