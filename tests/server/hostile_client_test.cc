// cairn-server against clients that attack it, over real sockets: a browser tricked into
// posting to the port, clients that have not authenticated, clients that never read their
// replies or never stop sending, remote clients in protected mode, descriptors running out,
// commands that must not run inside MULTI, multi-key writes that fail part-way, and clients
// killed while their own EXEC or script runs. Each test is a row of server/SECURITY.md: the
// attack gets an error (or its connection closed) and changes nothing, and the server goes on
// serving everyone else.
//
// Waits have generous deadlines that only turn a hang into a failure; nothing here asserts how
// long anything took.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "server/support/raw_connection.h"
#include "server/support/resp_client.h"
#include "server/support/server_fixture.h"

namespace cairn::test {
namespace {

using Args = std::vector<std::string>;
using Io = RawConnection::Io;

constexpr int kHangMs = 10'000;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Waits (up to kHangMs) until `done` holds, polling; false if it never did.
template <typename Fn>
bool Eventually(Fn done) {
  for (int i = 0; i < kHangMs / 10; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

class HostileClientTest : public ServerFixture {
 protected:
  std::unique_ptr<RawConnection> Raw() {
    std::string error;
    std::unique_ptr<RawConnection> c = RawConnection::Connect(server_->port(), &error);
    EXPECT_NE(c, nullptr) << error;
    return c;
  }
  std::string Log() { return ReadFile(dir_.Sub("server.log")); }
  // The server answers a fresh client.
  void ExpectHealthy() {
    std::unique_ptr<RespClient> c = Connect();
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->Call({"PING"}).ToString(), "PONG");
  }
};

// ---------------------------------------------------------------------------------------------
// Cross-protocol scripting: an HTTP request is closed before anything in it runs.

TEST_F(HostileClientTest, AnHttpPostIsClosedBeforeItsBodyRuns) {
  Start();
  std::unique_ptr<RawConnection> browser = Raw();
  ASSERT_NE(browser, nullptr);
  const std::string request =
      "POST / HTTP/1.1\r\nHost: 127.0.0.1:6379\r\nContent-Type: text/plain\r\n"
      "Content-Length: 13\r\n\r\nSET pwned 1\r\n";
  ASSERT_EQ(browser->SendAll(request, kHangMs), Io::kOk);
  EXPECT_EQ(browser->ReceiveUntilClosed(kHangMs), Io::kOk);
  EXPECT_EQ(browser->received(), "") << "closed without a reply, as Redis does";
  EXPECT_EQ(Do({"EXISTS", "pwned"}), "(integer) 0");
  EXPECT_NE(Log().find("Possible SECURITY ATTACK detected"), std::string::npos) << Log();

  // A request whose first line got lost still has its Host: header.
  std::unique_ptr<RawConnection> headers = Raw();
  ASSERT_NE(headers, nullptr);
  ASSERT_EQ(headers->SendAll("Host: example.com\r\nSET pwned 2\r\n", kHangMs), Io::kOk);
  EXPECT_EQ(headers->ReceiveUntilClosed(kHangMs), Io::kOk);
  EXPECT_EQ(headers->received(), "");
  EXPECT_EQ(Do({"EXISTS", "pwned"}), "(integer) 0");
  ExpectHealthy();
}

// ---------------------------------------------------------------------------------------------
// Before AUTH: small limits, so that no one without the password makes the server hold much.

TEST_F(HostileClientTest, UnauthenticatedClientsMayNotDeclareLargeCommands) {
  Start({"--requirepass", "s3cret"});
  struct Case {
    std::string bytes;
    std::string error;
  };
  const Case cases[] = {
      {"*11\r\n", "-ERR Protocol error: unauthenticated multibulk length\r\n"},
      {"*2\r\n$4\r\nAUTH\r\n$16385\r\n", "-ERR Protocol error: unauthenticated bulk length\r\n"},
      {"*1\r\n$536870912\r\n", "-ERR Protocol error: unauthenticated bulk length\r\n"},
  };
  for (const Case& c : cases) {
    std::unique_ptr<RawConnection> stranger = Raw();
    ASSERT_NE(stranger, nullptr);
    ASSERT_EQ(stranger->SendAll(c.bytes, kHangMs), Io::kOk);
    EXPECT_EQ(stranger->ReceiveUntilClosed(kHangMs), Io::kOk);
    EXPECT_EQ(stranger->received(), c.error);
  }
  // Within the limits the client is merely told to authenticate; once it has, the ordinary
  // limits apply, also later in the same pipeline.
  std::unique_ptr<RespClient> client = Connect();
  EXPECT_EQ(client->Call({"GET", std::string(16384, 'k')}).ToString(),
            "(error) NOAUTH Authentication required.");
  EXPECT_EQ(client->Call({"AUTH", "s3cret"}).ToString(), "OK");
  Args many = {"MSET"};
  for (int i = 0; i < 20; ++i) many.insert(many.end(), {"k" + std::to_string(i), "v"});
  EXPECT_EQ(client->Call(many).ToString(), "OK");
  EXPECT_EQ(client->Call({"SET", "big", std::string(100'000, 'v')}).ToString(), "OK");
}

// ---------------------------------------------------------------------------------------------
// client-query-buffer-limit: a client that keeps sending one endless command is closed.

TEST_F(HostileClientTest, AClientPastTheQueryBufferLimitIsClosed) {
  Start({"--client-query-buffer-limit", "1mb"});
  std::unique_ptr<RawConnection> flood = Raw();
  ASSERT_NE(flood, nullptr);
  // A 100 MB bulk is within proto-max-bulk-len; its bytes pass the query limit long before.
  ASSERT_EQ(flood->SendAll("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000000\r\n", kHangMs), Io::kOk);
  const std::string chunk(64 * 1024, 'x');
  Io io = Io::kOk;
  for (int i = 0; i < 64 && io == Io::kOk; ++i) io = flood->SendAll(chunk, kHangMs);
  if (io == Io::kOk) io = flood->ReceiveUntilClosed(kHangMs);
  EXPECT_TRUE(flood->peer_closed());
  EXPECT_NE(Log().find("client-query-buffer-limit"), std::string::npos) << Log();
  EXPECT_EQ(Do({"EXISTS", "k"}), "(integer) 0");
  EXPECT_EQ(Do({"CONFIG", "GET", "client-query-buffer-limit"}),
            "[\"client-query-buffer-limit\", \"1048576\"]");
}

// ---------------------------------------------------------------------------------------------
// client-output-buffer-limit normal: replies a client does not take are not held without bound.

TEST_F(HostileClientTest, AReplyPastTheHardOutputLimitClosesTheClient) {
  Start({"--client-output-buffer-limit", "normal 1mb 0 0"});
  ASSERT_EQ(Do({"SET", "big", std::string(2 * 1024 * 1024, 'v')}), "OK");
  std::unique_ptr<RawConnection> reader = Raw();
  ASSERT_NE(reader, nullptr);
  ASSERT_EQ(reader->SendAll("*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n", kHangMs), Io::kOk);
  EXPECT_EQ(reader->ReceiveUntilClosed(kHangMs), Io::kOk);
  EXPECT_EQ(reader->received(), "") << "closed instead of sent, as Redis does";
  EXPECT_NE(Log().find("client-output-buffer-limit normal"), std::string::npos) << Log();
  // Many small replies under the limit are fine, and so is everyone else.
  EXPECT_EQ(Do({"STRLEN", "big"}), "(integer) 2097152");
  EXPECT_EQ(Do({"CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0"}), "OK");
  EXPECT_EQ(Call({"GET", "big"}).str.size(), 2u * 1024 * 1024);
}

TEST_F(HostileClientTest, AClientThatNeverReadsPastTheSoftLimitIsClosed) {
  Start({"--client-output-buffer-limit", "normal 0 256kb 1"});
  // More than any socket buffer holds, so the write cannot complete while nobody reads.
  ASSERT_EQ(Do({"SET", "big", std::string(32 * 1024 * 1024, 'v')}), "OK");
  std::unique_ptr<RawConnection> idle = Raw();
  ASSERT_NE(idle, nullptr);
  ASSERT_EQ(idle->SendAll("*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n", kHangMs), Io::kOk);
  // It never reads; another client watches it go.
  std::unique_ptr<RespClient> watcher = Connect();
  auto clients = [&] { return watcher->Call({"CLIENT", "LIST"}).str; };
  // (Its GET may not have run yet when the watcher first looks.)
  EXPECT_TRUE(Eventually([&] {
    return Log().find("soft client-output-buffer-limit normal") != std::string::npos;
  })) << Log();
  EXPECT_TRUE(Eventually([&] { return clients().find("cmd=get") == std::string::npos; }))
      << clients();
  // A client that reads takes the same reply in full.
  EXPECT_EQ(watcher->Call({"GET", "big"}).str.size(), 32u * 1024 * 1024);
}

TEST_F(HostileClientTest, APipelineOfLargeRepliesIsSentInPiecesNotHeldWhole) {
  Start({"--threads", "1", "--client-output-buffer-limit", "normal 8mb 0 0"});
  ASSERT_EQ(Do({"SET", "big", std::string(1024 * 1024, 'v')}), "OK");
  // 64 replies of 1 MiB in one read: over the hard limit together, each well under it. The
  // server sends them a piece at a time, so the client that reads them all is not closed.
  std::string pipeline;
  for (int i = 0; i < 64; ++i) pipeline += "*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n";
  std::unique_ptr<RawConnection> reader = Raw();
  ASSERT_NE(reader, nullptr);
  ASSERT_EQ(reader->SendAll(pipeline, kHangMs), Io::kOk);
  const std::size_t one = std::string("$1048576\r\n").size() + 1024 * 1024 + 2;
  EXPECT_EQ(reader->ReceiveAtLeast(64 * one, kHangMs), Io::kOk);
  EXPECT_EQ(reader->received().size(), 64 * one);
  EXPECT_FALSE(reader->peer_closed());
}

// ---------------------------------------------------------------------------------------------
// Protected mode, per connection and at run time.

// A local address that is not loopback, for connecting as a "remote" client; empty if the
// machine has none.
std::string NonLoopbackAddress() {
  ifaddrs* all = nullptr;
  if (getifaddrs(&all) != 0) return "";
  std::string found;
  for (ifaddrs* a = all; a != nullptr && found.empty(); a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    if ((ntohl(in->sin_addr.s_addr) >> 24) == 127) continue;
    char text[INET_ADDRSTRLEN];
    if (inet_ntop(AF_INET, &in->sin_addr, text, sizeof text) != nullptr) found = text;
  }
  freeifaddrs(all);
  return found;
}

// A blocking connection to address:port; -1 on failure.
int ConnectTo(const std::string& address, int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<std::uint16_t>(port));
  timeval timeout{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  if (inet_pton(AF_INET, address.c_str(), &to.sin_addr) != 1 ||
      ::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Sends bytes on fd and returns everything read until the server closes (or 10 s pass).
std::string Converse(int fd, const std::string& bytes) {
  if (!bytes.empty()) (void)::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  std::string got;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<std::size_t>(n));
  }
  return got;
}

TEST_F(HostileClientTest, ProtectedModeDeniesRemoteClientsWhileNoPasswordIsSet) {
  const std::string remote = NonLoopbackAddress();
  if (remote.empty()) GTEST_SKIP() << "this machine has no non-loopback IPv4 address";
  // With a password the server may listen beyond loopback.
  Start({"--bind", "127.0.0.1", remote, "--requirepass", "s3cret"});
  const int before = ConnectTo(remote, server_->port());
  ASSERT_GE(before, 0);
  ASSERT_EQ(::send(before, "PING\r\n", 6, MSG_NOSIGNAL), 6);
  char buf[64];
  const ssize_t n = ::recv(before, buf, sizeof buf, 0);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, static_cast<std::size_t>(n)), "-NOAUTH Authentication required.\r\n");

  // The password goes, from a loopback client: remote clients are turned away from then on,
  // the one already connected at its next command, new ones at once.
  ASSERT_EQ(Do({"AUTH", "s3cret"}), "OK");
  ASSERT_EQ(Do({"CONFIG", "SET", "requirepass", ""}), "OK");
  const std::string denied = Converse(before, "SET remote 1\r\n");
  EXPECT_EQ(denied.rfind("-DENIED Redis is running in protected mode", 0), 0u) << denied;
  ::close(before);
  const int after = ConnectTo(remote, server_->port());
  ASSERT_GE(after, 0);
  const std::string refused = Converse(after, "");
  EXPECT_EQ(refused.rfind("-DENIED Redis is running in protected mode", 0), 0u) << refused;
  ::close(after);
  EXPECT_EQ(Do({"EXISTS", "remote"}), "(integer) 0");

  // Loopback clients go on; protected mode off lets remote clients in.
  ASSERT_EQ(Do({"CONFIG", "SET", "protected-mode", "no"}), "OK");
  const int allowed = ConnectTo(remote, server_->port());
  ASSERT_GE(allowed, 0);
  ASSERT_EQ(::send(allowed, "PING\r\n", 6, MSG_NOSIGNAL), 6);
  const ssize_t m = ::recv(allowed, buf, sizeof buf, 0);
  ASSERT_GT(m, 0);
  EXPECT_EQ(std::string(buf, static_cast<std::size_t>(m)), "+PONG\r\n");
  ::close(allowed);
}

// ---------------------------------------------------------------------------------------------
// File descriptors: maxclients within the open-file limit; accept failures back off.

TEST_F(HostileClientTest, MaxclientsIsLoweredToFitTheOpenFileLimit) {
  const std::string prlimit = FindProgram("prlimit");
  if (prlimit.empty()) GTEST_SKIP() << "prlimit (util-linux) is not installed";
  server_ = std::make_unique<ServerProcess>(
      prlimit,
      Args{"--nofile=256:256", CAIRN_SERVER_BINARY, "--port", "0", "--dir", dir_.Sub("data"),
           "--durability", "none", "--maxclients", "10000"},
      dir_.Sub("server.log"));
  ASSERT_TRUE(server_->ok()) << server_->error() << Log();
  EXPECT_NE(Log().find("maxclients lowered to"), std::string::npos) << Log();
  const Reply got = Call({"CONFIG", "GET", "maxclients"});
  ASSERT_EQ(got.elements.size(), 2u) << got.ToString();
  const int maxclients = std::stoi(got.elements[1].str);
  EXPECT_GT(maxclients, 10);
  EXPECT_LT(maxclients, 256);
  EXPECT_NE(Call({"CONFIG", "SET", "maxclients", "10000"}).str.find("not able to handle"),
            std::string::npos);
  // Every client up to maxclients is served (the default connection is one of them); the next
  // is refused with Redis's error, not left failing to be accepted.
  std::vector<std::unique_ptr<RespClient>> clients;
  for (int i = 1; i < maxclients; ++i) {
    clients.push_back(Connect());
    ASSERT_NE(clients.back(), nullptr);
    ASSERT_EQ(clients.back()->Call({"PING"}).ToString(), "PONG") << "client " << i;
  }
  std::unique_ptr<RespClient> extra = Connect();
  ASSERT_NE(extra, nullptr);
  EXPECT_EQ(extra->Call({"PING"}).ToString(), "(error) ERR max number of clients reached");
}

TEST_F(HostileClientTest, AcceptFailuresBackOffInsteadOfSpinning) {
  // The shim makes accept fail with EMFILE while the trigger file exists, and counts the tries.
  const std::string trigger = dir_.Sub("accept-fault");
  std::ofstream(trigger) << "on";
  ::setenv("LD_PRELOAD", CAIRN_ACCEPT_FAULT_LIBRARY, 1);
  ::setenv("CAIRN_ACCEPT_FAULT", trigger.c_str(), 1);
  const char* asan = std::getenv("ASAN_OPTIONS");
  const std::string saved_asan = asan != nullptr ? asan : "";
  // The shim comes before the sanitizer runtime in the library list; tell ASan that is fine.
  ::setenv("ASAN_OPTIONS", (saved_asan + ":verify_asan_link_order=0").c_str(), 1);
  Start();
  ::unsetenv("LD_PRELOAD");
  ::unsetenv("CAIRN_ACCEPT_FAULT");
  ::setenv("ASAN_OPTIONS", saved_asan.c_str(), 1);
  ASSERT_TRUE(server_->ok());

  std::unique_ptr<RawConnection> waiting = Raw();  // Connected in the backlog, not accepted.
  ASSERT_NE(waiting, nullptr);
  ASSERT_EQ(waiting->SendAll("PING\r\n", kHangMs), Io::kOk);
  EXPECT_TRUE(Eventually([&] {
    return Log().find("cannot accept connections") != std::string::npos;
  })) << Log();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // Let a spinning loop spin.
  std::remove(trigger.c_str());
  EXPECT_EQ(waiting->ReceiveAtLeast(7, kHangMs), Io::kOk);
  EXPECT_EQ(waiting->received(), "+PONG\r\n");
  const long tries = std::atol(ReadFile(trigger + ".count").c_str());
  // A 100 ms back-off tries about a dozen times here; a loop that retries at once, millions.
  EXPECT_GT(tries, 0);
  EXPECT_LT(tries, 1000) << "accept was retried without a pause";
  EXPECT_NE(Log().find("accepting connections again"), std::string::npos) << Log();
}

TEST_F(HostileClientTest, TcpKeepaliveProbesIdleClients) {
  const std::string ss = FindProgram("ss");
  if (ss.empty()) GTEST_SKIP() << "ss (iproute2) is not installed";
  Start();
  ASSERT_EQ(Do({"PING"}), "PONG");
  const std::string filter = "( sport = :" + std::to_string(server_->port()) + " )";
  std::string out;
  ASSERT_EQ(RunToExit(ss, {"-tnoH", "state", "established", filter}, &out), 0) << out;
  EXPECT_NE(out.find("timer:(keepalive"), std::string::npos) << out;
  EXPECT_EQ(Do({"CONFIG", "GET", "tcp-keepalive"}), "[\"tcp-keepalive\", \"300\"]");
  // Off: new connections get no probes.
  ASSERT_EQ(Do({"CONFIG", "SET", "tcp-keepalive", "0"}), "OK");
  std::unique_ptr<RespClient> other = Connect();
  ASSERT_EQ(other->Call({"PING"}).ToString(), "PONG");
  ASSERT_EQ(RunToExit(ss, {"-tnoH", "state", "established", filter}, &out), 0) << out;
  // One line per connection (ss may print a line twice while sockets change: count each once).
  std::set<std::string> connections;
  std::set<std::string> probed;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string recv_q, send_q, local, peer;
    if (!(words >> recv_q >> send_q >> local >> peer)) continue;
    connections.insert(peer);
    if (line.find("keepalive") != std::string::npos) probed.insert(peer);
  }
  EXPECT_EQ(connections.size(), 2u) << out;
  EXPECT_EQ(probed.size(), 1u) << out;
}

// ---------------------------------------------------------------------------------------------
// Commands that may not run inside MULTI are refused when queued; EXEC then aborts.

TEST_F(HostileClientTest, ShutdownInsideMultiIsRefusedAndExecAborts) {
  Start();
  std::unique_ptr<RespClient> c = Connect();
  EXPECT_EQ(c->Call({"MULTI"}).ToString(), "OK");
  EXPECT_EQ(c->Call({"SET", "k", "v"}).ToString(), "QUEUED");
  EXPECT_EQ(c->Call({"SHUTDOWN"}).ToString(),
            "(error) ERR Command not allowed inside a transaction");
  EXPECT_EQ(c->Call({"IDEM.CLAIM", "k", "fp"}).ToString(),
            "(error) ERR Command not allowed inside a transaction");
  EXPECT_EQ(c->Call({"EXEC"}).ToString(),
            "(error) EXECABORT Transaction discarded because of previous errors.");
  EXPECT_EQ(c->Call({"EXISTS", "k"}).ToString(), "(integer) 0");
  ExpectHealthy();
}

// ---------------------------------------------------------------------------------------------
// A write of several keys or fields that fails part-way writes nothing: alone, in a pipeline,
// inside EXEC and from a script.

TEST_F(HostileClientTest, AMultiKeyWriteThatFailsWritesNothing) {
  Start();
  const std::string too_long(70'000, 'x');  // Past the 64 KiB key and member limit.
  struct Case {
    Args command;
    std::string written;  // The key the command would have written first.
  };
  const Case cases[] = {
      {{"MSET", "a", "1", too_long, "2"}, "a"},      {{"MSETNX", "a", "1", too_long, "2"}, "a"},
      {{"HSET", "h", "f", "1", too_long, "2"}, "h"}, {{"SADD", "s", "m", too_long}, "s"},
      {{"ZADD", "z", "1", "m", "2", too_long}, "z"}, {{"DEL", "a"}, "a"},
  };
  for (const Case& c : cases) {
    if (c.command[0] == "DEL") continue;
    // Alone.
    Reply r = Call(c.command);
    EXPECT_EQ(r.type, Reply::Type::kError) << c.command[0] << ": " << r.ToString();
    EXPECT_EQ(Do({"EXISTS", c.written}), "(integer) 0") << c.command[0];
    // In a pipeline behind another write, which stands.
    std::unique_ptr<RespClient> pipe = Connect();
    ASSERT_TRUE(pipe->Send(RespClient::Encode({"SET", "before", "1"}) +
                           RespClient::Encode(c.command) +
                           RespClient::Encode({"SET", "after", "1"})));
    EXPECT_EQ(pipe->Read()->ToString(), "OK");
    EXPECT_EQ(pipe->Read()->type, Reply::Type::kError) << c.command[0];
    EXPECT_EQ(pipe->Read()->ToString(), "OK");
    EXPECT_EQ(Do({"EXISTS", c.written}), "(integer) 0") << c.command[0] << " in a pipeline";
    EXPECT_EQ(Do({"EXISTS", "before", "after"}), "(integer) 2");
    // Inside EXEC: the command's error is its reply; the others stand, as in Redis.
    std::unique_ptr<RespClient> txn = Connect();
    EXPECT_EQ(txn->Call({"MULTI"}).ToString(), "OK");
    EXPECT_EQ(txn->Call(c.command).ToString(), "QUEUED");
    EXPECT_EQ(txn->Call({"SET", "in-exec", "1"}).ToString(), "QUEUED");
    const Reply exec = txn->Call({"EXEC"});
    ASSERT_EQ(exec.elements.size(), 2u) << exec.ToString();
    EXPECT_EQ(exec.elements[0].type, Reply::Type::kError) << exec.ToString();
    EXPECT_EQ(Do({"EXISTS", c.written}), "(integer) 0") << c.command[0] << " in EXEC";
    EXPECT_EQ(Do({"EXISTS", "in-exec"}), "(integer) 1");
    // From a script, its error caught by pcall: the script goes on, the command left nothing.
    Args eval = {"EVAL",
                 "local r = redis.pcall(unpack(ARGV)); redis.call('SET', 'in-script', '1'); "
                 "return {r['err'] ~= nil and 1 or 0, redis.call('EXISTS', KEYS[1])}",
                 "1", c.written};
    eval.insert(eval.end(), c.command.begin(), c.command.end());
    EXPECT_EQ(Do(eval), "[(integer) 1, (integer) 0]") << c.command[0] << " in a script";
    EXPECT_EQ(Do({"EXISTS", "in-script"}), "(integer) 1");
    Do({"DEL", "before", "after", "in-exec", "in-script"});
  }
}

// ---------------------------------------------------------------------------------------------
// A client in the middle of its own EXEC or script cannot be killed under it: every command
// runs on the one keyspace executor, so CLIENT KILL from another io thread is refused -BUSY
// (as in Redis) until SCRIPT KILL ends the script; EXEC then runs to its end, and the kill
// that follows leaves nothing behind.

TEST_F(HostileClientTest, AClientInsideItsExecIsKilledOnlyOnceTheExecIsDone) {
  // Two io threads: the killer's commands arrive on the other while the victim's EXEC runs;
  // past busy-reply-threshold they are refused rather than held.
  Start({"--threads", "2", "--lua-time-limit", "0", "--busy-reply-threshold", "100"});
  std::unique_ptr<RespClient> victim = Connect();
  std::unique_ptr<RespClient> killer = Connect();
  ASSERT_NE(victim, nullptr);
  ASSERT_NE(killer, nullptr);
  const std::string id = victim->Call({"CLIENT", "ID"}).ToString().substr(10);  // "(integer) n"
  ASSERT_EQ(victim->Call({"WATCH", "w"}).ToString(), "OK");
  ASSERT_EQ(victim->Call({"MULTI"}).ToString(), "OK");
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(victim->Call({"SET", "before" + std::to_string(i), "1"}).ToString(), "QUEUED");
  }
  // The script spins until killed, serving the executor's other handlers meanwhile.
  ASSERT_EQ(
      victim->Call({"EVAL", "redis.call('SET', 'inside', '1') while true do end", "0"}).ToString(),
      "QUEUED");
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(victim->Call({"SET", "after" + std::to_string(i), "1"}).ToString(), "QUEUED");
  }
  ASSERT_TRUE(victim->Send(RespClient::Encode({"EXEC"})));
  // Once the script runs (the killer's commands are refused), CLIENT KILL is refused too.
  Reply probe;
  ASSERT_TRUE(Eventually([&] {
    probe = killer->Call({"GET", "w"});
    return probe.ToString().rfind("(error) BUSY", 0) == 0;
  })) << probe.ToString();
  EXPECT_EQ(killer->Call({"CLIENT", "KILL", "ID", id}).ToString().rfind("(error) BUSY", 0), 0u);
  EXPECT_EQ(killer->Call({"SCRIPT", "KILL"}).ToString(), "OK");
  // EXEC ran to its end: the script's writes rolled back, the rest committed.
  const std::optional<Reply> exec = victim->Read();
  ASSERT_TRUE(exec.has_value());
  ASSERT_EQ(exec->elements.size(), 9u) << exec->ToString();
  EXPECT_EQ(exec->elements[4].ToString().rfind("(error)", 0), 0u) << exec->ToString();
  EXPECT_EQ(killer->Call({"CLIENT", "KILL", "ID", id}).ToString(), "(integer) 1");
  EXPECT_TRUE(victim->WaitClosed());
  // The client is gone with its watch and queue, and the server serves on.
  EXPECT_TRUE(Eventually([&] {
    return killer->Call({"CLIENT", "LIST"}).str.find("id=" + id + " ") == std::string::npos;
  }));
  EXPECT_EQ(killer->Call({"EXISTS", "inside"}).ToString(), "(integer) 0");
  EXPECT_EQ(killer->Call({"EXISTS", "before0", "after3"}).ToString(), "(integer) 2");
  EXPECT_EQ(killer->Call({"SET", "w", "changed"}).ToString(), "OK");
  EXPECT_EQ(killer->Call({"SCRIPT", "KILL"}).ToString(),
            "(error) NOTBUSY No scripts in execution right now.");
  ExpectHealthy();
}

// ---------------------------------------------------------------------------------------------
// A script past busy-reply-threshold: other clients get -BUSY; SCRIPT KILL and SHUTDOWN NOSAVE
// end it.

TEST_F(HostileClientTest, ClientsGetBusyWhileAScriptRunsPastTheThreshold) {
  Start({"--threads", "1", "--lua-time-limit", "0", "--busy-reply-threshold", "100"});
  std::unique_ptr<RespClient> runner = Connect();
  ASSERT_TRUE(runner->Send(
      RespClient::Encode({"EVAL", "redis.call('SET', 'k', 'partial') while true do end", "0"})));
  std::unique_ptr<RespClient> other = Connect();
  Reply r;
  ASSERT_TRUE(Eventually([&] {
    r = other->Call({"GET", "k"});
    return r.type == Reply::Type::kError;
  })) << r.ToString();
  EXPECT_EQ(r.ToString(),
            "(error) BUSY Redis is busy running a script. You can only call SCRIPT KILL or "
            "SHUTDOWN NOSAVE.");
  EXPECT_EQ(other->Call({"SHUTDOWN"}).ToString(), r.ToString()) << "only SHUTDOWN NOSAVE";
  EXPECT_EQ(other->Call({"SCRIPT", "KILL"}).ToString(), "OK");
  const std::optional<Reply> killed = runner->Read();
  ASSERT_TRUE(killed.has_value());
  EXPECT_EQ(killed->str.rfind("ERR Script killed by user with SCRIPT KILL", 0), 0u)
      << killed->ToString();
  EXPECT_EQ(other->Call({"GET", "k"}).ToString(), "(nil)");
}

TEST_F(HostileClientTest, ShutdownNosaveStopsARunawayScript) {
  Start({"--threads", "1", "--lua-time-limit", "0", "--busy-reply-threshold", "100"});
  std::unique_ptr<RespClient> runner = Connect();
  ASSERT_TRUE(runner->Send(
      RespClient::Encode({"EVAL", "redis.call('SET', 'k', 'v') while true do end", "0"})));
  std::unique_ptr<RespClient> other = Connect();
  ASSERT_TRUE(Eventually([&] { return other->Call({"PING"}).type == Reply::Type::kError; }));
  ASSERT_TRUE(other->Send(RespClient::Encode({"SHUTDOWN", "NOSAVE"})));
  EXPECT_EQ(server_->WaitExit(), 0);
  // Its write was rolled back with it.
  server_.reset();
  client_.reset();
  Start();
  EXPECT_EQ(Do({"EXISTS", "k"}), "(integer) 0");
}

TEST_F(HostileClientTest, TheQueueOfAMultiIsBounded) {
  Start({"--client-query-buffer-limit", "1mb"});
  std::unique_ptr<RespClient> c = Connect();
  EXPECT_EQ(c->Call({"MULTI"}).ToString(), "OK");
  const std::string value(64 * 1024, 'v');
  Reply r;
  int queued = 0;
  for (; queued < 64; ++queued) {
    r = c->Call({"SET", "k" + std::to_string(queued), value});
    if (r.type == Reply::Type::kError) break;
    ASSERT_EQ(r.ToString(), "QUEUED");
  }
  EXPECT_LT(queued, 64);
  EXPECT_EQ(r.ToString(),
            "(error) ERR the queued commands of this MULTI passed client-query-buffer-limit");
  EXPECT_EQ(c->Call({"EXEC"}).ToString(),
            "(error) EXECABORT Transaction discarded because of previous errors.");
  EXPECT_EQ(c->Call({"DBSIZE"}).ToString(), "(integer) 0");
  // The next MULTI starts from an empty queue.
  EXPECT_EQ(c->Call({"MULTI"}).ToString(), "OK");
  EXPECT_EQ(c->Call({"SET", "k", value}).ToString(), "QUEUED");
  EXPECT_EQ(c->Call({"EXEC"}).ToString(), "[OK]");
}

// ---------------------------------------------------------------------------------------------
// The script cache: a client that sends a new script with every call does not grow it.

TEST_F(HostileClientTest, DistinctEvalScriptsAreEvictedLoadedOnesStay) {
  Start();
  const std::string loaded = Do({"SCRIPT", "LOAD", "return 'loaded'"});
  const std::string first = Do({"SCRIPT", "LOAD", "return 'x'"});  // Name only: EVAL adds it.
  ASSERT_EQ(Do({"SCRIPT", "FLUSH"}), "OK");
  ASSERT_EQ(Do({"SCRIPT", "LOAD", "return 'loaded'"}), loaded);
  ASSERT_EQ(Do({"EVAL", "return 'x'", "0"}), "\"x\"");
  std::unique_ptr<RespClient> c = Connect();
  std::string pipeline;
  for (int i = 0; i < 600; ++i) {
    pipeline += RespClient::Encode({"EVAL", "return " + std::to_string(i), "0"});
  }
  ASSERT_TRUE(c->Send(pipeline));
  for (int i = 0; i < 600; ++i) ASSERT_EQ(c->Read()->ToString(), "(integer) " + std::to_string(i));
  const std::string sha_first = first.substr(1, first.size() - 2);  // Unquoted.
  const std::string sha_loaded = loaded.substr(1, loaded.size() - 2);
  EXPECT_EQ(Do({"EVALSHA", sha_first, "0"}),
            "(error) NOSCRIPT No matching script. Please use EVAL.");
  EXPECT_EQ(Do({"EVALSHA", sha_loaded, "0"}), "\"loaded\"");
  const std::string info = Do({"INFO", "stats"});
  EXPECT_NE(info.find("evicted_scripts:101"), std::string::npos) << info;
  EXPECT_NE(Do({"INFO", "memory"}).find("number_of_cached_scripts:501"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// What a script makes the server hold outside Lua is bounded.

TEST_F(HostileClientTest, AScriptsUncommittedWritesAreBounded) {
  Start({"--lua-write-buffer-limit", "64mb"});
  // 8 MB values, 800 times: 6.4 GB if the server kept them all until the script ends.
  const std::string script =
      "local v = string.rep('x', 8 * 1024 * 1024) "
      "for i = 1, 800 do redis.call('SET', KEYS[1] .. (i % 2), v) "
      "redis.call('SET', 'other' .. i, v) end return 'done'";
  EXPECT_EQ(Do({"EVAL", script, "1", "k"}),
            "(error) ERR Script's uncommitted writes passed lua-write-buffer-limit (67108864 "
            "bytes); its writes were rolled back");
  EXPECT_EQ(Do({"DBSIZE"}), "(integer) 0");
  // Inside MULTI too, and the server stays small enough to go on.
  std::unique_ptr<RespClient> c = Connect();
  EXPECT_EQ(c->Call({"MULTI"}).ToString(), "OK");
  EXPECT_EQ(c->Call({"EVAL", script, "1", "k"}).ToString(), "QUEUED");
  EXPECT_EQ(c->Call({"SET", "after", "1"}).ToString(), "QUEUED");
  const Reply exec = c->Call({"EXEC"});
  ASSERT_EQ(exec.elements.size(), 2u) << exec.ToString();
  EXPECT_NE(exec.elements[0].str.find("lua-write-buffer-limit"), std::string::npos);
  EXPECT_EQ(Do({"DBSIZE"}), "(integer) 1");
  EXPECT_LT(ResidentBytes(server_->pid()), std::size_t{2} << 30);
  // Within the limit the same kind of script runs.
  EXPECT_EQ(Do({"EVAL", "redis.call('SET', 'a', string.rep('x', 1024 * 1024)) return 1", "0"}),
            "(integer) 1");
}

// ---------------------------------------------------------------------------------------------
// No blocked client waits forever: a change that ends its wait answers it.

TEST_F(HostileClientTest, AGroupReaderIsAnsweredWhenItsStreamGoes) {
  Start();
  // Each way the stream can go: deleted, flushed, renamed away, replaced by another type.
  const Args ways[] = {{"DEL", "s"}, {"FLUSHALL"}, {"RENAME", "s", "t"}, {"SET", "s", "text"}};
  for (const Args& way : ways) {
    ASSERT_EQ(Do({"FLUSHALL"}), "OK");
    ASSERT_EQ(Do({"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"}), "OK");
    std::unique_ptr<RespClient> reader = Connect();
    ASSERT_TRUE(reader->Send(
        RespClient::Encode({"XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"})));
    ASSERT_TRUE(Eventually([&] {
      return Do({"INFO", "clients"}).find("blocked_clients:1") != std::string::npos;
    }));
    ASSERT_NE(Call(way).type, Reply::Type::kError) << way[0];
    const std::optional<Reply> answer = reader->Read();
    ASSERT_TRUE(answer.has_value()) << way[0] << ": still blocked";
    EXPECT_EQ(answer->ToString(), "(error) UNBLOCKED the stream key no longer exists") << way[0];
    EXPECT_EQ(reader->Call({"PING"}).ToString(), "PONG");
  }
  // A destroyed group: its readers are told, the stream's other groups wait on.
  ASSERT_EQ(Do({"FLUSHALL"}), "OK");
  ASSERT_EQ(Do({"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"}), "OK");
  ASSERT_EQ(Do({"XGROUP", "CREATE", "s", "other", "$"}), "OK");
  std::unique_ptr<RespClient> reader = Connect();
  std::unique_ptr<RespClient> bystander = Connect();
  ASSERT_TRUE(reader->Send(
      RespClient::Encode({"XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"})));
  ASSERT_TRUE(bystander->Send(RespClient::Encode(
      {"XREADGROUP", "GROUP", "other", "c", "BLOCK", "0", "STREAMS", "s", ">"})));
  ASSERT_TRUE(Eventually([&] {
    return Do({"INFO", "clients"}).find("blocked_clients:2") != std::string::npos;
  }));
  ASSERT_EQ(Do({"XGROUP", "DESTROY", "s", "g"}), "(integer) 1");
  const std::optional<Reply> answer = reader->Read();
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->ToString(),
            "(error) NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP "
            "option");
  EXPECT_NE(Do({"XADD", "s", "*", "f", "v"}), "");
  const std::optional<Reply> entry = bystander->Read();
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->elements.size(), 1u) << entry->ToString();
}

TEST_F(HostileClientTest, AListWaiterIsAnsweredWhenItsKeyChangesType) {
  Start();
  std::unique_ptr<RespClient> waiter = Connect();
  ASSERT_TRUE(waiter->Send(RespClient::Encode({"BLPOP", "l", "0"})));
  ASSERT_TRUE(Eventually([&] {
    return Do({"INFO", "clients"}).find("blocked_clients:1") != std::string::npos;
  }));
  ASSERT_EQ(Do({"SET", "l", "text"}), "OK");
  const std::optional<Reply> answer = waiter->Read();
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->ToString(),
            "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
}

TEST_F(HostileClientTest, BlockedClientsAreReleasedAtShutdown) {
  Start();
  std::vector<std::unique_ptr<RespClient>> waiters;
  const Args commands[] = {{"BLPOP", "l", "0"},
                           {"BZPOPMIN", "z", "0"},
                           {"XREAD", "BLOCK", "0", "STREAMS", "s", "$"},
                           {"LEASE.ACQUIRE", "r", "owner", "10000", "BLOCK", "0"},
                           {"QUEUE.CLAIM", "q", "g", "c", "BLOCK", "0"}};
  ASSERT_EQ(Do({"LEASE.ACQUIRE", "r", "holder", "60000"}).find("error"), std::string::npos);
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g"}).find("error"), std::string::npos);
  for (const Args& command : commands) {
    waiters.push_back(Connect());
    ASSERT_TRUE(waiters.back()->Send(RespClient::Encode(command)));
  }
  ASSERT_TRUE(Eventually([&] {
    return Do({"INFO", "clients"}).find("blocked_clients:5") != std::string::npos;
  })) << Do({"INFO", "clients"});
  client_.reset();
  ASSERT_EQ(server_->Stop(SIGTERM), 0);
  for (auto& w : waiters) EXPECT_TRUE(w->WaitClosed());
}

}  // namespace
}  // namespace cairn::test
