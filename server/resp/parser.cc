#include "resp/parser.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

namespace cairn::server::resp {
namespace {

constexpr std::size_t kNpos = std::string_view::npos;

// The smallest frame a bulk string can take ("$0\r\n\r\n"): bounds how many arguments the
// bytes at hand can hold, so a declared count never reserves more than the input justifies.
constexpr std::size_t kMinBulkFrame = 6;

std::size_t SaturatingAdd(std::size_t a, std::size_t b) {
  return a > std::numeric_limits<std::size_t>::max() - b ? std::numeric_limits<std::size_t>::max()
                                                         : a + b;
}

ParseResult Finished(ParseStatus status, std::size_t consumed) {
  ParseResult result;
  result.status = status;
  result.consumed = consumed;
  return result;
}

ParseResult NeedMore(std::size_t needed) {
  ParseResult result;
  result.status = ParseStatus::kNeedMore;
  result.needed = needed;
  return result;
}

ParseResult Error(std::string message) {
  ParseResult result;
  result.status = ParseStatus::kError;
  result.error = std::move(message);
  return result;
}

// Redis's string2ll: an optional '-', then "0" alone or digits without a leading zero, and
// nothing else (no '+', no spaces, no "-0"); values outside int64 are rejected, not wrapped.
bool ParseInt64(std::string_view s, std::int64_t* out) {
  if (s == "0") {
    *out = 0;
    return true;
  }
  const bool negative = !s.empty() && s.front() == '-';
  if (negative) s.remove_prefix(1);
  if (s.empty() || s.front() < '1' || s.front() > '9') return false;
  // A negative value may reach one past INT64_MAX in magnitude.
  const std::uint64_t limit =
      static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + (negative ? 1 : 0);
  std::uint64_t value = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (limit - digit) / 10) return false;
    value = value * 10 + digit;
  }
  if (!negative) {
    *out = static_cast<std::int64_t>(value);
  } else if (value == limit) {
    *out = std::numeric_limits<std::int64_t>::min();
  } else {
    *out = -static_cast<std::int64_t>(value);
  }
  return true;
}

// A header line ("*<n>\r\n" or "$<n>\r\n") starting at some position of the input.
struct HeaderLine {
  enum class Status { kOk, kNeedMore, kTooLong, kBadTerminator } status = Status::kNeedMore;
  std::string_view number;  // kOk: the text between the type byte and "\r\n".
  std::size_t next = 0;     // kOk: where the bytes after "\r\n" start.
};

// Reads the header line whose type byte is input[pos]. Its text (type byte included) may take
// at most max_len bytes, so only that much is searched for the '\r': a client cannot make us
// scan, or wait for, an endless line.
HeaderLine ReadHeaderLine(std::string_view input, std::size_t pos, std::size_t max_len) {
  HeaderLine line;
  const std::string_view rest = input.substr(pos);
  const std::size_t cr = rest.substr(0, SaturatingAdd(max_len, 1)).find('\r');
  if (cr == kNpos) {
    line.status =
        rest.size() > max_len ? HeaderLine::Status::kTooLong : HeaderLine::Status::kNeedMore;
    return line;
  }
  if (cr + 1 == rest.size()) return line;  // kNeedMore: the '\n' has not arrived.
  if (rest[cr + 1] != '\n') {
    // A lone '\r' is part of the line, which can then no longer be a number.
    line.status = HeaderLine::Status::kBadTerminator;
    return line;
  }
  line.status = HeaderLine::Status::kOk;
  line.number = rest.substr(1, cr - 1);
  line.next = pos + cr + 2;
  return line;
}

// Reads the bulk string whose header starts at input[pos]. On success stores it in *value and
// returns the position after its "\r\n"; otherwise fills *failure and returns kNpos.
std::size_t ReadBulk(std::string_view input, std::size_t pos, const Limits& limits,
                     std::string_view* value, ParseResult* failure) {
  if (pos == input.size()) {
    *failure = NeedMore(0);
    return kNpos;
  }
  // Checked as soon as the byte arrives (Redis waits for the whole line): the answer is known.
  if (input[pos] != '$') {
    *failure = Error(std::string("expected '$', got '") + input[pos] + "'");
    return kNpos;
  }
  const HeaderLine header = ReadHeaderLine(input, pos, limits.max_inline_len);
  switch (header.status) {
    case HeaderLine::Status::kOk:
      break;
    case HeaderLine::Status::kNeedMore:
      *failure = NeedMore(0);
      return kNpos;
    case HeaderLine::Status::kTooLong:
      *failure = Error("too big bulk count string");
      return kNpos;
    case HeaderLine::Status::kBadTerminator:
      *failure = Error("invalid bulk length");
      return kNpos;
  }
  std::int64_t declared = 0;
  if (!ParseInt64(header.number, &declared) || declared < 0) {
    *failure = Error("invalid bulk length");
    return kNpos;
  }
  if (static_cast<std::uint64_t>(declared) > limits.max_bulk_len) {
    *failure =
        Error(limits.unauthenticated ? "unauthenticated bulk length" : "invalid bulk length");
    return kNpos;
  }
  const auto length = static_cast<std::size_t>(declared);
  const std::size_t start = header.next;
  const std::size_t available = input.size() - start;
  const std::size_t frame_end = SaturatingAdd(SaturatingAdd(start, length), 2);
  if (available < length) {
    *failure = NeedMore(frame_end);
    return kNpos;
  }
  // The terminator is checked byte by byte as it arrives, so a wrong byte fails at once.
  const std::size_t after = available - length;
  if ((after >= 1 && input[start + length] != '\r') ||
      (after >= 2 && input[start + length + 1] != '\n')) {
    *failure = Error("expected CRLF after bulk string");
    return kNpos;
  }
  if (after < 2) {
    *failure = NeedMore(frame_end);
    return kNpos;
  }
  *value = input.substr(start, length);
  return start + length + 2;
}

ParseResult ParseMultibulk(std::string_view input, const Limits& limits,
                           std::vector<std::string_view>* args) {
  const HeaderLine header = ReadHeaderLine(input, 0, limits.max_inline_len);
  switch (header.status) {
    case HeaderLine::Status::kOk:
      break;
    case HeaderLine::Status::kNeedMore:
      return NeedMore(0);
    case HeaderLine::Status::kTooLong:
      return Error("too big mbulk count string");
    case HeaderLine::Status::kBadTerminator:
      return Error("invalid multibulk length");
  }
  std::int64_t count = 0;
  if (!ParseInt64(header.number, &count)) return Error("invalid multibulk length");
  if (count > 0 && static_cast<std::uint64_t>(count) > limits.max_args) {
    return Error(limits.unauthenticated ? "unauthenticated multibulk length"
                                        : "invalid multibulk length");
  }
  // Redis skips "*0" and "*-1" as empty commands rather than refusing them.
  if (count <= 0) return Finished(ParseStatus::kEmpty, header.next);

  std::size_t pos = header.next;
  args->reserve(std::min(static_cast<std::size_t>(count), (input.size() - pos) / kMinBulkFrame));
  for (std::int64_t i = 0; i < count; ++i) {
    std::string_view value;
    ParseResult failure;
    const std::size_t start = pos;
    pos = ReadBulk(input, pos, limits, &value, &failure);
    if (pos == kNpos) {
      if (failure.status == ParseStatus::kNeedMore) {
        // This bulk ends past the input, and each one after it takes kMinBulkFrame bytes or
        // more.
        const std::size_t rest = static_cast<std::size_t>(count - i - 1);
        failure.at_least = std::max({failure.needed, input.size() + 1, start + kMinBulkFrame}) +
                           rest * kMinBulkFrame;
      }
      return failure;
    }
    args->push_back(value);
  }
  return Finished(ParseStatus::kCommand, pos);
}

// What sdssplitargs skips between words (C's isspace in the "C" locale).
bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// What ends an unquoted word. Narrower than IsBlank, as in sdssplitargs: '\v' and '\f' are
// skipped before a word but kept inside one.
bool EndsWord(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool IsHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

char Unescape(char c) {
  switch (c) {
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    case 'b':
      return '\b';
    case 'a':
      return '\a';
    default:
      return c;
  }
}

// Splits one inline line into words as Redis's sdssplitargs does. Unquoted words are views
// into the line; a word with quotes is unescaped into storage.
class WordSplitter {
 public:
  // Redis splits a C string, so a NUL byte ends the line there.
  WordSplitter(std::string_view line, std::string* storage)
      : line_(line.substr(0, line.find('\0'))), storage_(storage) {
    // Unescaping never produces more bytes than it reads, so after this reserve no append can
    // reallocate, and views into storage made along the way stay valid.
    storage_->clear();
    storage_->reserve(line_.size());
  }

  // Returns false on unbalanced quotes.
  bool Split(std::vector<std::string_view>* words) {
    while (true) {
      while (pos_ < line_.size() && IsBlank(line_[pos_])) ++pos_;
      if (pos_ == line_.size()) return true;
      std::string_view word;
      if (!NextWord(&word)) return false;
      words->push_back(word);
    }
  }

 private:
  char At(std::size_t i) const { return i < line_.size() ? line_[i] : '\0'; }

  // Reads the word at pos_ (not a blank). A quote may open anywhere in a word, and its closing
  // quote ends the word.
  bool NextWord(std::string_view* word) {
    const std::size_t start = pos_;
    while (pos_ < line_.size() && !EndsWord(line_[pos_]) && line_[pos_] != '"' &&
           line_[pos_] != '\'') {
      ++pos_;
    }
    if (pos_ == line_.size() || EndsWord(line_[pos_])) {
      *word = line_.substr(start, pos_ - start);
      return true;
    }
    const std::size_t begin = storage_->size();
    storage_->append(line_.substr(start, pos_ - start));
    const bool ok = line_[pos_] == '"' ? ReadDoubleQuoted() : ReadSingleQuoted();
    *word = std::string_view(storage_->data() + begin, storage_->size() - begin);
    return ok;
  }

  // pos_ is at the opening quote.
  bool ReadDoubleQuoted() {
    ++pos_;
    while (pos_ < line_.size()) {
      const char c = line_[pos_];
      if (c == '\\' && At(pos_ + 1) == 'x' && IsHexDigit(At(pos_ + 2)) &&
          IsHexDigit(At(pos_ + 3))) {
        storage_->push_back(
            static_cast<char>(HexValue(At(pos_ + 2)) * 16 + HexValue(At(pos_ + 3))));
        pos_ += 4;
      } else if (c == '\\' && pos_ + 1 < line_.size()) {
        storage_->push_back(Unescape(line_[pos_ + 1]));
        pos_ += 2;
      } else if (c == '"') {
        return CloseQuote();
      } else {
        storage_->push_back(c);
        ++pos_;
      }
    }
    return false;
  }

  bool ReadSingleQuoted() {
    ++pos_;
    while (pos_ < line_.size()) {
      const char c = line_[pos_];
      if (c == '\\' && At(pos_ + 1) == '\'') {
        storage_->push_back('\'');
        pos_ += 2;
      } else if (c == '\'') {
        return CloseQuote();
      } else {
        storage_->push_back(c);
        ++pos_;
      }
    }
    return false;
  }

  // pos_ is at a closing quote, which must end the line or be followed by a blank.
  bool CloseQuote() {
    ++pos_;
    return pos_ == line_.size() || IsBlank(line_[pos_]);
  }

  std::string_view line_;
  std::string* storage_;
  std::size_t pos_ = 0;
};

ParseResult ParseInline(std::string_view input, const Limits& limits,
                        std::vector<std::string_view>* args, std::string* storage) {
  // Search no further than the longest acceptable line plus "\r\n".
  const std::size_t newline = input.substr(0, SaturatingAdd(limits.max_inline_len, 2)).find('\n');
  if (newline == kNpos) {
    // A final '\r' may yet be dropped as part of "\r\n"; every other byte belongs to the line.
    const std::size_t line_len = input.size() - (input.back() == '\r' ? 1 : 0);
    if (line_len > limits.max_inline_len) return Error("too big inline request");
    return NeedMore(0);
  }
  std::string_view line = input.substr(0, newline);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  // Redis accepts a longer line if it arrived in one read; refusing it whatever the reads
  // were makes the answer independent of how the bytes were split.
  if (line.size() > limits.max_inline_len) return Error("too big inline request");
  if (!WordSplitter(line, storage).Split(args)) return Error("unbalanced quotes in request");
  return Finished(args->empty() ? ParseStatus::kEmpty : ParseStatus::kCommand, newline + 1);
}

}  // namespace

ParseResult ParseCommand(std::string_view input, const Limits& limits,
                         std::vector<std::string_view>* args, std::string* storage) {
  args->clear();
  ParseResult result = input.empty()          ? NeedMore(0)
                       : input.front() == '*' ? ParseMultibulk(input, limits, args)
                                              : ParseInline(input, limits, args, storage);
  // Arguments gathered before the input ran out or went wrong are not a command.
  if (result.status != ParseStatus::kCommand) args->clear();
  if (result.status == ParseStatus::kNeedMore) {
    result.at_least = std::max({result.at_least, result.needed, input.size() + 1});
  }
  return result;
}

}  // namespace cairn::server::resp
