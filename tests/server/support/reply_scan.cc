#include "server/support/reply_scan.h"

#include <cstdint>

namespace cairn::test {
namespace {

enum class Step { kOk, kIncomplete, kMalformed };

// Deeper nesting than any reply of ours: a sign of garbage, and a bound on the recursion.
constexpr int kMaxDepth = 32;

// A RESP integer: optional '-', then digits (at least one).
bool IsInteger(std::string_view s) {
  if (!s.empty() && s.front() == '-') s.remove_prefix(1);
  if (s.empty() || s.size() > 19) return false;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::int64_t ToInt(std::string_view s) {
  const bool negative = !s.empty() && s.front() == '-';
  if (negative) s.remove_prefix(1);
  std::int64_t v = 0;
  for (const char c : s) v = v * 10 + (c - '0');
  return negative ? -v : v;
}

class Scanner {
 public:
  explicit Scanner(std::string_view bytes) : bytes_(bytes) {}

  // Scans one reply at pos_; on kOk pos_ is after it.
  Step Reply(int depth) {
    if (depth > kMaxDepth) return Step::kMalformed;
    std::string_view line;
    if (const Step s = Line(&line); s != Step::kOk) return s;
    if (line.empty()) return Step::kMalformed;
    const char type = line.front();
    const std::string_view rest = line.substr(1);
    switch (type) {
      case '+':
      case '-':
        return Step::kOk;
      case ':':
      case '(':
        return IsInteger(rest) ? Step::kOk : Step::kMalformed;
      case ',':
        return rest.empty() ? Step::kMalformed : Step::kOk;
      case '_':
        return rest.empty() ? Step::kOk : Step::kMalformed;
      case '#':
        return rest == "t" || rest == "f" ? Step::kOk : Step::kMalformed;
      case '$':
      case '=':
      case '!':
        return Bulk(rest, type == '$');
      case '*':
      case '~':
      case '>':
        return Aggregate(rest, 1, type == '*', depth);
      case '%':
      case '|':
        return Aggregate(rest, 2, false, depth);
      default:
        return Step::kMalformed;
    }
  }

  std::size_t pos() const { return pos_; }

 private:
  // A line ended by "\r\n"; a bare '\r' or '\n' inside a header line is garbage.
  Step Line(std::string_view* line) {
    const std::size_t end = bytes_.find("\r\n", pos_);
    if (end == std::string_view::npos) return Step::kIncomplete;
    *line = bytes_.substr(pos_, end - pos_);
    pos_ = end + 2;
    return line->find_first_of("\r\n") == std::string_view::npos ? Step::kOk : Step::kMalformed;
  }

  Step Bulk(std::string_view length, bool null_allowed) {
    if (!IsInteger(length)) return Step::kMalformed;
    const std::int64_t n = ToInt(length);
    if (n == -1 && null_allowed) return Step::kOk;
    if (n < 0) return Step::kMalformed;
    const auto size = static_cast<std::size_t>(n);
    if (bytes_.size() - pos_ < size + 2) return Step::kIncomplete;
    if (bytes_.substr(pos_ + size, 2) != "\r\n") return Step::kMalformed;
    pos_ += size + 2;
    return Step::kOk;
  }

  Step Aggregate(std::string_view count, std::int64_t per_entry, bool null_allowed, int depth) {
    if (!IsInteger(count)) return Step::kMalformed;
    const std::int64_t n = ToInt(count);
    if (n == -1 && null_allowed) return Step::kOk;
    if (n < 0) return Step::kMalformed;
    for (std::int64_t i = 0; i < n * per_entry; ++i) {
      if (const Step s = Reply(depth + 1); s != Step::kOk) return s;
    }
    return Step::kOk;
  }

  std::string_view bytes_;
  std::size_t pos_ = 0;
};

}  // namespace

ReplyScan ScanReplies(std::string_view bytes) {
  ReplyScan scan;
  Scanner scanner(bytes);
  while (scanner.pos() < bytes.size()) {
    const std::size_t start = scanner.pos();
    const Step step = scanner.Reply(0);
    if (step != Step::kOk) {
      scan.incomplete_tail = step == Step::kIncomplete;
      scan.malformed = step == Step::kMalformed;
      break;
    }
    const std::size_t line_end = bytes.find("\r\n", start);
    scan.first_lines.emplace_back(bytes.substr(start, line_end - start));
    ++scan.complete;
    scan.consumed = scanner.pos();
  }
  return scan;
}

}  // namespace cairn::test
