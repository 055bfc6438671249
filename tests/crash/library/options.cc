#include "crash/library/options.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace cairn::crash::library {
namespace {

constexpr const char* kUsage =
    "usage: crashtest_library [options]   (also: tools/crashtest --library [options])\n"
    "  Runs a child process that opens a Cairn store through the library and makes a seeded\n"
    "  random mix of calls from several threads (strings, a multi-key transaction, hashes,\n"
    "  sets, lists, sorted sets, streams, rate limits, leases, queue jobs, idempotency\n"
    "  records), kills it at a random moment (SIGKILL, or a simulated power cut through\n"
    "  Options::fault_injection), reopens the store itself and checks every acknowledged call\n"
    "  and the engines' invariants. Cycles rotate through the durability modes on one data\n"
    "  directory. Exits 1 on any loss, 2 if it cannot run.\n"
    "\n"
    "  --seed N          random seed (default: the time)\n"
    "  --cycles N        kill/reopen cycles (default 20)\n"
    "  --threads N       threads in the child, each with its own keys (default 4)\n"
    "  --modes LIST      durabilities, comma-separated, taken in turn (default\n"
    "                    always,everysec,none)\n"
    "  --kill KIND       sigkill, powercut or both (default both: chosen per cycle)\n"
    "  --max-delay MS    the kill comes 20 ms to MS after the store opened (default 400)\n"
    "  --dir PATH        where the run's fresh directory goes (default: $TMPDIR or /tmp)\n"
    "  --keep-dir        keep the data directory and the children's log at the end\n";

bool ParseModes(std::string_view text, std::vector<std::string>* modes) {
  modes->clear();
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string mode(text.substr(0, comma));
    if (mode != "always" && mode != "everysec" && mode != "none") return false;
    modes->push_back(mode);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return !modes->empty();
}

}  // namespace

bool ParseOptions(int argc, char** argv, Options* options, int* exit_code) {
  options->seed = static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch() /
                                             std::chrono::microseconds(1));
  auto fail = [&](const std::string& message) {
    std::fprintf(stderr, "crashtest_library: %s\n%s", message.c_str(), kUsage);
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
    } else if (arg == "--seed") {
      const char* v = value();
      if (v == nullptr || !ParseInt(v, 0, INT64_MAX, &n)) return fail("--seed needs a number");
      options->seed = static_cast<std::uint64_t>(n);
    } else if (arg == "--cycles") {
      const char* v = value();
      if (v == nullptr || !ParseInt(v, 1, 1'000'000, &n)) return fail("--cycles needs 1 or more");
      options->cycles = static_cast<int>(n);
    } else if (arg == "--threads") {
      const char* v = value();
      if (v == nullptr || !ParseInt(v, 1, 64, &n)) return fail("--threads needs 1 to 64");
      options->threads = static_cast<int>(n);
    } else if (arg == "--max-delay") {
      const char* v = value();
      if (v == nullptr || !ParseInt(v, 20, 60'000, &n))
        return fail("--max-delay needs 20 to 60000");
      options->max_delay_ms = static_cast<int>(n);
    } else if (arg == "--modes") {
      const char* v = value();
      if (v == nullptr || !ParseModes(v, &options->modes)) {
        return fail("--modes needs always, everysec or none, comma-separated");
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
    } else {
      return fail("unknown argument '" + std::string(arg) + "'");
    }
  }
  return true;
}

std::string ReproduceCommand(const Options& options, int cycles) {
  const char* kill = options.kill == KillChoice::kSigkill    ? "sigkill"
                     : options.kill == KillChoice::kPowercut ? "powercut"
                                                             : "both";
  std::string modes;
  for (const std::string& m : options.modes) modes += (modes.empty() ? "" : ",") + m;
  return "crashtest_library --seed " + std::to_string(options.seed) + " --cycles " +
         std::to_string(cycles) + " --threads " + std::to_string(options.threads) + " --modes " +
         modes + " --kill " + kill + " --max-delay " + std::to_string(options.max_delay_ms);
}

}  // namespace cairn::crash::library
