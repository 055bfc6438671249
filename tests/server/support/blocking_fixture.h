// A running cairn-server and what tests of parked (blocked) clients need: sending without
// reading, reading the next reply, and waiting until INFO counts the parked clients — a hang
// detector, not a timing check.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "server/support/resp_client.h"
#include "server/support/server_fixture.h"

namespace cairn::test {

class BlockingFixture : public ServerFixture {
 protected:
  void SetUp() override { Start(); }

  // Waits until INFO reports `n` parked clients.
  void AwaitBlocked(int n) {
    const std::string want = "blocked_clients:" + std::to_string(n) + "\r\n";
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    std::string info;
    while (std::chrono::steady_clock::now() < give_up) {
      info = Call({"INFO", "clients"}).str;
      if (info.find(want) != std::string::npos) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    FAIL() << "never saw " << want << " in " << info;
  }

  // Sends a command on `c` without reading its reply.
  static void Send(RespClient& c, const std::vector<std::string>& args) {
    ASSERT_TRUE(c.Send(RespClient::Encode(args)));
  }

  static Reply Next(RespClient& c) {
    std::optional<Reply> r = c.Read();
    EXPECT_TRUE(r.has_value()) << "no reply before the read timeout";
    return r.value_or(Reply{});
  }
};

}  // namespace cairn::test
