// Writes RESP replies, in RESP2 or RESP3 as the connection negotiated (HELLO). A handler
// writes one logical reply through it; types that RESP2 lacks are written as Redis writes
// them for a RESP2 client (a map as a flat array of key, value, …; a double as a bulk string;
// a boolean as 1 or 0; null as $-1 or *-1). Appends to a caller's buffer; never throws
// except std::bad_alloc. Thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cairn::server::resp {

class ReplyWriter {
 public:
  // REQUIRES: protocol is 2 or 3.
  ReplyWriter(std::string* out, int protocol) : out_(out), protocol_(protocol) {}

  int protocol() const { return protocol_; }
  std::string* buffer() { return out_; }

  void SimpleString(std::string_view s);  // +s   REQUIRES: no \r or \n in s.
  void Ok() { SimpleString("OK"); }
  // -message. The message starts with its error code ("ERR …", "WRONGTYPE …"); \r and \n in
  // it are replaced by spaces, as Redis does.
  void Error(std::string_view message);
  void Integer(std::int64_t n);       // :n
  void Bulk(std::string_view s);      // $len\r\ns
  void Null();                        // RESP3 _   RESP2 $-1
  void NullArray();                   // RESP3 _   RESP2 *-1
  void ArrayHeader(std::size_t n);    // *n, then n replies
  void MapHeader(std::size_t pairs);  // RESP3 %n  RESP2 *2n, then key, value, …
  void SetHeader(std::size_t n);      // RESP3 ~n  RESP2 *n
  void PushHeader(std::size_t n);     // RESP3 >n  RESP2 *n
  // RESP3 ,d ; RESP2 a bulk string. Formatted as Redis formats doubles in replies: "%.17g"
  // without needless digits (Redis's d2string: 1.5 → "1.5", 3 → "3"), "inf", "-inf", "nan".
  void Double(double d);
  void Boolean(bool b);  // RESP3 #t/#f  RESP2 :1/:0
  // RESP3 =len\r\n<format>:<text> (format is 3 characters, e.g. "txt"); RESP2 a bulk string.
  void Verbatim(std::string_view format, std::string_view text);

 private:
  void Header(char type, std::int64_t n);

  std::string* out_;
  int protocol_;
};

// Whether the reply that starts at reply's first byte is an error (ReplyWriter writes every
// error, in both protocols, as a simple error).
inline bool IsErrorReply(std::string_view reply) { return !reply.empty() && reply.front() == '-'; }

}  // namespace cairn::server::resp
