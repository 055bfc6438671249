// cairn-server when its disk fails, over real sockets, through the fault injector a server
// started with `fault-injection yes` offers (DEBUG FAULT): writes are answered -MISCONF (never
// a dropped connection), reads go on, INFO persistence says why, writes resume once the cause
// is gone; under `always` no client reads what is not durable, and a power cut loses nothing
// that was acknowledged.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "server/support/server_fixture.h"

namespace cairn::test {
namespace {

struct Mode {
  std::string durability;
  std::string threads;
};

class DiskFaultTest : public ServerFixture, public ::testing::WithParamInterface<Mode> {
 protected:
  void SetUp() override {
    Start({"--durability", GetParam().durability, "--threads", GetParam().threads,
           "--fault-injection", "yes"});
  }

  std::string InfoField(const std::string& name) {
    const Reply info = Call({"INFO", "persistence"});
    const std::string key = "\r\n" + name + ":";
    const std::size_t at = info.str.find(key);
    if (at == std::string::npos) return "<missing>";
    const std::size_t begin = at + key.size();
    return info.str.substr(begin, info.str.find("\r\n", begin) - begin);
  }

  // Polls INFO until the store takes writes again; false if it never does.
  bool AwaitWritable() {
    for (int i = 0; i < 1000; ++i) {
      if (InfoField("aof_last_write_status") == "ok") return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  // DEBUG FAULT POWERCUT: the server ends at once and what it never fsynced is gone.
  void PowerCut() {
    std::unique_ptr<RespClient> killer = Connect();
    killer->Send(RespClient::Encode({"DEBUG", "FAULT", "POWERCUT"}));
    EXPECT_TRUE(killer->WaitClosed());
    server_->WaitExit();
    client_.reset();
    server_.reset();
  }

  static bool IsMisconf(const Reply& reply) {
    return reply.type == Reply::Type::kError && reply.str.rfind("MISCONF ", 0) == 0;
  }
};

TEST_P(DiskFaultTest, AFullDiskRefusesWritesWithMisconfKeepsReadsAndResumes) {
  ASSERT_EQ(Do({"SET", "before", "1"}), "OK");
  EXPECT_EQ(InfoField("aof_last_write_status"), "ok");
  ASSERT_EQ(Do({"DEBUG", "FAULT", "WRITES", "nospace"}), "OK");

  // The write that meets the full disk is answered with an error, on a live connection.
  const Reply failed = Call({"SET", "during", "2"});
  EXPECT_TRUE(IsMisconf(failed)) << failed.ToString();
  // Then every write is refused before it runs, naming the cause; reads go on.
  for (const Args& write :
       {Args{"SET", "k", "v"}, Args{"HSET", "h", "f", "v"}, Args{"LPUSH", "l", "x"},
        Args{"INCR", "n"}, Args{"EVAL", "return redis.call('SET', KEYS[1], 'v')", "1", "k"},
        Args{"LEASE.ACQUIRE", "res", "owner", "10000"}}) {
    const Reply reply = Call(write);
    EXPECT_TRUE(reply.type == Reply::Type::kError &&
                reply.str.find("No space left on device") != std::string::npos)
        << write[0] << ": " << reply.ToString();
  }
  EXPECT_EQ(Do({"MULTI"}), "OK");
  EXPECT_TRUE(IsMisconf(Call({"SET", "k", "v"})));
  EXPECT_NE(Do({"EXEC"}).find("EXECABORT"), std::string::npos);
  EXPECT_EQ(Do({"GET", "before"}), "\"1\"");
  EXPECT_EQ(InfoField("aof_last_write_status"), "err");
  EXPECT_NE(InfoField("cairn_write_error").find("No space left on device"), std::string::npos);
  EXPECT_NE(InfoField("cairn_write_stopped_at"), "0");
  EXPECT_EQ(InfoField("cairn_write_stops"), "1");

  // Space is freed: the server resumes on its own.
  ASSERT_EQ(Do({"DEBUG", "FAULT", "CLEAR"}), "OK");
  ASSERT_TRUE(AwaitWritable()) << InfoField("cairn_write_error");
  EXPECT_EQ(Do({"SET", "after", "3"}), "OK");
  EXPECT_EQ(Do({"GET", "after"}), "\"3\"");
  EXPECT_NE(InfoField("cairn_write_resumed_at"), "0");
}

TEST_P(DiskFaultTest, AFailedFsyncIsAnsweredWithAnErrorAndNothingUndurableIsRead) {
  ASSERT_EQ(Do({"SET", "before", "1"}), "OK");
  ASSERT_EQ(Do({"DEBUG", "FAULT", "SYNCS", "eio"}), "OK");
  std::unique_ptr<RespClient> writer = Connect();
  std::unique_ptr<RespClient> reader = Connect();  // On another io thread, with --threads 4.
  // The write reaches the log but not the disk: under `always` it is not acknowledged, and
  // under the other modes the fsync that fails is the next one (a second later).
  const Reply set = writer->Call({"SET", "k", "v"});
  if (GetParam().durability == "always") {
    EXPECT_TRUE(IsMisconf(set)) << set.ToString();
    // Visible in memory but not durable: no client may read it (a power cut would erase what
    // it saw), on any io thread.
    const Reply read = reader->Call({"GET", "k"});
    EXPECT_FALSE(read.type == Reply::Type::kBulk && read.str == "v") << read.ToString();
    // What reads no data is answered: an operator sees why.
    EXPECT_EQ(reader->Call({"PING"}).ToString(), "PONG");
  } else {
    EXPECT_EQ(set.ToString(), "OK");
    EXPECT_EQ(Do({"DEBUG", "FAULT", "SYNCS", "eio"}), "OK");
  }
  ASSERT_EQ(Do({"DEBUG", "FAULT", "CLEAR"}), "OK");
  ASSERT_TRUE(AwaitWritable()) << InfoField("cairn_write_error");
  // The resume flushed what the failed fsync held: readable and durable now.
  EXPECT_EQ(reader->Call({"GET", "before"}).ToString(), "\"1\"");
  EXPECT_EQ(writer->Call({"SET", "after", "2"}).ToString(), "OK");
}

TEST_P(DiskFaultTest, WritesStopBeforeTheDiskIsFull) {
  ASSERT_EQ(Do({"SET", "before", "1"}), "OK");
  ASSERT_EQ(Do({"DEBUG", "FAULT", "FREESPACE", "10mb"}), "OK");
  const Reply refused = Call({"SET", "k", "v"});
  EXPECT_TRUE(IsMisconf(refused)) << refused.ToString();
  EXPECT_NE(refused.str.find("10 MiB free, less than the 64 MiB"), std::string::npos)
      << refused.ToString();
  EXPECT_EQ(Do({"GET", "before"}), "\"1\"");
  EXPECT_EQ(InfoField("cairn_disk_free_bytes"), std::to_string(10 << 20));
  ASSERT_EQ(Do({"DEBUG", "FAULT", "FREESPACE", "real"}), "OK");
  EXPECT_EQ(Do({"SET", "k", "v"}), "OK");
}

// The power goes off (DEBUG FAULT POWERCUT: the process ends and what it never fsynced is
// gone); after a restart every write acknowledged under `always` is there.
TEST_P(DiskFaultTest, APowerCutLosesNothingAcknowledgedUnderAlways) {
  if (GetParam().durability != "always") GTEST_SKIP() << "only `always` promises this";
  std::unique_ptr<RespClient> a = Connect();
  std::unique_ptr<RespClient> b = Connect();
  for (int i = 0; i < 200; ++i) {
    const std::string n = std::to_string(i);
    ASSERT_EQ(a->Call({"SET", "k" + n, n}).ToString(), "OK");
    ASSERT_EQ(b->Call({"RPUSH", "list", n}).ToString(), "(integer) " + std::to_string(i + 1));
  }
  PowerCut();
  Start({"--durability", "always", "--threads", GetParam().threads});
  for (int i = 0; i < 200; ++i) {
    const std::string n = std::to_string(i);
    ASSERT_EQ(Do({"GET", "k" + n}), "\"" + n + "\"");
  }
  EXPECT_EQ(Do({"LLEN", "list"}), "(integer) 200");
}

// The simulated power cut is real: under `none` the unsynced writes are gone. (Otherwise the
// test above would prove nothing.)
TEST_P(DiskFaultTest, APowerCutLosesUnsyncedWritesUnderNone) {
  if (GetParam().durability != "none") GTEST_SKIP() << "only `none` leaves writes unsynced";
  for (int i = 0; i < 50; ++i) ASSERT_EQ(Do({"SET", "k" + std::to_string(i), "v"}), "OK");
  PowerCut();
  Start({"--durability", "none"});
  EXPECT_EQ(Do({"DBSIZE"}), "(integer) 0");
}

TEST_P(DiskFaultTest, BadDebugFaultArgumentsAreErrorsThatChangeNothing) {
  for (const Args& bad :
       {Args{"DEBUG", "FAULT"}, Args{"DEBUG", "FAULT", "WRITES"},
        Args{"DEBUG", "FAULT", "WRITES", "full"}, Args{"DEBUG", "FAULT", "SYNCS", ""},
        Args{"DEBUG", "FAULT", "READS", "maybe"}, Args{"DEBUG", "FAULT", "FREESPACE", "-1"},
        Args{"DEBUG", "FAULT", "FREESPACE", "99999999999999999999gb"},
        Args{"DEBUG", "FAULT", "FREESPACE", std::string(100000, '9')},
        Args{"DEBUG", "FAULT", "CLEAR", "extra"}, Args{"DEBUG", "FAULT", "POWERCUT", "now"},
        Args{"DEBUG", "SEGFAULT"}, Args{"DEBUG", "FAULT", "WRITES", "nospace", "x"}}) {
    EXPECT_EQ(Call(bad).type, Reply::Type::kError) << bad.size();
  }
  EXPECT_EQ(Do({"MULTI"}), "OK");
  EXPECT_EQ(Call({"DEBUG", "FAULT", "WRITES", "nospace"}).type, Reply::Type::kError);
  EXPECT_NE(Do({"EXEC"}).find("EXECABORT"), std::string::npos);
  EXPECT_EQ(Do({"SET", "k", "v"}), "OK");
  EXPECT_EQ(InfoField("aof_last_write_status"), "ok");
}

INSTANTIATE_TEST_SUITE_P(Modes, DiskFaultTest,
                         ::testing::Values(Mode{"always", "1"}, Mode{"always", "4"},
                                           Mode{"everysec", "1"}, Mode{"none", "4"}),
                         [](const ::testing::TestParamInfo<Mode>& param) {
                           return param.param.durability + "_threads" + param.param.threads;
                         });

// Without `fault-injection yes` (the default) no client can reach the injector.
class DebugFaultOffTest : public ServerFixture {};

TEST_F(DebugFaultOffTest, DebugFaultIsRefusedByDefault) {
  Start();
  const Reply reply = Call({"DEBUG", "FAULT", "WRITES", "nospace"});
  EXPECT_EQ(reply.type, Reply::Type::kError);
  EXPECT_NE(reply.str.find("fault-injection yes"), std::string::npos) << reply.ToString();
  EXPECT_EQ(Do({"SET", "k", "v"}), "OK");
  EXPECT_EQ(Call({"DEBUG", "FAULT", "POWERCUT"}).type, Reply::Type::kError);
  EXPECT_EQ(Do({"PING"}), "PONG");
}

}  // namespace
}  // namespace cairn::test
