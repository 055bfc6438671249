// The expected state of everything the crash harness writes: per server mode (each has its own
// data directory, which outlives its cycles), per client thread (each owns the keys under
// "c<thread>:", so its history is sequential), per entity (a key, a pair of keys written
// together, an idempotency record, a queue job).
//
// An entity holds the state its acknowledged ops left. While the outcome of an op is unknown
// (it was in flight when the server died, or was answered -MISCONF) it also holds the state
// that op would leave: both are acceptable until a restart shows which one it was. For the
// checks after a power cut, each entity keeps its states since the last verification, numbered
// by the thread's op sequence and stamped with when their replies came: under `everysec` and
// `none`, what survives must be one prefix of the thread's ops; under `always`, everything
// acknowledged before the POWERCUT was sent.
//
// Bounded: a fixed set of keys per thread, lists and streams capped, finished jobs forgotten
// once a restart showed them finished, histories cleared at every verification.
#pragma once

#include <atomic>
#include <climits>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "crash/options.h"

namespace cairn::crash {

enum class Kind {
  kString,   // SET unique values, DEL
  kCounter,  // INCRBY, DEL
  kHash,     // HSET, HDEL
  kList,     // RPUSH unique values, LPOP
  kSet,      // SADD, SREM
  kZSet,     // ZADD, ZREM
  kStream,   // XADD with explicit increasing ids, MAXLEN
  kPair,     // MULTI/EXEC setting two keys to one token
  kScript,   // EVAL: INCR a counter and copy it to a second key
  kIdem,     // IDEM.CLAIM/COMPLETE/FAIL/DEL
  kJob,      // QUEUE.ADD/CLAIM/ACK of one job
  kRate,     // RATE.TAKE with a cost, RATE.RESET, on a token bucket (kRateBucket)
};

// The rate limit the harness takes from: a bucket of a million tokens that refills one a day,
// so that within a run the tokens used are exactly what the acknowledged takes cost (RATE.*
// takes the limit with every call).
inline constexpr std::int64_t kRateCapacity = 1'000'000;
inline const std::vector<std::string> kRateBucket = {"BUCKET", "1000000", "1", "86400000"};

const char* KindName(Kind kind);

struct State {
  // String, counter: the value. Pair, script: the first key. Idempotency record: "none",
  // "in_progress|<claim id>", "released|<claim id>", "completed|<status>|<response>",
  // "failed|<reason>".
  // Job: "absent", "live" (added, not finished by the group) or "done".
  // Rate limit: the tokens used, in decimal.
  std::optional<std::string> a;
  // Pair, script: the second key. Idempotency record: the fingerprint argument of its claim
  // (the model's own bookkeeping, not compared: the server shows only its digest).
  std::optional<std::string> b;
  std::map<std::string, std::string> fields;  // hash: field → value; set: member; zset: → score
  std::deque<std::pair<std::string, std::string>> items;  // list: (value, ""); stream: (id, value)
  std::string unexpected;  // a read-back reply of an unexpected shape, shown as found
};

// The canonical text of a state: what is compared between the model and the server, and shown
// in reports.
std::string Canonical(Kind kind, const State& state);
// An expected canonical text ending in "|*" (a claim whose reply never came) matches any text
// with the part before the '*'.
bool Matches(const std::string& expected, const std::string& found);
bool IsWildcard(const std::string& expected);

// Steady-clock nanoseconds, for when acknowledgements arrived relative to a kill.
std::int64_t SteadyNs();
// HistoryPoint::acked_ns of an op whose outcome is unknown; a cut before which every
// acknowledgement counts (a process crash, a clean stop).
constexpr std::int64_t kNeverAcked = INT64_MAX;
constexpr std::int64_t kNoCut = INT64_MAX - 1;

struct HistoryPoint {
  std::uint32_t seq;  // the state after the thread's op number `seq` (0: the verified state)
  State state;
  std::int64_t acked_ns;  // when its reply came (SteadyNs); 0 for the verified state
};

struct Entity {
  Kind kind = Kind::kString;
  std::string key;
  std::string key2;  // pair, script: the second key
  State state;
  std::optional<State> pending;  // the state if the op of unknown outcome happened
  std::vector<HistoryPoint> history;
  std::uint64_t counter = 0;  // for unique values, stream ids, fingerprints
  // Jobs: the claim token this client holds ("" if none is known) and the instant before
  // which the job is not claimable (its lease deadline; 0: claimable now).
  std::string token;
  std::int64_t busy_until_ms = 0;
  std::int64_t claim_acked_ns = 0;  // when the claim's reply came
};

struct LeaseSlot {
  std::string resource;
  std::int64_t max_fencing = 0;       // the highest fencing number acknowledged for it
  std::int64_t verified_fencing = 0;  // … that the last verification required
  // Acquisitions acknowledged since the last verification: fencing number, SteadyNs of the reply.
  std::vector<std::pair<std::int64_t, std::int64_t>> acks;
  std::string token;  // the holder token of the last acquisition ("" if none)
  std::int64_t expires_at_ms = 0;
};

class ThreadModel {
 public:
  explicit ThreadModel(int index);

  int index() const { return index_; }
  const std::string& prefix() const { return prefix_; }
  const std::string& queue() const { return queue_; }

  std::vector<Entity>& entities() { return entities_; }
  std::map<std::uint64_t, Entity>& jobs() { return jobs_; }
  std::vector<LeaseSlot>& leases() { return leases_; }

  // A new job entity, "absent" until its QUEUE.ADD is acknowledged.
  Entity& NewJob();
  std::uint64_t UniqueNumber() { return ++unique_; }
  // This thread's ops that changed (or may have changed) a state since the last verification.
  std::uint32_t seq() const { return seq_; }

  // An op on `e` was acknowledged and left `next`.
  void Apply(Entity& e, State next);
  // An op on `e` was in flight (or answered -MISCONF): it may have left `next`.
  void Unknown(Entity& e, State next);

  // After a verification resolved every entity: the states are the new baseline, histories
  // start over, finished and never-added jobs are forgotten.
  void Checkpoint();

  template <typename F>
  void ForEachEntity(F&& f) {
    for (Entity& e : entities_) f(e);
    for (auto& [n, job] : jobs_) f(job);
  }

 private:
  int index_;
  std::string prefix_;
  std::string queue_;
  std::vector<Entity> entities_;
  std::map<std::uint64_t, Entity> jobs_;
  std::vector<LeaseSlot> leases_;
  std::uint64_t next_job_ = 1;
  std::uint64_t unique_ = 0;
  std::uint32_t seq_ = 0;
};

struct ModeModel {
  ModeModel(Mode m, std::string data_dir, std::string log_path, int clients);

  Mode mode;
  std::string dir;  // the data directory, kept across this mode's cycles
  std::string log;  // the servers' stderr
  std::vector<ThreadModel> threads;
  // The highest lease fencing number acknowledged so far in this mode, over all clients: each
  // new acquisition must be above what was acknowledged before it was sent.
  std::atomic<std::int64_t> max_fencing{0};
  int cycles = 0;
};

}  // namespace cairn::crash
