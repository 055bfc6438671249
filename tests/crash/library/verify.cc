#include "crash/library/verify.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <string_view>
#include <vector>

#include "cairn/idempotency.h"
#include "cairn/lease.h"
#include "cairn/queue.h"
#include "cairn/ratelimit.h"

namespace cairn::crash::library {
namespace {

// Reads an entity's state, in the model's canonical form (model.h), through the public API.
class Reader {
 public:
  explicit Reader(Store& store)
      : store_(store), leases_(store), queue_(store), idem_(store), limiter_(store) {}

  std::string Read(int thread, const std::string& name, Kind kind) {
    const std::string key = KeyOf(thread, name);
    switch (kind) {
      case Kind::kString:
        return Value(key);
      case Kind::kPair:
        return Value(PairKey(thread, name, 'a')) + "|" + Value(PairKey(thread, name, 'b'));
      case Kind::kHash:
        return Hash(key);
      case Kind::kSet:
        return Members(key);
      case Kind::kList: {
        auto r = store_.ListRange(key, 0, -1);
        if (!r.ok()) return Error(r.status());
        return Join(*r);
      }
      case Kind::kLease: {
        auto r = leases_.Inspect(key);
        return r.ok() ? std::to_string(r->highest_fencing) : Error(r.status());
      }
      case Kind::kIdem:
        return Record(key);
      case Kind::kJob:
        return Job(thread, name);
      case Kind::kZSet:
        return Scores(key);
      case Kind::kStream:
        return Entries(key);
      case Kind::kBucket:
        return Taken(key);
    }
    return "?";
  }

 private:
  static std::string Error(const Status& s) { return "(read failed: " + s.ToString() + ")"; }
  static std::string Join(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& i : items) out += (out.empty() ? "" : ",") + i;
    return out.empty() ? "-" : out;
  }

  std::string Value(const std::string& key) {
    auto r = store_.Get(key);
    if (!r.ok()) return Error(r.status());
    return r->value_or("-");
  }
  std::string Hash(const std::string& key) {
    std::vector<std::string> names;
    for (int i = 0; i < kFields; ++i) names.push_back("f" + std::to_string(i));
    const std::vector<std::string_view> views(names.begin(), names.end());
    auto r = store_.HashGetMany(key, views);
    if (!r.ok()) return Error(r.status());
    std::vector<std::string> items;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if ((*r)[i]) items.push_back(names[i] + "=" + *(*r)[i]);
    }
    return Join(items);
  }
  std::string Members(const std::string& key) {
    std::vector<std::string> items;
    for (int i = 0; i < kMembers; ++i) {
      const std::string m = "m" + std::to_string(i);
      auto r = store_.SetContains(key, m);
      if (!r.ok()) return Error(r.status());
      if (*r) items.push_back(m);
    }
    return Join(items);
  }
  std::string Record(const std::string& key) {
    auto k = IdempotencyKey::Make(kIdemNamespace, "1", key);
    if (!k.ok()) return Error(k.status());
    auto r = idem_.Get(*k);
    if (!r.ok()) return Error(r.status());
    if (!r->has_value()) return "none";
    const IdempotencyRecord& rec = **r;
    switch (rec.state) {
      case IdempotencyState::kInProgress:
        return "in_progress";
      case IdempotencyState::kCompleted:
        return "completed|" + (rec.outcome ? rec.outcome->body : "(no outcome)");
      case IdempotencyState::kReleased:
        return "released";
      case IdempotencyState::kFailed:
        return "failed";
    }
    return "?";
  }
  std::string Job(int thread, const std::string& id) {
    auto r = queue_.GetJob(QueueOf(thread), id);
    if (!r.ok()) return Error(r.status());
    if (!r->has_value()) return "absent";
    if ((*r)->completed) return "done";
    for (const DeliveryInfo& d : (*r)->deliveries) {
      if (d.group == kGroup && d.state == JobState::kDead) return "dead";
    }
    return (*r)->payload == PayloadOf(id) ? "live" : "live with payload " + (*r)->payload;
  }

  std::string Scores(const std::string& key) {
    auto r = store_.ZSetRange(key, ZRangeRequest{});
    if (!r.ok()) return Error(r.status());
    std::sort(r->begin(), r->end(), [](const ScoredMember& a, const ScoredMember& b) {
      return a.member < b.member;  // the model's order
    });
    std::vector<std::string> items;
    for (const ScoredMember& m : *r) items.push_back(m.member + "=" + ScoreText(m.score));
    return Join(items);
  }
  std::string Entries(const std::string& key) {
    auto r = store_.StreamRange(key, StreamRangeRequest{});
    if (!r.ok()) return Error(r.status());
    std::vector<std::string> items;
    for (const StreamEntry& entry : *r) {
      std::string value;
      for (const HashEntry& f : entry.fields) {
        value += (value.empty() ? "" : "/") + (f.field == "f" ? f.value : f.field + ":" + f.value);
      }
      items.push_back(IdText(entry.id.ms, entry.id.seq) + "=" + value);
    }
    return Join(items);
  }
  // The tokens taken, from a dry run that changes nothing.
  std::string Taken(const std::string& key) {
    auto r = limiter_.Peek(key, Limit::TokenBucket(kBucketCapacity, 1, kBucketRefillMs));
    if (!r.ok()) return Error(r.status());
    // Allowed, `remaining` is what the peek's one token would leave.
    return std::to_string(kBucketCapacity - r->remaining - (r->allowed ? 1 : 0));
  }

  Store& store_;
  LeaseManager leases_;
  Queue queue_;
  IdempotencyStore idem_;
  RateLimiter limiter_;
};

// What the model says the entity held after the thread's calls 1..c.
const Expect& ExpectedAt(const Entity& e, std::uint32_t c, const Expect& base) {
  const Expect* at = &base;
  for (const Step& s : e.steps) {
    if (s.seq <= c) at = &s.after;
  }
  return *at;
}

bool VerifyThread(Reader& reader, int thread, ThreadModel& t, bool strict, Findings& findings,
                  VerifyStats* stats, std::int64_t* highest_fence) {
  const std::uint32_t last = t.last_seq;
  const std::uint32_t min_cut = strict ? t.last_acked : 0;
  // allowed[c]: how many entities hold a state the model allows at cut c (a difference array
  // first, summed below).
  std::vector<int> allowed(last + 2, 0);
  std::vector<std::pair<std::string, std::string>> found;  // name, state
  for (auto& [name, e] : t.entities) {
    const std::string state = reader.Read(thread, name, e.kind);
    found.emplace_back(name, state);
    auto allow = [&](std::uint32_t lo, std::uint32_t hi, bool ok) {
      if (!ok || lo > hi) return;
      ++allowed[lo];
      --allowed[hi + 1];
    };
    std::uint32_t from = 0;
    bool ok = e.base == state;
    for (const Step& s : e.steps) {
      allow(from, s.seq - 1, ok);
      from = s.seq;
      ok = s.after.Matches(state);
    }
    allow(from, last, ok);
    if (e.kind == Kind::kLease) {
      std::int64_t fencing = 0;
      std::from_chars(state.data(), state.data() + state.size(), fencing);
      *highest_fence = std::max(*highest_fence, fencing);
    }
  }
  stats->entities += found.size();
  const int all = static_cast<int>(found.size());
  std::uint32_t best = min_cut;
  int best_count = -1;
  // The latest and the earliest cut every entity allows.
  std::int64_t cut = -1, first_cut = -1;
  for (std::uint32_t c = 0, sum = 0; c <= last; ++c) {
    sum += static_cast<std::uint32_t>(allowed[c]);
    if (c < min_cut) continue;
    if (static_cast<int>(sum) == all) {
      cut = c;
      if (first_cut < 0) first_cut = c;
    }
    if (static_cast<int>(sum) >= best_count) {
      best_count = static_cast<int>(sum);
      best = c;
    }
  }
  if (cut < 0) {
    const std::string what =
        strict ? "an acknowledged call is lost or changed"
               : "what survived the power cut is not one prefix of the thread's calls";
    const std::string where = " (thread " + std::to_string(thread) + ", calls announced " +
                              std::to_string(last) + ", acknowledged " +
                              std::to_string(t.last_acked) + "; the closest cut is after call " +
                              std::to_string(best) + ")";
    std::size_t i = 0;
    for (auto& [name, e] : t.entities) {
      const std::string& state = found[i++].second;
      const Expect base{e.base};
      const Expect& want = ExpectedAt(e, best, base);
      if (want.Matches(state)) continue;
      // Its last few calls: enough to see what went missing.
      constexpr std::size_t kShown = 3;
      std::string history = "was " + e.base;
      if (e.steps.size() > kShown)
        history += "; " + std::to_string(e.steps.size() - kShown) + " calls";
      for (std::size_t k = e.steps.size() > kShown ? e.steps.size() - kShown : 0;
           k < e.steps.size(); ++k) {
        const Step& s = e.steps[k];
        history += "; call " + std::to_string(s.seq) + (s.acked ? " (acked) " : " (in flight) ") +
                   s.after.Text();
      }
      findings.Add({what + where, KindOfName(name) == Kind::kJob ? "job " + name : name,
                    want.Text() + "   [" + history + "]", state});
    }
    return false;
  }
  const bool in_flight = last > t.last_acked;
  stats->resolved += in_flight ? 1 : 0;
  // Happened: only a cut after it explains the store (a call that changed nothing visible may
  // have happened too). Rolled back: acknowledged, and no cut explaining the store keeps it.
  stats->applied += in_flight && first_cut == last ? 1 : 0;
  stats->rolled_back += t.last_acked > cut ? t.last_acked - static_cast<std::uint32_t>(cut) : 0;
  // What was found is the new base; finished and never-added jobs are forgotten, and so are
  // idempotency records read back often enough.
  for (auto& [name, state] : found) {
    Entity& e = t.entities[name];
    const bool finished = e.kind == Kind::kJob && (state == "done" || state == "absent");
    if (finished && state == "done") t.done_jobs.insert(name);
    if (finished || (e.kind == Kind::kIdem && ++e.verifications >= kRecordVerifications)) {
      t.entities.erase(name);
      continue;
    }
    e.base = state;
    e.steps.clear();
  }
  return true;
}

}  // namespace

bool Verify(Store& store, Model& model, bool strict, Findings& findings, VerifyStats* stats) {
  Reader reader(store);
  bool ok = true;
  std::int64_t highest_fence = 0;
  for (std::size_t t = 0; t < model.threads().size(); ++t) {
    ok = VerifyThread(reader, static_cast<int>(t), model.threads()[t], strict, findings, stats,
                      &highest_fence) &&
         ok;
  }
  // Every fencing number issued from now on must be above every one the store shows, and above
  // every one acknowledged, in every mode: a lossy power cut may take a lease's row back, but
  // the counter fsyncs each block of numbers before it hands one out.
  if (ok) model.fence_floor = std::max({model.fence_floor, highest_fence, model.fence_acked});
  return ok;
}

}  // namespace cairn::crash::library
