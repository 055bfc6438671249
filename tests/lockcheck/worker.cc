#include "lockcheck/worker.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <thread>

#include "lockcheck/history.h"
#include "server/support/reply_fields.h"
#include "server/support/resp_client.h"

namespace cairn::lockcheck {
namespace {

using test::Reply;
using test::RespClient;

class Worker {
 public:
  Worker(const WorkerConfig& config, RespClient& client, std::ofstream& out)
      : config_(config), client_(client), out_(out), rng_(config.seed) {}

  void Run() {
    while (!config_.shared->stop.load()) {
      const int resource = Uniform(0, static_cast<int>(config_.limits.size()) - 1);
      const std::int64_t fencing = Acquire(resource);
      if (fencing == 0) {
        Sleep(Uniform(0, 20));
        continue;
      }
      config_.shared->holding[config_.id] = true;
      Hold(resource, fencing);
      config_.shared->holding[config_.id] = false;
    }
  }

 private:
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  static void Sleep(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

  Reply Send(Event& e, const std::vector<std::string>& args) {
    e.client = config_.id;
    e.invoked_us = NowUs();
    Reply reply = client_.Call(args);
    e.answered_us = NowUs();
    return reply;
  }

  void Record(const Event& e) { out_ << Format(e) << '\n'; }

  static Event Error(Event e, const Reply& reply) {
    e.outcome = Outcome::kError;
    e.value = reply.ToString();
    return e;
  }

  // The fencing number of the lease it got, or 0.
  std::int64_t Acquire(int resource) {
    Event e;
    e.op = Op::kAcquire;
    e.resource = resource;
    e.ttl_ms = config_.ttl_ms;
    std::vector<std::string> args = {"LEASE.ACQUIRE", ResourceName(resource),
                                     "c" + std::to_string(config_.id),
                                     std::to_string(config_.ttl_ms)};
    const int limit = config_.limits[static_cast<std::size_t>(resource)];
    if (limit > 1) args.insert(args.end(), {"LIMIT", std::to_string(limit)});
    // Some wait in the server for the lease (parked, woken by a release or the expiry).
    if (Chance(0.3)) args.insert(args.end(), {"BLOCK", std::to_string(2 * config_.ttl_ms)});
    const Reply reply = Send(e, args);
    const Reply acquired = test::Field(reply, "acquired");
    if (acquired.type != Reply::Type::kInteger && acquired.type != Reply::Type::kBoolean) {
      Record(Error(e, reply));
      return 0;
    }
    if (acquired.integer == 0) {
      e.outcome = Outcome::kBusy;
      Record(e);
      return 0;
    }
    e.fencing = test::Field(reply, "fencing").integer;
    e.expires_at_ms = test::Field(reply, "expires_at_ms").integer;
    if (e.fencing <= 0 || e.expires_at_ms <= 0) {
      Record(Error(e, reply));
      return 0;
    }
    Record(e);
    token_ = test::Field(reply, "token").str;
    return e.fencing;
  }

  // Writes, waits (the parent may stop it here past its TTL), extends now and then; releases
  // most leases at the end and lets the rest lapse. Stops using a lease once told it lost it.
  void Hold(int resource, std::int64_t fencing) {
    const int steps = Uniform(1, 5);
    for (int step = 0; step < steps; ++step) {
      if (!Write(resource, fencing)) return;
      Sleep(Uniform(0, config_.ttl_ms / 3));
      if (Chance(0.5) && !OwnerOp(Op::kExtend, resource, fencing)) return;
    }
    if (Chance(0.85)) OwnerOp(Op::kRelease, resource, fencing);
  }

  // False once the write was refused (or failed).
  bool Write(int resource, std::int64_t fencing) {
    Event e;
    e.op = Op::kWrite;
    e.resource = resource;
    e.fencing = fencing;
    e.value = "c" + std::to_string(config_.id) + "-" + std::to_string(++writes_);
    const Reply reply = Send(e, {"LEASE.FENCEDSET", ResourceName(resource), std::to_string(fencing),
                                 DataKey(resource), e.value});
    if (reply.type == Reply::Type::kSimple && reply.str == "OK") {
      Record(e);
      return true;
    }
    // "STALEFENCE fencing number F for lease 'R' is stale: G has been issued since; …"
    const std::string marker = "is stale: ";
    const std::size_t at = reply.str.find(marker);
    if (reply.type == Reply::Type::kError && reply.str.rfind("STALEFENCE ", 0) == 0 &&
        at != std::string::npos) {
      e.outcome = Outcome::kStale;
      e.issued = std::strtoll(reply.str.c_str() + at + marker.size(), nullptr, 10);
      Record(e);
      return false;
    }
    Record(Error(e, reply));
    return false;
  }

  // LEASE.EXTEND or LEASE.RELEASE with the lease's token; false unless OK.
  bool OwnerOp(Op op, int resource, std::int64_t fencing) {
    Event e;
    e.op = op;
    e.resource = resource;
    e.fencing = fencing;
    std::vector<std::string> args = {op == Op::kExtend ? "LEASE.EXTEND" : "LEASE.RELEASE",
                                     ResourceName(resource), token_};
    if (op == Op::kExtend) {
      e.ttl_ms = config_.ttl_ms;
      args.push_back(std::to_string(config_.ttl_ms));
    }
    const Reply reply = Send(e, args);
    if (reply.type == Reply::Type::kSimple && reply.str == "OK") {
      Record(e);
      return true;
    }
    if (reply.type == Reply::Type::kError && reply.str.rfind("NOTOWNER ", 0) == 0) {
      e.outcome = Outcome::kNotOwner;
      Record(e);
      return false;
    }
    Record(Error(e, reply));
    return false;
  }

  const WorkerConfig& config_;
  RespClient& client_;
  std::ofstream& out_;
  std::mt19937_64 rng_;
  std::string token_;
  int writes_ = 0;
};

}  // namespace

std::string ResourceName(int resource) { return "lockcheck:r" + std::to_string(resource); }
std::string DataKey(int resource) { return "lockcheck:data" + std::to_string(resource); }

int RunWorker(const WorkerConfig& config) {
  std::string error;
  std::unique_ptr<RespClient> client = RespClient::Connect(config.port, &error);
  if (!client) {
    std::fprintf(stderr, "lockcheck client %d: cannot connect: %s\n", config.id, error.c_str());
    return 2;
  }
  // A reply may wait for a parked acquisition (BLOCK) or for a pause of this very process.
  client->set_timeout_ms(60'000);
  std::ofstream out(config.history_path);
  if (!out) {
    std::fprintf(stderr, "lockcheck client %d: cannot write %s\n", config.id,
                 config.history_path.c_str());
    return 2;
  }
  Worker(config, *client, out).Run();
  out.flush();
  return out ? 0 : 2;
}

}  // namespace cairn::lockcheck
