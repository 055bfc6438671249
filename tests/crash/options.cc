#include "crash/options.h"

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace cairn::crash {
namespace {

constexpr const char* kUsage =
    "usage: crashtest [options]\n"
    "  Drives cairn-server with a seeded random mix of commands, kills it at random moments\n"
    "  (SIGKILL or DEBUG FAULT POWERCUT), restarts it on the same data directory and checks\n"
    "  that every acknowledged write is there. Exits 1 on any loss or broken invariant.\n"
    "\n"
    "  --seed N            random seed (default: the time)\n"
    "  --cycles N          kill/restart cycles (default 20)\n"
    "  --ops-per-cycle N   commands per cycle, a random count up to N over all clients\n"
    "                      (default 10000: most kills then land while clients still run)\n"
    "  --clients N         client threads, one connection and key namespace each (default 4)\n"
    "  --modes LIST        durability:threads, comma-separated; cycles rotate through them, each\n"
    "                      on its own data directory (default\n"
    "                      always:1,always:4,everysec:1,everysec:4,none:1,none:4)\n"
    "  --kill KIND         sigkill, powercut or both (default both: chosen per cycle)\n"
    "  --lenient-powercut  after a power cut under always, let the writes whose reply came after\n"
    "                      DEBUG FAULT POWERCUT was sent count as in flight (by default they\n"
    "                      must survive too: the cut voids every later sync and keeps the power\n"
    "                      off until the server is gone, so no such reply can be for a lost "
    "write)\n"
    "  --dir PATH          where the data directories go (default: a fresh temp directory)\n"
    "  --keep-dir          keep the data directories and server logs at the end\n"
    "  --server PATH       the cairn-server binary (default: the one this was built with)\n"
    "  --verbose           one line per kill and per unknown outcome\n";

bool ParseModes(std::string_view text, std::vector<Mode>* modes) {
  modes->clear();
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const std::size_t colon = item.find(':');
    if (colon == std::string_view::npos) return false;
    Mode mode;
    mode.durability = std::string(item.substr(0, colon));
    if (mode.durability != "always" && mode.durability != "everysec" && mode.durability != "none") {
      return false;
    }
    long long threads = 0;
    if (!ParseInt(item.substr(colon + 1), 1, 64, &threads)) return false;
    mode.threads = static_cast<int>(threads);
    modes->push_back(mode);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return !modes->empty();
}

std::string ModesText(const std::vector<Mode>& modes) {
  std::string out;
  for (const Mode& m : modes) out += (out.empty() ? "" : ",") + m.Name();
  return out;
}

}  // namespace

bool ParseOptions(int argc, char** argv, Options* options, int* exit_code) {
  options->seed = static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch() /
                                             std::chrono::microseconds(1));
  ParseModes("always:1,always:4,everysec:1,everysec:4,none:1,none:4", &options->modes);
#ifdef CAIRN_SERVER_BINARY
  options->server_binary = CAIRN_SERVER_BINARY;
#endif
  auto fail = [&](const std::string& message) {
    std::fprintf(stderr, "crashtest: %s\n%s", message.c_str(), kUsage);
    *exit_code = 2;
    return false;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    long long n = 0;
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      *exit_code = 0;
      return false;
    } else if (arg == "--keep-dir") {
      options->keep_dir = true;
    } else if (arg == "--lenient-powercut") {
      options->strict_powercut = false;
    } else if (arg == "--verbose" || arg == "-v") {
      options->verbose = true;
    } else if (arg == "--seed") {
      const char* v = value();
      if (v == nullptr || !ParseInt(v, 0, INT64_MAX, &n)) return fail("--seed needs a number");
      options->seed = static_cast<std::uint64_t>(n);
    } else if (arg == "--cycles") {
      const char* v = value();
      if (v == nullptr || !ParseInt(v, 1, 1'000'000, &n)) return fail("--cycles needs 1 or more");
      options->cycles = static_cast<int>(n);
    } else if (arg == "--ops-per-cycle") {
      const char* v = value();
      if (v == nullptr || !ParseInt(v, 1, 1'000'000, &n)) {
        return fail("--ops-per-cycle needs 1 or more");
      }
      options->ops_per_cycle = static_cast<int>(n);
    } else if (arg == "--clients") {
      const char* v = value();
      if (v == nullptr || !ParseInt(v, 1, 64, &n)) return fail("--clients needs 1 to 64");
      options->clients = static_cast<int>(n);
    } else if (arg == "--modes") {
      const char* v = value();
      if (v == nullptr || !ParseModes(v, &options->modes)) {
        return fail("--modes needs durability:threads[,…], durability always|everysec|none");
      }
    } else if (arg == "--kill") {
      const char* v = value();
      if (v == nullptr || !ParseKillChoice(v, &options->kill)) {
        return fail("--kill needs sigkill, powercut or both");
      }
    } else if (arg == "--dir") {
      const char* v = value();
      if (v == nullptr) return fail("--dir needs a path");
      options->base_dir = v;
    } else if (arg == "--server") {
      const char* v = value();
      if (v == nullptr) return fail("--server needs a path");
      options->server_binary = v;
    } else {
      return fail("unknown argument '" + std::string(arg) + "'");
    }
  }
  if (options->server_binary.empty() || ::access(options->server_binary.c_str(), X_OK) != 0) {
    return fail("no cairn-server binary at '" + options->server_binary + "': pass --server");
  }
  return true;
}

std::string ReproduceCommand(const Options& options, int cycles) {
  const char* kill = options.kill == KillChoice::kSigkill    ? "sigkill"
                     : options.kill == KillChoice::kPowercut ? "powercut"
                                                             : "both";
  return "crashtest --seed " + std::to_string(options.seed) + " --cycles " +
         std::to_string(cycles) + " --ops-per-cycle " + std::to_string(options.ops_per_cycle) +
         " --clients " + std::to_string(options.clients) + " --modes " + ModesText(options.modes) +
         " --kill " + kill + (options.strict_powercut ? "" : " --lenient-powercut");
}

}  // namespace cairn::crash
