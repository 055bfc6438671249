// One client thread of the crash harness: runs random ops on the entities it owns over its one
// connection, one at a time, and records each outcome in its ThreadModel:
//   acknowledged — the reply came and is not an error: the model takes the new state;
//   failed       — an error reply the op may legitimately get (NOTOWNER of a lapsed lease):
//                  nothing changed;
//   unknown      — the connection broke before the reply (the server was killed), or the reply
//                  was -MISCONF or the store's IO error: the model keeps the old and the new
//                  state; the driver stops.
// Along the way it checks what replies reveal against the model (INCRBY's result, the element
// LPOP returns, a stored idempotency outcome, a fencing number, the job a claim delivers).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "crash/findings.h"
#include "crash/model.h"
#include "crash/replies.h"
#include "server/support/resp_client.h"

namespace cairn::crash {

class Driver {
 public:
  struct Stats {
    std::uint64_t acked = 0;
    std::uint64_t failed = 0;
    std::uint64_t unknown = 0;
  };

  Driver(test::RespClient& client, ThreadModel& model, std::atomic<std::int64_t>& max_fencing,
         Findings& findings, std::uint64_t seed);

  // Runs one random op. False once the outcome of an op is unknown: the driver must stop.
  bool Step();

  const Stats& stats() const { return stats_; }
  // The op whose outcome is unknown, and why ("connection lost", "MISCONF …").
  const std::string& unknown_op() const { return unknown_op_; }
  const std::string& unknown_reason() const { return unknown_reason_; }

 private:
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  Entity& Pick(Kind kind);
  std::string UniqueValue(const Entity& e) {
    return e.key + "@" + std::to_string(model_.UniqueNumber());
  }

  // Sends an op's commands (pipelined) and reads their replies. When the outcome is unknown,
  // records it (on `e`, which would then hold `next`, if given) and returns nullopt.
  std::optional<std::vector<Reply>> Run(Entity* e, const State* next,
                                        const std::vector<Args>& commands);
  // Acknowledged: `e` now holds `next`.
  void Acked(Entity& e, State next);
  // A reply the model does not allow.
  void Unexpected(const std::string& what, const std::string& key, const std::string& expected,
                  const std::string& found);

  void SetString();
  void DelString(Kind kind);
  void IncrBy();
  void HashSet();
  void HashDel();
  void ListPush();
  void ListPop();
  void SetAdd(bool add);
  void ZSetAdd(bool add);
  void StreamAdd();
  void MultiPair();
  void ScriptPair();
  void Lease();
  void QueueAdd();
  void QueueClaim();
  void QueueAck();
  void Idempotency();
  void RateLimit();

  test::RespClient& client_;
  ThreadModel& model_;
  std::atomic<std::int64_t>& max_fencing_;
  Findings& findings_;
  std::mt19937_64 rng_;
  std::map<Kind, std::vector<std::size_t>> by_kind_;  // indices into model_.entities()
  Stats stats_;
  std::string unknown_op_;
  std::string unknown_reason_;
};

}  // namespace cairn::crash
