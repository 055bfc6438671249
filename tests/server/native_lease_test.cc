// LEASE.* end to end, over real sockets: each test starts its own cairn-server on a free
// loopback port with its own data directory. Covers acquisition, ownership (a stale token is
// refused), fencing numbers that only grow (across resources and restarts), expiry, counting
// semaphores (LIMIT), LEASE.INFO, fenced writes (LEASE.FENCEDSET), argument errors, RESP2 flat
// arrays against RESP3 maps, the refusal inside MULTI, and redis-cli. TTLs are long unless expiry
// itself is under test.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
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

class NativeLeaseTest : public ServerFixture {};

TEST_F(NativeLeaseTest, AcquireReturnsTokenFencingAndExpiry) {
  Start();
  const Reply lease = Call({"LEASE.ACQUIRE", "report", "worker-a", "60000"});
  ASSERT_EQ(lease.type, Reply::Type::kArray) << lease.ToString();  // RESP2: a flat array.
  EXPECT_EQ(MapKeys(lease), "acquired,token,fencing,expires_at_ms,ttl_ms");
  EXPECT_EQ(Field(lease, "acquired").ToString(), "(integer) 1");
  EXPECT_EQ(Field(lease, "token").type, Reply::Type::kBulk);
  EXPECT_FALSE(Field(lease, "token").str.empty());
  EXPECT_EQ(Field(lease, "fencing").type, Reply::Type::kInteger);
  EXPECT_GT(Field(lease, "fencing").integer, 0);
  EXPECT_EQ(Field(lease, "ttl_ms").ToString(), "(integer) 60000");
  EXPECT_GT(Field(lease, "expires_at_ms").integer, 1'600'000'000'000);  // Epoch milliseconds.

  // Held: another owner is told who holds it and for how long, and gets no token.
  const Reply busy = Call({"LEASE.ACQUIRE", "report", "worker-b", "60000"});
  EXPECT_EQ(MapKeys(busy), "acquired,holder,retry_after_ms");
  EXPECT_EQ(Field(busy, "acquired").ToString(), "(integer) 0");
  EXPECT_EQ(Field(busy, "holder").ToString(), "\"worker-a\"");
  EXPECT_GT(Field(busy, "retry_after_ms").integer, 0);
  EXPECT_LE(Field(busy, "retry_after_ms").integer, 60000);
  // The holder itself gets no second lease either: a lease has one holder.
  EXPECT_EQ(Field(Call({"LEASE.ACQUIRE", "report", "worker-a", "60000"}), "acquired").integer, 0);
  // Other resources are independent.
  EXPECT_EQ(Field(Call({"LEASE.ACQUIRE", "other", "worker-b", "60000"}), "acquired").integer, 1);
}

TEST_F(NativeLeaseTest, OnlyTheCurrentTokenExtendsOrReleases) {
  Start();
  const Reply lease = Call({"LEASE.ACQUIRE", "r", "a", "60000"});
  const std::string token = Field(lease, "token").str;
  ASSERT_FALSE(token.empty()) << lease.ToString();
  const std::string not_owner =
      "(error) NOTOWNER the token does not hold lease 'r': it expired, was released or was "
      "taken over";
  EXPECT_EQ(Do({"LEASE.EXTEND", "r", "forged", "60000"}), not_owner);
  EXPECT_EQ(Do({"LEASE.RELEASE", "r", "forged"}), not_owner);
  EXPECT_EQ(Do({"LEASE.EXTEND", "other", token, "60000"}),
            "(error) NOTOWNER the token does not hold lease 'other': it expired, was released or "
            "was taken over")
      << "a token holds one resource only";
  EXPECT_EQ(Do({"LEASE.EXTEND", "r", token, "120000"}), "OK");
  EXPECT_EQ(Do({"LEASE.RELEASE", "r", token}), "OK");
  // Released: the old token is stale now, for release and for extension.
  EXPECT_EQ(Do({"LEASE.RELEASE", "r", token}), not_owner);
  EXPECT_EQ(Do({"LEASE.EXTEND", "r", token, "60000"}), not_owner);
  const Reply next = Call({"LEASE.ACQUIRE", "r", "b", "60000"});
  EXPECT_EQ(Field(next, "acquired").integer, 1) << next.ToString();
  EXPECT_NE(Field(next, "token").str, token);
  EXPECT_EQ(Do({"LEASE.RELEASE", "r", token}), not_owner) << "the new holder keeps its lease";
  EXPECT_EQ(Field(Call({"LEASE.INFO", "r"}), "holders").elements.size(), 1u);
}

TEST_F(NativeLeaseTest, FencingNumbersOnlyGrowAcrossResourcesAndRestarts) {
  Start();
  std::int64_t last = 0;
  auto acquire_and_release = [&](const std::string& resource) {
    const Reply lease = Call({"LEASE.ACQUIRE", resource, "w", "60000"});
    const std::int64_t fencing = Field(lease, "fencing").integer;
    EXPECT_GT(fencing, last) << resource << " " << lease.ToString();
    last = fencing;
    EXPECT_EQ(Do({"LEASE.RELEASE", resource, Field(lease, "token").str}), "OK");
  };
  acquire_and_release("a");
  acquire_and_release("a");
  acquire_and_release("b");
  acquire_and_release("a");
  const std::int64_t before_restart = last;
  Restart();
  acquire_and_release("a");
  acquire_and_release("c");
  EXPECT_GT(last, before_restart);
  // INFO reports the newest fencing number issued for the resource, held or not.
  const Reply info = Call({"LEASE.INFO", "c"});
  EXPECT_EQ(Field(info, "highest_fencing").integer, last) << info.ToString();
  EXPECT_EQ(Field(info, "holders").ToString(), "[]");
}

TEST_F(NativeLeaseTest, AnExpiredLeaseIsFreeAndItsTokenStale) {
  Start();
  const Reply lease = Call({"LEASE.ACQUIRE", "r", "slow", "50"});
  const std::string token = Field(lease, "token").str;
  ASSERT_FALSE(token.empty()) << lease.ToString();
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  const Reply next = Call({"LEASE.ACQUIRE", "r", "fast", "60000"});
  EXPECT_EQ(Field(next, "acquired").integer, 1) << next.ToString();
  EXPECT_GT(Field(next, "fencing").integer, Field(lease, "fencing").integer);
  const std::string not_owner =
      "(error) NOTOWNER the token does not hold lease 'r': it expired, was released or was "
      "taken over";
  EXPECT_EQ(Do({"LEASE.EXTEND", "r", token, "60000"}), not_owner);
  EXPECT_EQ(Do({"LEASE.RELEASE", "r", token}), not_owner);
  const Reply info = Call({"LEASE.INFO", "r"});
  const Reply holders = Field(info, "holders");
  ASSERT_EQ(holders.elements.size(), 1u) << info.ToString();
  EXPECT_EQ(Field(holders.elements[0], "owner").ToString(), "\"fast\"");
}

// The holder paused past its TTL (here: it simply waits) writes with its old fencing number
// after the next holder has the lease: the write is refused and the newer data stays.
TEST_F(NativeLeaseTest, FencedSetRefusesAStaleFencingNumber) {
  Start();
  const Reply first = Call({"LEASE.ACQUIRE", "orders-lock", "a", "50"});
  const std::string f1 = std::to_string(Field(first, "fencing").integer);
  EXPECT_EQ(Do({"LEASE.FENCEDSET", "orders-lock", f1, "orders", "v1"}), "OK");
  EXPECT_EQ(Do({"GET", "orders"}), "\"v1\"");
  std::this_thread::sleep_for(std::chrono::milliseconds(120));  // `a` lapses...
  const Reply second = Call({"LEASE.ACQUIRE", "orders-lock", "b", "60000"});
  const std::string f2 = std::to_string(Field(second, "fencing").integer);
  ASSERT_EQ(Field(second, "acquired").integer, 1) << second.ToString();
  // ...and a lapsed holder's write is refused as soon as a newer number is issued, even before
  // the new holder writes anything.
  const std::string stale = Do({"LEASE.FENCEDSET", "orders-lock", f1, "orders", "v1-late"});
  EXPECT_EQ(stale.rfind("(error) STALEFENCE fencing number " + f1 +
                            " for lease 'orders-lock' is "
                            "stale: " +
                            f2 + " has been issued since",
                        0),
            0u)
      << stale;
  EXPECT_EQ(Do({"GET", "orders"}), "\"v1\"");
  EXPECT_EQ(Do({"LEASE.FENCEDSET", "orders-lock", f2, "orders", "v2"}), "OK");
  EXPECT_EQ(Do({"GET", "orders"}), "\"v2\"");
  // The newest number still fences after its lease is released, until another is issued.
  EXPECT_EQ(Do({"LEASE.RELEASE", "orders-lock", Field(second, "token").str}), "OK");
  EXPECT_EQ(Do({"LEASE.FENCEDSET", "orders-lock", f2, "orders", "v3"}), "OK");
  // It is a SET: any type is replaced, and the value survives a restart like any string.
  EXPECT_EQ(Do({"RPUSH", "list", "x"}), "(integer) 1");
  EXPECT_EQ(Do({"LEASE.FENCEDSET", "orders-lock", f2, "list", "now a string"}), "OK");
  Restart();
  EXPECT_EQ(Do({"GET", "orders"}), "\"v3\"");
  EXPECT_EQ(Do({"GET", "list"}), "\"now a string\"");
}

TEST_F(NativeLeaseTest, FencedSetBadArgumentsChangeNothing) {
  Start();
  const Reply lease = Call({"LEASE.ACQUIRE", "r", "a", "60000"});
  const std::string f = std::to_string(Field(lease, "fencing").integer);
  EXPECT_EQ(Do({"LEASE.FENCEDSET", "r", "x", "k", "v"}),
            "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"LEASE.FENCEDSET", "r", "0", "k", "v"}),
            "(error) ERR fencing number must be 1 or more");
  EXPECT_EQ(Do({"LEASE.FENCEDSET", "r", "-3", "k", "v"}),
            "(error) ERR fencing number must be 1 or more");
  // A number never issued for the resource is not "newer": it is refused as an argument error.
  const std::string future = std::to_string(Field(lease, "fencing").integer + 1000);
  EXPECT_EQ(Do({"LEASE.FENCEDSET", "r", future, "k", "v"}).rfind("(error) ERR fencing number", 0),
            0u);
  EXPECT_EQ(Do({"LEASE.FENCEDSET", "never-leased", "1", "k", "v"}).rfind("(error) ERR", 0), 0u);
  EXPECT_EQ(Do({"LEASE.FENCEDSET", "r", f, "k"}),
            "(error) ERR wrong number of arguments for 'lease.fencedset' command");
  EXPECT_EQ(Do({"LEASE.FENCEDSET", "", f, "k", "v"}).rfind("(error) ERR", 0), 0u);
  EXPECT_EQ(Do({"GET", "k"}), "(nil)");
  EXPECT_EQ(Do({"DBSIZE"}), "(integer) 0");
}

// Its written key is a declared key (positions 1 and 3, step 2), so WATCH sees the write.
TEST_F(NativeLeaseTest, FencedSetTouchesWatchedKeys) {
  Start();
  const Reply lease = Call({"LEASE.ACQUIRE", "r", "a", "60000"});
  const std::string f = std::to_string(Field(lease, "fencing").integer);
  const Reply info = Call({"COMMAND", "INFO", "lease.fencedset"});
  ASSERT_EQ(info.elements.size(), 1u) << info.ToString();
  EXPECT_EQ(info.elements[0].elements[2].ToString(), "[write, fast, no_multi]");
  EXPECT_EQ(info.elements[0].elements[3].integer, 1);
  EXPECT_EQ(info.elements[0].elements[4].integer, 3);
  EXPECT_EQ(info.elements[0].elements[5].integer, 2);
  std::unique_ptr<RespClient> other = Connect();
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(Do({"WATCH", "k"}), "OK");
  EXPECT_EQ(other->Call({"LEASE.FENCEDSET", "r", f, "k", "v"}).ToString(), "OK");
  EXPECT_EQ(Do({"MULTI"}), "OK");
  EXPECT_EQ(Do({"SET", "k", "mine"}), "QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "(nil)");
  EXPECT_EQ(Do({"GET", "k"}), "\"v\"");
}

TEST_F(NativeLeaseTest, LimitMakesACountingSemaphore) {
  Start();
  const Reply a = Call({"LEASE.ACQUIRE", "pool", "a", "60000", "LIMIT", "2"});
  const Reply b = Call({"LEASE.ACQUIRE", "pool", "b", "90000", "limit", "2"});
  EXPECT_EQ(Field(a, "acquired").integer, 1) << a.ToString();
  EXPECT_EQ(Field(b, "acquired").integer, 1) << b.ToString();
  EXPECT_GT(Field(b, "fencing").integer, Field(a, "fencing").integer);
  // Full: the busy reply names the holder whose slot frees first.
  const Reply c = Call({"LEASE.ACQUIRE", "pool", "c", "60000", "LIMIT", "2"});
  EXPECT_EQ(Field(c, "acquired").integer, 0) << c.ToString();
  EXPECT_EQ(Field(c, "holder").ToString(), "\"a\"");
  // Without LIMIT the resource is a plain lease, which two holders already exceed.
  EXPECT_EQ(Field(Call({"LEASE.ACQUIRE", "pool", "d", "60000"}), "acquired").integer, 0);
  EXPECT_EQ(Field(Call({"LEASE.ACQUIRE", "pool", "d", "60000", "LIMIT", "3"}), "acquired").integer,
            1);

  const Reply info = Call({"LEASE.INFO", "pool"});
  EXPECT_EQ(MapKeys(info), "highest_fencing,holders");
  const Reply holders = Field(info, "holders");
  ASSERT_EQ(holders.elements.size(), 3u) << info.ToString();
  EXPECT_EQ(MapKeys(holders.elements[0]), "owner,fencing,acquired_at_ms,expires_at_ms,ttl_ms")
      << "no token: INFO must not hand out the capability to release";
  EXPECT_EQ(Field(holders.elements[0], "owner").ToString(), "\"a\"");
  EXPECT_EQ(Field(holders.elements[1], "owner").ToString(), "\"b\"");
  EXPECT_EQ(Field(holders.elements[2], "owner").ToString(), "\"d\"");
  EXPECT_EQ(Field(holders.elements[0], "fencing").integer, Field(a, "fencing").integer);
  EXPECT_LE(Field(holders.elements[0], "ttl_ms").integer, 60000);
  EXPECT_EQ(Field(holders.elements[0], "expires_at_ms").integer, Field(a, "expires_at_ms").integer);

  EXPECT_EQ(Do({"LEASE.RELEASE", "pool", Field(a, "token").str}), "OK");
  EXPECT_EQ(Field(Call({"LEASE.ACQUIRE", "pool", "c", "60000", "LIMIT", "3"}), "acquired").integer,
            1);
  EXPECT_EQ(Field(Call({"LEASE.INFO", "pool"}), "holders").elements.size(), 3u);
}

TEST_F(NativeLeaseTest, InfoIsNilForAResourceNeverLeased) {
  Start();
  EXPECT_EQ(Do({"LEASE.INFO", "never"}), "(nil)");
  EXPECT_EQ(Call({"LEASE.INFO", "never"}).type, Reply::Type::kNullBulk);
}

TEST_F(NativeLeaseTest, BadArgumentsAreRefusedAndChangeNothing) {
  Start();
  EXPECT_EQ(Do({"LEASE.ACQUIRE", "r", "a"}),
            "(error) ERR wrong number of arguments for 'lease.acquire' command");
  EXPECT_EQ(Do({"LEASE.EXTEND", "r", "t"}),
            "(error) ERR wrong number of arguments for 'lease.extend' command");
  EXPECT_EQ(Do({"LEASE.RELEASE", "r"}),
            "(error) ERR wrong number of arguments for 'lease.release' command");
  EXPECT_EQ(Do({"LEASE.INFO", "r", "x"}),
            "(error) ERR wrong number of arguments for 'lease.info' command");
  EXPECT_EQ(Do({"LEASE.ACQUIRE", "r", "a", "ten"}),
            "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"LEASE.ACQUIRE", "r", "a", "0"}),
            "(error) ERR lease TTL must be between 1 and 604800000 ms, got 0 ms");
  EXPECT_EQ(Do({"LEASE.ACQUIRE", "r", "a", "604800001"}),
            "(error) ERR lease TTL must be between 1 and 604800000 ms, got 604800001 ms");
  EXPECT_EQ(Do({"LEASE.ACQUIRE", "", "a", "1000"}), "(error) ERR lease resource name is empty");
  EXPECT_EQ(Do({"LEASE.ACQUIRE", "r", "a", "1000", "LIMIT"}), "(error) ERR syntax error");
  EXPECT_EQ(Do({"LEASE.ACQUIRE", "r", "a", "1000", "LIMIT", "x"}),
            "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"LEASE.ACQUIRE", "r", "a", "1000", "LIMIT", "0"}),
            "(error) ERR LIMIT must be between 1 and 1024");
  EXPECT_EQ(Do({"LEASE.ACQUIRE", "r", "a", "1000", "LIMIT", "4294967297"}),
            "(error) ERR LIMIT must be between 1 and 1024")
      << "not wrapped to 1";
  EXPECT_EQ(Do({"LEASE.ACQUIRE", "r", "a", "1000", "LIMIT", "2", "LIMIT", "2"}),
            "(error) ERR syntax error");
  EXPECT_EQ(Do({"LEASE.ACQUIRE", "r", "a", "1000", "BLOCK", "-1"}),
            "(error) ERR timeout is negative");
  EXPECT_EQ(Do({"LEASE.ACQUIRE", "r", "a", "1000", "BLOCK"}), "(error) ERR syntax error");
  EXPECT_EQ(Do({"LEASE.ACQUIRE", "r", "a", "1000", "NX"}), "(error) ERR syntax error");
  EXPECT_EQ(Do({"LEASE.ACQUIRE", "r", std::string(257, 'o'), "1000"}),
            "(error) ERR lease owner is 257 bytes; the limit is 256");
  EXPECT_EQ(Do({"LEASE.EXTEND", "r", "t", "-5"}),
            "(error) ERR lease TTL must be between 1 and 604800000 ms, got -5 ms");
  EXPECT_EQ(Do({"LEASE.EXTEND", "r", "t", "1.5"}),
            "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"LEASE.RELEASE", "r", ""}),
            "(error) ERR lease token must be between 1 and 256 bytes, got 0 bytes");
  EXPECT_EQ(Do({"LEASE.INFO", "r"}), "(nil)") << "no refused call took the lease";
}

TEST_F(NativeLeaseTest, Resp3RepliesAreMapsWithBooleans) {
  Start();
  EXPECT_EQ(Call({"HELLO", "3"}).type, Reply::Type::kMap);
  const Reply lease = Call({"LEASE.ACQUIRE", "r", "a", "60000"});
  ASSERT_EQ(lease.type, Reply::Type::kMap) << lease.ToString();
  EXPECT_EQ(MapKeys(lease), "acquired,token,fencing,expires_at_ms,ttl_ms");
  EXPECT_EQ(Field(lease, "acquired").ToString(), "(true)");
  const Reply busy = Call({"LEASE.ACQUIRE", "r", "b", "60000"});
  ASSERT_EQ(busy.type, Reply::Type::kMap) << busy.ToString();
  EXPECT_EQ(Field(busy, "acquired").ToString(), "(false)");
  const Reply info = Call({"LEASE.INFO", "r"});
  ASSERT_EQ(info.type, Reply::Type::kMap) << info.ToString();
  ASSERT_EQ(Field(info, "holders").elements.size(), 1u);
  EXPECT_EQ(Field(info, "holders").elements[0].type, Reply::Type::kMap);
  EXPECT_EQ(Call({"LEASE.INFO", "none"}).type, Reply::Type::kNull);

  // The same connection back on RESP2: flat arrays and 1/0 again.
  EXPECT_EQ(Call({"HELLO", "2"}).type, Reply::Type::kArray);
  const Reply again = Call({"LEASE.ACQUIRE", "r", "b", "60000"});
  ASSERT_EQ(again.type, Reply::Type::kArray) << again.ToString();
  EXPECT_EQ(again.elements[0].ToString(), "\"acquired\"");
  EXPECT_EQ(again.elements[1].ToString(), "(integer) 0");
}

TEST_F(NativeLeaseTest, RefusedInsideMultiAndDeclaredInTheCommandTable) {
  Start();
  EXPECT_EQ(Do({"MULTI"}), "OK");
  EXPECT_EQ(Do({"LEASE.ACQUIRE", "r", "a", "60000"}),
            "(error) ERR Command not allowed inside a transaction");
  EXPECT_EQ(Do({"SET", "k", "v"}), "QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "(error) EXECABORT Transaction discarded because of previous errors.");
  EXPECT_EQ(Do({"LEASE.INFO", "r"}), "(nil)");
  EXPECT_EQ(Do({"GET", "k"}), "(nil)");

  const Reply info = Call({"COMMAND", "INFO", "lease.acquire", "lease.info"});
  ASSERT_EQ(info.elements.size(), 2u) << info.ToString();
  EXPECT_EQ(info.elements[0].elements[0].str, "lease.acquire");
  EXPECT_EQ(info.elements[0].elements[1].integer, -4);
  EXPECT_EQ(info.elements[0].elements[2].ToString(), "[write, fast, blocking, no_multi]");
  EXPECT_EQ(info.elements[0].elements[3].integer, 1);  // First key: the resource.
  EXPECT_EQ(info.elements[0].elements[4].integer, 1);
  EXPECT_EQ(info.elements[0].elements[5].integer, 1);
  EXPECT_EQ(info.elements[1].elements[2].ToString(), "[readonly, fast, no_multi]");
  const Reply docs = Call({"COMMAND", "DOCS", "lease.release"});
  EXPECT_NE(docs.ToString().find("\"group\", \"lease\""), std::string::npos) << docs.ToString();
  EXPECT_NE(docs.ToString().find("\"since\", \"cairn-0.1\""), std::string::npos);
}

TEST_F(NativeLeaseTest, ThroughRedisCli) {
  Start();
  const std::string cli = FindProgram("redis-cli");
  ASSERT_FALSE(cli.empty()) << "redis-cli is not installed (package redis-tools)";
  const std::string port = std::to_string(server_->port());
  std::string out;
  // Not a terminal, so redis-cli prints raw: one line per element of the flat array.
  ASSERT_EQ(RunToExit(cli, {"-p", port, "LEASE.ACQUIRE", "nightly", "cron-1", "60000"}, &out), 0)
      << out;
  std::vector<std::string> lines;
  for (std::size_t start = 0; start < out.size();) {
    const std::size_t end = out.find('\n', start);
    lines.push_back(out.substr(start, end - start));
    start = end == std::string::npos ? out.size() : end + 1;
  }
  ASSERT_EQ(lines.size(), 10u) << out;
  EXPECT_EQ(lines[0], "acquired");
  EXPECT_EQ(lines[1], "1");
  EXPECT_EQ(lines[2], "token");
  const std::string token = lines[3];
  EXPECT_EQ(lines[8], "ttl_ms");
  EXPECT_EQ(lines[9], "60000");

  out.clear();
  ASSERT_EQ(RunToExit(cli, {"-p", port, "LEASE.ACQUIRE", "nightly", "cron-2", "60000"}, &out), 0);
  EXPECT_TRUE(out.starts_with("acquired\n0\nholder\ncron-1\nretry_after_ms\n")) << out;

  // An error, printed raw (redis-cli adds an empty line after it).
  out.clear();
  RunToExit(cli, {"-p", port, "LEASE.RELEASE", "nightly", "bogus"}, &out);
  EXPECT_EQ(out,
            "NOTOWNER the token does not hold lease 'nightly': it expired, was released or was "
            "taken over\n\n");
  out.clear();
  ASSERT_EQ(RunToExit(cli, {"-p", port, "LEASE.RELEASE", "nightly", token}, &out), 0);
  EXPECT_EQ(out, "OK\n");

  // RESP3 (redis-cli -3) in the human-readable form: a map with a boolean.
  out.clear();
  ASSERT_EQ(
      RunToExit(cli, {"-3", "--no-raw", "-p", port, "LEASE.ACQUIRE", "nightly", "cron-2", "60000"},
                &out),
      0);
  EXPECT_TRUE(out.starts_with("1# \"acquired\" => (true)\n2# \"token\" => \"")) << out;
  EXPECT_NE(out.find("5# \"ttl_ms\" => (integer) 60000\n"), std::string::npos) << out;
}

}  // namespace
}  // namespace cairn::test
