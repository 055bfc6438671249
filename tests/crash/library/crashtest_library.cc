// crashtest_library: the crash harness's second mode, the library in-process. Where crashtest
// drives cairn-server over RESP, this drives the library itself, in a child process.
//
// Each cycle takes the next durability mode (always, everysec, none in turn; one data directory
// for all of them, kept across cycles) and:
//   1. starts a child (this binary with --child, child.h) that opens the store with that mode
//      and a FaultInjection, and runs a seeded random mix of library calls from --threads
//      threads, each on its own keys, announcing each call and reporting each acknowledgement
//      on a pipe (protocol.h). The parent builds its model from those lines (model.h) and checks
//      every answer against it as it arrives;
//   2. after a random 20–400 ms kills the child: SIGKILL (a process crash), or a power cut (the
//      child cuts the power in its FaultInjection, drops what was never fsynced and _exits);
//   3. opens the store itself, in-process, and reads everything back (verify.h): after SIGKILL
//      in any mode and after a power cut under `always`, every acknowledged call is there;
//      after a power cut under `everysec` or `none`, what survived is one prefix of each
//      thread's calls. Calls in flight at the kill may have happened or not. Fencing numbers
//      only grow, no acknowledged job is lost or delivered again after its ack, a stored
//      idempotency outcome never changes;
//   4. closes the store.
// Exit status 1 on any loss, with the seed and the cycle; 2 if the harness cannot run.
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cairn/store.h"
#include "crash/findings.h"
#include "crash/library/child.h"
#include "crash/library/child_process.h"
#include "crash/library/model.h"
#include "crash/library/options.h"
#include "crash/library/protocol.h"
#include "crash/library/verify.h"

namespace cairn::crash::library {
namespace {

using Clock = std::chrono::steady_clock;

// A child still opening its store after this long is taken as hung.
constexpr auto kReadyGuard = std::chrono::seconds(60);
// A child still alive this long after its kill started is taken as hung.
constexpr auto kExitGuard = std::chrono::seconds(30);
// A run with this many power cuts under everysec or none, each after this many acknowledged
// calls, must have lost something in one of them.
constexpr int kLossyCutsToTrust = 3;
constexpr std::uint64_t kBusyCalls = 100;

// The running child, for OnFatalSignal.
std::atomic<pid_t> g_child{-1};

// A harness ended by a signal (Ctrl-C) takes its child along.
extern "C" void OnFatalSignal(int signal) {
  const pid_t pid = g_child.load();
  if (pid > 0) ::kill(pid, SIGKILL);
  ::_exit(128 + signal);
}

void InstallSignalHandlers() {
  struct sigaction action {};
  action.sa_handler = OnFatalSignal;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(signal, &action, nullptr);
  // Telling a child that is already gone to cut the power must not end the harness.
  ::signal(SIGPIPE, SIG_IGN);
}

// A seed per (run seed, cycle, stream): splitmix64 over the three.
std::uint64_t SeedFor(std::uint64_t seed, std::uint64_t cycle, std::uint64_t stream) {
  std::uint64_t z = seed ^ (cycle * 0x9e3779b97f4a7c15ULL) ^ (stream * 0xbf58476d1ce4e5b9ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

struct Totals {
  int sigkills = 0;
  int powercuts = 0;
  int lossy = 0;                   // power cuts under everysec or none
  int lossy_busy = 0;              // … after kBusyCalls acknowledged calls or more
  std::uint64_t acked_strict = 0;  // acknowledged calls checked to have survived
  std::uint64_t acked_lossy = 0;   // … checked for consistency only
  VerifyStats verify;
};

class Harness {
 public:
  explicit Harness(Options options) : opt_(std::move(options)), model_(opt_.threads) {}

  int Run() {
    self_ = SelfPath();
    if (self_.empty() || !MakeDirs()) return 2;
    std::string modes;
    for (const std::string& m : opt_.modes) modes += (modes.empty() ? "" : ",") + m;
    std::printf("crashtest_library: seed %llu, %d cycles, %d threads, modes %s, data in %s\n",
                static_cast<unsigned long long>(opt_.seed), opt_.cycles, opt_.threads,
                modes.c_str(), base_.c_str());
    std::fflush(stdout);
    const Clock::time_point start = Clock::now();
    for (int n = 1; n <= opt_.cycles; ++n) {
      const int result = Cycle(n);
      if (result != 0) return result;
    }
    if (totals_.lossy_busy >= kLossyCutsToTrust && totals_.verify.rolled_back == 0) {
      // Under everysec or none, a cut within a second of opening finds thousands of calls not
      // fsynced yet: if no cut ever takes one back, the simulation is not cutting anything.
      findings_.Add({"no power cut took back a single acknowledged call",
                     std::to_string(totals_.lossy_busy) + " power cuts under everysec or none, " +
                         "each after " + std::to_string(kBusyCalls) + " calls or more",
                     "some calls rolled back", "none: is the simulated power cut real?"});
      return Fail(opt_.cycles, "everysec/none", "powercut", "summing up the run");
    }
    std::printf(
        "crashtest_library: PASS, seed %llu: %d cycles (%d sigkill, %d powercut of which %d may "
        "lose writes) in %.1f s; acknowledged calls verified: %llu, plus %llu checked for "
        "consistency only (after power cuts that may lose them; %llu of them rolled back); "
        "calls in flight at the kill: %llu (%llu had happened); entities compared: %llu; "
        "losses: 0\n",
        static_cast<unsigned long long>(opt_.seed), opt_.cycles, totals_.sigkills,
        totals_.powercuts, totals_.lossy, Seconds(Clock::now() - start),
        static_cast<unsigned long long>(totals_.acked_strict),
        static_cast<unsigned long long>(totals_.acked_lossy),
        static_cast<unsigned long long>(totals_.verify.rolled_back),
        static_cast<unsigned long long>(totals_.verify.resolved),
        static_cast<unsigned long long>(totals_.verify.applied),
        static_cast<unsigned long long>(totals_.verify.entities));
    if (opt_.keep_dir) {
      std::printf("crashtest_library: data kept in %s\n", base_.c_str());
    } else {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
      std::filesystem::remove(log_, ec);
      std::filesystem::remove(base_, ec);
    }
    return 0;
  }

 private:
  // A fresh directory for the run, so that no store of an earlier run can be mistaken for
  // this one's.
  bool MakeDirs() {
    std::string parent = opt_.base_dir;
    if (parent.empty()) {
      const char* tmp = std::getenv("TMPDIR");
      parent = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    }
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    std::string pattern = parent + "/cairn-crashtest-library-XXXXXX";
    if (ec || ::mkdtemp(pattern.data()) == nullptr) {
      std::fprintf(stderr, "crashtest_library: cannot make a directory in %s: %s\n", parent.c_str(),
                   ec ? ec.message().c_str() : std::strerror(errno));
      return false;
    }
    base_ = pattern;
    dir_ = base_ + "/store";
    log_ = base_ + "/children.log";
    return true;
  }

  int Fail(int n, const std::string& mode, const std::string& kill, const std::string& when) {
    const std::vector<Finding> found = findings_.Take();
    std::printf(
        "\ncrashtest_library: FAILED in cycle %d of %d (seed %llu, durability %s, kill %s): %s\n",
        n, opt_.cycles, static_cast<unsigned long long>(opt_.seed), mode.c_str(), kill.c_str(),
        when.c_str());
    constexpr std::size_t kShown = 20;
    for (std::size_t i = 0; i < found.size() && i < kShown; ++i) {
      const Finding& f = found[i];
      std::printf("\n  #%zu seed=%llu cycle=%d: %s\n", i + 1,
                  static_cast<unsigned long long>(opt_.seed), n, f.what.c_str());
      if (!f.key.empty()) std::printf("    what:     %s\n", f.key.c_str());
      if (!f.expected.empty()) std::printf("    expected: %s\n", f.expected.c_str());
      if (!f.found.empty()) std::printf("    found:    %s\n", f.found.c_str());
    }
    if (found.size() > kShown) std::printf("\n  … and %zu more\n", found.size() - kShown);
    std::printf("\n  %zu finding(s). Reproduce (same schedule; timing differs): %s\n", found.size(),
                ReproduceCommand(opt_, n).c_str());
    std::printf("  data kept in %s; children's log %s, its end:\n%s", base_.c_str(), log_.c_str(),
                LogTail(log_, 12).c_str());
    std::fflush(stdout);
    return 1;
  }

  // Runs one child, feeds its lines to the model, kills it after `delay`. The child's wait
  // status in *status; false (with findings) if it never got going or would not die, or
  // (*status -1) if it could not be started at all.
  bool RunChild(int n, const std::string& mode, bool powercut, std::chrono::milliseconds delay,
                int* status) {
    const std::string seed = std::to_string(SeedFor(opt_.seed, static_cast<std::uint64_t>(n), 1));
    std::vector<std::string> args = {"--child", "--dir", dir_, "--durability", mode};
    args.insert(args.end(), {"--seed", seed, "--cycle", std::to_string(n)});
    args.insert(args.end(), {"--threads", std::to_string(opt_.threads)});
    ChildProcess child(self_, args, log_);
    if (!child.ok()) {
      std::fprintf(stderr, "crashtest_library: cannot start the child: %s\n",
                   child.error().c_str());
      *status = -1;
      return false;
    }
    g_child = child.pid();
    const Clock::time_point started = Clock::now();
    Clock::time_point kill_at = Clock::time_point::max();
    bool ready = false, killed = false;
    std::vector<std::string> lines;
    for (bool open = true; open;) {
      const Clock::time_point now = Clock::now();
      if (!killed && now >= kill_at) {
        powercut ? child.Send('c') : child.Kill(SIGKILL);
        killed = true;
        kill_at = now;
      }
      if ((!ready && now - started > kReadyGuard) || (killed && now - kill_at > kExitGuard)) {
        const char* what =
            ready ? "the child did not die after its kill" : "the child never opened the store";
        findings_.Add({what, "", "", ""});
        g_child = -1;
        child.Kill(SIGKILL);
        child.Wait();
        return false;
      }
      lines.clear();
      open = child.ReadLines(killed ? 100 : 5, &lines);
      for (const std::string& text : lines) {
        Line line;
        if (!ParseLine(text, &line)) {
          findings_.Add({"the child wrote a line that is not in the protocol", "", "", text});
          continue;
        }
        if (line.kind == 'r' && !ready) {
          ready = true;
          kill_at = Clock::now() + delay;
        }
        model_.Apply(line, killed, findings_);
      }
    }
    // Forgotten before it is reaped, when its pid may go to another process. (A harness
    // ended in between leaves the child the end of its stdin: it exits then too.)
    g_child = -1;
    *status = child.Wait();
    if (!ready) {
      findings_.Add({WIFEXITED(*status) && WEXITSTATUS(*status) == kChildCannotOpen
                         ? "the store could not be opened after the last kill"
                         : "the child ended before it opened the store",
                     "", "", StatusText(*status)});
      return false;
    }
    if (!killed) {
      findings_.Add({"the child ended before its kill", "", "", StatusText(*status)});
      return false;
    }
    return true;
  }

  int Cycle(int n) {
    const std::string& mode = opt_.modes[static_cast<std::size_t>(n - 1) % opt_.modes.size()];
    std::mt19937_64 rng(SeedFor(opt_.seed, static_cast<std::uint64_t>(n), 0));
    bool powercut = opt_.kill == KillChoice::kPowercut;
    if (opt_.kill == KillChoice::kBoth) powercut = std::uniform_int_distribution<int>(0, 1)(rng);
    const std::chrono::milliseconds delay(
        std::uniform_int_distribution<int>(20, opt_.max_delay_ms)(rng));
    const bool strict = !powercut || mode == "always";
    const std::string kill = powercut ? "powercut" : "sigkill";
    const Clock::time_point t0 = Clock::now();

    model_.StartCycle();
    int status = 0;
    if (!RunChild(n, mode, powercut, delay, &status)) {
      return status == -1 ? 2 : Fail(n, mode, kill, "running the child");
    }
    const bool died_right = powercut ? WIFEXITED(status) && WEXITSTATUS(status) == kPowerCutExit
                                     : WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    if (!died_right) {
      findings_.Add({"the child did not end as killed", "",
                     powercut ? "exit code " + std::to_string(kPowerCutExit) : "signal 9",
                     StatusText(status)});
    }
    if (!findings_.empty()) return Fail(n, mode, kill, "checking the library's answers");
    model_.EndCycle();

    cairn::Options options;
    options.data_dir = dir_;
    options.create_if_missing = false;
    options.min_free_disk_bytes = 0;
    auto opened = Store::Open(options);
    if (!opened.ok()) {
      findings_.Add({"the store cannot be opened after the kill", dir_, "it opens",
                     opened.status().ToString()});
      return Fail(n, mode, kill, "reopening the store");
    }
    VerifyStats v;
    const bool ok = Verify(**opened, model_, strict, findings_, &v);
    const Status closed = (*opened)->Close();
    if (!ok) {
      return Fail(n, mode, kill,
                  strict ? "reading back after the kill: every acknowledged call must be there"
                         : "reading back after a power cut that may lose writes: what survived "
                           "must be a prefix of each thread's calls");
    }
    if (!closed.ok()) {
      findings_.Add({"the store did not close", dir_, "OK", closed.ToString()});
      return Fail(n, mode, kill, "closing the store");
    }

    ++(powercut ? totals_.powercuts : totals_.sigkills);
    totals_.lossy += strict ? 0 : 1;
    totals_.lossy_busy += !strict && model_.acked() >= kBusyCalls ? 1 : 0;
    (strict ? totals_.acked_strict : totals_.acked_lossy) += model_.acked();
    totals_.verify.entities += v.entities;
    totals_.verify.resolved += v.resolved;
    totals_.verify.applied += v.applied;
    totals_.verify.rolled_back += v.rolled_back;
    std::printf(
        "cycle %d/%d: %-8s %-8s after %4lld ms: %6llu acked (%s), %llu in flight (%llu "
        "happened)%s, %llu entities, %.1f s\n",
        n, opt_.cycles, mode.c_str(), kill.c_str(), static_cast<long long>(delay.count()),
        static_cast<unsigned long long>(model_.acked()), strict ? "all there" : "a prefix",
        static_cast<unsigned long long>(v.resolved), static_cast<unsigned long long>(v.applied),
        strict ? "" : (", " + std::to_string(v.rolled_back) + " rolled back").c_str(),
        static_cast<unsigned long long>(v.entities), Seconds(Clock::now() - t0));
    std::fflush(stdout);
    return 0;
  }

  Options opt_;
  Model model_;
  std::string self_;
  std::string base_, dir_, log_;
  Findings findings_;
  Totals totals_;
};

}  // namespace
}  // namespace cairn::crash::library

int main(int argc, char** argv) {
  namespace lib = cairn::crash::library;
  if (argc > 1 && std::string(argv[1]) == "--child") {
    lib::ChildArgs args;
    if (!lib::ParseChildArgs(argc - 2, argv + 2, &args)) {
      std::fprintf(stderr, "crashtest_library --child: bad arguments\n");
      return 2;
    }
    return lib::RunChild(args);
  }
  lib::Options options;
  int exit_code = 0;
  if (!lib::ParseOptions(argc, argv, &options, &exit_code)) return exit_code;
  lib::InstallSignalHandlers();
  return lib::Harness(std::move(options)).Run();
}
