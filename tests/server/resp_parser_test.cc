// The RESP request parser against Redis's behaviour: multibulk and inline commands, every
// protocol error with Redis's wording, limits at and one past their bounds, and input that
// arrives one byte at a time.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "resp/parser.h"

namespace cairn::server::resp {

void PrintTo(ParseStatus status, std::ostream* os) {
  switch (status) {
    case ParseStatus::kCommand:
      *os << "kCommand";
      return;
    case ParseStatus::kEmpty:
      *os << "kEmpty";
      return;
    case ParseStatus::kNeedMore:
      *os << "kNeedMore";
      return;
    case ParseStatus::kError:
      *os << "kError";
      return;
  }
  *os << "ParseStatus(" << static_cast<int>(status) << ")";
}

namespace {

using namespace std::string_literals;
using Args = std::vector<std::string>;

// One parse, with the arguments copied out so that the input may go away.
struct Parsed {
  ParseResult result;
  Args args;
};

Parsed Parse(std::string_view input, const Limits& limits = {}) {
  std::vector<std::string_view> views;
  std::string storage;
  Parsed parsed;
  parsed.result = ParseCommand(input, limits, &views, &storage);
  parsed.args.assign(views.begin(), views.end());
  return parsed;
}

std::string Multibulk(const Args& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const auto& arg : args) out += "$" + std::to_string(arg.size()) + "\r\n" + arg + "\r\n";
  return out;
}

void ExpectCommand(std::string_view input, const Args& args, std::size_t consumed,
                   const Limits& limits = {}) {
  SCOPED_TRACE(testing::PrintToString(std::string(input)));
  const Parsed parsed = Parse(input, limits);
  EXPECT_EQ(parsed.result.status, ParseStatus::kCommand) << parsed.result.error;
  EXPECT_EQ(parsed.result.consumed, consumed);
  EXPECT_EQ(parsed.args, args);
}

void ExpectWholeCommand(std::string_view input, const Args& args) {
  ExpectCommand(input, args, input.size());
}

void ExpectEmpty(std::string_view input, std::size_t consumed, const Limits& limits = {}) {
  SCOPED_TRACE(testing::PrintToString(std::string(input)));
  const Parsed parsed = Parse(input, limits);
  EXPECT_EQ(parsed.result.status, ParseStatus::kEmpty) << parsed.result.error;
  EXPECT_EQ(parsed.result.consumed, consumed);
  EXPECT_TRUE(parsed.args.empty());
}

void ExpectNeedMore(std::string_view input, std::size_t needed, const Limits& limits = {}) {
  SCOPED_TRACE(testing::PrintToString(std::string(input)));
  const Parsed parsed = Parse(input, limits);
  EXPECT_EQ(parsed.result.status, ParseStatus::kNeedMore) << parsed.result.error;
  EXPECT_EQ(parsed.result.needed, needed);
  EXPECT_EQ(parsed.result.consumed, 0u);
  EXPECT_TRUE(parsed.args.empty());
}

void ExpectError(std::string_view input, std::string_view error, const Limits& limits = {}) {
  SCOPED_TRACE(testing::PrintToString(std::string(input)));
  const Parsed parsed = Parse(input, limits);
  EXPECT_EQ(parsed.result.status, ParseStatus::kError);
  EXPECT_EQ(parsed.result.error, error);
  EXPECT_TRUE(parsed.args.empty());
}

bool PointsInto(std::string_view part, std::string_view whole) {
  return part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size();
}

// ---- Multibulk --------------------------------------------------------------------------

TEST(RespParserTest, ParsesMultibulkCommand) {
  const std::string input = "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n";
  ExpectCommand(input, {"GET", "k"}, input.size());
}

TEST(RespParserTest, MultibulkArgumentsAreViewsIntoTheInput) {
  const std::string input = "*2\r\n$3\r\nGET\r\n$4\r\nkey1\r\n";
  std::vector<std::string_view> args;
  std::string storage;
  const ParseResult result = ParseCommand(input, Limits{}, &args, &storage);
  ASSERT_EQ(result.status, ParseStatus::kCommand);
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(args[0].data(), input.data() + 8);
  EXPECT_EQ(args[1].data(), input.data() + 17);
  EXPECT_TRUE(storage.empty());
}

TEST(RespParserTest, ParsesOneCommandOfAPipelineAtATime) {
  const std::string first = Multibulk({"SET", "k", "v"});
  const std::string second = Multibulk({"GET", "k"});
  const std::string input = first + second + "*1\r\n$4\r\nPI";
  ExpectCommand(input, {"SET", "k", "v"}, first.size());
  ExpectCommand(std::string_view(input).substr(first.size()), {"GET", "k"}, second.size());
  ExpectNeedMore(std::string_view(input).substr(first.size() + second.size()), 4 + 4 + 4 + 2);
}

TEST(RespParserTest, BulksAreBinarySafe) {
  const std::string value = "a\r\nb\0c$3\r\n*1\r\n\xff\n\r"s;
  const std::string input = Multibulk({"SET", value, ""s, "\0"s});
  ExpectCommand(input, {"SET", value, "", "\0"s}, input.size());
}

TEST(RespParserTest, EmptyBulk) { ExpectCommand("*1\r\n$0\r\n\r\n", {""}, 10); }

TEST(RespParserTest, ZeroOrNegativeCountIsAnEmptyCommand) {
  ExpectEmpty("*0\r\n", 4);
  ExpectEmpty("*-1\r\n", 5);
  ExpectEmpty("*-42\r\n$3\r\nGET\r\n", 6);
  ExpectEmpty("*-9223372036854775808\r\n", 23);
  ExpectEmpty("*0\r\n*1\r\n$4\r\nPING\r\n", 4);
}

TEST(RespParserTest, InvalidMultibulkLength) {
  for (const std::string& input :
       {"*abc\r\n"s, "*\r\n"s, "*+1\r\n"s, "* 1\r\n"s, "*1 \r\n"s, "*01\r\n"s, "*-0\r\n"s,
        "*-\r\n"s, "*1x\r\n"s, "*1.0\r\n"s, "*1\0\r\n"s, "*99999999999999999999\r\n"s,
        "*9223372036854775808\r\n"s, "*-9223372036854775809\r\n"s, "*1\rX"s, "*1\r\r\n"s}) {
    ExpectError(input, "invalid multibulk length");
  }
}

TEST(RespParserTest, ArgumentCountAtAndPastTheLimit) {
  Limits limits;
  limits.max_args = 3;
  const std::string three = Multibulk({"a", "b", "c"});
  ExpectCommand(three, {"a", "b", "c"}, three.size(), limits);
  // Refused from the header alone, before any argument arrives.
  ExpectError("*4\r\n", "invalid multibulk length", limits);
  ExpectError(Multibulk({"a", "b", "c", "d"}), "invalid multibulk length", limits);
}

TEST(RespParserTest, DefaultArgumentCountLimit) {
  ExpectNeedMore("*1048576\r\n", 0);
  ExpectError("*1048577\r\n", "invalid multibulk length");
  ExpectError("*2147483648\r\n", "invalid multibulk length");
}

TEST(RespParserTest, ExpectedDollar) {
  ExpectError("*1\r\n:1\r\n", "expected '$', got ':'");
  ExpectError("*2\r\n$1\r\na\r\n+x\r\n", "expected '$', got '+'");
  // Known from the first byte: no need to wait for the rest of the line.
  ExpectError("*1\r\nX", "expected '$', got 'X'");
  ExpectError("*1\r\n\r\n", "expected '$', got '\r'");
  ExpectError("*1\r\n*1\r\n", "expected '$', got '*'");
}

TEST(RespParserTest, InvalidBulkLength) {
  for (const std::string& bulk :
       {"$abc\r\n"s, "$\r\n"s, "$-1\r\n"s, "$-5\r\n"s, "$+1\r\n"s, "$ 1\r\n"s, "$1 \r\n"s,
        "$01\r\n"s, "$-0\r\n"s, "$1x\r\n"s, "$99999999999999999999\r\n"s, "$1\rX"s, "$1\r\r\n"s}) {
    ExpectError("*1\r\n" + bulk, "invalid bulk length");
  }
}

TEST(RespParserTest, BulkLengthAtAndPastTheLimit) {
  Limits limits;
  limits.max_bulk_len = 5;
  ExpectCommand("*1\r\n$5\r\nhello\r\n", {"hello"}, 15, limits);
  // Refused from the header alone: the payload is never waited for.
  ExpectError("*1\r\n$6\r\n", "invalid bulk length", limits);
  ExpectError("*2\r\n$1\r\na\r\n$6\r\nhello!\r\n", "invalid bulk length", limits);
}

TEST(RespParserTest, DefaultBulkLengthLimit) {
  ExpectNeedMore("*1\r\n$536870912\r\n", 4 + 12 + 536870912 + 2);
  ExpectError("*1\r\n$536870913\r\n", "invalid bulk length");
}

TEST(RespParserTest, BulkMustEndWithCrlf) {
  ExpectError("*1\r\n$3\r\nabcX\r\n", "expected CRLF after bulk string");
  ExpectError("*1\r\n$3\r\nabcX", "expected CRLF after bulk string");
  ExpectError("*1\r\n$3\r\nabc\rX", "expected CRLF after bulk string");
  ExpectError("*1\r\n$3\r\nabc\n\r", "expected CRLF after bulk string");
  ExpectError("*1\r\n$3\r\nabcd\r\n", "expected CRLF after bulk string");
  ExpectNeedMore("*1\r\n$3\r\nabc\r", 13);
}

TEST(RespParserTest, MultibulkCountLineAtAndPastTheLimit) {
  Limits limits;
  limits.max_inline_len = 3;  // "*12" fits, "*123" does not.
  ExpectNeedMore("*12", 0, limits);
  ExpectNeedMore("*12\r", 0, limits);
  ExpectEmpty("*-1\r\n", 5, limits);
  ExpectError("*123", "too big mbulk count string", limits);
  ExpectError("*123\r\n", "too big mbulk count string", limits);
}

TEST(RespParserTest, DefaultMultibulkCountLineLimit) {
  const std::string at_limit = "*" + std::string(64 * 1024 - 1, '1');
  ExpectNeedMore(at_limit, 0);
  ExpectError(at_limit + "1", "too big mbulk count string");
  // A line that fits but is no number is refused as such once its end arrives.
  ExpectError(at_limit + "\r\n", "invalid multibulk length");
}

TEST(RespParserTest, BulkCountLineAtAndPastTheLimit) {
  Limits limits;
  limits.max_inline_len = 3;  // "$12" fits, "$123" does not.
  ExpectNeedMore("*1\r\n$12", 0, limits);
  ExpectNeedMore("*1\r\n$12\r", 0, limits);
  ExpectNeedMore("*1\r\n$12\r\n", 4 + 5 + 12 + 2, limits);
  ExpectError("*1\r\n$123", "too big bulk count string", limits);
  ExpectError("*1\r\n$123\r\n", "too big bulk count string", limits);
}

TEST(RespParserTest, DefaultBulkCountLineLimit) {
  const std::string at_limit = "*1\r\n$" + std::string(64 * 1024 - 1, '1');
  ExpectNeedMore(at_limit, 0);
  ExpectError(at_limit + "1", "too big bulk count string");
}

TEST(RespParserTest, NeedMoreTellsHowMuchWhenALengthIsKnown) {
  ExpectNeedMore("", 0);
  ExpectNeedMore("*", 0);
  ExpectNeedMore("*2", 0);
  ExpectNeedMore("*2\r", 0);
  ExpectNeedMore("*2\r\n", 0);
  ExpectNeedMore("*2\r\n$", 0);
  ExpectNeedMore("*2\r\n$3\r", 0);
  // Waiting for a payload: its end plus "\r\n".
  ExpectNeedMore("*2\r\n$3\r\n", 13);
  ExpectNeedMore("*2\r\n$3\r\nGE", 13);
  ExpectNeedMore("*2\r\n$3\r\nGET", 13);
  ExpectNeedMore("*2\r\n$3\r\nGET\r", 13);
  ExpectNeedMore("*2\r\n$3\r\nGET\r\n", 0);
  ExpectNeedMore("*2\r\n$3\r\nGET\r\n$10\r\nab", 13 + 5 + 10 + 2);
}

TEST(RespParserTest, HugeDeclaredSizesWaitWithoutOverflow) {
  Limits limits;
  limits.max_bulk_len = std::numeric_limits<std::size_t>::max();
  limits.max_args = std::numeric_limits<std::size_t>::max();
  ExpectNeedMore("*9223372036854775807\r\n", 0, limits);
  const std::string header = "*1\r\n$9223372036854775807\r\n";
  ExpectNeedMore(header + "abc", header.size() + 9223372036854775807ull + 2, limits);
  ExpectError("*1\r\n$9223372036854775808\r\n", "invalid bulk length", limits);
}

TEST(RespParserTest, ArgsAreClearedUnlessACommandIsParsed) {
  std::vector<std::string_view> args = {"stale", "junk"};
  std::string storage;
  EXPECT_EQ(ParseCommand("*2\r\n$3\r\nGET\r\n", Limits{}, &args, &storage).status,
            ParseStatus::kNeedMore);
  EXPECT_TRUE(args.empty());
  args = {"stale"};
  EXPECT_EQ(ParseCommand("*1\r\n$1\r\nxy", Limits{}, &args, &storage).status, ParseStatus::kError);
  EXPECT_TRUE(args.empty());
  args = {"stale"};
  EXPECT_EQ(ParseCommand("*0\r\n", Limits{}, &args, &storage).status, ParseStatus::kEmpty);
  EXPECT_TRUE(args.empty());
  args = {"stale", "junk", "more"};
  EXPECT_EQ(ParseCommand("*1\r\n$4\r\nPING\r\n", Limits{}, &args, &storage).status,
            ParseStatus::kCommand);
  EXPECT_EQ(args, (std::vector<std::string_view>{"PING"}));
}

// ---- Inline -----------------------------------------------------------------------------

TEST(RespParserTest, ParsesInlineCommand) {
  ExpectCommand("PING\r\n", {"PING"}, 6);
  ExpectCommand("PING\n", {"PING"}, 5);
  ExpectCommand("  set  a\tb  \r\n", {"set", "a", "b"}, 14);
  ExpectCommand("GET k\nGET j\n", {"GET", "k"}, 6);
  // Only a leading '*' means multibulk.
  ExpectCommand("$3 x\r\n", {"$3", "x"}, 6);
  ExpectCommand(" *1\r\n", {"*1"}, 5);
}

TEST(RespParserTest, UnquotedInlineWordsAreViewsIntoTheInput) {
  const std::string input = "SET key value\r\n";
  std::vector<std::string_view> args;
  std::string storage;
  ASSERT_EQ(ParseCommand(input, Limits{}, &args, &storage).status, ParseStatus::kCommand);
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[0].data(), input.data());
  EXPECT_EQ(args[1].data(), input.data() + 4);
  EXPECT_EQ(args[2].data(), input.data() + 8);
}

TEST(RespParserTest, InlineWaitsForTheEndOfTheLine) {
  ExpectNeedMore("P", 0);
  ExpectNeedMore("PING", 0);
  ExpectNeedMore("PING\r", 0);
  ExpectNeedMore("SET k \"a b", 0);
  ExpectNeedMore(" ", 0);
}

TEST(RespParserTest, EmptyInlineLines) {
  ExpectEmpty("\n", 1);
  ExpectEmpty("\r\n", 2);
  ExpectEmpty(" \t \r\n", 5);
  ExpectEmpty("\v\f\r\r\n", 5);
  ExpectEmpty("\nPING\n", 1);
  // Redis stops a line at a NUL byte, so nothing before it is nothing at all.
  ExpectEmpty("\0GET k\n"s, 7);
}

TEST(RespParserTest, DoubleQuotedWords) {
  ExpectCommand("SET k \"hello world\"\n", {"SET", "k", "hello world"}, 20);
  ExpectCommand("SET k \"\"\n", {"SET", "k", ""}, 9);
}

TEST(RespParserTest, DoubleQuoteEscapes) {
  ExpectWholeCommand(R"(x "\n\r\t\b\a\\\"")"
                     "\n",
                     {"x", "\n\r\t\b\a\\\""});
  ExpectWholeCommand(R"("\x41\x6a\x6A\xff\x00z")"
                     "\n",
                     {"Ajj\xff\0z"s});
  // Not a valid \xHH: the backslash only escapes the 'x'.
  ExpectWholeCommand(R"("\xZZ" "\x4" "\x")"
                     "\n",
                     {"xZZ", "x4", "x"});
  // Any other escaped character stands for itself.
  ExpectWholeCommand(R"("\q\'\ ")"
                     "\n",
                     {"q' "});
  // A raw '\r' inside quotes is kept.
  ExpectCommand("\"a\rb\"\n", {"a\rb"}, 6);
}

TEST(RespParserTest, SingleQuotedWords) {
  ExpectCommand(R"(SET k 'it\'s')"
                "\n",
                {"SET", "k", "it's"}, 14);
  ExpectCommand(R"('a\nb' 'say "hi"' '')"
                "\n",
                {"a\\nb", "say \"hi\"", ""}, 21);
  // The first backslash is literal, the second escapes the quote, so the quote stays open.
  ExpectError(R"('\\')"
              "\n",
              "unbalanced quotes in request");
}

TEST(RespParserTest, QuotesMayOpenInsideAWord) {
  ExpectCommand("a\"b c\" d\n", {"ab c", "d"}, 9);
  ExpectCommand("x'y z'\n", {"xy z"}, 7);
}

TEST(RespParserTest, ClosingQuoteMustEndTheWord) {
  ExpectError("\"a\"b\n", "unbalanced quotes in request");
  ExpectError("a\"b\"c\n", "unbalanced quotes in request");
  ExpectError("'a'b\n", "unbalanced quotes in request");
  ExpectError("\"a\"\"b\"\n", "unbalanced quotes in request");
  // Any blank will do, '\v' and '\f' included.
  ExpectCommand("\"a\"\vb\n", {"a", "b"}, 6);
  ExpectCommand("'a'\fb\n", {"a", "b"}, 6);
  ExpectCommand("\"a\"\r\n", {"a"}, 5);
  ExpectCommand("\"a\"\r\r\n", {"a"}, 6);
}

TEST(RespParserTest, UnbalancedQuotes) {
  ExpectError("\"abc\n", "unbalanced quotes in request");
  ExpectError("'abc\r\n", "unbalanced quotes in request");
  ExpectError("SET k \"a\\\"\n", "unbalanced quotes in request");
  ExpectError("'it\\'\n", "unbalanced quotes in request");
  ExpectError("\"\\\n", "unbalanced quotes in request");
  // A NUL ends the line, and so leaves the quote open.
  ExpectError("\"a\0b\"\n"s, "unbalanced quotes in request");
}

TEST(RespParserTest, InlineBlanks) {
  // '\v' and '\f' separate words only where a word would start.
  ExpectCommand("a\vb c\n", {"a\vb", "c"}, 6);
  ExpectCommand("\va \fb\n", {"a", "b"}, 6);
  // Before "\n" one '\r' is dropped; any other '\r' separates words.
  ExpectCommand("a\rb\n", {"a", "b"}, 4);
  ExpectCommand("a\r\r\n", {"a"}, 4);
}

TEST(RespParserTest, InlineLineStopsAtNul) { ExpectCommand("GET a\0b c\n"s, {"GET", "a"}, 10); }

TEST(RespParserTest, QuotedWordsLiveInStorage) {
  const std::string input = "SET \"k 1\" 'v\\'' plain\r\n";
  std::vector<std::string_view> args;
  std::string storage = "previous contents";
  ASSERT_EQ(ParseCommand(input, Limits{}, &args, &storage).status, ParseStatus::kCommand);
  ASSERT_EQ(args, (std::vector<std::string_view>{"SET", "k 1", "v'", "plain"}));
  EXPECT_TRUE(PointsInto(args[0], input));
  EXPECT_TRUE(PointsInto(args[1], storage));
  EXPECT_TRUE(PointsInto(args[2], storage));
  EXPECT_TRUE(PointsInto(args[3], input));
}

TEST(RespParserTest, ManyQuotedWordsStayValid) {
  // Enough words that a growing storage would have moved under the early views.
  std::string input;
  Args expected;
  for (int i = 0; i < 500; ++i) {
    input += "\"w\\x" + std::string(i % 2 ? "41" : "42") + std::to_string(i) + "\" ";
    expected.push_back((i % 2 ? "wA" : "wB") + std::to_string(i));
  }
  input += "\n";
  ExpectCommand(input, expected, input.size());
}

TEST(RespParserTest, InlineLineAtAndPastTheLimit) {
  Limits limits;
  limits.max_inline_len = 4;
  ExpectNeedMore("PING", 0, limits);
  ExpectNeedMore("PING\r", 0, limits);
  ExpectNeedMore("PIN\r\r", 0, limits);
  ExpectCommand("PING\r\n", {"PING"}, 6, limits);
  ExpectCommand("PING\n", {"PING"}, 5, limits);
  ExpectError("PINGS", "too big inline request", limits);
  ExpectError("PING\rX", "too big inline request", limits);
  ExpectError("PINGS\n", "too big inline request", limits);
  ExpectError("PINGS\r\n", "too big inline request", limits);
  ExpectError("PING\r\r\n", "too big inline request", limits);
}

TEST(RespParserTest, DefaultInlineLineLimit) {
  const std::string at_limit = "ECHO " + std::string(64 * 1024 - 5, 'x');
  ExpectNeedMore(at_limit, 0);
  ExpectCommand(at_limit + "\r\n", {"ECHO", std::string(64 * 1024 - 5, 'x')}, at_limit.size() + 2);
  ExpectError(at_limit + "x", "too big inline request");
  ExpectError(at_limit + "x\n", "too big inline request");
}

// ---- Input that arrives byte by byte --------------------------------------------------

struct Frame {
  std::string bytes;
  ParseStatus status;
  Args args;  // kCommand only.
};

std::vector<Frame> MixedPipeline() {
  const std::string binary = "\r\n\0$*\"'\\\xff"s;
  return {
      {Multibulk({"SET", "key", binary}), ParseStatus::kCommand, {"SET", "key", binary}},
      {"PING\r\n", ParseStatus::kCommand, {"PING"}},
      {"*0\r\n", ParseStatus::kEmpty, {}},
      {Multibulk({"", "x"}), ParseStatus::kCommand, {"", "x"}},
      {"\r\n", ParseStatus::kEmpty, {}},
      {"SET \"a\\x00b\" 'c d' e\n", ParseStatus::kCommand, {"SET", "a\0b"s, "c d", "e"}},
      {"*-1\r\n", ParseStatus::kEmpty, {}},
      {"  \t\n", ParseStatus::kEmpty, {}},
      {Multibulk({std::string(300, 'z')}), ParseStatus::kCommand, {std::string(300, 'z')}},
      {"ECHO \"\"\r\n", ParseStatus::kCommand, {"ECHO", ""}},
      {Multibulk({"MSET", "a", "1", "b", "2"}),
       ParseStatus::kCommand,
       {"MSET", "a", "1", "b", "2"}},
  };
}

TEST(RespParserTest, EveryProperPrefixOfACommandNeedsMore) {
  for (const Frame& frame : MixedPipeline()) {
    SCOPED_TRACE(testing::PrintToString(frame.bytes));
    for (std::size_t len = 0; len < frame.bytes.size(); ++len) {
      const Parsed parsed = Parse(std::string_view(frame.bytes).substr(0, len));
      ASSERT_EQ(parsed.result.status, ParseStatus::kNeedMore) << "prefix " << len;
      // A known need is a promise: never beyond the whole frame, always beyond what is there.
      if (parsed.result.needed != 0) {
        EXPECT_GT(parsed.result.needed, len);
        EXPECT_LE(parsed.result.needed, frame.bytes.size());
      }
      // The lower bound too: a caller that waits for it must not wait past the frame.
      EXPECT_GT(parsed.result.at_least, len);
      EXPECT_LE(parsed.result.at_least, frame.bytes.size());
    }
    const Parsed parsed = Parse(frame.bytes);
    EXPECT_EQ(parsed.result.status, frame.status) << parsed.result.error;
    EXPECT_EQ(parsed.result.consumed, frame.bytes.size());
    EXPECT_EQ(parsed.args, frame.args);
  }
}

TEST(RespParserTest, ManySmallArgumentsGiveATightLowerBound) {
  // 1000 arguments of 7 bytes ("$1\r\nx\r\n"): with 100 parsed, the other 900 take at least
  // 6 bytes each, so a caller waits for most of the rest before it parses again.
  std::string frame = "*1000\r\n";
  for (int i = 0; i < 1000; ++i) frame += "$1\r\nx\r\n";
  const std::size_t cut = 7 + 100 * 7 + 3;  // Inside argument 101.
  const Parsed parsed = Parse(std::string_view(frame).substr(0, cut));
  ASSERT_EQ(parsed.result.status, ParseStatus::kNeedMore);
  EXPECT_EQ(parsed.result.at_least, 7 + 100 * 7 + 6 + 899 * 6);  // Its header is cut short.
  EXPECT_LE(parsed.result.at_least, frame.size());
}

TEST(RespParserTest, PipelineFedOneByteAtATime) {
  const std::vector<Frame> frames = MixedPipeline();
  std::string all;
  for (const Frame& frame : frames) all += frame.bytes;

  // A client's read loop: append what arrived, then take every command now complete.
  std::string buffer;
  std::vector<Frame> seen;
  std::vector<std::string_view> args;
  std::string storage;
  for (const char byte : all) {
    buffer.push_back(byte);
    while (true) {
      const ParseResult result = ParseCommand(buffer, Limits{}, &args, &storage);
      ASSERT_NE(result.status, ParseStatus::kError) << result.error;
      if (result.status == ParseStatus::kNeedMore) break;
      seen.push_back(
          {buffer.substr(0, result.consumed), result.status, Args(args.begin(), args.end())});
      buffer.erase(0, result.consumed);
    }
  }
  EXPECT_TRUE(buffer.empty());
  ASSERT_EQ(seen.size(), frames.size());
  for (std::size_t i = 0; i < frames.size(); ++i) {
    EXPECT_EQ(seen[i].bytes, frames[i].bytes) << "frame " << i;
    EXPECT_EQ(seen[i].status, frames[i].status) << "frame " << i;
    EXPECT_EQ(seen[i].args, frames[i].args) << "frame " << i;
  }
}

TEST(RespParserTest, WholePipelineAtOnce) {
  const std::vector<Frame> frames = MixedPipeline();
  std::string all;
  for (const Frame& frame : frames) all += frame.bytes;
  std::string_view rest = all;
  for (const Frame& frame : frames) {
    const Parsed parsed = Parse(rest);
    ASSERT_EQ(parsed.result.status, frame.status) << parsed.result.error;
    ASSERT_EQ(parsed.result.consumed, frame.bytes.size());
    EXPECT_EQ(parsed.args, frame.args);
    rest.remove_prefix(parsed.result.consumed);
  }
  EXPECT_TRUE(rest.empty());
  ExpectNeedMore(rest, 0);
}

}  // namespace
}  // namespace cairn::server::resp
