// Blocked clients are waiter entries on the keyspace executor, not threads: 10,000 of them
// (BLPOP, BZPOPMIN, XREADGROUP BLOCK, QUEUE.CLAIM BLOCK) leave the server's thread count where it
// was, and each is answered when its key is written or its timeout passes. And the write that can
// serve a blocked client serves it before any other command runs, as in Redis: the writer's own
// next command (pipelined) finds the element gone. Nothing here measures time; the thread count and
// RSS are printed for the notes, and the thread count is checked against the idle server's.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "server/support/blocking_fixture.h"
#include "server/support/reply_fields.h"
#include "server/support/resp_client.h"

namespace cairn::test {
namespace {

class BlockedClientsTest : public BlockingFixture {
 protected:
  void SetUp() override {}  // Each test starts its server.

  // A field of /proc/<server>/status ("Threads", "VmRSS"), as its number.
  long ServerStatus(const std::string& field) {
    std::ifstream in("/proc/" + std::to_string(server_->pid()) + "/status");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
    }
    ADD_FAILURE() << "no " << field << " in the server's /proc status";
    return -1;
  }
};

TEST_F(BlockedClientsTest, TheServingWriteRunsBeforeAnyOtherCommandEvenTheWritersNext) {
  Start();
  std::unique_ptr<RespClient> waiter = Connect();
  Send(*waiter, {"BLPOP", "q", "0"});
  AwaitBlocked(1);
  // LPUSH and LPOP in one pipeline: Redis serves the blocked client between them.
  std::unique_ptr<RespClient> writer = Connect();
  ASSERT_TRUE(
      writer->Send(RespClient::Encode({"LPUSH", "q", "job"}) + RespClient::Encode({"LPOP", "q"})));
  EXPECT_EQ(Next(*writer).ToString(), "(integer) 1");
  EXPECT_EQ(Next(*writer).ToString(), "(nil)");
  EXPECT_EQ(Next(*waiter).ToString(), R"(["q", "job"])");
  // Inside EXEC the waiter is served after the whole transaction, as in Redis.
  Send(*waiter, {"BLPOP", "q", "0"});
  AwaitBlocked(1);
  ASSERT_EQ(writer->Call({"MULTI"}).ToString(), "OK");
  ASSERT_EQ(writer->Call({"LPUSH", "q", "a", "b"}).ToString(), "QUEUED");
  ASSERT_EQ(writer->Call({"LPOP", "q"}).ToString(), "QUEUED");
  EXPECT_EQ(writer->Call({"EXEC"}).ToString(), R"([(integer) 2, "b"])");
  EXPECT_EQ(Next(*waiter).ToString(), R"(["q", "a"])");
}

// A timeout or BLOCK past what the clock can count waits without limit (it must not wrap
// into one already past), for every kind of waiter.
TEST_F(BlockedClientsTest, TimeoutsPastTheClocksRangeWaitWithoutLimit) {
  Start();
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g"}), "(integer) 1");
  const std::string token = Field(Call({"LEASE.ACQUIRE", "r", "a", "60000"}), "token").str;
  std::unique_ptr<RespClient> pop = Connect(), claim = Connect(), lease = Connect();
  Send(*pop, {"BLPOP", "l", "1000000000000"});  // 10^15 ms.
  Send(*claim, {"QUEUE.CLAIM", "q", "g", "w", "BLOCK", "9223372036854775807"});
  Send(*lease, {"LEASE.ACQUIRE", "r", "b", "1000", "BLOCK", "9223372036854775807"});
  AwaitBlocked(3);
  ASSERT_EQ(Do({"RPUSH", "l", "x"}), "(integer) 1");
  EXPECT_EQ(Next(*pop).ToString(), R"(["l", "x"])");
  ASSERT_EQ(Call({"QUEUE.ADD", "q", "job"}).type, Reply::Type::kArray);
  EXPECT_NE(Next(*claim).ToString().find("\"job\""), std::string::npos);
  EXPECT_EQ(Do({"LEASE.RELEASE", "r", token}), "OK");
  const Reply got = Next(*lease);
  EXPECT_EQ(Field(got, "acquired").ToString(), "(integer) 1") << got.ToString();
  AwaitBlocked(0);
}

TEST_F(BlockedClientsTest, TenThousandBlockedClientsHoldNoThreadsAndAreEachAnswered) {
  constexpr int kClients = 10'000;
  constexpr int kTimingOut = 100;  // The last ones, on keys nobody writes: answered by timeout.
  constexpr int kKeys = 50;
  // Each connection is a descriptor here and one in the server.
  rlimit files{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &files), 0);
  files.rlim_cur = files.rlim_max;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &files), 0);
  ASSERT_GE(files.rlim_cur, static_cast<rlim_t>(kClients + 200))
      << "raise the open-file limit (ulimit -n) to run this test";
  Start({"--maxclients", std::to_string(kClients + 100)});
  for (int k = 0; k < kKeys; ++k) {
    ASSERT_EQ(Do({"XGROUP", "CREATE", "s" + std::to_string(k), "g", "$", "MKSTREAM"}), "OK");
    ASSERT_EQ(Do({"QUEUE.GROUP", "q" + std::to_string(k), "g"}), "(integer) 1");
  }
  const long idle_threads = ServerStatus("Threads");
  const long idle_rss_kb = ServerStatus("VmRSS");

  std::vector<std::unique_ptr<RespClient>> clients;
  clients.reserve(kClients);
  for (int i = 0; i < kClients; ++i) {
    clients.push_back(Connect());
    ASSERT_NE(clients.back(), nullptr) << "client " << i;
    const std::string k = std::to_string(i % kKeys);
    if (i >= kClients - kTimingOut) {
      Send(*clients.back(), {"BLPOP", "never" + k, "5"});
    } else if (i % 4 == 0) {
      Send(*clients.back(), {"BLPOP", "l" + k, "0"});
    } else if (i % 4 == 1) {
      Send(*clients.back(), {"BZPOPMIN", "z" + k, "0"});
    } else if (i % 4 == 2) {
      Send(*clients.back(), {"QUEUE.CLAIM", "q" + k, "g", "w" + std::to_string(i), "BLOCK", "0"});
    } else {
      Send(*clients.back(), {"XREADGROUP", "GROUP", "g", "c" + std::to_string(i), "BLOCK", "0",
                             "STREAMS", "s" + k, ">"});
    }
  }
  AwaitBlocked(kClients);
  const long blocked_threads = ServerStatus("Threads");
  const long blocked_rss_kb = ServerStatus("VmRSS");
  std::printf(
      "cairn-server with %d blocked clients: %ld threads (idle: %ld), VmRSS %ld kB "
      "(idle: %ld kB)\n",
      kClients, blocked_threads, idle_threads, blocked_rss_kb, idle_rss_kb);
  EXPECT_LE(blocked_threads, idle_threads + 2) << "blocked clients must not hold threads";

  // One element per waiter, on its key: each write serves the oldest waiter there.
  for (int i = 0; i < kClients - kTimingOut; ++i) {
    const std::string k = std::to_string(i % kKeys), v = "v" + std::to_string(i);
    if (i % 4 == 0) {
      ASSERT_EQ(Do({"RPUSH", "l" + k, v}), "(integer) 1") << "its waiter took none";
    } else if (i % 4 == 1) {
      ASSERT_EQ(Do({"ZADD", "z" + k, "1", v}), "(integer) 1");
    } else if (i % 4 == 2) {
      ASSERT_EQ(Call({"QUEUE.ADD", "q" + k, v}).type, Reply::Type::kArray);
    } else {
      ASSERT_EQ(Call({"XADD", "s" + k, "*", "f", v}).type, Reply::Type::kBulk);
    }
  }
  // Every element reached exactly one waiter. (Which one: the oldest on its key, but with
  // several io threads the commands sent here in turn may reach the executor in another order;
  // key_blocking_test checks the order.)
  std::set<std::string> delivered;
  for (int i = 0; i < kClients; ++i) {
    const Reply r = Next(*clients[i]);
    if (i >= kClients - kTimingOut) {
      ASSERT_EQ(r.type, Reply::Type::kNullArray) << "client " << i << ": " << r.ToString();
      continue;
    }
    ASSERT_EQ(r.type, Reply::Type::kArray) << "client " << i << ": " << r.ToString();
    const std::string text = r.ToString();
    const std::size_t at = text.find("\"v");
    ASSERT_NE(at, std::string::npos) << "client " << i << ": " << text;
    EXPECT_TRUE(delivered.insert(text.substr(at + 1, text.find('"', at + 1) - at - 1)).second)
        << "delivered twice: " << text;
  }
  EXPECT_EQ(delivered.size(), static_cast<std::size_t>(kClients - kTimingOut));
  AwaitBlocked(0);
  EXPECT_EQ(Do({"PING"}), "PONG");
}

}  // namespace
}  // namespace cairn::test
