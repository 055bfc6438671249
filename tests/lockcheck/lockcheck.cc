// lockcheck: lease safety over the network, checked in the style of Jepsen.
//
// Starts cairn-server, forks --clients client processes (worker.h) that take leases on a few
// resources over RESP, write through them with LEASE.FENCEDSET, extend, release, and let some
// lapse, each recording every command it sends in a history file. Meanwhile the parent pauses
// clients with SIGSTOP — most often one that holds a lease — for 1.3 to 3 times the TTL, then
// resumes it: it comes back believing it still holds a lease that another client may hold by
// now. At the end it reads each resource's data key and checks the histories (checker.h): no
// more holders at once than a resource's limit, fencing numbers that only grow, every stale
// fenced write refused (and none refused wrongly), no accepted write lost.
//
// Exit status: 0 when every check passed, 1 on any finding (each printed), 2 when the run could
// not be made (bad arguments, no server), 3 when the run did not exercise what it checks (no
// pause cost a holder its lease, so no stale write was ever tried).
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <new>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "lockcheck/checker.h"
#include "lockcheck/history.h"
#include "lockcheck/worker.h"
#include "server/support/resp_client.h"
#include "server/support/server_process.h"

namespace cairn::lockcheck {
namespace {

struct Options {
  int clients = 8;
  double seconds = 10;
  int resources = 3;
  int limit = 2;  // The last resource's LIMIT: a semaphore (1: every resource a plain lease).
  int ttl_ms = 150;
  int threads = 1;  // The server's io threads.
  std::string durability = "everysec";
  std::uint64_t seed = 0;
  bool pause = true;
  bool keep_dir = false;
  std::string server_binary = CAIRN_SERVER_BINARY;
};

constexpr const char* kUsage =
    "usage: lockcheck [options]\n"
    "  --clients N       client processes (default 8, at most 256)\n"
    "  --seconds S       how long they run (default 10)\n"
    "  --resources N     resources they contend for (default 3)\n"
    "  --limit N         LIMIT of the last resource, a semaphore (default 2; 1: none)\n"
    "  --ttl-ms MS       lease TTL (default 150)\n"
    "  --threads N       the server's io threads (default 1)\n"
    "  --durability M    always, everysec or none (default everysec)\n"
    "  --seed N          the clients' and pauser's random seed (default: from the clock)\n"
    "  --no-pause        never SIGSTOP a client\n"
    "  --keep-dir        keep the data directory, histories and server log\n"
    "  --server PATH     the cairn-server binary\n";

bool ParseArgs(int argc, char** argv, Options* o, int* exit_code) {
  *exit_code = 2;
  o->seed = static_cast<std::uint64_t>(NowUs());
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= argc) return std::nullopt;
      return std::string(argv[++i]);
    };
    auto integer = [&](int lo, int hi, int* out) {
      const std::optional<std::string> v = value();
      char* end = nullptr;
      const long n = v ? std::strtol(v->c_str(), &end, 10) : 0;
      if (!v || v->empty() || *end != '\0' || n < lo || n > hi) {
        std::fprintf(stderr, "lockcheck: %s takes an integer from %d to %d\n", arg.c_str(), lo, hi);
        return false;
      }
      *out = static_cast<int>(n);
      return true;
    };
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      *exit_code = 0;
      return false;
    } else if (arg == "--clients") {
      if (!integer(2, kMaxClients, &o->clients)) return false;
    } else if (arg == "--seconds") {
      int s = 0;
      if (!integer(1, 86400, &s)) return false;
      o->seconds = s;
    } else if (arg == "--resources") {
      if (!integer(1, 1000, &o->resources)) return false;
    } else if (arg == "--limit") {
      if (!integer(1, 1024, &o->limit)) return false;
    } else if (arg == "--ttl-ms") {
      if (!integer(20, 600'000, &o->ttl_ms)) return false;
    } else if (arg == "--threads") {
      if (!integer(1, 64, &o->threads)) return false;
    } else if (arg == "--durability") {
      const std::optional<std::string> v = value();
      if (!v || (*v != "always" && *v != "everysec" && *v != "none")) {
        std::fprintf(stderr, "lockcheck: --durability takes always, everysec or none\n");
        return false;
      }
      o->durability = *v;
    } else if (arg == "--seed") {
      const std::optional<std::string> v = value();
      char* end = nullptr;
      if (!v || v->empty()) return false;
      o->seed = std::strtoull(v->c_str(), &end, 10);
      if (*end != '\0') {
        std::fprintf(stderr, "lockcheck: --seed takes an unsigned integer\n");
        return false;
      }
    } else if (arg == "--no-pause") {
      o->pause = false;
    } else if (arg == "--keep-dir") {
      o->keep_dir = true;
    } else if (arg == "--server") {
      const std::optional<std::string> v = value();
      if (!v) return false;
      o->server_binary = *v;
    } else {
      std::fprintf(stderr, "lockcheck: unknown argument %s\n%s", arg.c_str(), kUsage);
      return false;
    }
  }
  return true;
}

void SleepMs(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

class Run {
 public:
  explicit Run(Options options) : opt_(std::move(options)), rng_(opt_.seed) {}
  ~Run() {
    ReleaseClients();
    if (shared_ != nullptr) ::munmap(shared_, sizeof(SharedState));
  }

  int Go() {
    if (!Setup()) return 2;
    std::printf(
        "lockcheck: seed %llu, %d clients, %d resources (the last with LIMIT %d), TTL %d ms, "
        "%g s, server with %d io thread(s), durability %s%s\n",
        static_cast<unsigned long long>(opt_.seed), opt_.clients, opt_.resources, opt_.limit,
        opt_.ttl_ms, opt_.seconds, opt_.threads, opt_.durability.c_str(),
        opt_.pause ? ", clients paused past their TTL" : "");
    std::fflush(stdout);
    if (!StartClients()) return 2;
    PauseClientsUntilDone();
    if (!StopClients()) return 2;
    std::vector<ResourceSpec> resources;
    if (!ReadFinalValues(&resources)) return 2;
    std::vector<Event> events;
    if (!ReadHistories(&events)) return 2;
    const int server_exit = server_->Stop(SIGTERM);
    const CheckResult result = Check(events, resources);
    return Report(result, events.size(), server_exit);
  }

 private:
  bool Setup() {
    dir_ = test::MakeScratchDir("cairn-lockcheck");
    if (dir_.empty()) return false;
    server_ = std::make_unique<test::ServerProcess>(
        opt_.server_binary,
        std::vector<std::string>{"--port", "0", "--dir", dir_ + "/data", "--threads",
                                 std::to_string(opt_.threads), "--durability", opt_.durability},
        dir_ + "/server.log");
    if (!server_->ok()) {
      std::fprintf(stderr, "lockcheck: the server did not start: %s\n", server_->error().c_str());
      return false;
    }
    void* memory = ::mmap(nullptr, sizeof(SharedState), PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) {
      std::perror("lockcheck: mmap");
      return false;
    }
    shared_ = new (memory) SharedState();
    for (auto& h : shared_->holding) h = false;
    return true;
  }

  bool StartClients() {
    std::fflush(nullptr);  // Nothing buffered is written twice by the children.
    for (int id = 0; id < opt_.clients; ++id) {
      WorkerConfig config;
      config.id = id;
      config.port = server_->port();
      config.limits.assign(static_cast<std::size_t>(opt_.resources), 1);
      config.limits.back() = opt_.limit;
      config.ttl_ms = opt_.ttl_ms;
      config.seed = rng_();
      config.history_path = HistoryPath(id);
      config.shared = shared_;
      const pid_t pid = ::fork();
      if (pid < 0) {
        std::perror("lockcheck: fork");
        return false;
      }
      if (pid == 0) ::_exit(RunWorker(config));
      clients_.push_back(pid);
    }
    return true;
  }

  // SIGSTOPs a client (a holder, when one holds a lease) for 1.3–3 TTLs, over and over, until
  // the time is up.
  void PauseClientsUntilDone() {
    const auto end = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(static_cast<std::int64_t>(opt_.seconds * 1000));
    while (std::chrono::steady_clock::now() < end) {
      SleepMs(std::uniform_int_distribution<int>(10, 60)(rng_));
      if (!opt_.pause) continue;
      std::vector<int> holders;
      for (int id = 0; id < opt_.clients; ++id) {
        if (shared_->holding[id].load()) holders.push_back(id);
      }
      if (holders.empty()) continue;
      const int id =
          holders[std::uniform_int_distribution<std::size_t>(0, holders.size() - 1)(rng_)];
      const pid_t pid = clients_[static_cast<std::size_t>(id)];
      ::kill(pid, SIGSTOP);
      SleepMs(static_cast<int>(opt_.ttl_ms * std::uniform_real_distribution<double>(1.3, 3)(rng_)));
      ::kill(pid, SIGCONT);
      ++pauses_;
    }
  }

  bool StopClients() {
    shared_->stop = true;
    bool ok = true;
    for (pid_t pid : clients_) {
      ::kill(pid, SIGCONT);
      int status = 0;
      if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "lockcheck: client process %d did not end well (status %d)\n",
                     static_cast<int>(pid), status);
        ok = false;
      }
    }
    clients_.clear();
    return ok;
  }

  // Kills what is left of the clients (a run that ends early).
  void ReleaseClients() {
    for (pid_t pid : clients_) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    clients_.clear();
  }

  bool ReadFinalValues(std::vector<ResourceSpec>* resources) {
    std::string error;
    std::unique_ptr<test::RespClient> client = test::RespClient::Connect(server_->port(), &error);
    if (!client) {
      std::fprintf(stderr, "lockcheck: cannot connect for the final read: %s\n", error.c_str());
      return false;
    }
    for (int r = 0; r < opt_.resources; ++r) {
      ResourceSpec spec;
      spec.limit = r == opt_.resources - 1 ? opt_.limit : 1;
      const test::Reply value = client->Call({"GET", DataKey(r)});
      if (value.type == test::Reply::Type::kBulk) {
        spec.final = value.str;
      } else if (!value.IsNil()) {
        std::fprintf(stderr, "lockcheck: GET %s answered %s\n", DataKey(r).c_str(),
                     value.ToString().c_str());
        return false;
      }
      resources->push_back(spec);
    }
    return true;
  }

  bool ReadHistories(std::vector<Event>* events) {
    for (int id = 0; id < opt_.clients; ++id) {
      std::ifstream in(HistoryPath(id));
      if (!in) {
        std::fprintf(stderr, "lockcheck: no history from client %d\n", id);
        return false;
      }
      for (std::string line; std::getline(in, line);) {
        std::optional<Event> e = Parse(line);
        if (!e || e->client != id) {
          std::fprintf(stderr, "lockcheck: client %d's history has a bad line: %s\n", id,
                       line.c_str());
          return false;
        }
        events->push_back(std::move(*e));
      }
    }
    return true;
  }

  int Report(const CheckResult& result, std::size_t events, int server_exit) {
    const CheckStats& s = result.stats;
    constexpr std::size_t kShown = 20;
    for (std::size_t i = 0; i < result.findings.size() && i < kShown; ++i) {
      std::printf("lockcheck: FINDING %s\n", result.findings[i].c_str());
    }
    if (result.findings.size() > kShown) {
      std::printf("lockcheck: … and %zu more findings\n", result.findings.size() - kShown);
    }
    std::printf(
        "lockcheck: %zu commands checked: %lld acquisitions (%lld busy), %lld extends, %lld "
        "releases, %lld NOTOWNER (leases lost), %lld fenced writes accepted, %lld stale writes "
        "refused; %d pauses; at most %lld holders at once\n",
        events, static_cast<long long>(s.acquisitions), static_cast<long long>(s.busy),
        static_cast<long long>(s.extends), static_cast<long long>(s.releases),
        static_cast<long long>(s.not_owner), static_cast<long long>(s.writes),
        static_cast<long long>(s.stale_refused), pauses_,
        static_cast<long long>(s.most_holders_at_once));
    int code = 0;
    if (server_exit != 0) {
      std::printf("lockcheck: FINDING the server's clean stop returned status %d\n", server_exit);
      code = 1;
    }
    if (!result.findings.empty()) code = 1;
    if (code == 0 && opt_.pause && s.stale_refused == 0) {
      std::printf(
          "lockcheck: INCONCLUSIVE no pause cost a holder its lease (no stale write was tried); "
          "run longer or with more clients\n");
      code = 3;
    }
    std::printf("lockcheck: %s, seed %llu\n", code == 0 ? "PASS" : "FAIL",
                static_cast<unsigned long long>(opt_.seed));
    if (code != 0 || opt_.keep_dir) {
      std::printf("lockcheck: histories and the server log kept in %s\n", dir_.c_str());
    } else {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
    }
    return code;
  }

  std::string HistoryPath(int id) const { return dir_ + "/client-" + std::to_string(id) + ".log"; }

  Options opt_;
  std::mt19937_64 rng_;
  std::string dir_;
  std::unique_ptr<test::ServerProcess> server_;
  SharedState* shared_ = nullptr;
  std::vector<pid_t> clients_;
  int pauses_ = 0;
};

}  // namespace
}  // namespace cairn::lockcheck

int main(int argc, char** argv) {
  cairn::lockcheck::Options options;
  int exit_code = 0;
  if (!cairn::lockcheck::ParseArgs(argc, argv, &options, &exit_code)) return exit_code;
  return cairn::lockcheck::Run(std::move(options)).Go();
}
