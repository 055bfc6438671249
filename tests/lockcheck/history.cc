#include "lockcheck/history.h"

#include <chrono>
#include <cstdlib>
#include <sstream>

namespace cairn::lockcheck {
namespace {

constexpr const char* kOps[] = {"acquire", "extend", "release", "write"};
constexpr const char* kOutcomes[] = {"ok", "busy", "notowner", "stale", "error"};

template <typename T, std::size_t N>
std::optional<T> Lookup(const char* const (&names)[N], const std::string& word) {
  for (std::size_t i = 0; i < N; ++i) {
    if (word == names[i]) return static_cast<T>(i);
  }
  return std::nullopt;
}

}  // namespace

const char* OpName(Op op) { return kOps[static_cast<int>(op)]; }
const char* OutcomeName(Outcome outcome) { return kOutcomes[static_cast<int>(outcome)]; }

std::string Format(const Event& e) {
  std::string value = e.value;  // One line, tab-separated: neither may appear inside.
  for (char& c : value) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  std::ostringstream out;
  out << e.client << '\t' << OpName(e.op) << '\t' << OutcomeName(e.outcome) << '\t' << e.resource
      << '\t' << e.invoked_us << '\t' << e.answered_us << '\t' << e.fencing << '\t' << e.ttl_ms
      << '\t' << e.expires_at_ms << '\t' << e.issued << '\t' << value;
  return out.str();
}

std::optional<Event> Parse(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (fields.size() < 10) {
    const std::size_t tab = line.find('\t', start);
    if (tab == std::string::npos) return std::nullopt;
    fields.push_back(line.substr(start, tab - start));
    start = tab + 1;
  }
  fields.push_back(line.substr(start));
  Event e;
  const std::optional<Op> op = Lookup<Op>(kOps, fields[1]);
  const std::optional<Outcome> outcome = Lookup<Outcome>(kOutcomes, fields[2]);
  if (!op || !outcome) return std::nullopt;
  auto number = [&](std::size_t i, std::int64_t* out) {
    char* end = nullptr;
    *out = std::strtoll(fields[i].c_str(), &end, 10);
    return !fields[i].empty() && *end == '\0';
  };
  std::int64_t client = 0, resource = 0;
  if (!number(0, &client) || !number(3, &resource) || !number(4, &e.invoked_us) ||
      !number(5, &e.answered_us) || !number(6, &e.fencing) || !number(7, &e.ttl_ms) ||
      !number(8, &e.expires_at_ms) || !number(9, &e.issued)) {
    return std::nullopt;
  }
  e.client = static_cast<int>(client);
  e.resource = static_cast<int>(resource);
  e.op = *op;
  e.outcome = *outcome;
  e.value = fields[10];
  return e;
}

std::string Describe(const Event& e) {
  std::ostringstream out;
  out << "client " << e.client << " " << OpName(e.op) << " r" << e.resource;
  if (e.fencing != 0) out << " fencing " << e.fencing;
  out << " sent " << e.invoked_us << " us, answered " << e.answered_us
      << " us: " << OutcomeName(e.outcome);
  if (e.op == Op::kAcquire && e.outcome == Outcome::kOk) {
    out << " (acquired at " << e.expires_at_ms - e.ttl_ms << " ms, expiring " << e.expires_at_ms
        << " ms)";
  }
  if (e.outcome == Outcome::kStale) out << " (newer number " << e.issued << ")";
  if (!e.value.empty()) out << " [" << e.value << "]";
  return out.str();
}

std::int64_t NowUs() {
  using std::chrono::duration_cast;
  using std::chrono::microseconds;
  return duration_cast<microseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace cairn::lockcheck
