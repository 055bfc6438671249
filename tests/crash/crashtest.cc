// crashtest: a crash harness for cairn-server, in the spirit of RocksDB's db_crashtest.py.
//
// Each cycle takes the next server mode (durability × io threads; each mode has its own data
// directory, kept across its cycles) and:
//   1. starts the server on the mode's directory and reads everything back: what the last stop
//      (a clean shutdown or a SIGKILL of an idle server) left must be all there;
//   2. runs a seeded random mix of commands from --clients threads (each its own connection and
//      keys, so each key's history is sequential) while a killer thread, after a random
//      20–400 ms, kills the server: SIGKILL (a process crash) or DEBUG FAULT POWERCUT (the
//      machine loses power: what was never fsynced is gone);
//   3. restarts the server on the same directory and reads everything back (verify.h): after a
//      process crash, every acknowledged write must be there; after a power cut under `always`,
//      every write acknowledged before the POWERCUT was sent (see KillPoint for the replies
//      that come after it); after a power cut under `everysec` or `none`, what survived must be
//      consistent. Ops in flight at the kill resolve to what was found.
//   4. stops the server, cleanly or with SIGKILL.
// Any loss or broken invariant ends the run with exit status 1 and a report of what, where,
// the seed and the cycle. Exit status 2: the harness could not run (bad arguments, no server).
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "crash/driver.h"
#include "crash/findings.h"
#include "crash/model.h"
#include "crash/options.h"
#include "crash/verify.h"
#include "server/support/resp_client.h"
#include "server/support/server_process.h"

namespace cairn::crash {
namespace {

using Clock = std::chrono::steady_clock;
using test::RespClient;
using test::ServerProcess;

// The running server, for OnFatalSignal.
std::atomic<pid_t> g_server_pid{-1};

// A harness ended by a signal (Ctrl-C, a closed pipe) takes its server along.
extern "C" void OnFatalSignal(int signal) {
  const pid_t pid = g_server_pid.load();
  if (pid > 0) ::kill(pid, SIGKILL);
  ::_exit(128 + signal);
}

void InstallSignalHandlers() {
  struct sigaction action {};
  action.sa_handler = OnFatalSignal;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::sigaction(signal, &action, nullptr);
}

// Servers are held through this: the pid is forgotten before the process is reaped (and its
// pid may go to another process).
struct ForgetServer {
  void operator()(ServerProcess* server) const {
    pid_t pid = server->pid();  // -1 once reaped (Reap forgot it then)
    if (pid > 0) g_server_pid.compare_exchange_strong(pid, -1);
    delete server;
  }
};
using Server = std::unique_ptr<ServerProcess, ForgetServer>;

// ServerProcess::Stop or WaitExit, with the pid forgotten once reaped.
int Reap(ServerProcess& server, int signal) {
  const int status = signal == 0 ? server.WaitExit() : server.Stop(signal);
  if (status != -1) g_server_pid = -1;
  return status;
}

enum class KillKind { kSigkill, kPowercut };

const char* KillName(KillKind k) { return k == KillKind::kSigkill ? "sigkill" : "powercut"; }

// A seed per (run seed, cycle, stream): splitmix64 over the three.
std::uint64_t SeedFor(std::uint64_t seed, std::uint64_t cycle, std::uint64_t stream) {
  std::uint64_t z = seed ^ (cycle * 0x9e3779b97f4a7c15ULL) ^ (stream * 0xbf58476d1ce4e5b9ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

int Uniform(std::mt19937_64& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

struct Totals {
  int cycles = 0;
  int sigkills = 0;
  int powercuts = 0;
  int lossy = 0;
  int mid_ops = 0;                 // kills while some client was still running its ops
  std::uint64_t acked_strict = 0;  // acknowledged writes checked to have survived
  std::uint64_t acked_lossy = 0;   // … checked for consistency only (lossy power cuts)
  std::uint64_t failed = 0;
  std::uint64_t unknown = 0;
  std::uint64_t resolved = 0;
  std::uint64_t late_lost = 0;  // acknowledged after a POWERCUT was sent, and not there
  std::uint64_t applied = 0;
  std::uint64_t entities = 0;
};

class Harness {
 public:
  explicit Harness(Options options) : opt_(std::move(options)) {}

  int Run() {
    if (!MakeDirs()) return 2;
    std::string modes;
    for (const auto& m : modes_) modes += (modes.empty() ? "" : ",") + m->mode.Name();
    std::printf(
        "crashtest: seed %llu, %d cycles, %d clients, up to %d ops per cycle, modes %s, "
        "data in %s\n",
        static_cast<unsigned long long>(opt_.seed), opt_.cycles, opt_.clients, opt_.ops_per_cycle,
        modes.c_str(), base_.c_str());
    std::fflush(stdout);
    const Clock::time_point start = Clock::now();
    for (int n = 1; n <= opt_.cycles; ++n) {
      if (!Cycle(n)) return 1;
    }
    std::printf(
        "crashtest: PASS, seed %llu: %d cycles (%d sigkill, %d powercut of which %d may lose "
        "writes; %d kills during the ops) in %.1f s; acknowledged writes verified: %llu, plus "
        "%llu checked for consistency only (after power cuts that may lose them); ops failed "
        "with an allowed error: %llu; outcomes unknown at the kill: %llu, resolved after "
        "restart: %llu (%llu had happened); acknowledged after a POWERCUT was sent and not "
        "there (allowed): %llu; keys/records/jobs compared: %llu; losses: 0\n",
        static_cast<unsigned long long>(opt_.seed), totals_.cycles, totals_.sigkills,
        totals_.powercuts, totals_.lossy, totals_.mid_ops, Seconds(Clock::now() - start),
        static_cast<unsigned long long>(totals_.acked_strict),
        static_cast<unsigned long long>(totals_.acked_lossy),
        static_cast<unsigned long long>(totals_.failed),
        static_cast<unsigned long long>(totals_.unknown),
        static_cast<unsigned long long>(totals_.resolved),
        static_cast<unsigned long long>(totals_.applied),
        static_cast<unsigned long long>(totals_.late_lost),
        static_cast<unsigned long long>(totals_.entities));
    if (opt_.keep_dir) {
      std::printf("crashtest: data kept in %s\n", base_.c_str());
    } else {
      std::error_code ec;
      for (const auto& m : modes_) {
        std::filesystem::remove_all(m->dir, ec);
        std::filesystem::remove(m->log, ec);
      }
      if (created_base_) std::filesystem::remove(base_, ec);
    }
    return 0;
  }

 private:
  bool MakeDirs() {
    if (opt_.base_dir.empty()) {
      base_ = test::MakeScratchDir("cairn-crashtest");
      if (base_.empty()) return false;
      created_base_ = true;
    } else {
      base_ = opt_.base_dir;
      std::error_code ec;
      std::filesystem::create_directories(base_, ec);
      if (ec) {
        std::fprintf(stderr, "crashtest: cannot create %s: %s\n", base_.c_str(),
                     ec.message().c_str());
        return false;
      }
    }
    for (std::size_t i = 0; i < opt_.modes.size(); ++i) {
      const Mode& mode = opt_.modes[i];
      const std::string name =
          std::to_string(i) + "-" + mode.durability + "-" + std::to_string(mode.threads);
      modes_.push_back(std::make_unique<ModeModel>(mode, base_ + "/" + name,
                                                   base_ + "/" + name + ".log", opt_.clients));
    }
    return true;
  }

  Server Start(const ModeModel& m) {
    Server server(new ServerProcess(
        opt_.server_binary,
        std::vector<std::string>{"--port", "0", "--dir", m.dir, "--durability", m.mode.durability,
                                 "--threads", std::to_string(m.mode.threads), "--fault-injection",
                                 "yes"},
        m.log));
    g_server_pid = server->pid();
    return server;
  }

  // Reads the whole model back from the server; false (with findings) if that failed.
  bool VerifyOn(const ServerProcess& server, ModeModel& m, bool strict, const KillPoint& kill,
                VerifyStats* stats) {
    std::string error;
    std::unique_ptr<RespClient> client = RespClient::Connect(server.port(), &error);
    if (client == nullptr) {
      findings_.Add({"cannot connect to the restarted server", "", "a connection", error});
      return false;
    }
    client->set_timeout_ms(30'000);
    return Verify(*client, m, strict, kill, findings_, stats);
  }

  bool Fail(int n, const ModeModel& m, const std::string& kill, const std::string& when) {
    const std::vector<Finding> found = findings_.Take();
    std::printf("\ncrashtest: FAILED in cycle %d of %d (seed %llu, mode %s, kill %s): %s\n", n,
                opt_.cycles, static_cast<unsigned long long>(opt_.seed), m.mode.Name().c_str(),
                kill.c_str(), when.c_str());
    for (std::size_t i = 0; i < found.size(); ++i) {
      const Finding& f = found[i];
      std::printf("\n  #%zu seed=%llu cycle=%d mode=%s kill=%s: %s\n", i + 1,
                  static_cast<unsigned long long>(opt_.seed), n, m.mode.Name().c_str(),
                  kill.c_str(), f.what.c_str());
      if (!f.key.empty()) std::printf("    key:      %s\n", f.key.c_str());
      if (!f.expected.empty()) std::printf("    expected: %s\n", f.expected.c_str());
      if (!f.found.empty()) std::printf("    found:    %s\n", f.found.c_str());
    }
    std::printf("\n  %zu finding(s). Reproduce (same schedule; timing differs): tools/%s\n",
                found.size(), ReproduceCommand(opt_, n).c_str());
    std::printf("  data kept in %s; server log %s, its end:\n%s", base_.c_str(), m.log.c_str(),
                LogTail(m.log, 12).c_str());
    std::fflush(stdout);
    return false;
  }

  // The end of a cycle's line: what the verification allowed to be missing.
  static std::string Note(bool strict, const VerifyStats& v) {
    if (!strict) return "  (" + std::to_string(v.rolled_back) + " rolled back by the cut)";
    if (v.late_lost == 0) return "";
    return "  (" + std::to_string(v.late_lost) + " acked after the POWERCUT was sent, not there)";
  }

  bool Cycle(int n) {
    ModeModel& m = *modes_[static_cast<std::size_t>(n - 1) % modes_.size()];
    std::mt19937_64 rng(SeedFor(opt_.seed, static_cast<std::uint64_t>(n), 1'000'000));
    KillKind kill = opt_.kill == KillChoice::kPowercut ? KillKind::kPowercut : KillKind::kSigkill;
    if (opt_.kill == KillChoice::kBoth && Uniform(rng, 0, 1) == 1) kill = KillKind::kPowercut;
    const int delay_ms = Uniform(rng, 20, 400);
    const int ops = Uniform(rng, 1, opt_.ops_per_cycle);
    const bool clean_stop = Uniform(rng, 0, 1) == 0;
    const bool strict = kill == KillKind::kSigkill || !m.mode.PowerCutMayLose();
    const std::string kill_name = KillName(kill);
    const Clock::time_point t0 = Clock::now();

    // 1. Start; the last stop of this mode (clean, or SIGKILL of an idle server) lost nothing.
    Server server = Start(m);
    if (!server->ok()) {
      findings_.Add({"the server did not start", m.dir, "its ready line", server->error()});
      return Fail(n, m, kill_name, "starting the server for the cycle");
    }
    VerifyStats before;
    if (!VerifyOn(*server, m, /*strict=*/true, KillPoint{}, &before) || !findings_.empty()) {
      return Fail(n, m, kill_name,
                  "reading back at the start of the cycle, after this mode's last stop (a clean "
                  "shutdown or a SIGKILL of the idle server: nothing may be lost)");
    }
    {
      std::unique_ptr<RespClient> setup = RespClient::Connect(server->port());
      for (ThreadModel& t : m.threads) {
        const test::Reply r =
            setup ? setup->Call({"QUEUE.GROUP", t.queue(), "g", "ALL"}) : test::Reply{};
        if (r.type != test::Reply::Type::kInteger) {
          findings_.Add({"QUEUE.GROUP failed", t.queue(), "0 or 1", r.ToString()});
          return Fail(n, m, kill_name, "creating the queue groups");
        }
      }
    }

    // 2. The clients' ops, and the kill.
    std::vector<std::unique_ptr<RespClient>> conns;
    for (int t = 0; t < opt_.clients; ++t) {
      std::string error;
      conns.push_back(RespClient::Connect(server->port(), &error));
      if (!conns.back()) {
        findings_.Add({"cannot connect to the server", "", "a connection", error});
        return Fail(n, m, kill_name, "connecting the clients");
      }
    }
    std::unique_ptr<RespClient> killer_conn = RespClient::Connect(server->port());
    if (!killer_conn) {
      findings_.Add({"cannot connect to the server", "", "a connection", "(killer)"});
      return Fail(n, m, kill_name, "connecting the killer");
    }
    std::atomic<bool> kill_started{false};
    std::atomic<int> running{opt_.clients};  // clients still running their ops
    std::vector<Driver::Stats> stats(static_cast<std::size_t>(opt_.clients));
    const int per_client = std::max(1, ops / opt_.clients);
    std::vector<std::thread> clients;
    for (int t = 0; t < opt_.clients; ++t) {
      clients.emplace_back([&, t] {
        const std::size_t i = static_cast<std::size_t>(t);
        Driver d(*conns[i], m.threads[i], m.max_fencing, findings_,
                 SeedFor(opt_.seed, static_cast<std::uint64_t>(n), i));
        for (int k = 0; k < per_client; ++k) {
          if (d.Step()) continue;
          const bool before_kill = !kill_started.load();
          if (before_kill && d.unknown_reason() == "connection lost") {
            findings_.Add({"the connection failed before the kill (did the server crash?)",
                           "client " + std::to_string(t), "a reply", d.unknown_op()});
          }
          if (opt_.verbose || (before_kill && d.unknown_reason() != "connection lost")) {
            std::printf("  client %d: outcome unknown (%s): %s\n", t, d.unknown_reason().c_str(),
                        d.unknown_op().c_str());
          }
          break;
        }
        stats[i] = d.stats();
        --running;
      });
    }
    int kill_status = 0;
    bool killer_closed = true;
    int running_at_kill = 0;
    KillPoint kill_point;
    std::thread killer([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      kill_started = true;
      running_at_kill = running.load();
      kill_point.sent_ns = SteadyNs();
      if (kill == KillKind::kPowercut && !opt_.strict_powercut) {
        kill_point.must_survive_before_ns = kill_point.sent_ns;
      }
      if (kill == KillKind::kSigkill) {
        kill_status = Reap(*server, SIGKILL);
      } else {
        killer_conn->Send(RespClient::Encode({"DEBUG", "FAULT", "POWERCUT"}));
        killer_closed = killer_conn->WaitClosed();
        kill_status = Reap(*server, 0);
      }
    });
    killer.join();
    for (std::thread& c : clients) c.join();
    const bool kill_ok =
        kill == KillKind::kSigkill
            ? WIFSIGNALED(kill_status) && WTERMSIG(kill_status) == SIGKILL
            : killer_closed && WIFEXITED(kill_status) && WEXITSTATUS(kill_status) == 137;
    if (!kill_ok) {
      findings_.Add({kill == KillKind::kSigkill
                         ? "the server had already ended before the SIGKILL"
                         : "DEBUG FAULT POWERCUT did not end the server as a power cut",
                     "", kill == KillKind::kSigkill ? "signal 9" : "exit code 137",
                     StatusText(kill_status)});
    }
    server.reset();
    Driver::Stats cycle;
    for (const Driver::Stats& s : stats) {
      cycle.acked += s.acked;
      cycle.failed += s.failed;
      cycle.unknown += s.unknown;
    }
    if (!findings_.empty()) return Fail(n, m, kill_name, "during the ops, before the restart");

    // 3. Restart on the same directory and read everything back.
    server = Start(m);
    if (!server->ok()) {
      findings_.Add({"the server did not restart after the " + kill_name, m.dir, "its ready line",
                     server->error()});
      return Fail(n, m, kill_name, "restarting after the kill");
    }
    VerifyStats after;
    VerifyOn(*server, m, strict, kill_point, &after);
    const double seconds = Seconds(Clock::now() - t0);
    std::printf(
        "cycle %d/%d  %-10s kill=%-8s after %3d ms (%d/%d clients busy)  %s  ops acked "
        "%llu, failed %llu, unknown %llu (on keys %zu, happened %zu)  verified %zu  "
        "%.2f s%s\n",
        n, opt_.cycles, m.mode.Name().c_str(), kill_name.c_str(), delay_ms, running_at_kill,
        opt_.clients, strict ? "strict" : "lossy ", static_cast<unsigned long long>(cycle.acked),
        static_cast<unsigned long long>(cycle.failed),
        static_cast<unsigned long long>(cycle.unknown), after.resolved, after.applied,
        after.entities, seconds, Note(strict, after).c_str());
    if (opt_.verbose) {
      for (const std::string& late : after.late) std::printf("  late ack: %s\n", late.c_str());
    }
    std::fflush(stdout);
    if (!findings_.empty()) {
      return Fail(n, m, kill_name,
                  strict ? "reading back after the restart: acknowledged writes must all be there"
                         : "reading back after the restart: what survived the power cut must be "
                           "consistent");
    }

    // 4. Stop: cleanly, or by SIGKILL of the idle server (checked by the next cycle's start).
    const int stop_status = Reap(*server, clean_stop ? SIGTERM : SIGKILL);
    const bool stop_ok = clean_stop ? WIFEXITED(stop_status) && WEXITSTATUS(stop_status) == 0
                                    : WIFSIGNALED(stop_status);
    if (!stop_ok) {
      findings_.Add({clean_stop ? "a clean shutdown (SIGTERM) failed" : "SIGKILL failed", "",
                     clean_stop ? "exit code 0" : "signal 9", StatusText(stop_status)});
      return Fail(n, m, kill_name, "stopping the server at the end of the cycle");
    }

    ++totals_.cycles;
    ++(kill == KillKind::kSigkill ? totals_.sigkills : totals_.powercuts);
    totals_.lossy += strict ? 0 : 1;
    totals_.mid_ops += running_at_kill > 0 ? 1 : 0;
    (strict ? totals_.acked_strict : totals_.acked_lossy) += cycle.acked;
    totals_.failed += cycle.failed;
    totals_.unknown += cycle.unknown;
    totals_.resolved += after.resolved;
    totals_.late_lost += after.late_lost;
    totals_.applied += after.applied;
    totals_.entities += before.entities + after.entities;
    ++m.cycles;
    return true;
  }

  Options opt_;
  std::string base_;
  bool created_base_ = false;
  std::vector<std::unique_ptr<ModeModel>> modes_;
  Findings findings_;
  Totals totals_;
};

}  // namespace
}  // namespace cairn::crash

int main(int argc, char** argv) {
  cairn::crash::Options options;
  int exit_code = 0;
  if (!cairn::crash::ParseOptions(argc, argv, &options, &exit_code)) return exit_code;
  cairn::crash::InstallSignalHandlers();
  return cairn::crash::Harness(std::move(options)).Run();
}
