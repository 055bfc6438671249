#include "crash/library/model.h"

#include <algorithm>
#include <charconv>
#include <optional>

namespace cairn::crash::library {
namespace {

std::optional<std::int64_t> Number(const std::string& s) {
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// "a,b,c" ↔ {a, b, c}; "-" is empty.
std::vector<std::string> Items(const std::string& s) {
  std::vector<std::string> out;
  if (s == "-") return out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}
std::string Join(const std::vector<std::string>& items) {
  if (items.empty()) return "-";
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

// A hash's "f=v" items by field.
std::map<std::string, std::string> Fields(const std::string& s) {
  std::map<std::string, std::string> out;
  for (const std::string& item : Items(s)) {
    const std::size_t eq = item.find('=');
    out[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return out;
}
std::string JoinFields(const std::map<std::string, std::string>& fields) {
  std::vector<std::string> items;
  for (const auto& [f, v] : fields) items.push_back(f + "=" + v);
  return Join(items);
}

}  // namespace

bool Expect::Matches(const std::string& found) const {
  if (fence_above < 0) return found == state;
  const std::optional<std::int64_t> n = Number(found);
  return n && *n > fence_above;
}

std::string Expect::Text() const {
  return fence_above < 0 ? state : "any fencing number above " + std::to_string(fence_above);
}

Kind KindOfName(const std::string& name) {
  switch (name.empty() ? 's' : name[0]) {
    case 'p':
      return Kind::kPair;
    case 'h':
      return Kind::kHash;
    case 'S':
      return Kind::kSet;
    case 'l':
      return Kind::kList;
    case 'r':
      return Kind::kLease;
    case 'i':
      return Kind::kIdem;
    case 'j':
      return Kind::kJob;
    case 'z':
      return Kind::kZSet;
    case 'x':
      return Kind::kStream;
    case 'b':
      return Kind::kBucket;
    default:
      return Kind::kString;
  }
}

std::string EmptyState(Kind kind) {
  switch (kind) {
    case Kind::kPair:
      return "-|-";
    case Kind::kLease:
    case Kind::kBucket:
      return "0";
    case Kind::kIdem:
      return "none";
    case Kind::kJob:
      return "absent";
    default:
      return "-";
  }
}

Model::Model(int threads) : threads_(static_cast<std::size_t>(threads)) {}

void Model::StartCycle() {
  for (ThreadModel& t : threads_) {
    t.last_seq = t.last_acked = 0;
    t.pending.clear();
    t.acked = 0;
  }
  fences_.clear();
}

void Model::Apply(const Line& line, bool killed, Findings& findings) {
  if (line.kind == 'r') return;
  const std::string who =
      "thread " + std::to_string(line.thread) + " call " + std::to_string(line.seq);
  if (line.thread < 0 || static_cast<std::size_t>(line.thread) >= threads_.size()) {
    findings.Add({"a line from an unknown thread", who, "", ""});
    return;
  }
  ThreadModel& t = threads_[static_cast<std::size_t>(line.thread)];
  if (line.kind == 'b') {
    if (line.seq != t.last_seq + 1 || !t.pending.empty()) {
      findings.Add({"calls announced out of order", who, std::to_string(t.last_seq + 1), ""});
    }
    t.last_seq = line.seq;
    t.pending = line.words;
    return;
  }
  if (line.seq != t.last_seq || t.pending.empty()) {
    findings.Add({"an answer to a call never announced", who, std::to_string(t.last_seq), ""});
    return;
  }
  if (line.kind == 'e') {
    // The outcome is unknown: the call stays pending (in flight) and the thread stops.
    if (!killed) {
      findings.Add({"a library call failed before the kill", who, "OK", line.words[0]});
    }
    return;
  }
  Effect(line.thread, line.seq, t.pending, &line.words, findings);
  t.pending.clear();
  t.last_acked = line.seq;
  ++t.acked;
}

void Model::EndCycle() {
  Findings ignored;  // an op in flight has no answer to check
  for (std::size_t i = 0; i < threads_.size(); ++i) {
    ThreadModel& t = threads_[i];
    if (t.pending.empty()) continue;
    Effect(static_cast<int>(i), t.last_seq, t.pending, nullptr, ignored);
    t.pending.clear();
  }
}

std::uint64_t Model::acked() const {
  std::uint64_t n = 0;
  for (const ThreadModel& t : threads_) n += t.acked;
  return n;
}

std::uint64_t Model::in_flight() const {
  std::uint64_t n = 0;
  for (const ThreadModel& t : threads_) n += t.last_seq > t.last_acked ? 1 : 0;
  return n;
}

void Model::Effect(int thread, std::uint32_t seq, const std::vector<std::string>& w,
                   const std::vector<std::string>* answer, Findings& findings) {
  ThreadModel& t = threads_[static_cast<std::size_t>(thread)];
  const std::string& op = w[0];
  const std::string name = w.size() > 1 ? w[1] : "";
  std::string call;
  for (const std::string& word : w) call += (call.empty() ? "" : " ") + word;
  const std::string who =
      "thread " + std::to_string(thread) + " call " + std::to_string(seq) + " (" + call + ")";
  auto said = [&](std::size_t i) -> std::string {
    return answer != nullptr && answer->size() > i ? (*answer)[i] : "";
  };
  // A library answer the acknowledged history does not explain.
  auto contradicts = [&](const std::string& what, const std::string& expected) {
    findings.Add({what, who, expected, answer != nullptr ? Join(*answer) : ""});
  };
  auto entity = [&](const std::string& n) -> Entity& {
    auto [it, added] = t.entities.try_emplace(n);
    if (added) {
      it->second.kind = KindOfName(n);
      it->second.base = EmptyState(it->second.kind);
    }
    return it->second;
  };
  auto step = [&](Entity& e, Expect after) {
    e.steps.push_back({seq, std::move(after), answer != nullptr});
  };

  if (op == "claim") {
    // Changes no modelled state; what it delivers must be a live job with its payload.
    if (answer == nullptr || said(0) == "none") return;
    const std::string job = said(0);
    auto it = t.entities.find(job);
    if (t.done_jobs.count(job) != 0 || (it != t.entities.end() && it->second.Current() == "done")) {
      contradicts("a job delivered again after its ack was acknowledged", "no such delivery");
    } else if (it == t.entities.end() || it->second.Current() != "live") {
      contradicts("a claim delivered a job that is not in the queue", "a live job");
    } else if (said(2) != PayloadOf(job)) {
      contradicts("a claimed job has the wrong payload", PayloadOf(job));
    }
    return;
  }
  if (name.empty()) {
    findings.Add({"an unknown call", who, "", ""});
    return;
  }
  Entity& e = entity(name);
  const std::string cur = e.Current();
  if (op == "set") {
    step(e, {w[2]});
  } else if (op == "del") {
    if (answer != nullptr && said(0) != (cur == "-" ? "0" : "1")) {
      contradicts("Delete's answer contradicts the history", cur == "-" ? "0" : "1");
    }
    step(e, {"-"});
  } else if (op == "txn") {
    step(e, {w[2] == "-" ? "-|-" : w[2] + "|" + w[2]});
  } else if (op == "hset" || op == "hdel") {
    std::map<std::string, std::string> fields = Fields(cur);
    const bool had = fields.count(w[2]) != 0;
    const std::string want = op == "hset" ? (had ? "0" : "1") : (had ? "1" : "0");
    if (answer != nullptr && said(0) != want) {
      contradicts("a hash call's count contradicts the history", want);
    }
    if (op == "hset") fields[w[2]] = w[3];
    if (op == "hdel") fields.erase(w[2]);
    step(e, {JoinFields(fields)});
  } else if (op == "sadd" || op == "srem") {
    std::vector<std::string> members = Items(cur);
    const auto at = std::find(members.begin(), members.end(), w[2]);
    const bool had = at != members.end();
    const std::string want = op == "sadd" ? (had ? "0" : "1") : (had ? "1" : "0");
    if (answer != nullptr && said(0) != want) {
      contradicts("a set call's count contradicts the history", want);
    }
    if (op == "sadd" && !had) members.push_back(w[2]);
    if (op == "srem" && had) members.erase(at);
    std::sort(members.begin(), members.end());
    step(e, {Join(members)});
  } else if (op == "push") {
    std::vector<std::string> items = Items(cur);
    if (answer != nullptr && said(0) != std::to_string(items.size() + 1)) {
      contradicts("ListPush's length contradicts the history", std::to_string(items.size() + 1));
    }
    items.push_back(w[2]);
    step(e, {Join(items)});
  } else if (op == "pop") {
    std::vector<std::string> items = Items(cur);
    const std::string head = items.empty() ? "-" : items.front();
    if (answer != nullptr && said(0) != head) {
      contradicts("ListPop returned another element than the history's head", head);
    }
    if (!items.empty()) items.erase(items.begin());
    step(e, {Join(items)});
  } else if (op == "zadd" || op == "zrem") {
    std::map<std::string, std::string> scores = Fields(cur);
    const bool had = scores.count(w[2]) != 0;
    const std::string want = op == "zadd" ? (had ? "0" : "1") : (had ? "1" : "0");
    if (answer != nullptr && said(0) != want) {
      contradicts("a sorted set call's count contradicts the history", want);
    }
    if (op == "zadd") scores[w[2]] = w[3];
    if (op == "zrem") scores.erase(w[2]);
    step(e, {JoinFields(scores)});
  } else if (op == "xadd") {
    std::vector<std::string> entries = Items(cur);
    if (answer != nullptr && said(0) != w[2]) {
      contradicts("StreamAdd did not add the entry with the id given", w[2]);
    }
    entries.push_back(w[2] + "=" + w[3]);
    step(e, {Join(entries)});
  } else if (op == "xtrim") {
    std::vector<std::string> entries = Items(cur);
    const std::size_t keep = static_cast<std::size_t>(Number(w[2]).value_or(0));
    const std::size_t removed = entries.size() > keep ? entries.size() - keep : 0;
    if (answer != nullptr && said(0) != std::to_string(removed)) {
      contradicts("StreamTrim's count contradicts the history", std::to_string(removed));
    }
    entries.erase(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(removed));
    step(e, {Join(entries)});
  } else if (op == "take") {
    // The bucket does not refill within a run: a take fits exactly when the tokens taken since
    // the last reset leave room for its cost, and leaves the rest.
    const std::int64_t used = Number(cur).value_or(0), cost = Number(w[2]).value_or(0);
    const bool fits = used + cost <= kBucketCapacity;
    const std::string want = fits ? "allowed " + std::to_string(kBucketCapacity - used - cost)
                                  : "refused " + std::to_string(kBucketCapacity - used);
    if (answer != nullptr && said(0) + " " + said(1) != want) {
      contradicts("a rate limit take contradicts the tokens taken before", want);
    }
    if (fits) step(e, {std::to_string(used + cost)});
  } else if (op == "reset") {
    const std::string want = cur == "0" ? "0" : "1";
    if (answer != nullptr && said(0) != want) {
      contradicts("a rate limit reset's answer contradicts the history", want);
    }
    step(e, {"0"});
  } else if (op == "acquire") {
    const std::int64_t highest = Number(cur).value_or(0);
    const std::int64_t floor = std::max(highest, fence_floor);
    if (answer == nullptr) {
      step(e, {cur, floor});
    } else if (said(0) != "busy") {
      const std::optional<std::int64_t> fencing = Number(said(0));
      if (!fencing || *fencing <= floor) {
        contradicts("a fencing number did not grow", "above " + std::to_string(floor));
      } else if (!fences_.insert(*fencing).second) {
        contradicts("a fencing number was issued twice", "a fresh one");
      }
      fence_acked = std::max(fence_acked, fencing.value_or(0));
      step(e, {said(0)});
    }
  } else if (op == "release") {
    // The highest fencing number stays.
  } else if (op == "enqueue") {
    if (answer != nullptr && said(0) != "created") {
      contradicts("a new job id was taken for a duplicate", "created");
    }
    step(e, {"live"});
  } else if (op == "ack") {
    if (answer == nullptr || said(0) == "done") step(e, {"done"});
  } else if (op == "iclaim") {
    const bool completed = cur.rfind("completed|", 0) == 0;
    if (answer == nullptr) {
      if (!completed) step(e, {"in_progress"});
    } else if (said(0) == "claimed") {
      if (completed) contradicts("a completed idempotency record was claimed again", cur);
      step(e, {"in_progress"});
    } else if (said(0) == "completed") {
      if (cur != "completed|" + said(1)) {
        contradicts("a stored idempotency outcome changed (or appeared from nowhere)", cur);
      }
    } else if (said(0) == "inprogress") {
      if (cur != "in_progress") contradicts("an idempotency record is in progress", cur);
    } else {
      contradicts("an idempotency claim answered mismatch for the same request", "no mismatch");
    }
  } else if (op == "icomplete") {
    if (answer == nullptr || said(0) == "done") step(e, {"completed|" + w[2]});
  } else {
    findings.Add({"an unknown call", who, "", ""});
  }
}

}  // namespace cairn::crash::library
