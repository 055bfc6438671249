// RATE.* end to end: each test starts its own cairn-server and drives the rate limit commands
// over a real socket (RESP2 and RESP3) or through the real redis-cli.
//
// The server runs on the system clock, so the tests pick limits whose answers do not depend on
// when they run: windows of 366 days (the longest; epoch-aligned, so a test would have to run
// across a boundary to see one), and buckets refilling one token an hour. Where a wait is
// reported after time has passed (retry-after of a bucket), it is checked within the few
// seconds a test can take.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "server/support/reply_fields.h"
#include "server/support/resp_client.h"
#include "server/support/server_fixture.h"
#include "server/support/server_process.h"
#include "support/temp_dir.h"

namespace cairn::test {
namespace {

using Args = std::vector<std::string>;

const std::string kYear = "31622400000";  // 366 days, the longest window.
constexpr std::int64_t kHour = 3'600'000;
constexpr std::int64_t kSlack = 60'000;  // More than any test takes.

// A decision in a form that is easy to compare: allowed / remaining, e.g. "1/4" or "0/0".
std::string AllowedRemaining(const Reply& r) {
  return std::to_string(Field(r, "allowed").integer) + "/" +
         std::to_string(Field(r, "remaining").integer);
}

class NativeRateLimitTest : public ServerFixture {};

TEST_F(NativeRateLimitTest, FixedWindowAdmitsExactlyTheLimit) {
  Start();
  const Args take = {"RATE.TAKE", "api:alice", "FIXED", "3", kYear};
  for (int i = 1; i <= 3; ++i) {
    const Reply r = Call(take);
    EXPECT_EQ(AllowedRemaining(r), "1/" + std::to_string(3 - i)) << r.ToString();
    EXPECT_EQ(Field(r, "limit").integer, 3);
    EXPECT_EQ(Field(r, "retry_after_ms").integer, 0);
  }
  for (int i = 0; i < 3; ++i) {
    const Reply refused = Call(take);
    EXPECT_EQ(AllowedRemaining(refused), "0/0") << refused.ToString();
    // Refused in a fixed window: wait for the next one, which is also when it is full again.
    const std::int64_t retry = Field(refused, "retry_after_ms").integer;
    EXPECT_GT(retry, 0);
    EXPECT_LE(retry, 31'622'400'000);
    EXPECT_EQ(retry, Field(refused, "reset_after_ms").integer);
  }
  EXPECT_EQ(AllowedRemaining(Call({"RATE.TAKE", "api:bob", "fixed", "3", kYear})), "1/2")
      << "keys are independent";
}

TEST_F(NativeRateLimitTest, SlidingWindowAdmitsExactlyTheLimit) {
  Start();
  const Args take = {"RATE.TAKE", "s", "SLIDING", "2", kYear};
  EXPECT_EQ(AllowedRemaining(Call(take)), "1/1");
  EXPECT_EQ(AllowedRemaining(Call(take)), "1/0");
  const Reply refused = Call(take);
  EXPECT_EQ(AllowedRemaining(refused), "0/0") << refused.ToString();
  EXPECT_GT(Field(refused, "retry_after_ms").integer, 0);
  EXPECT_EQ(Field(refused, "limit").integer, 2);
}

TEST_F(NativeRateLimitTest, TokenBucketCountsCostAndTellsTheWait) {
  Start();
  // Capacity 5, one token back per hour.
  const Args bucket = {"RATE.TAKE", "b", "BUCKET", "5", "1", std::to_string(kHour)};
  auto with = [&](Args extra) {
    Args args = bucket;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  const Reply first = Call(with({"COST", "3"}));
  EXPECT_EQ(AllowedRemaining(first), "1/2") << first.ToString();
  EXPECT_EQ(Field(first, "reset_after_ms").integer, 3 * kHour) << "three tokens to refill";

  const Reply refused = Call(with({"COST", "3"}));
  EXPECT_EQ(AllowedRemaining(refused), "0/2") << "refused: what is there now";
  // One token short, refilled an hour after the first take.
  const std::int64_t retry = Field(refused, "retry_after_ms").integer;
  EXPECT_LE(retry, kHour);
  EXPECT_GT(retry, kHour - kSlack);

  EXPECT_EQ(AllowedRemaining(Call(with({"cost", "2"}))), "1/0");
  const Reply empty = Call(bucket);
  EXPECT_EQ(AllowedRemaining(empty), "0/0");
  EXPECT_LE(Field(empty, "retry_after_ms").integer, kHour);
  EXPECT_GT(Field(empty, "retry_after_ms").integer, kHour - kSlack);

  EXPECT_EQ(Do(with({"COST", "6"})),
            "(error) ERR COST must be between 1 and the limit's capacity (5)");
  EXPECT_EQ(Do(with({"COST", "0"})),
            "(error) ERR COST must be between 1 and the limit's capacity (5)");
}

TEST_F(NativeRateLimitTest, GcraAllowsTheBurstThenSpacesRequests) {
  Start();
  // Bursts of 2, one request per hour on average.
  const Args take = {"RATE.TAKE", "g", "GCRA", "2", "1", std::to_string(kHour)};
  const Reply first = Call(take);
  EXPECT_EQ(AllowedRemaining(first), "1/1");
  EXPECT_EQ(Field(first, "limit").integer, 2);
  EXPECT_EQ(Field(first, "reset_after_ms").integer, kHour);
  EXPECT_EQ(AllowedRemaining(Call(take)), "1/0");
  const Reply refused = Call(take);
  EXPECT_EQ(AllowedRemaining(refused), "0/0");
  EXPECT_LE(Field(refused, "retry_after_ms").integer, kHour);
  EXPECT_GT(Field(refused, "retry_after_ms").integer, kHour - kSlack);
}

TEST_F(NativeRateLimitTest, DryRunAndPeekTakeNothing) {
  Start();
  const Args take = {"RATE.TAKE", "d", "FIXED", "2", kYear};
  Args dry = take;
  dry.push_back("DRYRUN");
  const Args peek = {"RATE.PEEK", "d", "FIXED", "2", kYear};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(AllowedRemaining(Call(dry)), "1/1") << "what would be left after the take";
    EXPECT_EQ(AllowedRemaining(Call(peek)), "1/1");
  }
  EXPECT_EQ(Do({"RATE.RESET", "d"}), "(integer) 0") << "dry runs stored no state";
  EXPECT_EQ(AllowedRemaining(Call(take)), "1/1");
  EXPECT_EQ(AllowedRemaining(Call({"RATE.TAKE", "d", "FIXED", "2", kYear, "COST", "1", "dryrun"})),
            "1/0");
  EXPECT_EQ(AllowedRemaining(Call(take)), "1/0");
  EXPECT_EQ(AllowedRemaining(Call(peek)), "0/0");
  EXPECT_EQ(AllowedRemaining(Call(dry)), "0/0");
  EXPECT_EQ(AllowedRemaining(Call(take)), "0/0");

  // A dry run of a cost, on a bucket: answered, not taken.
  const Args bucket = {"RATE.TAKE", "db", "BUCKET", "4", "1", std::to_string(kHour)};
  Args dry_cost = bucket;
  dry_cost.insert(dry_cost.end(), {"COST", "4", "DRYRUN"});
  EXPECT_EQ(AllowedRemaining(Call(dry_cost)), "1/0");
  EXPECT_EQ(AllowedRemaining(Call(dry_cost)), "1/0");
  EXPECT_EQ(AllowedRemaining(
                Call({"RATE.PEEK", "db", "BUCKET", "4", "1", std::to_string(kHour), "COST", "4"})),
            "1/0");
  EXPECT_EQ(AllowedRemaining(Call(bucket)), "1/3");
}

TEST_F(NativeRateLimitTest, ResetForgetsTheState) {
  Start();
  const Args take = {"RATE.TAKE", "r", "FIXED", "1", kYear};
  EXPECT_EQ(AllowedRemaining(Call(take)), "1/0");
  EXPECT_EQ(AllowedRemaining(Call(take)), "0/0");
  EXPECT_EQ(Do({"RATE.RESET", "r"}), "(integer) 1");
  EXPECT_EQ(Do({"RATE.RESET", "r"}), "(integer) 0");
  EXPECT_EQ(AllowedRemaining(Call(take)), "1/0");
}

TEST_F(NativeRateLimitTest, StateIsApartFromTheStringKeyspace) {
  Start();
  const Args take = {"RATE.TAKE", "shared-name", "FIXED", "1", kYear};
  EXPECT_EQ(AllowedRemaining(Call(take)), "1/0");
  EXPECT_EQ(Do({"DBSIZE"}), "(integer) 0");
  EXPECT_EQ(Do({"SET", "shared-name", "string"}), "OK");
  EXPECT_EQ(Do({"FLUSHDB"}), "OK");
  EXPECT_EQ(AllowedRemaining(Call(take)), "0/0") << "FLUSHDB left the rate limit alone";
}

TEST_F(NativeRateLimitTest, MapsUnderResp3FlatArraysUnderResp2) {
  Start();
  std::unique_ptr<RespClient> v3 = Connect();
  ASSERT_EQ(v3->Call({"HELLO", "3"}).type, Reply::Type::kMap);
  std::unique_ptr<RespClient> v2 = Connect();
  // A fresh bucket's first take is the same whenever it runs: one token out, refilled in
  // exactly one period.
  EXPECT_EQ(v3->Call({"RATE.TAKE", "p3", "BUCKET", "10", "1", "60000"}).ToString(),
            "{\"allowed\": (true), \"remaining\": (integer) 9, \"limit\": (integer) 10, "
            "\"retry_after_ms\": (integer) 0, \"reset_after_ms\": (integer) 60000}");
  EXPECT_EQ(v2->Call({"RATE.TAKE", "p2", "BUCKET", "10", "1", "60000"}).ToString(),
            "[\"allowed\", (integer) 1, \"remaining\", (integer) 9, \"limit\", (integer) 10, "
            "\"retry_after_ms\", (integer) 0, \"reset_after_ms\", (integer) 60000]");
  const Reply refused = v3->Call({"RATE.TAKE", "p3", "BUCKET", "10", "1", "60000", "COST", "10"});
  ASSERT_EQ(refused.type, Reply::Type::kMap);
  EXPECT_EQ(Field(refused, "allowed").type, Reply::Type::kBoolean);
  EXPECT_EQ(Field(refused, "allowed").ToString(), "(false)");
}

TEST_F(NativeRateLimitTest, TheReportedWaitIsEnough) {
  Start();
  // One token per 300 ms: the second take must wait, and after the reported wait it passes.
  const Args take = {"RATE.TAKE", "w", "BUCKET", "1", "1", "300"};
  EXPECT_EQ(AllowedRemaining(Call(take)), "1/0");
  const Reply refused = Call(take);
  ASSERT_EQ(AllowedRemaining(refused), "0/0");
  const std::int64_t retry = Field(refused, "retry_after_ms").integer;
  ASSERT_GT(retry, 0);
  ASSERT_LE(retry, 300);
  std::this_thread::sleep_for(std::chrono::milliseconds(retry));
  EXPECT_EQ(AllowedRemaining(Call(take)), "1/0");
}

TEST_F(NativeRateLimitTest, BadArgumentsAreRefusedBeforeAnythingIsTaken) {
  Start();
  EXPECT_EQ(Do({"RATE.TAKE", "k", "FIXED", "10"}),
            "(error) ERR wrong number of arguments for 'rate.take' command");
  EXPECT_EQ(Do({"RATE.PEEK", "k"}),
            "(error) ERR wrong number of arguments for 'rate.peek' command");
  EXPECT_EQ(Do({"RATE.RESET"}), "(error) ERR wrong number of arguments for 'rate.reset' command");
  EXPECT_EQ(Do({"RATE.TAKE", "k", "LEAKY", "10", "1000"}),
            "(error) ERR unknown rate limit algorithm 'LEAKY' (expected FIXED, SLIDING, BUCKET or "
            "GCRA)");
  EXPECT_EQ(Do({"RATE.TAKE", "k", "BUCKET", "10", "1"}), "(error) ERR syntax error");
  EXPECT_EQ(Do({"RATE.TAKE", "k", "FIXED", "ten", "1000"}),
            "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"RATE.TAKE", "k", "GCRA", "1", "1", "1.5"}),
            "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"RATE.TAKE", "k", "FIXED", "0", "1000"}),
            "(error) ERR rate limit limit must be between 1 and 1000000000, got 0");
  EXPECT_EQ(Do({"RATE.TAKE", "k", "SLIDING", "10", "0"}),
            "(error) ERR rate limit window must be between 1 and 31622400000 ms, got 0 ms");
  EXPECT_EQ(Do({"RATE.TAKE", "k", "BUCKET", "10", "0", "1000"}),
            "(error) ERR rate limit refill tokens must be between 1 and 1000000000, got 0");
  EXPECT_EQ(Do({"RATE.TAKE", "k", "GCRA", "0", "1", "1000"}),
            "(error) ERR rate limit burst must be between 1 and 1000000000, got 0");
  EXPECT_EQ(Do({"RATE.TAKE", "k", "FIXED", "10", "1000", "COST"}), "(error) ERR syntax error");
  EXPECT_EQ(Do({"RATE.TAKE", "k", "FIXED", "10", "1000", "COST", "x"}),
            "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"RATE.TAKE", "k", "FIXED", "10", "1000", "COST", "1", "COST", "1"}),
            "(error) ERR syntax error");
  EXPECT_EQ(Do({"RATE.TAKE", "k", "FIXED", "10", "1000", "DRYRUN", "DRYRUN"}),
            "(error) ERR syntax error");
  EXPECT_EQ(Do({"RATE.TAKE", "k", "FIXED", "10", "1000", "NOW"}), "(error) ERR syntax error");
  EXPECT_EQ(Do({"RATE.PEEK", "k", "FIXED", "10", "1000", "DRYRUN"}), "(error) ERR syntax error")
      << "a peek is always a dry run";
  EXPECT_EQ(Do({"RATE.TAKE", "", "FIXED", "10", "1000"}), "(error) ERR rate limit key is empty");
  EXPECT_EQ(Do({"RATE.RESET", "k"}), "(integer) 0") << "no refused take stored state";

  EXPECT_EQ(Do({"MULTI"}), "OK");
  EXPECT_EQ(Do({"RATE.TAKE", "k", "FIXED", "10", "1000"}),
            "(error) ERR Command not allowed inside a transaction");
  EXPECT_EQ(Do({"EXEC"}), "(error) EXECABORT Transaction discarded because of previous errors.");
  EXPECT_EQ(Do({"RATE.RESET", "k"}), "(integer) 0");
}

TEST_F(NativeRateLimitTest, ThroughRedisCli) {
  const std::string cli = FindProgram("redis-cli");
  ASSERT_FALSE(cli.empty()) << "redis-cli is not installed (package redis-tools)";
  Start();
  auto run = [&](Args args) {
    args.insert(args.begin(), {"-p", std::to_string(server_->port())});
    std::string out;
    RunToExit(cli, args, &out);
    return out;
  };
  const std::string hour = std::to_string(kHour);
  // Not a terminal: redis-cli prints each element of the RESP2 array on its own line.
  EXPECT_EQ(
      run({"RATE.TAKE", "cli", "BUCKET", "2", "1", hour}),
      "allowed\n1\nremaining\n1\nlimit\n2\nretry_after_ms\n0\nreset_after_ms\n" + hour + "\n");
  EXPECT_EQ(run({"RATE.PEEK", "cli", "BUCKET", "2", "1", hour}).substr(0, 30),
            "allowed\n1\nremaining\n0\nlimit\n2\n");
  const std::string second = run({"--no-raw", "RATE.TAKE", "cli", "BUCKET", "2", "1", hour});
  EXPECT_TRUE(
      second.starts_with(" 1) \"allowed\"\n 2) (integer) 1\n 3) \"remaining\"\n"
                         " 4) (integer) 0\n"))
      << second;
  // RESP3 (redis-cli -3 says HELLO 3): a map, the decision a boolean.
  const std::string refused = run({"-3", "--no-raw", "RATE.TAKE", "cli", "BUCKET", "2", "1", hour});
  EXPECT_TRUE(
      refused.starts_with("1# \"allowed\" => (false)\n2# \"remaining\" => (integer) 0\n"
                          "3# \"limit\" => (integer) 2\n4# \"retry_after_ms\" => "))
      << refused;
  EXPECT_EQ(run({"RATE.RESET", "cli"}), "1\n");
  EXPECT_EQ(run({"RATE.TAKE", "cli", "FIXED", "0", "1000"}),
            "ERR rate limit limit must be between 1 and 1000000000, got 0\n\n");
}

}  // namespace
}  // namespace cairn::test
