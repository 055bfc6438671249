// crashtest_library's command line (crashtest_library --help prints it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "crash/harness_common.h"

namespace cairn::crash::library {

struct Options {
  std::uint64_t seed = 0;
  int cycles = 20;
  int threads = 4;
  // The durability of each cycle's child, in turn; every cycle runs on the same directory.
  std::vector<std::string> modes = {"always", "everysec", "none"};
  KillChoice kill = KillChoice::kBoth;
  // The child's calls run for a random 20 ms to this long before the kill.
  int max_delay_ms = 400;
  bool keep_dir = false;
  std::string base_dir;  // where the run's fresh directory goes; empty: $TMPDIR (or /tmp)
};

// Parses argv; on a bad or --help command line prints to stderr/stdout and sets *exit_code
// (2 for an error, 0 for --help), returning false.
bool ParseOptions(int argc, char** argv, Options* options, int* exit_code);

// The command line that replays this run's schedule up to `cycles`.
std::string ReproduceCommand(const Options& options, int cycles);

}  // namespace cairn::crash::library
