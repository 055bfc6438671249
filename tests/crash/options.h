// The crash harness's command line (crashtest --help prints it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "crash/harness_common.h"

namespace cairn::crash {

// One server configuration the cycles rotate through: durability and io threads.
struct Mode {
  std::string durability;  // always, everysec or none
  int threads = 1;

  std::string Name() const { return durability + ":" + std::to_string(threads); }
  // A power cut may lose acknowledged writes (only `always` fsyncs before it replies).
  bool PowerCutMayLose() const { return durability != "always"; }
};

struct Options {
  std::uint64_t seed = 0;
  int cycles = 20;
  // Per cycle, over all clients: a random count up to this. High enough that most kills (20 to
  // 400 ms into the ops) land while clients are still running, in every mode.
  int ops_per_cycle = 10000;
  int clients = 4;
  std::vector<Mode> modes;
  KillChoice kill = KillChoice::kBoth;
  // Under `always`, require also the acknowledgements that arrived after the POWERCUT was sent
  // to survive it (see KillPoint in verify.h for why they are not required by default).
  bool strict_powercut = true;
  bool keep_dir = false;
  bool verbose = false;
  std::string server_binary;
  std::string base_dir;  // empty: a fresh directory under $TMPDIR (or /tmp)
};

// Parses argv; on a bad or --help command line prints to stderr/stdout and sets *exit_code
// (2 for an error, 0 for --help), returning false.
bool ParseOptions(int argc, char** argv, Options* options, int* exit_code);

// The command line that replays this run's schedule (seed, modes, kill kinds) up to `cycles`.
std::string ReproduceCommand(const Options& options, int cycles);

}  // namespace cairn::crash
