#include "crash/driver.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace cairn::crash {
namespace {

using Type = Reply::Type;

// Lists and streams stay this short; a thread keeps at most this many unfinished jobs.
constexpr std::size_t kListCap = 24;
constexpr int kStreamMaxLen = 16;
constexpr int kLiveJobCap = 24;
// Deadlines (queue leases) within this of now count as neither surely held nor surely lapsed:
// the server's instant of judging them differs a little from the client's.
constexpr std::int64_t kMarginMs = 1000;

constexpr const char* kScript =
    "local n = redis.call('INCR', KEYS[1]) redis.call('SET', KEYS[2], n) return n";

std::int64_t ToInt(const std::optional<std::string>& v) {
  return v ? std::strtoll(v->c_str(), nullptr, 10) : 0;
}

enum class Op {
  kSet,
  kDel,
  kIncrBy,
  kDelCounter,
  kHSet,
  kHDel,
  kRPush,
  kLPop,
  kSAdd,
  kSRem,
  kZAdd,
  kZRem,
  kXAdd,
  kMulti,
  kEval,
  kLease,
  kQueueAdd,
  kQueueClaim,
  kQueueAck,
  kIdem,
  kRate,
};

constexpr struct {
  Op op;
  int weight;
} kMix[] = {
    {Op::kSet, 10},     {Op::kDel, 3},        {Op::kIncrBy, 6},   {Op::kDelCounter, 1},
    {Op::kHSet, 6},     {Op::kHDel, 2},       {Op::kRPush, 6},    {Op::kLPop, 3},
    {Op::kSAdd, 4},     {Op::kSRem, 2},       {Op::kZAdd, 4},     {Op::kZRem, 2},
    {Op::kXAdd, 5},     {Op::kMulti, 6},      {Op::kEval, 6},     {Op::kLease, 6},
    {Op::kQueueAdd, 6}, {Op::kQueueClaim, 5}, {Op::kQueueAck, 5}, {Op::kIdem, 12},
    {Op::kRate, 6},
};

}  // namespace

Driver::Driver(test::RespClient& client, ThreadModel& model, std::atomic<std::int64_t>& max_fencing,
               Findings& findings, std::uint64_t seed)
    : client_(client), model_(model), max_fencing_(max_fencing), findings_(findings), rng_(seed) {
  for (std::size_t i = 0; i < model_.entities().size(); ++i) {
    by_kind_[model_.entities()[i].kind].push_back(i);
  }
}

bool Driver::Step() {
  int total = 0;
  for (const auto& m : kMix) total += m.weight;
  int r = Uniform(0, total - 1);
  Op op = Op::kSet;
  for (const auto& m : kMix) {
    if (r < m.weight) {
      op = m.op;
      break;
    }
    r -= m.weight;
  }
  switch (op) {
    case Op::kSet:
      SetString();
      break;
    case Op::kDel:
      DelString(Kind::kString);
      break;
    case Op::kIncrBy:
      IncrBy();
      break;
    case Op::kDelCounter:
      DelString(Kind::kCounter);
      break;
    case Op::kHSet:
      HashSet();
      break;
    case Op::kHDel:
      HashDel();
      break;
    case Op::kRPush:
      ListPush();
      break;
    case Op::kLPop:
      ListPop();
      break;
    case Op::kSAdd:
      SetAdd(true);
      break;
    case Op::kSRem:
      SetAdd(false);
      break;
    case Op::kZAdd:
      ZSetAdd(true);
      break;
    case Op::kZRem:
      ZSetAdd(false);
      break;
    case Op::kXAdd:
      StreamAdd();
      break;
    case Op::kMulti:
      MultiPair();
      break;
    case Op::kEval:
      ScriptPair();
      break;
    case Op::kLease:
      Lease();
      break;
    case Op::kQueueAdd:
      QueueAdd();
      break;
    case Op::kQueueClaim:
      QueueClaim();
      break;
    case Op::kQueueAck:
      QueueAck();
      break;
    case Op::kIdem:
      Idempotency();
      break;
    case Op::kRate:
      RateLimit();
      break;
  }
  return unknown_op_.empty();
}

Entity& Driver::Pick(Kind kind) {
  const std::vector<std::size_t>& ids = by_kind_.at(kind);
  return model_.entities()[ids[static_cast<std::size_t>(Uniform(0, int(ids.size()) - 1))]];
}

std::optional<std::vector<Reply>> Driver::Run(Entity* e, const State* next,
                                              const std::vector<Args>& commands) {
  std::string bytes;
  for (const Args& c : commands) bytes += test::RespClient::Encode(c);
  std::vector<Reply> replies;
  std::string reason;
  if (!client_.Send(bytes)) reason = "connection lost";
  while (reason.empty() && replies.size() < commands.size()) {
    std::optional<Reply> r = client_.Read();
    if (!r) {
      reason = "connection lost";
      break;
    }
    replies.push_back(std::move(*r));
  }
  for (const Reply& r : replies) {
    // The storage failed under the command (a power cut that is under way, a full disk): its
    // write's outcome is unknown, whether the server said MISCONF or passed on the store's
    // IO error from a commit that raced the store's health flag.
    const bool storage_error =
        r.type == Reply::Type::kError && r.str.find("IO error") != std::string::npos;
    if (IsErrorKind(r, "MISCONF") || storage_error) reason = "-" + r.str;
  }
  if (reason.empty()) return replies;
  if (e != nullptr && next != nullptr) model_.Unknown(*e, *next);
  ++stats_.unknown;
  for (const Args& c : commands) unknown_op_ += (unknown_op_.empty() ? "" : "; ") + Brief(c);
  unknown_reason_ = reason;
  return std::nullopt;
}

void Driver::Acked(Entity& e, State next) {
  model_.Apply(e, std::move(next));
  ++stats_.acked;
}

void Driver::Unexpected(const std::string& what, const std::string& key,
                        const std::string& expected, const std::string& found) {
  findings_.Add({what, key, expected, found});
}

void Driver::SetString() {
  Entity& e = Pick(Kind::kString);
  State next = e.state;
  next.a = UniqueValue(e);
  const auto r = Run(&e, &next, {{"SET", e.key, *next.a}});
  if (!r) return;
  if (!IsOk(r->at(0))) {
    ++stats_.failed;
    return Unexpected("SET failed", e.key, "OK", Brief(r->at(0)));
  }
  Acked(e, std::move(next));
}

void Driver::DelString(Kind kind) {
  Entity& e = Pick(kind);
  State next = e.state;
  next.a.reset();
  const auto r = Run(&e, &next, {{"DEL", e.key}});
  if (!r) return;
  const Reply& reply = r->at(0);
  if (reply.type != Type::kInteger) {
    ++stats_.failed;
    return Unexpected("DEL failed", e.key, "an integer", Brief(reply));
  }
  if (reply.integer != (e.state.a ? 1 : 0)) {
    Unexpected("DEL's count contradicts the model", e.key + " (" + KindName(kind) + ")",
               std::string(e.state.a ? "1" : "0") + ", the value being " + Canonical(kind, e.state),
               Brief(reply));
  }
  Acked(e, std::move(next));
}

void Driver::IncrBy() {
  Entity& e = Pick(Kind::kCounter);
  const std::int64_t old = ToInt(e.state.a);
  const int delta = Uniform(-50, 100);
  State next = e.state;
  next.a = std::to_string(old + delta);
  const auto r = Run(&e, &next, {{"INCRBY", e.key, std::to_string(delta)}});
  if (!r) return;
  const Reply& reply = r->at(0);
  if (reply.type != Type::kInteger) {
    ++stats_.failed;
    return Unexpected("INCRBY failed", e.key, "an integer", Brief(reply));
  }
  if (reply.integer != old + delta) {
    Unexpected(
        "INCRBY's result contradicts the model", e.key + " (counter)",
        *next.a + " (" + Canonical(Kind::kCounter, e.state) + " + " + std::to_string(delta) + ")",
        Brief(reply));
  }
  Acked(e, std::move(next));
}

void Driver::HashSet() {
  Entity& e = Pick(Kind::kHash);
  const std::string field = "f" + std::to_string(Uniform(0, 9));
  State next = e.state;
  next.fields[field] = UniqueValue(e);
  const auto r = Run(&e, &next, {{"HSET", e.key, field, next.fields[field]}});
  if (!r) return;
  const Reply& reply = r->at(0);
  const std::int64_t want = e.state.fields.count(field) != 0 ? 0 : 1;
  if (reply.type != Type::kInteger) {
    ++stats_.failed;
    return Unexpected("HSET failed", e.key, "an integer", Brief(reply));
  }
  if (reply.integer != want) {
    Unexpected("HSET's count of new fields contradicts the model", e.key + " (hash)",
               std::to_string(want) + " for " + field + ", the hash being " +
                   Canonical(Kind::kHash, e.state),
               Brief(reply));
  }
  Acked(e, std::move(next));
}

void Driver::HashDel() {
  Entity& e = Pick(Kind::kHash);
  const std::string field = "f" + std::to_string(Uniform(0, 9));
  State next = e.state;
  next.fields.erase(field);
  const auto r = Run(&e, &next, {{"HDEL", e.key, field}});
  if (!r) return;
  const Reply& reply = r->at(0);
  const std::int64_t want = e.state.fields.count(field) != 0 ? 1 : 0;
  if (reply.type != Type::kInteger) {
    ++stats_.failed;
    return Unexpected("HDEL failed", e.key, "an integer", Brief(reply));
  }
  if (reply.integer != want) {
    Unexpected("HDEL's count contradicts the model", e.key + " (hash)",
               std::to_string(want) + " for " + field + ", the hash being " +
                   Canonical(Kind::kHash, e.state),
               Brief(reply));
  }
  Acked(e, std::move(next));
}

void Driver::ListPush() {
  Entity& e = Pick(Kind::kList);
  if (e.state.items.size() >= kListCap) return ListPop();
  State next = e.state;
  next.items.emplace_back(UniqueValue(e), "");
  const auto r = Run(&e, &next, {{"RPUSH", e.key, next.items.back().first}});
  if (!r) return;
  const Reply& reply = r->at(0);
  if (reply.type != Type::kInteger) {
    ++stats_.failed;
    return Unexpected("RPUSH failed", e.key, "an integer", Brief(reply));
  }
  if (reply.integer != static_cast<std::int64_t>(next.items.size())) {
    Unexpected(
        "RPUSH's length contradicts the model", e.key + " (list)",
        std::to_string(next.items.size()) + ", the list being " + Canonical(Kind::kList, e.state),
        Brief(reply));
  }
  Acked(e, std::move(next));
}

void Driver::ListPop() {
  Entity& e = Pick(Kind::kList);
  State next = e.state;
  if (!next.items.empty()) next.items.pop_front();
  const auto r = Run(&e, &next, {{"LPOP", e.key}});
  if (!r) return;
  const Reply& reply = r->at(0);
  if (IsError(reply)) {
    ++stats_.failed;
    return Unexpected("LPOP failed", e.key, "an element or nil", Brief(reply));
  }
  const bool right = e.state.items.empty()
                         ? reply.IsNil()
                         : reply.type == Type::kBulk && reply.str == e.state.items.front().first;
  if (!right) {
    Unexpected("LPOP's element contradicts the model", e.key + " (list)",
               e.state.items.empty() ? "nil" : "\"" + e.state.items.front().first + "\"",
               Brief(reply));
  }
  Acked(e, std::move(next));
}

void Driver::SetAdd(bool add) {
  Entity& e = Pick(Kind::kSet);
  const std::string member = "m" + std::to_string(Uniform(0, 15));
  const bool had = e.state.fields.count(member) != 0;
  State next = e.state;
  if (add) {
    next.fields[member] = "";
  } else {
    next.fields.erase(member);
  }
  const auto r = Run(&e, &next, {{add ? "SADD" : "SREM", e.key, member}});
  if (!r) return;
  const Reply& reply = r->at(0);
  const std::int64_t want = add != had ? 1 : 0;
  if (reply.type != Type::kInteger) {
    ++stats_.failed;
    return Unexpected(std::string(add ? "SADD" : "SREM") + " failed", e.key, "an integer",
                      Brief(reply));
  }
  if (reply.integer != want) {
    Unexpected(std::string(add ? "SADD" : "SREM") + "'s count contradicts the model",
               e.key + " (set)",
               std::to_string(want) + " for " + member + ", the set being " +
                   Canonical(Kind::kSet, e.state),
               Brief(reply));
  }
  Acked(e, std::move(next));
}

void Driver::ZSetAdd(bool add) {
  Entity& e = Pick(Kind::kZSet);
  const std::string member = "m" + std::to_string(Uniform(0, 11));
  const std::string score = std::to_string(Uniform(-1000, 1000));
  const bool had = e.state.fields.count(member) != 0;
  State next = e.state;
  Args command;
  if (add) {
    next.fields[member] = score;
    command = {"ZADD", e.key, score, member};
  } else {
    next.fields.erase(member);
    command = {"ZREM", e.key, member};
  }
  const auto r = Run(&e, &next, {command});
  if (!r) return;
  const Reply& reply = r->at(0);
  const std::int64_t want = add != had ? 1 : 0;
  if (reply.type != Type::kInteger) {
    ++stats_.failed;
    return Unexpected(command[0] + " failed", e.key, "an integer", Brief(reply));
  }
  if (reply.integer != want) {
    Unexpected(command[0] + "'s count contradicts the model", e.key + " (zset)",
               std::to_string(want) + " for " + member + ", the zset being " +
                   Canonical(Kind::kZSet, e.state),
               Brief(reply));
  }
  Acked(e, std::move(next));
}

void Driver::StreamAdd() {
  Entity& e = Pick(Kind::kStream);
  // Ids only grow, also over ops of unknown outcome and power cuts that lost entries.
  const std::string id = std::to_string(++e.counter) + "-1";
  State next = e.state;
  next.items.emplace_back(id, UniqueValue(e));
  while (next.items.size() > static_cast<std::size_t>(kStreamMaxLen)) next.items.pop_front();
  const auto r = Run(&e, &next,
                     {{"XADD", e.key, "MAXLEN", "=", std::to_string(kStreamMaxLen), id, "f",
                       next.items.back().second}});
  if (!r) return;
  const Reply& reply = r->at(0);
  if (reply.type != Type::kBulk || reply.str != id) {
    ++stats_.failed;
    return Unexpected("XADD failed", e.key + " (stream)", "\"" + id + "\"", Brief(reply));
  }
  Acked(e, std::move(next));
}

void Driver::MultiPair() {
  Entity& e = Pick(Kind::kPair);
  const std::string token = UniqueValue(e);
  State next = e.state;
  next.a = token;
  next.b = token;
  const auto r =
      Run(&e, &next, {{"MULTI"}, {"SET", e.key, token}, {"SET", e.key2, token}, {"EXEC"}});
  if (!r) return;
  const Reply& exec = r->at(3);
  const bool ok = IsOk(r->at(0)) && r->at(1).str == "QUEUED" && r->at(2).str == "QUEUED" &&
                  exec.type == Type::kArray && exec.elements.size() == 2 &&
                  IsOk(exec.elements[0]) && IsOk(exec.elements[1]);
  if (!ok) {
    ++stats_.failed;
    return Unexpected(
        "MULTI/EXEC failed", e.key + " + " + e.key2, "OK, QUEUED, QUEUED, [OK, OK]",
        Brief(r->at(0)) + ", " + Brief(r->at(1)) + ", " + Brief(r->at(2)) + ", " + Brief(exec));
  }
  Acked(e, std::move(next));
}

void Driver::ScriptPair() {
  Entity& e = Pick(Kind::kScript);
  const std::int64_t n = ToInt(e.state.a) + 1;
  State next = e.state;
  next.a = std::to_string(n);
  next.b = next.a;
  const auto r = Run(&e, &next, {{"EVAL", kScript, "2", e.key, e.key2}});
  if (!r) return;
  const Reply& reply = r->at(0);
  if (reply.type != Type::kInteger) {
    ++stats_.failed;
    return Unexpected("EVAL failed", e.key, "an integer", Brief(reply));
  }
  if (reply.integer != n) {
    Unexpected("EVAL's INCR result contradicts the model", e.key + " (script pair)",
               std::to_string(n), Brief(reply));
  }
  Acked(e, std::move(next));
}

void Driver::Lease() {
  std::vector<LeaseSlot>& slots = model_.leases();
  LeaseSlot& slot = slots[static_cast<std::size_t>(Uniform(0, int(slots.size()) - 1))];
  if (!slot.token.empty() && slot.expires_at_ms > NowMs() + 50 && Uniform(0, 1) == 0) {
    const auto r = Run(nullptr, nullptr, {{"LEASE.RELEASE", slot.resource, slot.token}});
    if (!r) return;
    slot.token.clear();
    if (IsOk(r->at(0))) {
      ++stats_.acked;
    } else if (IsErrorKind(r->at(0), "NOTOWNER")) {
      ++stats_.failed;  // It expired meanwhile.
    } else {
      ++stats_.failed;
      Unexpected("LEASE.RELEASE failed", slot.resource, "OK or NOTOWNER", Brief(r->at(0)));
    }
    return;
  }
  // Every fencing number acknowledged before this request is sent is below its own.
  const std::int64_t before = max_fencing_.load();
  const auto r = Run(nullptr, nullptr,
                     {{"LEASE.ACQUIRE", slot.resource, model_.prefix() + "owner",
                       std::to_string(Uniform(50, 400))}});
  if (!r) return;
  const auto f = Fields(r->at(0));
  const std::optional<std::int64_t> acquired = IntField(f, "acquired");
  if (!acquired) {
    ++stats_.failed;
    return Unexpected("LEASE.ACQUIRE failed", slot.resource, "a lease reply", Brief(r->at(0)));
  }
  ++stats_.acked;
  if (*acquired == 0) return;  // Held: nothing changed.
  const std::optional<std::int64_t> fencing = IntField(f, "fencing");
  const std::optional<std::string> token = StrField(f, "token");
  if (!fencing || !token) {
    return Unexpected("LEASE.ACQUIRE's reply lacks fencing or token", slot.resource,
                      "fencing and token", Brief(r->at(0)));
  }
  if (*fencing <= before) {
    Unexpected("a fencing number not above one acknowledged before", slot.resource + " (lease)",
               "> " + std::to_string(before), std::to_string(*fencing));
  }
  std::int64_t seen = max_fencing_.load();
  while (seen < *fencing && !max_fencing_.compare_exchange_weak(seen, *fencing)) {
  }
  slot.max_fencing = std::max(slot.max_fencing, *fencing);
  slot.acks.emplace_back(*fencing, SteadyNs());
  slot.token = *token;
  slot.expires_at_ms = IntField(f, "expires_at_ms").value_or(0);
}

void Driver::QueueAdd() {
  int live = 0;
  for (auto& [n, job] : model_.jobs()) live += job.state.a == "live" ? 1 : 0;
  if (live >= kLiveJobCap) return Uniform(0, 1) == 0 ? QueueClaim() : QueueAck();
  Entity& e = model_.NewJob();
  State next = e.state;
  next.a = "live";
  const auto r = Run(&e, &next,
                     {{"QUEUE.ADD", model_.queue(), "p:" + e.key, "ID", e.key, "MAXATTEMPTS",
                       "1000", "BACKOFF", "FIXED", "0"}});
  if (!r) return;
  const auto f = Fields(r->at(0));
  if (StrField(f, "id") != e.key || IntField(f, "created") != 1) {
    ++stats_.failed;
    return Unexpected("QUEUE.ADD did not create the job", e.key + " (queue job)",
                      "id " + e.key + ", created 1", Brief(r->at(0)));
  }
  Acked(e, std::move(next));
}

void Driver::QueueClaim() {
  const std::int64_t now = NowMs();
  const auto r = Run(nullptr, nullptr,
                     {{"QUEUE.CLAIM", model_.queue(), "g", "w" + std::to_string(model_.index()),
                       "COUNT", "1", "VISIBILITY", std::to_string(Uniform(1500, 4000))}});
  if (!r) return;
  const Reply& reply = r->at(0);
  if (reply.type != Type::kArray) {
    ++stats_.failed;
    return Unexpected("QUEUE.CLAIM failed", model_.queue(), "an array of jobs", Brief(reply));
  }
  ++stats_.acked;
  if (reply.elements.empty()) {
    for (auto& [n, job] : model_.jobs()) {
      if (job.state.a == "live" && job.busy_until_ms + kMarginMs < now) {
        return Unexpected(
            "QUEUE.CLAIM delivered nothing although a job is ready", job.key + " (queue job)",
            "a job (this one was added and is neither acked nor leased)", Brief(reply));
      }
    }
    return;
  }
  const auto f = Fields(reply.elements[0]);
  const std::string id = StrField(f, "id").value_or("");
  const std::string job_prefix = model_.prefix() + "j";
  Entity* job = nullptr;
  if (id.compare(0, job_prefix.size(), job_prefix) == 0) {
    const auto it = model_.jobs().find(std::strtoull(id.c_str() + job_prefix.size(), nullptr, 10));
    if (it != model_.jobs().end() && it->second.key == id) job = &it->second;
  }
  if (job == nullptr || job->state.a != "live") {
    return Unexpected(
        "QUEUE.CLAIM delivered a job that is finished (its ACK was acknowledged) or was "
        "never added",
        id + " (queue job)", "only jobs added and not acked",
        job == nullptr ? "delivered; the model no longer tracks it (finished, or never added)"
                       : "delivered; the model has it " + Canonical(Kind::kJob, job->state));
  }
  if (job->busy_until_ms > now + kMarginMs) {
    Unexpected("QUEUE.CLAIM delivered a job still leased by an acknowledged claim",
               id + " (queue job)",
               "not before its deadline, " + std::to_string(job->busy_until_ms - now) +
                   " ms after this claim was sent",
               Brief(reply.elements[0]));
  }
  if (StrField(f, "payload") != "p:" + id) {
    Unexpected("QUEUE.CLAIM delivered a wrong payload", id + " (queue job)", "p:" + id,
               Brief(reply.elements[0]));
  }
  job->token = StrField(f, "token").value_or("");
  job->busy_until_ms = IntField(f, "deadline_ms").value_or(0);
  job->claim_acked_ns = SteadyNs();
}

void Driver::QueueAck() {
  const std::int64_t now = NowMs();
  std::vector<Entity*> held;
  for (auto& [n, job] : model_.jobs()) {
    if (job.state.a == "live" && !job.token.empty() && job.busy_until_ms > now + kMarginMs) {
      held.push_back(&job);
    }
  }
  if (held.empty()) return QueueClaim();
  Entity& e = *held[static_cast<std::size_t>(Uniform(0, int(held.size()) - 1))];
  State next = e.state;
  next.a = "done";
  const auto r = Run(&e, &next, {{"QUEUE.ACK", model_.queue(), "g", e.key, e.token}});
  if (!r) return;
  const Reply& reply = r->at(0);
  const std::int64_t left = e.busy_until_ms - now;
  e.token.clear();
  if (IsOk(reply)) {
    e.busy_until_ms = 0;
    return Acked(e, std::move(next));
  }
  ++stats_.failed;
  Unexpected(IsErrorKind(reply, "NOTOWNER")
                 ? "QUEUE.ACK refused the token of an acknowledged claim before its deadline"
                 : "QUEUE.ACK failed",
             e.key + " (queue job)",
             "OK (the claim's lease had " + std::to_string(left) + " ms left when sent)",
             Brief(reply));
}

void Driver::Idempotency() {
  Entity& e = Pick(Kind::kIdem);
  const std::string s = e.state.a.value_or("none");
  const std::string phase = s.substr(0, s.find('|'));
  if (phase == "none" || phase == "released") {
    // A released claim is retried as the same request; a new record gets a new one.
    const std::string fp =
        phase == "none" ? e.key + "#" + std::to_string(++e.counter) : e.state.b.value_or("");
    State next = e.state;
    next.a = "in_progress|*";
    next.b = fp;
    const auto r = Run(&e, &next, {{"IDEM.CLAIM", e.key, fp, "LOCK", "600000"}});
    if (!r) return;
    const auto f = Fields(r->at(0));
    const std::optional<std::string> claim_id = StrField(f, "claim_id");
    if (StrField(f, "outcome") != "claimed" || !claim_id) {
      ++stats_.failed;
      return Unexpected("IDEM.CLAIM contradicts the model", e.key + " (idempotency record)",
                        "outcome claimed (the record being " + s + ")", Brief(r->at(0)));
    }
    next.a = "in_progress|" + *claim_id;
    return Acked(e, std::move(next));
  }
  if (phase == "in_progress") {
    const std::string claim_id = s.substr(phase.size() + 1);
    State next = e.state;
    Args command;
    const int choice = Uniform(0, 99);
    if (choice < 60) {
      const std::string response = "r:" + UniqueValue(e);
      next.a = "completed|200|" + response;
      command = {"IDEM.COMPLETE", e.key, claim_id, response, "STATUS", "200"};
    } else if (choice < 85) {
      const std::string reason = "why:" + UniqueValue(e);
      next.a = "failed|" + reason;
      command = {"IDEM.FAIL", e.key, claim_id, "PERMANENT", "REASON", reason};
    } else {
      next.a = "released|" + claim_id;
      command = {"IDEM.FAIL", e.key, claim_id, "RETRYABLE"};
    }
    const auto r = Run(&e, &next, {command});
    if (!r) return;
    if (!IsOk(r->at(0))) {
      ++stats_.failed;
      return Unexpected(command[0] + " refused the claim the model holds",
                        e.key + " (idempotency record)", "OK (the record being " + s + ")",
                        Brief(r->at(0)));
    }
    return Acked(e, std::move(next));
  }
  // A stored outcome: a duplicate request must get it back; or the record goes.
  if (Uniform(0, 99) < 60) {
    const auto r =
        Run(nullptr, nullptr, {{"IDEM.CLAIM", e.key, e.state.b.value_or(""), "LOCK", "600000"}});
    if (!r) return;
    const auto f = Fields(r->at(0));
    const std::string outcome = StrField(f, "outcome").value_or("");
    std::string seen = Brief(r->at(0));
    if (outcome == "completed") {
      seen = "completed|" + std::to_string(IntField(f, "status_code").value_or(-1)) + "|" +
             StrField(f, "response").value_or("?");
    } else if (outcome == "failed") {
      seen = "failed|" + StrField(f, "error").value_or("?");
    }
    ++stats_.acked;
    if (seen != s) {
      Unexpected("a duplicate IDEM.CLAIM got a different outcome than the one stored",
                 e.key + " (idempotency record)", s, seen);
    }
    return;
  }
  State next = e.state;
  next.a = "none";
  next.b.reset();
  const auto r = Run(&e, &next, {{"IDEM.DEL", e.key}});
  if (!r) return;
  const Reply& reply = r->at(0);
  if (reply.type != Type::kInteger) {
    ++stats_.failed;
    return Unexpected("IDEM.DEL failed", e.key, "1", Brief(reply));
  }
  if (reply.integer != 1) {
    Unexpected("IDEM.DEL found no record", e.key + " (idempotency record)", "1 (" + s + ")",
               Brief(reply));
  }
  Acked(e, std::move(next));
}

// RATE.TAKE with a cost of 1 to 3 (its reply shows the tokens left, checked against the model),
// or now and then RATE.RESET (its reply shows whether the key had state).
void Driver::RateLimit() {
  Entity& e = Pick(Kind::kRate);
  const std::int64_t used = ToInt(e.state.a);
  State next = e.state;
  if (Uniform(0, 9) == 0) {
    next.a = "0";
    const auto r = Run(&e, &next, {{"RATE.RESET", e.key}});
    if (!r) return;
    const Reply& reply = r->at(0);
    if (reply.type != Type::kInteger || reply.integer != (used > 0 ? 1 : 0)) {
      ++stats_.failed;
      return Unexpected("RATE.RESET contradicts the model", e.key + " (rate limit)",
                        used > 0 ? "1" : "0", Brief(reply));
    }
    return Acked(e, std::move(next));
  }
  const int cost = Uniform(1, 3);
  next.a = std::to_string(used + cost);
  Args take = {"RATE.TAKE", e.key};
  take.insert(take.end(), kRateBucket.begin(), kRateBucket.end());
  take.insert(take.end(), {"COST", std::to_string(cost)});
  const auto r = Run(&e, &next, {take});
  if (!r) return;
  const auto f = Fields(r->at(0));
  const std::int64_t expected = kRateCapacity - used - cost;
  if (IntField(f, "allowed") != 1 || IntField(f, "remaining") != expected) {
    ++stats_.failed;
    return Unexpected("RATE.TAKE contradicts the model", e.key + " (rate limit)",
                      "allowed, " + std::to_string(expected) + " remaining", Brief(r->at(0)));
  }
  Acked(e, std::move(next));
}

}  // namespace cairn::crash
