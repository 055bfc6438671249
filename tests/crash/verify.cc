#include "crash/verify.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "crash/replies.h"

namespace cairn::crash {
namespace {

using Type = Reply::Type;

constexpr std::size_t kBatch = 128;  // commands sent before their replies are read
constexpr std::int64_t kMarginMs = 1000;
constexpr std::uint64_t kEnd = std::numeric_limits<std::uint64_t>::max();

// What QUEUE.GET shows about a job's delivery to the group.
struct Delivery {
  std::string state;  // ready, delayed, in_flight, dead; "" if none
  std::int64_t at_ms = 0;
};

// One entity's or lease's read-back commands and their replies.
struct Read {
  Entity* entity = nullptr;
  LeaseSlot* lease = nullptr;
  std::vector<Args> commands;
  std::vector<Reply> replies;
};

std::vector<Args> ReadCommands(const ThreadModel& t, const Entity& e) {
  switch (e.kind) {
    case Kind::kString:
    case Kind::kCounter:
      return {{"GET", e.key}};
    case Kind::kHash:
      return {{"HGETALL", e.key}};
    case Kind::kList:
      return {{"LRANGE", e.key, "0", "-1"}};
    case Kind::kSet:
      return {{"SMEMBERS", e.key}};
    case Kind::kZSet:
      return {{"ZRANGE", e.key, "0", "-1", "WITHSCORES"}};
    case Kind::kStream:
      return {{"XRANGE", e.key, "-", "+"}};
    case Kind::kPair:
    case Kind::kScript:
      return {{"GET", e.key}, {"GET", e.key2}};
    case Kind::kIdem:
      return {{"IDEM.GET", e.key}};
    case Kind::kJob:
      return {{"QUEUE.GET", t.queue(), e.key}};
    case Kind::kRate: {
      Args peek = {"RATE.PEEK", e.key};
      peek.insert(peek.end(), kRateBucket.begin(), kRateBucket.end());
      return {peek};
    }
  }
  return {};
}

// Sends every read's commands, a batch at a time, and collects the replies.
bool Exchange(test::RespClient& client, const std::vector<Read*>& reads) {
  std::size_t i = 0;
  while (i < reads.size()) {
    std::size_t j = i;
    std::size_t n = 0;
    std::string bytes;
    for (; j < reads.size() && n < kBatch; ++j) {
      for (const Args& c : reads[j]->commands) bytes += test::RespClient::Encode(c);
      n += reads[j]->commands.size();
    }
    if (!client.Send(bytes)) return false;
    for (std::size_t k = i; k < j; ++k) {
      for (std::size_t c = 0; c < reads[k]->commands.size(); ++c) {
        std::optional<Reply> r = client.Read();
        if (!r) return false;
        reads[k]->replies.push_back(std::move(*r));
      }
    }
    i = j;
  }
  return true;
}

// Scores as the model writes them: integers.
std::string Score(const std::string& s) {
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || d != std::floor(d) || std::fabs(d) > 1e15) return s;
  return std::to_string(static_cast<long long>(d));
}

bool IsArray(const Reply& r) {
  return r.type == Type::kArray || r.type == Type::kSet || r.type == Type::kMap;
}

// The state a read-back shows, in the model's terms; State::unexpected for any other shape.
State Parse(const Entity& e, const std::vector<Reply>& r, Delivery* delivery) {
  State s;
  auto bad = [&s](const Reply& x) {
    s.unexpected = Brief(x);
    return s;
  };
  auto value = [](const Reply& x, std::optional<std::string>* out) {
    if (x.IsNil()) return true;
    if (x.type != Type::kBulk) return false;
    *out = x.str;
    return true;
  };
  switch (e.kind) {
    case Kind::kString:
    case Kind::kCounter:
      return value(r[0], &s.a) ? s : bad(r[0]);
    case Kind::kPair:
    case Kind::kScript:
      if (!value(r[0], &s.a)) return bad(r[0]);
      return value(r[1], &s.b) ? s : bad(r[1]);
    case Kind::kHash:
    case Kind::kZSet:
      if (!IsArray(r[0]) || r[0].elements.size() % 2 != 0) return bad(r[0]);
      for (std::size_t i = 0; i < r[0].elements.size(); i += 2) {
        const std::string& v = r[0].elements[i + 1].str;
        s.fields[r[0].elements[i].str] = e.kind == Kind::kZSet ? Score(v) : v;
      }
      return s;
    case Kind::kSet:
      if (!IsArray(r[0])) return bad(r[0]);
      for (const Reply& m : r[0].elements) s.fields[m.str] = "";
      return s;
    case Kind::kList:
      if (!IsArray(r[0])) return bad(r[0]);
      for (const Reply& v : r[0].elements) s.items.emplace_back(v.str, "");
      return s;
    case Kind::kStream:
      if (!IsArray(r[0])) return bad(r[0]);
      for (const Reply& entry : r[0].elements) {
        if (entry.elements.size() != 2 || entry.elements[1].elements.size() != 2 ||
            entry.elements[1].elements[0].str != "f") {
          return bad(r[0]);
        }
        s.items.emplace_back(entry.elements[0].str, entry.elements[1].elements[1].str);
      }
      return s;
    case Kind::kIdem: {
      if (r[0].IsNil()) {
        s.a = "none";
        return s;
      }
      const auto f = Fields(r[0]);
      const std::string state = StrField(f, "state").value_or("");
      if (state == "in_progress") {
        s.a = "in_progress|" + StrField(f, "claim_id").value_or("?");
      } else if (state == "released") {
        s.a = "released|" + StrField(f, "claim_id").value_or("?");
      } else if (state == "completed") {
        s.a = "completed|" + std::to_string(IntField(f, "status_code").value_or(-1)) + "|" +
              StrField(f, "response").value_or("?");
      } else if (state == "failed") {
        s.a = "failed|" + StrField(f, "error").value_or("?");
      } else {
        return bad(r[0]);
      }
      return s;
    }
    case Kind::kJob: {
      if (r[0].IsNil()) {
        s.a = "absent";
        return s;
      }
      const auto f = Fields(r[0]);
      if (f.empty()) return bad(r[0]);
      if (IntField(f, "completed") == 1) {
        s.a = "done";
        return s;
      }
      std::string problem;
      const std::optional<std::string> payload = StrField(f, "payload");
      if (payload != "p:" + e.key) problem = "payload " + payload.value_or("?");
      const auto deliveries = f.find("deliveries");
      if (deliveries != f.end()) {
        for (const Reply& d : deliveries->second->elements) {
          const auto df = Fields(d);
          if (StrField(df, "group") != "g") continue;
          delivery->state = StrField(df, "state").value_or("?");
          delivery->at_ms = IntField(df, "at_ms").value_or(0);
        }
      }
      const std::string& ds = delivery->state;
      if (ds != "ready" && ds != "delayed" && ds != "in_flight") {
        problem += std::string(problem.empty() ? "" : ", ") +
                   (ds.empty() ? "no delivery to group g" : "group g: " + ds);
      }
      s.a = problem.empty() ? "live" : "live (" + problem + ")";
      return s;
    }
    case Kind::kRate: {
      // PEEK answers what a take of 1 would leave.
      const std::optional<std::int64_t> remaining = IntField(Fields(r[0]), "remaining");
      if (!remaining) return bad(r[0]);
      s.a = std::to_string(kRateCapacity - 1 - *remaining);
      return s;
    }
  }
  return s;
}

// Sets of cut points (op numbers), as half-open intervals.
using Intervals = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

// Sorted, with touching intervals joined.
Intervals Normalize(Intervals set) {
  std::sort(set.begin(), set.end());
  Intervals out;
  for (const auto& x : set) {
    if (!out.empty() && x.first <= out.back().second) {
      out.back().second = std::max(out.back().second, x.second);
    } else {
      out.push_back(x);
    }
  }
  return out;
}

Intervals Intersect(const Intervals& a, const Intervals& b) {
  Intervals out;
  for (const auto& x : a) {
    for (const auto& y : b) {
      const std::uint64_t lo = std::max(x.first, y.first);
      const std::uint64_t hi = std::min(x.second, y.second);
      if (lo < hi) out.emplace_back(lo, hi);
    }
  }
  return Normalize(std::move(out));
}

std::string Describe(const Intervals& set) {
  std::string out;
  for (const auto& [lo, hi] : set) {
    out += (out.empty() ? "" : " or ") + std::string("[") + std::to_string(lo) + ", " +
           (hi == kEnd ? "end" : std::to_string(hi)) + ")";
  }
  return out.empty() ? "none" : out;
}

class Judge {
 public:
  Judge(ModeModel& mode, bool strict, const KillPoint& kill, Findings& findings, VerifyStats* stats)
      : mode_(mode),
        strict_(strict),
        kill_(kill),
        findings_(findings),
        stats_(stats),
        now_(NowMs()) {}

  void Thread(ThreadModel& t, std::vector<Read>& reads) {
    thread_ = t.index();
    seq_ = t.seq();
    cut_ = {{0, kEnd}};
    cut_broken_ = false;
    for (Read& r : reads) {
      if (r.lease != nullptr) {
        CheckLease(*r.lease, r.replies[0]);
      } else {
        CheckEntity(*r.entity, r.replies);
      }
    }
    t.Checkpoint();
  }

  // After every thread: new fencing numbers must be above every one that had to survive and
  // every one the store shows. (Not above one acknowledged after a POWERCUT was sent, or
  // before a power cut that may lose writes: those may be gone, and issued again.)
  void Finish() { mode_.max_fencing = highest_fencing_; }

 private:
  void CheckEntity(Entity& e, const std::vector<Reply>& replies) {
    Delivery delivery;
    const State found = Parse(e, replies, &delivery);
    const std::string f = Canonical(e.kind, found);
    const std::string what = e.key + " (" + KindName(e.kind) + ")";
    const State* match = nullptr;
    bool pending_matched = false;
    if (strict_) {
      // Acceptable: the state acknowledged last before the cut, and each later one
      // (acknowledged after the POWERCUT was sent, or in flight).
      std::size_t from = 0;
      std::size_t latest_acked = 0;
      for (std::size_t i = 0; i < e.history.size(); ++i) {
        if (e.history[i].acked_ns <= kill_.must_survive_before_ns) from = i;
        if (e.history[i].acked_ns != kNeverAcked) latest_acked = i;
      }
      std::size_t matched = 0;
      for (const std::size_t i : Matching(e, from, f)) {
        if (match == nullptr || i > matched) {
          match = &e.history[i].state;
          matched = i;
        }
      }
      pending_matched = match != nullptr && e.history[matched].acked_ns == kNeverAcked;
      if (match == nullptr) {
        LostWrite(e, from, f);
      } else if (matched < latest_acked) {
        ++stats_->late_lost;
        if (stats_->late.size() < 20) {
          stats_->late.push_back(what + ": " + Canonical(e.kind, e.history[latest_acked].state) +
                                 " acknowledged " +
                                 Ms(e.history[latest_acked].acked_ns - kill_.sent_ns) +
                                 " ms after the POWERCUT was sent; found " + f);
        }
      }
    } else {
      Intervals mine;
      std::size_t latest_acked = 0;
      for (std::size_t i = 0; i < e.history.size(); ++i) {
        if (e.history[i].acked_ns != kNeverAcked) latest_acked = i;
      }
      bool at_latest = false;
      for (const std::size_t i : Matching(e, 0, f)) {
        match = &e.history[i].state;
        at_latest = at_latest || i >= latest_acked;
        mine.emplace_back(e.history[i].seq, i + 1 < e.history.size() ? e.history[i + 1].seq : kEnd);
      }
      mine = Normalize(std::move(mine));
      if (match != nullptr && !at_latest) ++stats_->rolled_back;
      if (match == nullptr) {
        std::vector<std::string> had;
        for (const HistoryPoint& h : e.history) {
          const std::string c = Canonical(e.kind, h.state);
          if (std::find(had.begin(), had.end(), c) == had.end()) had.push_back(c);
        }
        std::string list;
        for (const std::string& c : had) list += (list.empty() ? "" : "  |  ") + c;
        findings_.Add({"after a power cut, a state this key never had since the last restart", what,
                       "one of: " + list, f});
      } else if (!cut_broken_) {
        Intervals next = Intersect(cut_, mine);
        if (next.empty()) {
          cut_broken_ = true;
          findings_.Add(
              {"after a power cut, no prefix of this client's ops explains what "
               "survived (a later write is there while an earlier one is lost); op "
               "numbers count the client's ops since the last restart",
               what,
               "the state after op " + Describe(cut_) + ", which the keys checked before it need",
               f + "  = the state after op " + Describe(mine)});
        } else {
          cut_ = std::move(next);
        }
      }
    }
    if (e.pending) {
      ++stats_->resolved;
      const bool applied = strict_ ? pending_matched
                                   : Matches(Canonical(e.kind, *e.pending), f) &&
                                         !Matches(Canonical(e.kind, e.state), f);
      stats_->applied += applied ? 1 : 0;
    }
    ++stats_->entities;
    if (e.kind == Kind::kJob) CheckJob(e, f, delivery);
    State next = found;
    if (e.kind == Kind::kIdem && f != "none") {
      next.b = match != nullptr ? match->b : e.state.b;
    }
    e.state = std::move(next);
  }

  // The history points from `from` on whose state is `found`, oldest first. A claim id the
  // model knows matches only its own claim: a claim whose reply never came ("in_progress|*")
  // stands for any other.
  static std::vector<std::size_t> Matching(const Entity& e, std::size_t from,
                                           const std::string& found) {
    std::vector<std::size_t> exact;
    std::vector<std::size_t> wild;
    for (std::size_t i = from; i < e.history.size(); ++i) {
      const std::string c = Canonical(e.kind, e.history[i].state);
      if (Matches(c, found)) (IsWildcard(c) ? wild : exact).push_back(i);
    }
    return exact.empty() ? wild : exact;
  }

  // An acknowledged state is not there: `from` is the history point that had to survive.
  void LostWrite(const Entity& e, std::size_t from, const std::string& found) {
    const HistoryPoint& must = e.history[from];
    std::string what = "acknowledged write lost";
    if (from == 0) {
      what += " (the state verified after the previous restart is gone)";
    } else {
      what += ": op " + std::to_string(must.seq) + " of client " + std::to_string(thread_) + "'s " +
              std::to_string(seq_) + " since the restart";
      if (kill_.sent_ns > 0) {
        const std::int64_t before = kill_.sent_ns - must.acked_ns;
        what += ", acknowledged " + Ms(before < 0 ? -before : before) + " ms " +
                (before < 0 ? "after" : "before") + " the kill was sent";
      }
    }
    std::string expected = Canonical(e.kind, must.state);
    for (std::size_t i = from + 1; i < e.history.size(); ++i) {
      expected += e.history[i].acked_ns == kNeverAcked
                      ? "  or, had the op in flight happened:  "
                      : "  or, acknowledged after the POWERCUT was sent:  ";
      expected += Canonical(e.kind, e.history[i].state);
    }
    findings_.Add({what, e.key + " (" + KindName(e.kind) + ")", expected, found});
  }

  static std::string Ms(std::int64_t ns) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.2f", static_cast<double>(ns) / 1e6);
    return text;
  }

  // The claim this client holds on a job, checked and then taken from what the store shows.
  void CheckJob(Entity& e, const std::string& found, const Delivery& d) {
    const bool held = d.state == "in_flight" && !e.token.empty() && d.at_ms == e.busy_until_ms;
    if (strict_ && found == "live" && !e.token.empty() && e.busy_until_ms > now_ + kMarginMs &&
        e.claim_acked_ns <= kill_.must_survive_before_ns && !held) {
      findings_.Add(
          {"acknowledged QUEUE.CLAIM lost (the job is no longer leased to it)",
           e.key + " (queue job)",
           "in_flight until " + std::to_string(e.busy_until_ms) + " (" +
               std::to_string(e.busy_until_ms - now_) + " ms from now)",
           (d.state.empty() ? "no delivery" : d.state) + " at " + std::to_string(d.at_ms)});
    }
    if (!held) {
      e.token.clear();
      e.busy_until_ms = d.state == "ready" ? 0 : d.at_ms;
    }
  }

  void CheckLease(LeaseSlot& l, const Reply& reply) {
    std::int64_t highest = 0;
    if (!reply.IsNil()) {
      const std::optional<std::int64_t> h = IntField(Fields(reply), "highest_fencing");
      if (!h) {
        findings_.Add({"LEASE.INFO failed", l.resource, "a lease map", Brief(reply)});
        return;
      }
      highest = *h;
    }
    std::int64_t must = l.verified_fencing;  // Acknowledged before the cut.
    for (const auto& [fencing, acked_ns] : l.acks) {
      if (acked_ns <= kill_.must_survive_before_ns) must = std::max(must, fencing);
    }
    if (strict_ && must > highest) {
      findings_.Add(
          {"acknowledged LEASE.ACQUIRE lost (the resource's highest fencing number "
           "went back)",
           l.resource + " (lease)", "highest_fencing >= " + std::to_string(must),
           reply.IsNil() ? "nil" : std::to_string(highest)});
    } else if (strict_ && l.max_fencing > highest) {
      ++stats_->late_lost;
      if (stats_->late.size() < 20) {
        stats_->late.push_back(l.resource + " (lease): fencing " + std::to_string(l.max_fencing) +
                               " acknowledged after the POWERCUT was sent; found " +
                               std::to_string(highest));
      }
    }
    l.max_fencing = strict_ ? std::max(must, highest) : highest;
    highest_fencing_ = std::max(highest_fencing_, l.max_fencing);
  }

  ModeModel& mode_;
  const bool strict_;
  const KillPoint kill_;
  Findings& findings_;
  VerifyStats* stats_;
  const std::int64_t now_;
  std::int64_t highest_fencing_ = 0;
  int thread_ = 0;
  std::uint32_t seq_ = 0;
  Intervals cut_;
  bool cut_broken_ = false;
};

}  // namespace

bool Verify(test::RespClient& client, ModeModel& mode, bool strict, const KillPoint& kill,
            Findings& findings, VerifyStats* stats) {
  std::vector<std::vector<Read>> reads(mode.threads.size());
  std::vector<Read*> all;
  for (std::size_t t = 0; t < mode.threads.size(); ++t) {
    ThreadModel& thread = mode.threads[t];
    thread.ForEachEntity([&](Entity& e) {
      Read r;
      r.entity = &e;
      r.commands = ReadCommands(thread, e);
      reads[t].push_back(std::move(r));
    });
    for (LeaseSlot& l : thread.leases()) {
      Read r;
      r.lease = &l;
      r.commands = {{"LEASE.INFO", l.resource}};
      reads[t].push_back(std::move(r));
    }
    for (Read& r : reads[t]) all.push_back(&r);
  }
  if (!Exchange(client, all)) {
    findings.Add({"the connection to the restarted server failed while reading back the state", "",
                  "replies", "none"});
    return false;
  }
  Judge judge(mode, strict, kill, findings, stats);
  for (std::size_t t = 0; t < mode.threads.size(); ++t) judge.Thread(mode.threads[t], reads[t]);
  judge.Finish();
  return true;
}

}  // namespace cairn::crash
