// The fixture of the tests that run cairn-server: a server of its own per test (free
// loopback port, own data directory, log in the temp dir), a default connection opened on
// first use, and redis-cli against the server. A ThreadSanitizer report in the server's log
// fails the test (tests/tsan/README.md). The including test target defines
// CAIRN_SERVER_BINARY.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "server/support/resp_client.h"
#include "server/support/server_process.h"
#include "support/temp_dir.h"

namespace cairn::test {

class ServerFixture : public ::testing::Test {
 protected:
  using Args = std::vector<std::string>;

  // A server built with ThreadSanitizer writes its reports to its stderr, the log, which goes
  // with the temp dir: they are printed here, and fail the test. Checked in TearDown rather
  // than left to the server's exit status: with halt_on_error=1 a report ends the server, but
  // the test may have made its last call already, or stop it with SIGKILL (or POWERCUT)
  // without looking at how it ended.
  void TearDown() override {
    std::ifstream in(dir_.Sub("server.log"));
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const std::size_t at = text.find("ThreadSanitizer");
    if (at == std::string::npos) return;
    const std::size_t from = text.rfind('\n', at);
    ADD_FAILURE() << "cairn-server reported a data race (or another ThreadSanitizer error):\n"
                  << text.substr(from == std::string::npos ? 0 : from + 1, 64 * 1024);
  }

  // Starts a server with the common test flags plus `extra`.
  void Start(const Args& extra = {}) {
    Args args = {"--port", "0", "--dir", dir_.Sub("data"), "--durability", "none"};
    args.insert(args.end(), extra.begin(), extra.end());
    server_ = std::make_unique<ServerProcess>(CAIRN_SERVER_BINARY, args, dir_.Sub("server.log"));
    ASSERT_TRUE(server_->ok()) << server_->error();
  }

  // Stops the server cleanly and starts a new one over the same data directory.
  void Restart() {
    client_.reset();
    ASSERT_EQ(server_->Stop(SIGTERM), 0);
    server_.reset();
    Start();
  }

  std::unique_ptr<RespClient> Connect() {
    std::string error;
    std::unique_ptr<RespClient> c = RespClient::Connect(server_->port(), &error);
    EXPECT_NE(c, nullptr) << error;
    return c;
  }

  // One command on the default connection (opened on first use).
  Reply Call(const Args& args) {
    if (!client_) client_ = Connect();
    return client_->Call(args);
  }
  std::string Do(const Args& args) { return Call(args).ToString(); }

  // Runs redis-cli against the server; returns its output.
  std::string Cli(const Args& args, int* exit_code = nullptr) {
    const std::string cli = FindProgram("redis-cli");
    EXPECT_FALSE(cli.empty()) << "redis-cli is not installed (package redis-tools)";
    Args full = {"-p", std::to_string(server_->port())};
    full.insert(full.end(), args.begin(), args.end());
    std::string out;
    const int code = RunToExit(cli, full, &out);
    if (exit_code) *exit_code = code;
    return out;
  }

  TempDir dir_;
  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<RespClient> client_;
};

}  // namespace cairn::test
