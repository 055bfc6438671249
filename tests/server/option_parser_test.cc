// OptionParser alone: words in any case, values in Redis's forms, and the error reply for each
// way an argument can be wrong — an option word given last among them.
#include "args/option_parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string_view>
#include <vector>

namespace cairn::server {
namespace {

TEST(OptionParserTest, WordsMatchInAnyCaseAndOnlyWhole) {
  const std::vector<std::string_view> args{"cmd", "CoUnT", "count", "counts"};
  OptionParser p(args, 1);
  EXPECT_FALSE(p.Word("block"));
  EXPECT_EQ(p.Position(), 1u);  // A word that does not match takes nothing.
  EXPECT_TRUE(p.Word("count"));
  EXPECT_EQ(p.OneOf({"block", "count"}), std::optional<std::size_t>(1));
  EXPECT_FALSE(p.Word("count"));  // "counts" is not "count".
  EXPECT_EQ(p.Left(), 1u);
  EXPECT_EQ(*p.Text(), "counts");
  EXPECT_TRUE(p.Done());
  EXPECT_FALSE(p.Word("count"));
  EXPECT_EQ(p.OneOf({"count"}), std::nullopt);
}

TEST(OptionParserTest, IntegersInRedisFormOnly) {
  const std::vector<std::string_view> args{
      "-9223372036854775808", "9223372036854775808", "+1", "01", " 1", "7"};
  OptionParser p(args, 0);
  EXPECT_EQ(*p.Integer(), INT64_MIN);
  for (int i = 0; i < 4; ++i) {
    Parsed<std::int64_t> n = p.Integer();
    ASSERT_FALSE(n.ok()) << i;
    EXPECT_EQ(n.error(), "ERR value is not an integer or out of range");
  }
  EXPECT_EQ(*p.Integer(), 7);
}

TEST(OptionParserTest, BoundedIntegersNameTheOption) {
  const std::vector<std::string_view> args{"0", "1", "100", "101", "x"};
  OptionParser p(args, 0);
  EXPECT_EQ(p.Integer(1, 100, "COUNT").error(), "ERR COUNT must be between 1 and 100");
  EXPECT_EQ(*p.Integer(1, 100, "COUNT"), 1);
  EXPECT_EQ(*p.Integer(1, 100, "COUNT"), 100);
  EXPECT_EQ(p.Integer(1, 100, "COUNT").error(), "ERR COUNT must be between 1 and 100");
  EXPECT_EQ(p.Integer(1, 100, "COUNT").error(), "ERR value is not an integer or out of range");
}

TEST(OptionParserTest, Doubles) {
  const std::vector<std::string_view> args{"1.5", "-inf", "nan", "1e", ""};
  OptionParser p(args, 0);
  EXPECT_EQ(*p.Double(), 1.5);
  EXPECT_EQ(*p.Double(), -HUGE_VAL);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(p.Double().error(), "ERR value is not a valid float");
}

TEST(OptionParserTest, AValueMissingAtTheEndIsASyntaxError) {
  const std::vector<std::string_view> args{"cmd", "count"};
  OptionParser p(args, 1);
  ASSERT_TRUE(p.Word("count"));
  EXPECT_EQ(p.Text().error(), "ERR syntax error");
  EXPECT_EQ(p.Integer().error(), "ERR syntax error");
  EXPECT_EQ(p.Integer(1, 2, "COUNT").error(), "ERR syntax error");
  EXPECT_EQ(p.Double().error(), "ERR syntax error");
}

// The macro a handler uses: the value on success; on error the reply, and the handler returns
// before the next statement.
struct RecordingReply {
  std::string error;
  void Error(std::string_view message) { error = std::string(message); }
};

void Handler(std::span<const std::string_view> args, RecordingReply& reply, std::int64_t* out,
             bool* reached_end) {
  OptionParser p(args, 0);
  CAIRN_ARG_OR_REPLY(reply, *out, p.Integer());
  CAIRN_ARG_OR_REPLY(reply, const std::int64_t second, p.Integer(0, 9, "SECOND"));
  *out += second;
  *reached_end = true;
}

TEST(OptionParserTest, ArgOrReplyAnswersAndReturns) {
  std::int64_t out = 0;
  bool reached = false;
  RecordingReply reply;
  const std::vector<std::string_view> good{"40", "2"};
  Handler(good, reply, &out, &reached);
  EXPECT_TRUE(reached);
  EXPECT_EQ(out, 42);
  EXPECT_EQ(reply.error, "");

  reached = false;
  const std::vector<std::string_view> bad{"1", "10"};
  Handler(bad, reply, &out, &reached);
  EXPECT_FALSE(reached);
  EXPECT_EQ(reply.error, "ERR SECOND must be between 0 and 9");
}

}  // namespace
}  // namespace cairn::server
