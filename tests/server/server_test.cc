// cairn-server end to end, over real sockets: each test starts its own server on a free
// loopback port with its own data directory and stops it. Covers the protocol (RESP2, RESP3
// through HELLO, inline commands, pipelining, protocol errors), the auth gate, connection and
// server commands, strings and keys with expiry, MULTI/EXEC/WATCH, limits, the command line,
// and data surviving a restart.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "server/support/resp_client.h"
#include "server/support/server_fixture.h"
#include "server/support/server_process.h"
#include "support/temp_dir.h"

namespace cairn::test {
namespace {

using Args = std::vector<std::string>;

class ServerTest : public ServerFixture {};

TEST_F(ServerTest, PingEchoAndStrings) {
  Start();
  EXPECT_EQ(Do({"PING"}), "PONG");
  EXPECT_EQ(Do({"ping", "hi"}), "\"hi\"");
  EXPECT_EQ(Do({"ECHO", "x y"}), "\"x y\"");
  EXPECT_EQ(Do({"SET", "k", "v"}), "OK");
  EXPECT_EQ(Do({"GET", "k"}), "\"v\"");
  EXPECT_EQ(Do({"GET", "missing"}), "(nil)");
  EXPECT_EQ(Do({"SET", "k", "w", "NX"}), "(nil)");
  EXPECT_EQ(Do({"SET", "k", "w", "XX", "GET"}), "\"v\"");
  EXPECT_EQ(Do({"APPEND", "k", "123"}), "(integer) 4");
  EXPECT_EQ(Do({"STRLEN", "k"}), "(integer) 4");
  EXPECT_EQ(Do({"GETRANGE", "k", "1", "-2"}), "\"12\"");
  EXPECT_EQ(Do({"SETRANGE", "k", "6", "z"}), "(integer) 7");
  EXPECT_EQ(Do({"GET", "k"}), std::string("\"w123\0\0z\"", 9));
  EXPECT_EQ(Do({"INCR", "n"}), "(integer) 1");
  EXPECT_EQ(Do({"INCRBY", "n", "41"}), "(integer) 42");
  EXPECT_EQ(Do({"DECRBY", "n", "2"}), "(integer) 40");
  EXPECT_EQ(Do({"INCRBYFLOAT", "n", "0.5"}), "\"40.5\"");
  EXPECT_EQ(Do({"INCR", "k"}), "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"MSET", "a", "1", "b", "2"}), "OK");
  EXPECT_EQ(Do({"MGET", "a", "b", "c"}), "[\"1\", \"2\", (nil)]");
  EXPECT_EQ(Do({"MSETNX", "c", "3", "a", "9"}), "(integer) 0");
  EXPECT_EQ(Do({"GETDEL", "a"}), "\"1\"");
  EXPECT_EQ(Do({"EXISTS", "a", "b", "b"}), "(integer) 2");
  EXPECT_EQ(Do({"DEL", "a", "b", "n"}), "(integer) 2");
}

TEST_F(ServerTest, ErrorsAreWordedAsRedisWordsThem) {
  Start();
  EXPECT_EQ(Do({"NOPE", "a", "b"}),
            "(error) ERR unknown command 'NOPE', with args beginning with: 'a' 'b' ");
  EXPECT_EQ(Do({"GET"}), "(error) ERR wrong number of arguments for 'get' command");
  EXPECT_EQ(Do({"SET", "k", "v", "EX", "0"}), "(error) ERR invalid expire time in 'set' command");
  EXPECT_EQ(Do({"SET", "k", "v", "EX", "x"}),
            "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"SET", "k", "v", "NX", "XX"}), "(error) ERR syntax error");
  EXPECT_EQ(Do({"SELECT", "1"}), "(error) ERR DB index is out of range");
  EXPECT_EQ(Do({"SELECT", "0"}), "OK");
  EXPECT_EQ(Do({"RENAME", "none", "x"}), "(error) ERR no such key");
}

TEST_F(ServerTest, ExpiryAndTtl) {
  Start();
  EXPECT_EQ(Do({"SET", "k", "v", "EX", "100"}), "OK");
  EXPECT_EQ(Do({"TTL", "k"}), "(integer) 100");
  EXPECT_EQ(Do({"TTL", "missing"}), "(integer) -2");
  EXPECT_EQ(Do({"SET", "p", "v"}), "OK");
  EXPECT_EQ(Do({"TTL", "p"}), "(integer) -1");
  EXPECT_EQ(Do({"EXPIRE", "p", "50", "GT"}), "(integer) 0") << "no expiry counts as infinite";
  EXPECT_EQ(Do({"EXPIRE", "p", "50", "LT"}), "(integer) 1");
  EXPECT_EQ(Do({"EXPIRE", "p", "10", "NX"}), "(integer) 0");
  EXPECT_EQ(Do({"PERSIST", "p"}), "(integer) 1");
  EXPECT_EQ(Do({"EXPIRE", "p", "-1"}), "(integer) 1");
  EXPECT_EQ(Do({"EXISTS", "p"}), "(integer) 0") << "a past expiry deletes";
  EXPECT_EQ(Do({"PEXPIRE", "k", "1"}), "(integer) 1");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(Do({"GET", "k"}), "(nil)");
  EXPECT_EQ(Do({"TYPE", "k"}), "none");
  EXPECT_EQ(Do({"SET", "r", "v", "PX", "100000"}), "OK");
  EXPECT_EQ(Do({"RENAME", "r", "s"}), "OK");
  const std::int64_t pttl = client_->Call({"PTTL", "s"}).integer;
  EXPECT_GT(pttl, 90'000) << "the TTL moves with the key";
  EXPECT_LE(pttl, 100'000);
}

TEST_F(ServerTest, KeysScanAndDbsize) {
  Start();
  for (int i = 0; i < 25; ++i) Do({"SET", "user:" + std::to_string(i), "x"});
  Do({"SET", "other", "x"});
  EXPECT_EQ(Do({"DBSIZE"}), "(integer) 26");
  RespClient& c = *client_;
  Reply keys = c.Call({"KEYS", "user:1*"});
  EXPECT_EQ(keys.elements.size(), 11u) << keys.ToString();  // 1, 10..19
  std::set<std::string> seen;
  std::string cursor = "0";
  int calls = 0;
  do {
    Reply page = c.Call({"SCAN", cursor, "MATCH", "user:*", "COUNT", "7"});
    ASSERT_EQ(page.type, Reply::Type::kArray) << page.ToString();
    cursor = page.elements[0].str;
    for (const Reply& k : page.elements[1].elements) seen.insert(k.str);
  } while (cursor != "0" && ++calls < 100);
  EXPECT_EQ(seen.size(), 25u);
  EXPECT_EQ(Do({"SCAN", "12345"}), "(error) ERR invalid cursor");
  EXPECT_EQ(Do({"FLUSHDB"}), "OK");
  EXPECT_EQ(Do({"DBSIZE"}), "(integer) 0");
  EXPECT_EQ(Do({"RANDOMKEY"}), "(nil)");
}

TEST_F(ServerTest, InfoCountsKeysOnlyWhenTheKeyspaceSectionIsAsked) {
  Start();
  Do({"SET", "plain", "x"});
  Do({"HSET", "hash", "f", "v"});
  Do({"SET", "soon", "x", "PX", "100000"});
  Do({"SET", "later", "x", "PX", "300000"});
  const std::string keyspace = client_->Call({"INFO", "keyspace"}).str;
  const std::size_t at = keyspace.find("db0:keys=4,expires=2,avg_ttl=");
  ASSERT_NE(at, std::string::npos) << keyspace;
  const std::int64_t avg_ttl = std::stoll(keyspace.substr(keyspace.find("avg_ttl=") + 8));
  EXPECT_GT(avg_ttl, 150000) << keyspace;  // (100 s + 300 s) / 2, less the time since.
  EXPECT_LE(avg_ttl, 200000) << keyspace;
  EXPECT_NE(client_->Call({"INFO", "all"}).str.find("db0:keys=4,"), std::string::npos);
  // The default sections leave it out (a scan of every key), and keep what clients read.
  for (const std::string& reply :
       {client_->Call({"INFO"}).str, client_->Call({"INFO", "default"}).str}) {
    EXPECT_EQ(reply.find("# Keyspace"), std::string::npos) << reply;
    EXPECT_NE(reply.find("redis_version:"), std::string::npos) << reply;
    EXPECT_NE(reply.find("loading:0"), std::string::npos) << reply;
    EXPECT_NE(reply.find("maxmemory_policy:noeviction"), std::string::npos) << reply;
  }
}

TEST_F(ServerTest, PipelinedCommandsAreAnsweredInOrder) {
  Start();
  std::unique_ptr<RespClient> c = Connect();
  std::string batch;
  for (int i = 0; i < 500; ++i) batch += RespClient::Encode({"INCR", "counter"});
  batch += "PING\r\n";  // An inline command in the same stream.
  ASSERT_TRUE(c->Send(batch));
  for (int i = 1; i <= 500; ++i) {
    std::optional<Reply> r = c->Read();
    ASSERT_TRUE(r);
    ASSERT_EQ(r->integer, i);
  }
  EXPECT_EQ(c->Read()->ToString(), "PONG");
}

// Clients on two io threads pipeline INCRs over shared keys in random orders, so that their
// write batches (one store transaction per run of writes) contend for the same key locks and
// can deadlock; a batch that meets a conflict is rolled back and run again one command at a
// time. Every INCR must count exactly once: per key, the replies are exactly 1..n.
TEST_F(ServerTest, ConcurrentPipelinedIncrementsCountEachOnce) {
  Start({"--threads", "2"});
  constexpr int kClients = 4, kRounds = 60, kPerRound = 24;
  const std::vector<std::string> keys = {"a", "b", "c"};
  std::vector<std::vector<std::vector<std::int64_t>>> seen(
      kClients, std::vector<std::vector<std::int64_t>>(keys.size()));
  std::vector<std::thread> threads;
  std::vector<std::string> errors(kClients);
  for (int t = 0; t < kClients; ++t) {
    threads.emplace_back([&, t] {
      std::unique_ptr<RespClient> c = Connect();
      if (!c) return;
      std::uint32_t state = 7919u * static_cast<std::uint32_t>(t + 1);
      for (int round = 0; round < kRounds; ++round) {
        std::string batch;
        std::vector<std::size_t> order;
        for (int i = 0; i < kPerRound; ++i) {
          state = state * 1103515245u + 12345u;
          order.push_back((state >> 16) % keys.size());
          batch += RespClient::Encode({"INCR", keys[order.back()]});
        }
        if (!c->Send(batch)) return;
        for (std::size_t k : order) {
          std::optional<Reply> r = c->Read();
          if (!r || r->type != Reply::Type::kInteger) {
            errors[t] = r ? r->ToString() : "(no reply)";
            return;
          }
          seen[t][k].push_back(r->integer);
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (const std::string& e : errors) ASSERT_TRUE(e.empty()) << e;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    std::vector<std::int64_t> all;
    for (int t = 0; t < kClients; ++t) {
      all.insert(all.end(), seen[t][k].begin(), seen[t][k].end());
      // Each client sees its own increments of a key in increasing order.
      EXPECT_TRUE(std::is_sorted(seen[t][k].begin(), seen[t][k].end())) << keys[k];
    }
    std::sort(all.begin(), all.end());
    for (std::size_t i = 0; i < all.size(); ++i) {
      ASSERT_EQ(all[i], static_cast<std::int64_t>(i + 1)) << "key " << keys[k];
    }
    EXPECT_EQ(Do({"GET", keys[k]}), "\"" + std::to_string(all.size()) + "\"");
  }
}

TEST_F(ServerTest, HelloSwitchesToResp3) {
  Start();
  std::unique_ptr<RespClient> c = Connect();
  Reply hello = c->Call({"HELLO", "3", "SETNAME", "me"});
  ASSERT_EQ(hello.type, Reply::Type::kMap) << hello.ToString();
  EXPECT_EQ(hello.elements[0].str, "server");
  EXPECT_EQ(hello.elements[5].integer, 3);  // proto
  EXPECT_EQ(c->Call({"GET", "nothing"}).type, Reply::Type::kNull);
  EXPECT_EQ(c->Call({"CLIENT", "GETNAME"}).str, "me");
  EXPECT_EQ(c->Call({"CONFIG", "GET", "port"}).type, Reply::Type::kMap);
  EXPECT_EQ(c->Call({"HELLO", "4"}).ToString(), "(error) NOPROTO unsupported protocol version");
  Reply back = c->Call({"HELLO", "2"});
  EXPECT_EQ(back.type, Reply::Type::kArray);
  EXPECT_EQ(c->Call({"GET", "nothing"}).type, Reply::Type::kNullBulk);
}

TEST_F(ServerTest, ProtocolErrorIsAnsweredAndClosesTheConnection) {
  Start();
  std::unique_ptr<RespClient> c = Connect();
  ASSERT_TRUE(c->Send("*1\r\n$x\r\n"));
  std::optional<Reply> r = c->Read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->ToString(), "(error) ERR Protocol error: invalid bulk length");
  EXPECT_TRUE(c->WaitClosed());
  EXPECT_EQ(Do({"PING"}), "PONG") << "the server lives on";
}

TEST_F(ServerTest, OversizedBulkIsRefusedBeforeItArrives) {
  Start({"--proto-max-bulk-len", "1mb"});
  std::unique_ptr<RespClient> c = Connect();
  ASSERT_TRUE(c->Send("*2\r\n$3\r\nGET\r\n$2000000\r\n"));
  std::optional<Reply> r = c->Read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->ToString(), "(error) ERR Protocol error: invalid bulk length");
  EXPECT_TRUE(c->WaitClosed());
}

TEST_F(ServerTest, PasswordGatesEveryCommandButAuthAndHello) {
  Start({"--requirepass", "s3cret"});
  std::unique_ptr<RespClient> c = Connect();
  EXPECT_EQ(c->Call({"GET", "k"}).ToString(), "(error) NOAUTH Authentication required.");
  EXPECT_EQ(c->Call({"AUTH", "wrong"}).ToString(),
            "(error) WRONGPASS invalid username-password pair or user is disabled.");
  EXPECT_EQ(c->Call({"AUTH", "s3cret"}).ToString(), "OK");
  EXPECT_EQ(c->Call({"SET", "k", "v"}).ToString(), "OK");
  std::unique_ptr<RespClient> d = Connect();
  Reply hello = d->Call({"HELLO", "3", "AUTH", "default", "s3cret"});
  EXPECT_EQ(hello.type, Reply::Type::kMap) << hello.ToString();
  EXPECT_EQ(d->Call({"GET", "k"}).ToString(), "\"v\"");
}

TEST_F(ServerTest, AuthWithoutAConfiguredPasswordIsAccepted) {
  Start();
  EXPECT_EQ(Do({"AUTH", "anything"}), "OK");
}

TEST_F(ServerTest, MultiExecIsAtomicAndWatchAbortsOnAnotherClientsWrite) {
  Start();
  std::unique_ptr<RespClient> a = Connect();
  std::unique_ptr<RespClient> b = Connect();
  EXPECT_EQ(a->Call({"MULTI"}).ToString(), "OK");
  EXPECT_EQ(a->Call({"SET", "x", "1"}).ToString(), "QUEUED");
  EXPECT_EQ(a->Call({"INCR", "x"}).ToString(), "QUEUED");
  EXPECT_EQ(b->Call({"GET", "x"}).ToString(), "(nil)") << "nothing before EXEC";
  EXPECT_EQ(a->Call({"EXEC"}).ToString(), "[OK, (integer) 2]");
  EXPECT_EQ(b->Call({"GET", "x"}).ToString(), "\"2\"");

  EXPECT_EQ(a->Call({"WATCH", "x"}).ToString(), "OK");
  EXPECT_EQ(b->Call({"SET", "x", "9"}).ToString(), "OK");
  a->Call({"MULTI"});
  a->Call({"SET", "x", "from-a"});
  EXPECT_EQ(a->Call({"EXEC"}).ToString(), "(nil)");
  EXPECT_EQ(b->Call({"GET", "x"}).ToString(), "\"9\"");

  a->Call({"MULTI"});
  EXPECT_EQ(a->Call({"GET"}).ToString(), "(error) ERR wrong number of arguments for 'get' command");
  EXPECT_EQ(a->Call({"EXEC"}).ToString(),
            "(error) EXECABORT Transaction discarded because of previous errors.");
  EXPECT_EQ(a->Call({"EXEC"}).ToString(), "(error) ERR EXEC without MULTI");
  EXPECT_EQ(a->Call({"DISCARD"}).ToString(), "(error) ERR DISCARD without MULTI");
}

TEST_F(ServerTest, WatchedKeyThatExpiresAbortsExec) {
  Start();
  std::unique_ptr<RespClient> a = Connect();
  a->Call({"SET", "x", "1", "PX", "30"});
  EXPECT_EQ(a->Call({"WATCH", "x"}).ToString(), "OK");
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  a->Call({"MULTI"});
  a->Call({"SET", "y", "1"});
  EXPECT_EQ(a->Call({"EXEC"}).ToString(), "(nil)");
}

TEST_F(ServerTest, ClientCommands) {
  Start();
  std::unique_ptr<RespClient> a = Connect();
  std::unique_ptr<RespClient> b = Connect();
  EXPECT_EQ(a->Call({"CLIENT", "SETNAME", "alpha"}).ToString(), "OK");
  EXPECT_EQ(a->Call({"CLIENT", "SETNAME", "has space"}).ToString(),
            "(error) ERR Client names cannot contain spaces, newlines or special characters.");
  const std::int64_t b_id = b->Call({"CLIENT", "ID"}).integer;
  const std::string list = a->Call({"CLIENT", "LIST"}).str;
  EXPECT_NE(list.find("name=alpha"), std::string::npos) << list;
  EXPECT_NE(list.find("id=" + std::to_string(b_id) + " "), std::string::npos) << list;
  // The last command, as Redis names it: with its subcommand, in lower case.
  EXPECT_NE(list.find(" cmd=client|list "), std::string::npos) << list;
  EXPECT_NE(list.find(" cmd=client|id "), std::string::npos) << list;
  b->Call({"SET", "k", "v"});
  EXPECT_NE(a->Call({"CLIENT", "LIST"}).str.find(" cmd=set "), std::string::npos);
  const std::string info = b->Call({"client", "Info"}).str;
  EXPECT_NE(info.find(" cmd=client|info "), std::string::npos) << info;
  EXPECT_EQ(a->Call({"CLIENT", "KILL", "ID", std::to_string(b_id)}).ToString(), "(integer) 1");
  EXPECT_TRUE(b->WaitClosed());
  EXPECT_EQ(a->Call({"CLIENT", "NOPE"}).ToString(),
            "(error) ERR unknown subcommand 'NOPE'. Try CLIENT HELP.");
}

TEST_F(ServerTest, QuitRepliesThenCloses) {
  Start();
  std::unique_ptr<RespClient> c = Connect();
  EXPECT_EQ(c->Call({"QUIT"}).ToString(), "OK");
  EXPECT_TRUE(c->WaitClosed());
}

TEST_F(ServerTest, MaxclientsRefusesTheConnectionOverTheLimit) {
  Start({"--maxclients", "2"});
  std::unique_ptr<RespClient> a = Connect();
  std::unique_ptr<RespClient> b = Connect();
  EXPECT_EQ(a->Call({"PING"}).ToString(), "PONG");
  EXPECT_EQ(b->Call({"PING"}).ToString(), "PONG");
  std::unique_ptr<RespClient> c = Connect();
  std::optional<Reply> r = c->Read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->ToString(), "(error) ERR max number of clients reached");
}

TEST_F(ServerTest, IdleClientIsClosedAfterTimeout) {
  Start({"--timeout", "1"});
  std::unique_ptr<RespClient> c = Connect();
  EXPECT_EQ(c->Call({"PING"}).ToString(), "PONG");
  c->set_timeout_ms(5000);
  EXPECT_TRUE(c->WaitClosed());
}

TEST_F(ServerTest, ConfigGetAndSet) {
  Start({"--maxclients", "77"});
  EXPECT_EQ(Do({"CONFIG", "GET", "maxclients"}), "[\"maxclients\", \"77\"]");
  EXPECT_EQ(Do({"CONFIG", "SET", "maxclients", "88"}), "OK");
  EXPECT_EQ(Do({"CONFIG", "GET", "maxclients"}), "[\"maxclients\", \"88\"]");
  EXPECT_TRUE(Do({"CONFIG", "SET", "port", "1"}).starts_with("(error) ERR"));
}

TEST_F(ServerTest, DataSurvivesARestart) {
  Start();
  EXPECT_EQ(Do({"SET", "k", "v"}), "OK");
  EXPECT_EQ(Do({"SET", "t", "v", "EX", "1000"}), "OK");
  client_.reset();
  const int status = server_->Stop(SIGTERM);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  Start();
  EXPECT_EQ(Do({"GET", "k"}), "\"v\"");
  const std::string ttl = Do({"TTL", "t"});
  EXPECT_TRUE(ttl == "(integer) 1000" || ttl == "(integer) 999") << ttl;
}

TEST_F(ServerTest, DurabilityAlwaysAcknowledgesWritesThatSurviveAKill) {
  // Under `always` a reply is sent only after the store synced the write (per batch): a
  // SIGKILL right after the replies loses nothing.
  Start({"--durability", "always"});
  std::unique_ptr<RespClient> c = Connect();
  std::string batch;
  for (int i = 0; i < 50; ++i) batch += RespClient::Encode({"SET", "k" + std::to_string(i), "v"});
  ASSERT_TRUE(c->Send(batch));
  for (int i = 0; i < 50; ++i) ASSERT_EQ(c->Read()->ToString(), "OK");
  EXPECT_EQ(c->Call({"INCR", "n"}).integer, 1);
  c.reset();
  server_->Stop(SIGKILL);
  Start({"--durability", "always"});
  EXPECT_EQ(Do({"DBSIZE"}), "(integer) 51");
  EXPECT_EQ(Do({"GET", "n"}), "\"1\"");
}

TEST_F(ServerTest, DurabilityAlwaysSyncsTheWritesOfManyClientsBeforeAnyReply) {
  // The writes of many connections share a sync (the pass gathers them first); every one that
  // was answered must survive a SIGKILL that follows the last reply.
  Start({"--durability", "always"});
  constexpr int kClients = 20, kRounds = 10, kPipeline = 5;
  std::vector<std::thread> threads;
  for (int t = 0; t < kClients; ++t) {
    threads.emplace_back([&, t] {
      std::unique_ptr<RespClient> c = Connect();
      for (int r = 0; r < kRounds; ++r) {
        std::string batch;
        for (int i = 0; i < kPipeline; ++i) {
          const std::string key = "c" + std::to_string(t) + ":" + std::to_string(r * kPipeline + i);
          batch += RespClient::Encode({"SET", key, "v"});
        }
        batch += RespClient::Encode({"INCR", "total"});
        ASSERT_TRUE(c->Send(batch));
        for (int i = 0; i < kPipeline; ++i) ASSERT_EQ(c->Read()->ToString(), "OK");
        ASSERT_EQ(c->Read()->type, Reply::Type::kInteger);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  server_->Stop(SIGKILL);
  Start({"--durability", "always"});
  EXPECT_EQ(Do({"DBSIZE"}), "(integer) " + std::to_string(kClients * kRounds * kPipeline + 1));
  EXPECT_EQ(Do({"GET", "total"}), "\"" + std::to_string(kClients * kRounds) + "\"");
}

TEST_F(ServerTest, ShutdownStopsTheServerCleanly) {
  Start();
  EXPECT_EQ(Do({"SET", "k", "v"}), "OK");
  ASSERT_TRUE(client_->Send(RespClient::Encode({"SHUTDOWN"})));
  EXPECT_TRUE(client_->WaitClosed());
  const int status = server_->WaitExit();
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST_F(ServerTest, CommandReportsTheTable) {
  Start();
  const std::string count = Do({"COMMAND", "COUNT"});
  EXPECT_TRUE(count.starts_with("(integer) ")) << count;
  Reply info = client_->Call({"COMMAND", "INFO", "get", "nope"});
  ASSERT_EQ(info.elements.size(), 2u);
  EXPECT_EQ(info.elements[0].elements[0].str, "get");
  EXPECT_EQ(info.elements[0].elements[1].integer, 2);
  EXPECT_TRUE(info.elements[1].IsNil());
}

TEST(ServerCommandLineTest, HelpVersionAndBadOptions) {
  std::string out;
  EXPECT_EQ(RunToExit(CAIRN_SERVER_BINARY, {"--help"}, &out), 0);
  EXPECT_NE(out.find("cairn-server"), std::string::npos);
  out.clear();
  EXPECT_EQ(RunToExit(CAIRN_SERVER_BINARY, {"--version"}, &out), 0);
  EXPECT_NE(out.find("0.1.0"), std::string::npos) << out;
  out.clear();
  EXPECT_NE(RunToExit(CAIRN_SERVER_BINARY, {"--prot", "1"}, &out), 0);
  EXPECT_NE(out.find("--prot"), std::string::npos) << out;
  out.clear();
  EXPECT_NE(RunToExit(CAIRN_SERVER_BINARY, {"--port", "70000"}, &out), 0);
  EXPECT_NE(out.find("port"), std::string::npos) << out;
}

TEST(ServerCommandLineTest, RefusesAPublicBindWithoutPassword) {
  TempDir dir;
  std::string out;
  EXPECT_NE(RunToExit(CAIRN_SERVER_BINARY,
                      {"--bind", "0.0.0.0", "--port", "0", "--dir", dir.Sub("d")}, &out),
            0);
  EXPECT_NE(out.find("protected-mode"), std::string::npos) << out;
}

}  // namespace
}  // namespace cairn::test
