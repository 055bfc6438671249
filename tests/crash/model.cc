#include "crash/model.h"

#include <chrono>
#include <utility>

namespace cairn::crash {
namespace {

std::string Quoted(const std::optional<std::string>& v) { return v ? "\"" + *v + "\"" : "nil"; }

// The keys each client thread owns, by kind.
constexpr struct {
  Kind kind;
  const char* tag;
  int count;
} kLayout[] = {
    {Kind::kString, "s", 16},  {Kind::kCounter, "n", 6}, {Kind::kHash, "h", 4},
    {Kind::kList, "l", 4},     {Kind::kSet, "set", 4},   {Kind::kZSet, "z", 4},
    {Kind::kStream, "x", 3},   {Kind::kPair, "p", 4},    {Kind::kScript, "e", 2},
    {Kind::kIdem, "idem", 12}, {Kind::kRate, "rate", 3},
};
constexpr int kLeasesPerThread = 3;

}  // namespace

std::int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kString:
      return "string";
    case Kind::kCounter:
      return "counter";
    case Kind::kHash:
      return "hash";
    case Kind::kList:
      return "list";
    case Kind::kSet:
      return "set";
    case Kind::kZSet:
      return "zset";
    case Kind::kStream:
      return "stream";
    case Kind::kPair:
      return "multi pair";
    case Kind::kScript:
      return "script pair";
    case Kind::kIdem:
      return "idempotency record";
    case Kind::kJob:
      return "queue job";
    case Kind::kRate:
      return "rate limit";
  }
  return "?";
}

std::string Canonical(Kind kind, const State& s) {
  if (!s.unexpected.empty()) return "unexpected reply: " + s.unexpected;
  std::string out;
  switch (kind) {
    case Kind::kString:
    case Kind::kCounter:
      return Quoted(s.a);
    case Kind::kPair:
    case Kind::kScript:
      return Quoted(s.a) + " " + Quoted(s.b);
    case Kind::kIdem:
    case Kind::kJob:
    case Kind::kRate:
      return s.a.value_or("?");
    case Kind::kHash:
    case Kind::kSet:
    case Kind::kZSet:
      if (s.fields.empty()) return "nil";
      for (const auto& [k, v] : s.fields) {
        out += out.empty() ? "{" : ", ";
        out += kind == Kind::kSet ? k : kind == Kind::kHash ? k + "=" + v : k + ":" + v;
      }
      return out + "}";
    case Kind::kList:
    case Kind::kStream:
      if (s.items.empty()) return "nil";
      for (const auto& [k, v] : s.items) {
        out += out.empty() ? "[" : ", ";
        out += kind == Kind::kList ? k : k + " " + v;
      }
      return out + "]";
  }
  return "?";
}

bool IsWildcard(const std::string& expected) {
  return expected.size() >= 2 && expected.compare(expected.size() - 2, 2, "|*") == 0;
}

bool Matches(const std::string& expected, const std::string& found) {
  if (IsWildcard(expected)) {
    return found.compare(0, expected.size() - 1, expected, 0, expected.size() - 1) == 0;
  }
  return expected == found;
}

ThreadModel::ThreadModel(int index)
    : index_(index),
      prefix_("c" + std::to_string(index) + ":"),
      queue_("c" + std::to_string(index) + ":q") {
  for (const auto& layout : kLayout) {
    for (int i = 0; i < layout.count; ++i) {
      Entity e;
      e.kind = layout.kind;
      e.key = prefix_ + layout.tag + ":" + std::to_string(i);
      if (e.kind == Kind::kPair || e.kind == Kind::kScript) {
        e.key2 = e.key + (e.kind == Kind::kPair ? ":b" : ":copy");
        e.key += e.kind == Kind::kPair ? ":a" : ":n";
      }
      if (e.kind == Kind::kIdem) e.state.a = "none";
      if (e.kind == Kind::kRate) e.state.a = "0";
      e.history.push_back({0, e.state, 0});
      entities_.push_back(std::move(e));
    }
  }
  for (int i = 0; i < kLeasesPerThread; ++i) {
    LeaseSlot slot;
    slot.resource = prefix_ + "lease:" + std::to_string(i);
    leases_.push_back(slot);
  }
}

Entity& ThreadModel::NewJob() {
  const std::uint64_t n = next_job_++;
  Entity& e = jobs_[n];
  e.kind = Kind::kJob;
  e.key = prefix_ + "j" + std::to_string(n);
  e.state.a = "absent";
  e.history.push_back({0, e.state, 0});
  return e;
}

void ThreadModel::Apply(Entity& e, State next) {
  e.history.push_back({++seq_, next, SteadyNs()});
  e.state = std::move(next);
  e.pending.reset();
}

void ThreadModel::Unknown(Entity& e, State next) {
  e.history.push_back({++seq_, next, kNeverAcked});
  e.pending = std::move(next);
}

void ThreadModel::Checkpoint() {
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    const std::string& s = it->second.state.a.value_or("");
    it = s == "done" || s == "absent" ? jobs_.erase(it) : std::next(it);
  }
  ForEachEntity([](Entity& e) {
    e.pending.reset();
    e.history.clear();
    e.history.push_back({0, e.state, 0});
  });
  for (LeaseSlot& l : leases_) {
    l.verified_fencing = l.max_fencing;
    l.acks.clear();
  }
  seq_ = 0;
}

ModeModel::ModeModel(Mode m, std::string data_dir, std::string log_path, int clients)
    : mode(std::move(m)), dir(std::move(data_dir)), log(std::move(log_path)) {
  threads.reserve(static_cast<std::size_t>(clients));
  for (int i = 0; i < clients; ++i) threads.emplace_back(i);
}

}  // namespace cairn::crash
