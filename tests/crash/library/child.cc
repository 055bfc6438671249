#include "crash/library/child.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

#include "cairn/fault_injection.h"
#include "cairn/idempotency.h"
#include "cairn/lease.h"
#include "cairn/options.h"
#include "cairn/queue.h"
#include "cairn/ratelimit.h"
#include "cairn/store.h"
#include "crash/library/protocol.h"

namespace cairn::crash::library {
namespace {

// One write(2) per line, so that lines of different threads never mix and a line is in the
// pipe before the call it announces starts.
void WriteLine(std::string line) {
  line += '\n';
  std::string_view rest = line;
  while (!rest.empty()) {
    const ssize_t n = ::write(STDOUT_FILENO, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(3);  // the parent is gone
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
}

// What every thread of the child shares: the store and the engines over it.
struct Engines {
  explicit Engines(Store& s) : store(s), leases(s), queue(s), idem(s), limiter(s) {}
  Store& store;
  LeaseManager leases;
  Queue queue;
  IdempotencyStore idem;
  RateLimiter limiter;
};

class Worker {
 public:
  Worker(Engines& e, int thread, int cycle, std::uint64_t seed)
      : e_(e),
        thread_(thread),
        cycle_(std::to_string(cycle)),
        id_ms_(static_cast<std::uint64_t>(cycle) + 1),
        rng_(seed) {}

  // Runs calls until one fails (after a power cut, every write does).
  void Run() {
    while (Step()) {
    }
  }

 private:
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  std::string Pick(char kind, int count) {
    return std::string(1, kind) + std::to_string(Uniform(0, count - 1));
  }
  std::string Key(const std::string& name) const { return KeyOf(thread_, name); }
  // Unique within the thread over all cycles.
  std::string Fresh(char kind) const { return kind + cycle_ + "." + std::to_string(seq_); }

  void Begin(const std::string& words) {
    ++seq_;
    WriteLine("b " + std::to_string(thread_) + " " + std::to_string(seq_) + " " + words);
  }
  bool Ack(const std::string& words = "") {
    WriteLine("a " + std::to_string(thread_) + " " + std::to_string(seq_) +
              (words.empty() ? "" : " " + words));
    return true;
  }
  bool Failed(const Status& status) {
    std::string text = status.ToString().substr(0, 1000);
    for (char& c : text) c = c == '\n' ? ' ' : c;
    WriteLine("e " + std::to_string(thread_) + " " + std::to_string(seq_) + " " + text);
    return false;
  }

  bool Step() {
    const int w = Uniform(0, 99);
    if (w < 12) return Set();
    if (w < 16) return Del();
    if (w < 24) return Txn();
    if (w < 30) return HashSet();
    if (w < 33) return HashDel();
    if (w < 37) return SetAdd(true);
    if (w < 39) return SetAdd(false);
    if (w < 43) return Push();
    if (w < 47) return Pop();
    if (w < 52) return ZSetAdd();
    if (w < 54) return ZSetRemove();
    if (w < 58) return StreamAdd();
    if (w < 59) return StreamTrim();
    if (w < 63) return Take();
    if (w < 64) return ResetBucket();
    if (w < 69) return Acquire();
    if (w < 72) return leases_.empty() ? Acquire() : Release();
    // More claims and acks than enqueues, so that the backlog (and the model) stays small.
    if (w < 76) return Enqueue();
    if (w < 82) return Claim();
    if (w < 88) return jobs_.empty() ? Claim() : AckJob();
    if (w < 94) return IdemClaim();
    return claims_.empty() ? IdemClaim() : IdemComplete();
  }

  bool Set() {
    const std::string s = Pick('s', kStrings), v = Fresh('v');
    Begin("set " + s + " " + v);
    auto r = e_.store.Set(Key(s), v);
    return r.ok() ? Ack() : Failed(r.status());
  }
  bool Del() {
    const std::string s = Pick('s', kStrings);
    Begin("del " + s);
    auto r = e_.store.Delete(Key(s));
    return r.ok() ? Ack(*r ? "1" : "0") : Failed(r.status());
  }
  bool Txn() {
    const std::string p = Pick('p', kPairs);
    const bool erase = Uniform(0, 3) == 0;
    const std::string token = erase ? "-" : Fresh('t');
    Begin("txn " + p + " " + token);
    const Status s = e_.store.RunTransaction([&](Transaction& txn) -> Status {
      for (char which : {'a', 'b'}) {
        const std::string key = PairKey(thread_, p, which);
        if (erase) {
          auto r = txn.Delete(key);
          if (!r.ok()) return r.status();
        } else {
          auto r = txn.Set(key, token);
          if (!r.ok()) return r.status();
        }
      }
      return Status::Ok();
    });
    return s.ok() ? Ack() : Failed(s);
  }
  bool HashSet() {
    const std::string h = Pick('h', kHashes), f = Pick('f', kFields), v = Fresh('v');
    Begin("hset " + h + " " + f + " " + v);
    const HashField fields[] = {{f, v}};
    auto r = e_.store.HashSet(Key(h), fields);
    return r.ok() ? Ack(std::to_string(*r)) : Failed(r.status());
  }
  bool HashDel() {
    const std::string h = Pick('h', kHashes), f = Pick('f', kFields);
    Begin("hdel " + h + " " + f);
    const std::string_view fields[] = {f};
    auto r = e_.store.HashDelete(Key(h), fields);
    return r.ok() ? Ack(std::to_string(*r)) : Failed(r.status());
  }
  bool SetAdd(bool add) {
    const std::string s = Pick('S', kSets), m = Pick('m', kMembers);
    Begin((add ? "sadd " : "srem ") + s + " " + m);
    const std::string_view members[] = {m};
    auto r = add ? e_.store.SetAdd(Key(s), members) : e_.store.SetRemove(Key(s), members);
    return r.ok() ? Ack(std::to_string(*r)) : Failed(r.status());
  }
  bool Push() {
    const std::string l = Pick('l', kLists), v = Fresh('v');
    Begin("push " + l + " " + v);
    const std::string_view values[] = {v};
    auto r = e_.store.ListPush(Key(l), values, ListEnd::kTail, /*only_if_exists=*/false);
    return r.ok() ? Ack(std::to_string(*r)) : Failed(r.status());
  }
  bool Pop() {
    const std::string l = Pick('l', kLists);
    Begin("pop " + l);
    auto r = e_.store.ListPop(Key(l), ListEnd::kHead, 1);
    if (!r.ok()) return Failed(r.status());
    return Ack(r->has_value() && !(*r)->empty() ? (*r)->front() : "-");
  }
  bool ZSetAdd() {
    const std::string z = Pick('z', kZSets), m = Pick('m', kMembers);
    const double score = Uniform(-400, 400) / 4.0;
    Begin("zadd " + z + " " + m + " " + ScoreText(score));
    const ZSetEntry entries[] = {{m, score}};
    auto r = e_.store.ZSetPut(Key(z), entries);
    return r.ok() ? Ack(std::to_string(*r)) : Failed(r.status());
  }
  bool ZSetRemove() {
    const std::string z = Pick('z', kZSets), m = Pick('m', kMembers);
    Begin("zrem " + z + " " + m);
    const std::string_view members[] = {m};
    auto r = e_.store.ZSetRemove(Key(z), members);
    return r.ok() ? Ack(std::to_string(*r)) : Failed(r.status());
  }
  bool StreamAdd() {
    const std::string x = Pick('x', kStreams), v = Fresh('v');
    StreamAddOptions options;
    options.id_mode = StreamAddOptions::IdMode::kExplicit;
    options.id = {id_ms_, seq_ + 1};  // the call's own sequence number (Begin increments it)
    Begin("xadd " + x + " " + IdText(options.id.ms, options.id.seq) + " " + v);
    const HashField fields[] = {{"f", v}};
    auto r = e_.store.StreamAdd(Key(x), fields, options);
    if (!r.ok()) return Failed(r.status());
    if (r->outcome != StreamAddOutcome::kAdded) {
      return Ack("outcome" + std::to_string(static_cast<int>(r->outcome)));
    }
    return Ack(IdText(r->id.ms, r->id.seq));
  }
  bool StreamTrim() {
    const std::string x = Pick('x', kStreams);
    StreamTrimRule rule;
    rule.by = StreamTrimRule::By::kMaxLength;
    rule.max_length = static_cast<std::uint64_t>(Uniform(1, 3));
    Begin("xtrim " + x + " " + std::to_string(rule.max_length));
    auto r = e_.store.StreamTrim(Key(x), rule);
    return r.ok() ? Ack(std::to_string(*r)) : Failed(r.status());
  }
  bool Take() {
    const std::string b = Pick('b', kBuckets);
    const int cost = Uniform(1, static_cast<int>(kMaxTakeCost));
    Begin("take " + b + " " + std::to_string(cost));
    const Limit limit = Limit::TokenBucket(kBucketCapacity, 1, kBucketRefillMs);
    auto r = e_.limiter.Take(Key(b), limit, cost);
    if (!r.ok()) return Failed(r.status());
    return Ack((r->allowed ? "allowed " : "refused ") + std::to_string(r->remaining));
  }
  bool ResetBucket() {
    const std::string b = Pick('b', kBuckets);
    Begin("reset " + b);
    auto r = e_.limiter.Reset(Key(b));
    return r.ok() ? Ack(*r ? "1" : "0") : Failed(r.status());
  }
  bool Acquire() {
    const std::string res = Pick('r', kLeases);
    Begin("acquire " + res);
    auto r = e_.leases.TryAcquire(Key(res), Prefix(thread_), kLeaseTtlMs);
    if (!r.ok()) return Failed(r.status());
    const Lease* lease = std::get_if<Lease>(&*r);
    if (lease == nullptr) return Ack("busy");
    leases_[res] = lease->token;
    return Ack(std::to_string(lease->fencing));
  }
  bool Release() {
    auto it = leases_.begin();
    std::advance(it, Uniform(0, static_cast<int>(leases_.size()) - 1));
    const std::string res = it->first, token = it->second;
    leases_.erase(it);
    Begin("release " + res);
    auto r = e_.leases.Release(Key(res), token);
    if (!r.ok()) return Failed(r.status());
    return Ack(*r == OwnerResult::kDone ? "done" : "notowner");
  }
  bool Enqueue() {
    const std::string job = Fresh('j');
    Begin("enqueue " + job);
    EnqueueOptions options;
    options.job_id = job;
    // A killed claimer's job is simply due again: never dead-lettered, no backoff to wait out.
    options.max_attempts = kMaxJobAttempts;
    options.backoff = Backoff::Fixed(0);
    auto r = e_.queue.Enqueue(QueueOf(thread_), PayloadOf(job), options);
    if (!r.ok()) return Failed(r.status());
    return Ack(r->created ? "created" : "duplicate");
  }
  bool Claim() {
    Begin("claim");
    ClaimOptions options;
    options.visibility_ms = kVisibilityMs;
    auto r = e_.queue.Claim(QueueOf(thread_), kGroup, Prefix(thread_), options);
    if (!r.ok()) return Failed(r.status());
    if (r->empty()) return Ack("none");
    const ClaimedJob& job = r->front();
    jobs_.push_back(job.ref);
    return Ack(job.ref.job_id + " " + std::to_string(job.attempt) + " " + job.payload);
  }
  bool AckJob() {
    const std::size_t i = static_cast<std::size_t>(Uniform(0, static_cast<int>(jobs_.size()) - 1));
    const JobRef ref = jobs_[i];
    jobs_.erase(jobs_.begin() + static_cast<std::ptrdiff_t>(i));
    Begin("ack " + ref.job_id);
    auto r = e_.queue.Ack(ref);
    if (!r.ok()) return Failed(r.status());
    return Ack(*r == OwnerResult::kDone ? "done" : "notowner");
  }
  bool IdemClaim() {
    // A new record, or again one of this cycle's: then the stored outcome must come back.
    const bool again = !records_.empty() && Uniform(0, 9) < 4;
    const std::string name =
        again
            ? records_[static_cast<std::size_t>(Uniform(0, static_cast<int>(records_.size()) - 1))]
            : Fresh('i');
    if (!again) records_.push_back(name);
    Begin("iclaim " + name);
    auto key = IdempotencyKey::Make(kIdemNamespace, "1", Key(name));
    if (!key.ok()) return Failed(key.status());
    auto r = e_.idem.Claim(*key, Fingerprint::OfBytes(name), kIdemLockMs);
    if (!r.ok()) return Failed(r.status());
    if (const auto* claimed = std::get_if<Claimed>(&*r)) {
      claims_[name] = claimed->claim_id;
      return Ack("claimed");
    }
    if (const auto* done = std::get_if<Completed>(&*r))
      return Ack("completed " + done->outcome.body);
    return Ack(std::holds_alternative<InProgress>(*r) ? "inprogress" : "mismatch");
  }
  bool IdemComplete() {
    auto it = claims_.begin();
    std::advance(it, Uniform(0, static_cast<int>(claims_.size()) - 1));
    const std::string name = it->first, claim_id = it->second;
    claims_.erase(it);
    const std::string body = Fresh('o');
    Begin("icomplete " + name + " " + body);
    auto key = IdempotencyKey::Make(kIdemNamespace, "1", Key(name));
    if (!key.ok()) return Failed(key.status());
    Outcome outcome;
    outcome.status_code = 200;
    outcome.body = body;
    auto r = e_.idem.Complete(*key, claim_id, outcome, kIdemResultTtlMs);
    if (!r.ok()) return Failed(r.status());
    return Ack(*r == OwnerResult::kDone ? "done" : "notowner");
  }

  Engines& e_;
  const int thread_;
  const std::string cycle_;
  const std::uint64_t id_ms_;  // the ms part of the stream ids it adds
  std::mt19937_64 rng_;
  std::uint32_t seq_ = 0;
  std::map<std::string, std::string> leases_;  // resource → token of the lease it holds
  std::vector<JobRef> jobs_;                   // jobs it claimed and has not acked
  std::map<std::string, std::string> claims_;  // idempotency record → claim id it holds
  std::vector<std::string> records_;           // idempotency records of this cycle
};

// Waits for the parent's word on stdin: "c" cuts the power; end of file (the parent died)
// ends the child too.
[[noreturn]] void AwaitPowerCut(FaultInjection& faults) {
  for (;;) {
    char c = 0;
    const ssize_t n = ::read(STDIN_FILENO, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n == 1 && c != 'c') continue;
    if (n != 1) ::_exit(3);
    faults.CutPower();
    // The power stays off until the process is gone, so no thread still running can make
    // anything durable, and a call that returns OK now had made its write durable before.
    const Status dropped = faults.DropUnsyncedData(/*power_back_on=*/false);
    if (!dropped.ok()) std::fprintf(stderr, "child: power cut: %s\n", dropped.ToString().c_str());
    ::_exit(dropped.ok() ? kPowerCutExit : 1);
  }
}

bool ToNumber(const char* text, std::uint64_t* out) {
  const std::string_view s(text);
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

}  // namespace

bool ParseChildArgs(int argc, char** argv, ChildArgs* args) {
  for (int i = 0; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    std::uint64_t n = 0;
    if (flag == "--dir") {
      args->dir = argv[i + 1];
    } else if (flag == "--durability") {
      args->durability = argv[i + 1];
    } else if (!ToNumber(argv[i + 1], &n)) {
      return false;
    } else if (flag == "--seed") {
      args->seed = n;
    } else if (flag == "--cycle") {
      args->cycle = static_cast<int>(n);
    } else if (flag == "--threads") {
      args->threads = static_cast<int>(n);
    } else {
      return false;
    }
  }
  return argc % 2 == 0 && !args->dir.empty() && args->threads > 0;
}

int RunChild(const ChildArgs& args) {
  auto durability = ParseDurability(args.durability);
  if (!durability.ok()) {
    std::fprintf(stderr, "child: %s\n", durability.status().ToString().c_str());
    return kChildCannotOpen;
  }
  Options options;
  options.data_dir = args.dir;
  options.durability = *durability;
  options.min_free_disk_bytes = 0;  // a crash test, not a disk-space test
  options.fault_injection = FaultInjection::Create();
  auto opened = Store::Open(options);
  if (!opened.ok()) {
    std::fprintf(stderr, "child: Store::Open: %s\n", opened.status().ToString().c_str());
    return kChildCannotOpen;
  }
  // Never destroyed: the child ends by SIGKILL or _exit only.
  Store* store = opened->release();
  auto* engines = new Engines(*store);
  for (int t = 0; t < args.threads; ++t) {
    // A group that sees every job, created again if a power cut took it.
    auto created = engines->queue.CreateGroup(QueueOf(t), kGroup, GroupStart::kAllJobs);
    if (!created.ok()) {
      std::fprintf(stderr, "child: CreateGroup: %s\n", created.status().ToString().c_str());
      return kChildCannotOpen;
    }
  }
  std::thread([faults = options.fault_injection] { AwaitPowerCut(*faults); }).detach();
  WriteLine("ready");
  std::vector<std::thread> threads;
  for (int t = 0; t < args.threads; ++t) {
    const std::uint64_t seed = args.seed * 1000003ULL + static_cast<std::uint64_t>(t);
    threads.emplace_back([=] { Worker(*engines, t, args.cycle, seed).Run(); });
  }
  for (std::thread& t : threads) t.join();
  // Every thread stopped on a failed call (reported): wait for the parent's kill.
  for (;;) ::pause();
}

}  // namespace cairn::crash::library
