// The reply writer's exact bytes, for every method, under RESP2 and RESP3.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>

#include "resp/reply_writer.h"

namespace cairn::server::resp {
namespace {

using namespace std::string_literals;

// The bytes `write` appends under `protocol`.
std::string Written(int protocol, const std::function<void(ReplyWriter&)>& write) {
  std::string out;
  ReplyWriter writer(&out, protocol);
  write(writer);
  return out;
}

// Both protocols write the same bytes.
void ExpectBoth(const std::function<void(ReplyWriter&)>& write, const std::string& expected) {
  EXPECT_EQ(Written(2, write), expected);
  EXPECT_EQ(Written(3, write), expected);
}

void ExpectEach(const std::function<void(ReplyWriter&)>& write, const std::string& resp2,
                const std::string& resp3) {
  EXPECT_EQ(Written(2, write), resp2);
  EXPECT_EQ(Written(3, write), resp3);
}

TEST(RespReplyWriterTest, Accessors) {
  std::string out;
  ReplyWriter two(&out, 2);
  ReplyWriter three(&out, 3);
  EXPECT_EQ(two.protocol(), 2);
  EXPECT_EQ(three.protocol(), 3);
  EXPECT_EQ(two.buffer(), &out);
}

TEST(RespReplyWriterTest, AppendsToWhatIsAlreadyThere) {
  std::string out = "+PONG\r\n";
  ReplyWriter writer(&out, 2);
  writer.Integer(7);
  writer.Ok();
  EXPECT_EQ(out, "+PONG\r\n:7\r\n+OK\r\n");
}

TEST(RespReplyWriterTest, SimpleString) {
  ExpectBoth([](ReplyWriter& w) { w.SimpleString("PONG"); }, "+PONG\r\n");
  ExpectBoth([](ReplyWriter& w) { w.SimpleString(""); }, "+\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Ok(); }, "+OK\r\n");
}

TEST(RespReplyWriterTest, Error) {
  ExpectBoth([](ReplyWriter& w) { w.Error("ERR unknown command 'FOO'"); },
             "-ERR unknown command 'FOO'\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Error("WRONGTYPE Operation against a key"); },
             "-WRONGTYPE Operation against a key\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Error(""); }, "-\r\n");
}

TEST(RespReplyWriterTest, ErrorLineBreaksBecomeSpaces) {
  ExpectBoth([](ReplyWriter& w) { w.Error("ERR a\r\nb\nc\rd\n"); }, "-ERR a  b c d \r\n");
  ExpectBoth([](ReplyWriter& w) { w.Error("ERR \0x"s); }, "-ERR \0x\r\n"s);
}

TEST(RespReplyWriterTest, ErrorDoesNotTouchEarlierBytes) {
  std::string out = "$2\r\n\r\n\r\n";
  ReplyWriter writer(&out, 2);
  writer.Error("ERR\n");
  EXPECT_EQ(out, "$2\r\n\r\n\r\n-ERR \r\n");
}

TEST(RespReplyWriterTest, Integer) {
  ExpectBoth([](ReplyWriter& w) { w.Integer(0); }, ":0\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Integer(42); }, ":42\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Integer(-1); }, ":-1\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Integer(std::numeric_limits<std::int64_t>::max()); },
             ":9223372036854775807\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Integer(std::numeric_limits<std::int64_t>::min()); },
             ":-9223372036854775808\r\n");
}

TEST(RespReplyWriterTest, Bulk) {
  ExpectBoth([](ReplyWriter& w) { w.Bulk("hello"); }, "$5\r\nhello\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Bulk(""); }, "$0\r\n\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Bulk("a\r\nb\0c"s); }, "$6\r\na\r\nb\0c\r\n"s);
  const std::string big(100000, 'x');
  ExpectBoth([&](ReplyWriter& w) { w.Bulk(big); }, "$100000\r\n" + big + "\r\n");
}

TEST(RespReplyWriterTest, Nulls) {
  ExpectEach([](ReplyWriter& w) { w.Null(); }, "$-1\r\n", "_\r\n");
  ExpectEach([](ReplyWriter& w) { w.NullArray(); }, "*-1\r\n", "_\r\n");
}

TEST(RespReplyWriterTest, AggregateHeaders) {
  ExpectBoth([](ReplyWriter& w) { w.ArrayHeader(0); }, "*0\r\n");
  ExpectBoth([](ReplyWriter& w) { w.ArrayHeader(3); }, "*3\r\n");
  ExpectBoth([](ReplyWriter& w) { w.ArrayHeader(1234567); }, "*1234567\r\n");
  ExpectEach([](ReplyWriter& w) { w.MapHeader(0); }, "*0\r\n", "%0\r\n");
  ExpectEach([](ReplyWriter& w) { w.MapHeader(2); }, "*4\r\n", "%2\r\n");
  ExpectEach([](ReplyWriter& w) { w.MapHeader(500001); }, "*1000002\r\n", "%500001\r\n");
  ExpectEach([](ReplyWriter& w) { w.SetHeader(0); }, "*0\r\n", "~0\r\n");
  ExpectEach([](ReplyWriter& w) { w.SetHeader(5); }, "*5\r\n", "~5\r\n");
  ExpectEach([](ReplyWriter& w) { w.PushHeader(3); }, "*3\r\n", ">3\r\n");
}

TEST(RespReplyWriterTest, Boolean) {
  ExpectEach([](ReplyWriter& w) { w.Boolean(true); }, ":1\r\n", "#t\r\n");
  ExpectEach([](ReplyWriter& w) { w.Boolean(false); }, ":0\r\n", "#f\r\n");
}

TEST(RespReplyWriterTest, Verbatim) {
  ExpectEach([](ReplyWriter& w) { w.Verbatim("txt", "Some string"); }, "$11\r\nSome string\r\n",
             "=15\r\ntxt:Some string\r\n");
  ExpectEach([](ReplyWriter& w) { w.Verbatim("mkd", ""); }, "$0\r\n\r\n", "=4\r\nmkd:\r\n");
  ExpectEach([](ReplyWriter& w) { w.Verbatim("txt", "a\r\nb"); }, "$4\r\na\r\nb\r\n",
             "=8\r\ntxt:a\r\nb\r\n");
}

TEST(RespReplyWriterTest, VerbatimFormatIsAlwaysThreeBytes) {
  // As Redis does: cut a longer format, pad a shorter one with spaces.
  ExpectEach([](ReplyWriter& w) { w.Verbatim("text", "x"); }, "$1\r\nx\r\n", "=5\r\ntex:x\r\n");
  ExpectEach([](ReplyWriter& w) { w.Verbatim("md", "x"); }, "$1\r\nx\r\n", "=5\r\nmd :x\r\n");
  ExpectEach([](ReplyWriter& w) { w.Verbatim("", "x"); }, "$1\r\nx\r\n", "=5\r\n   :x\r\n");
}

// A double written the two ways: RESP3 ",<text>", RESP2 a bulk string of <text>.
void ExpectDouble(double d, const std::string& text) {
  SCOPED_TRACE(text);
  ExpectEach([d](ReplyWriter& w) { w.Double(d); },
             "$" + std::to_string(text.size()) + "\r\n" + text + "\r\n", "," + text + "\r\n");
}

TEST(RespReplyWriterTest, Double) {
  ExpectDouble(1.5, "1.5");
  ExpectDouble(3, "3");
  ExpectDouble(-3, "-3");
  ExpectDouble(0, "0");
  ExpectDouble(-0.0, "-0");
  ExpectDouble(0.1, "0.1");
  ExpectDouble(-2.25, "-2.25");
  ExpectDouble(1.0 / 3, "0.3333333333333333");
  ExpectDouble(0.1 + 0.2, "0.30000000000000004");
  ExpectDouble(123456789.125, "123456789.125");
  ExpectDouble(100000000000000.0, "100000000000000");
  // printf's %.17g layout: plain up to 17 integer digits, as Redis 7.0 prints them.
  ExpectDouble(1e15, "1000000000000000");
  ExpectDouble(1e16, "10000000000000000");
  ExpectDouble(1e17, "1e+17");
  ExpectDouble(123456789012345678.0, "1.2345678901234568e+17");
  ExpectDouble(1e-4, "0.0001");
  ExpectDouble(1.5e-5, "1.5e-05");
  ExpectDouble(1e300, "1e+300");
  ExpectDouble(1e-7, "1e-07");
  ExpectDouble(std::numeric_limits<double>::max(), "1.7976931348623157e+308");
  ExpectDouble(std::numeric_limits<double>::min(), "2.2250738585072014e-308");
  ExpectDouble(std::numeric_limits<double>::denorm_min(), "5e-324");
  ExpectDouble(-std::numeric_limits<double>::denorm_min(), "-5e-324");
}

TEST(RespReplyWriterTest, DoubleSpecialValues) {
  ExpectDouble(std::numeric_limits<double>::infinity(), "inf");
  ExpectDouble(-std::numeric_limits<double>::infinity(), "-inf");
  ExpectDouble(std::numeric_limits<double>::quiet_NaN(), "nan");
  ExpectDouble(-std::numeric_limits<double>::quiet_NaN(), "nan");
}

// The same rule through printf and strtod, which share no code with std::to_chars: the fewest
// significant digits that read back as d, laid out as "%.17g" lays them out.
std::string ShortestRoundTrip(double d) {
  char buf[64];
  int digits = 1;
  for (; digits < 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  std::snprintf(buf, sizeof buf, "%.*e", digits - 1, d);
  const int exponent = std::atoi(std::strchr(buf, 'e') + 1);
  if (exponent < -4 || exponent >= 17) return buf;
  std::snprintf(buf, sizeof buf, "%.*f", std::max(0, digits - 1 - exponent), d);
  return buf;
}

TEST(RespReplyWriterTest, DoubleMatchesPrintfOnRandomValues) {
  std::mt19937_64 random(20240611);
  for (int i = 0; i < 20000; ++i) {
    // Random bit patterns cover every exponent; a few short decimals mimic real scores.
    double d;
    if (i % 4 == 0) {
      d = static_cast<double>(static_cast<std::int64_t>(random() % 2000001) - 1000000) / 1000;
    } else {
      const std::uint64_t bits = random();
      std::memcpy(&d, &bits, sizeof d);
      if (!std::isfinite(d)) continue;
    }
    const std::string text = ShortestRoundTrip(d);
    ASSERT_EQ(Written(3, [d](ReplyWriter& w) { w.Double(d); }), "," + text + "\r\n");
  }
}

TEST(RespReplyWriterTest, ANestedReply) {
  auto write = [](ReplyWriter& w) {
    w.MapHeader(2);
    w.Bulk("name");
    w.Bulk("cairn");
    w.Bulk("flags");
    w.SetHeader(2);
    w.Boolean(true);
    w.Null();
  };
  ExpectEach(write, "*4\r\n$4\r\nname\r\n$5\r\ncairn\r\n$5\r\nflags\r\n*2\r\n:1\r\n$-1\r\n",
             "%2\r\n$4\r\nname\r\n$5\r\ncairn\r\n$5\r\nflags\r\n~2\r\n#t\r\n_\r\n");
}

}  // namespace
}  // namespace cairn::server::resp
