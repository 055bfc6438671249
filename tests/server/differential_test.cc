// Differential test: every script in tests/server/corpus runs against a real redis-server and
// against cairn-server, and their replies must be equal. Scripts are lines of inline commands
// (Redis's quoting), sent as they are to both servers, so both parse the same bytes:
//
//   # a comment                  skipped
//   SET k v EX 10                compared: the two replies must render the same
//   ~ HELLO 3                    run on both, not compared: a difference listed, with its
//                                reason, in server/COMPATIBILITY.md
//   @ KEYS user:*                compared as a set: Redis leaves the order unspecified
//   !sleep 50                    waits 50 ms (expiry boundaries)
//
// Each script starts on fresh connections after FLUSHALL on both servers.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "server/support/redis_process.h"
#include "server/support/resp_client.h"
#include "server/support/server_process.h"
#include "support/temp_dir.h"

namespace cairn::test {
namespace {

std::vector<std::string> CorpusFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(CAIRN_CORPUS_DIR)) {
    if (entry.path().extension() == ".txt") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class DifferentialTest : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const std::string redis = FindRedisServer();
    ASSERT_FALSE(redis.empty())
        << "redis-server is not installed; tools/install-deps installs it (package "
           "redis-server)";
    redis_ = new RedisProcess(redis, dir_->Sub("redis"));
    ASSERT_TRUE(redis_->ok()) << redis_->error();
    cairn_ = new ServerProcess(CAIRN_SERVER_BINARY,
                               {"--port", "0", "--dir", dir_->Sub("cairn"), "--durability", "none"},
                               dir_->Sub("cairn.log"));
    ASSERT_TRUE(cairn_->ok()) << cairn_->error();
  }
  static void TearDownTestSuite() {
    delete cairn_;
    delete redis_;
    delete dir_;
  }

  static TempDir* dir_;
  static RedisProcess* redis_;
  static ServerProcess* cairn_;
};

TempDir* DifferentialTest::dir_ = nullptr;
RedisProcess* DifferentialTest::redis_ = nullptr;
ServerProcess* DifferentialTest::cairn_ = nullptr;

std::string Send(RespClient& c, const std::string& line, bool unordered = false) {
  if (!c.Send(line + "\r\n")) return "(send failed)";
  std::optional<Reply> r = c.Read();
  if (!r) return "(no reply)";
  if (unordered) {
    std::sort(r->elements.begin(), r->elements.end(),
              [](const Reply& a, const Reply& b) { return a.ToString() < b.ToString(); });
  }
  return r->ToString();
}

TEST_P(DifferentialTest, RepliesMatchRedis) {
  ASSERT_TRUE(redis_ && redis_->ok() && cairn_ && cairn_->ok());
  std::unique_ptr<RespClient> redis = RespClient::Connect(redis_->port());
  std::unique_ptr<RespClient> cairn = RespClient::Connect(cairn_->port());
  ASSERT_TRUE(redis && cairn);
  ASSERT_EQ(Send(*redis, "FLUSHALL"), "OK");
  ASSERT_EQ(Send(*cairn, "FLUSHALL"), "OK");

  std::ifstream in(std::string(CAIRN_CORPUS_DIR) + "/" + GetParam());
  ASSERT_TRUE(in) << GetParam();
  std::string line;
  int number = 0, compared = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    if (line.starts_with("!sleep ")) {
      std::this_thread::sleep_for(std::chrono::milliseconds(std::stoi(line.substr(7))));
      continue;
    }
    const bool compare = !line.starts_with("~ ");
    const bool unordered = line.starts_with("@ ");
    const std::string command = compare && !unordered ? line : line.substr(2);
    const std::string expected = Send(*redis, command, unordered);
    const std::string actual = Send(*cairn, command, unordered);
    if (!compare) continue;
    ++compared;
    EXPECT_EQ(actual, expected) << GetParam() << ":" << number << ": " << command;
  }
  EXPECT_GT(compared, 0) << GetParam() << " compares nothing";
}

INSTANTIATE_TEST_SUITE_P(Corpus, DifferentialTest, ::testing::ValuesIn(CorpusFiles()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name =
                               param_info.param.substr(0, param_info.param.size() - 4);
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace cairn::test
