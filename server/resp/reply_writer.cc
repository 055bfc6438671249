#include "resp/reply_writer.h"

#include <charconv>
#include <cmath>

namespace cairn::server::resp {
namespace {

constexpr std::string_view kCrlf = "\r\n";

// Longest "%.17g" of a double: sign, 17 digits, point, "e-308".
constexpr std::size_t kMaxDoubleChars = 32;

// Writes d as Redis writes a double in a reply and returns the length: printf's "%.17g"
// layout (plain up to 17 integer digits, "1e+17" beyond, "1e-05" below 1e-4), as Redis 7.0
// writes it, but with the shortest digits that read back as d, as Redis 7.2 chooses them, so
// 0.1 is "0.1" rather than 7.0's "0.10000000000000001". std::to_chars has no locale.
std::size_t FormatDouble(double d, char* buf) {
  std::string_view special;
  if (std::isnan(d)) {
    special = "nan";  // Whatever the sign or payload, as Redis prints it.
  } else if (std::isinf(d)) {
    special = d < 0 ? "-inf" : "inf";
  }
  if (!special.empty()) {
    special.copy(buf, special.size());
    return special.size();
  }
  char* const end = buf + kMaxDoubleChars;
  const auto scientific = std::to_chars(buf, end, d, std::chars_format::scientific);
  const std::string_view text(buf, static_cast<std::size_t>(scientific.ptr - buf));
  int exponent = 0;
  const std::size_t e = text.find('e');
  std::from_chars(text.data() + e + (text[e + 1] == '+' ? 2 : 1), text.data() + text.size(),
                  exponent);
  if (exponent < -4 || exponent >= 17) return text.size();
  return static_cast<std::size_t>(std::to_chars(buf, end, d, std::chars_format::fixed).ptr - buf);
}

}  // namespace

void ReplyWriter::SimpleString(std::string_view s) {
  out_->push_back('+');
  out_->append(s);
  out_->append(kCrlf);
}

void ReplyWriter::Error(std::string_view message) {
  out_->push_back('-');
  const std::size_t start = out_->size();
  out_->append(message);
  // A line break inside the message would end the reply early and desynchronize the client.
  for (std::size_t i = start; i < out_->size(); ++i) {
    char& c = (*out_)[i];
    if (c == '\r' || c == '\n') c = ' ';
  }
  out_->append(kCrlf);
}

void ReplyWriter::Integer(std::int64_t n) { Header(':', n); }

void ReplyWriter::Bulk(std::string_view s) {
  Header('$', static_cast<std::int64_t>(s.size()));
  out_->append(s);
  out_->append(kCrlf);
}

void ReplyWriter::Null() {
  if (protocol_ == 3) {
    out_->append("_\r\n");
  } else {
    Header('$', -1);
  }
}

void ReplyWriter::NullArray() {
  if (protocol_ == 3) {
    out_->append("_\r\n");
  } else {
    Header('*', -1);
  }
}

void ReplyWriter::ArrayHeader(std::size_t n) { Header('*', static_cast<std::int64_t>(n)); }

void ReplyWriter::MapHeader(std::size_t pairs) {
  if (protocol_ == 3) {
    Header('%', static_cast<std::int64_t>(pairs));
  } else {
    Header('*', static_cast<std::int64_t>(pairs) * 2);
  }
}

void ReplyWriter::SetHeader(std::size_t n) {
  Header(protocol_ == 3 ? '~' : '*', static_cast<std::int64_t>(n));
}

void ReplyWriter::PushHeader(std::size_t n) {
  Header(protocol_ == 3 ? '>' : '*', static_cast<std::int64_t>(n));
}

void ReplyWriter::Double(double d) {
  char buf[kMaxDoubleChars];
  const std::string_view text(buf, FormatDouble(d, buf));
  if (protocol_ == 3) {
    out_->push_back(',');
    out_->append(text);
    out_->append(kCrlf);
  } else {
    Bulk(text);
  }
}

void ReplyWriter::Boolean(bool b) {
  if (protocol_ == 3) {
    out_->append(b ? "#t\r\n" : "#f\r\n");
  } else {
    Integer(b ? 1 : 0);
  }
}

void ReplyWriter::Verbatim(std::string_view format, std::string_view text) {
  if (protocol_ != 3) {
    Bulk(text);
    return;
  }
  // As Redis does, the format always takes exactly 3 bytes (cut, or padded with spaces), so
  // the declared length stays right whatever the caller passed.
  constexpr std::size_t kFormatLen = 3;
  Header('=', static_cast<std::int64_t>(kFormatLen + 1 + text.size()));
  const std::string_view cut = format.substr(0, kFormatLen);
  out_->append(cut);
  out_->append(kFormatLen - cut.size(), ' ');
  out_->push_back(':');
  out_->append(text);
  out_->append(kCrlf);
}

void ReplyWriter::Header(char type, std::int64_t n) {
  // Type byte, up to 20 characters of int64 ("-9223372036854775808"), "\r\n".
  char buf[1 + 20 + 2];
  buf[0] = type;
  char* p = std::to_chars(buf + 1, buf + 21, n).ptr;
  *p++ = '\r';
  *p++ = '\n';
  out_->append(buf, static_cast<std::size_t>(p - buf));
}

}  // namespace cairn::server::resp
