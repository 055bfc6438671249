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
//   !mask radix-tree-keys        from here on, the value after that name in an array or map
//                                reply is not compared (a field listed, with its reason, in
//                                server/COMPATIBILITY.md)
//
// Each script starts on fresh connections after FLUSHALL on both servers.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
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

// Replaces the value that follows each masked name in r's arrays and maps, at any depth.
void Mask(Reply& r, const std::vector<std::string>& masked) {
  for (std::size_t i = 0; i < r.elements.size(); ++i) {
    Reply& e = r.elements[i];
    const bool named = e.type == Reply::Type::kBulk || e.type == Reply::Type::kSimple;
    if (named && i + 1 < r.elements.size() &&
        std::find(masked.begin(), masked.end(), e.str) != masked.end()) {
      r.elements[i + 1] = Reply{Reply::Type::kSimple, "(masked)", 0, {}};
    }
    Mask(e, masked);
  }
}

std::string Send(RespClient& c, const std::string& line, bool unordered = false,
                 const std::vector<std::string>& masked = {}) {
  if (!c.Send(line + "\r\n")) return "(send failed)";
  std::optional<Reply> r = c.Read();
  if (!r) return "(no reply)";
  Mask(*r, masked);
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
  std::vector<std::string> masked;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    if (line.starts_with("!mask ")) {
      masked.push_back(line.substr(6));
      continue;
    }
    if (line.starts_with("!sleep ")) {
      std::this_thread::sleep_for(std::chrono::milliseconds(std::stoi(line.substr(7))));
      continue;
    }
    const bool compare = !line.starts_with("~ ");
    const bool unordered = line.starts_with("@ ");
    const std::string command = compare && !unordered ? line : line.substr(2);
    const std::string expected = Send(*redis, command, unordered, masked);
    const std::string actual = Send(*cairn, command, unordered, masked);
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

// Random pipelines of string and key commands over a few keys, each sent in one write, so
// that the server runs them in one read batch: consecutive writes then share one store
// transaction (server/execution/write_batch.h), and every reply must still be the one Redis
// gives running them one by one — errors in the middle of a run (INCR of a non-integer, a
// wrong arity) included, as reads between writes.
TEST(DifferentialPipelineTest, RandomPipelinesMatchRedis) {
  TempDir dir;
  const std::string redis_binary = FindRedisServer();
  ASSERT_FALSE(redis_binary.empty()) << "redis-server is not installed";
  RedisProcess redis_server(redis_binary, dir.Sub("redis"));
  ASSERT_TRUE(redis_server.ok()) << redis_server.error();
  ServerProcess cairn_server(CAIRN_SERVER_BINARY,
                             {"--port", "0", "--dir", dir.Sub("cairn"), "--durability", "none"},
                             dir.Sub("cairn.log"));
  ASSERT_TRUE(cairn_server.ok()) << cairn_server.error();
  std::unique_ptr<RespClient> redis = RespClient::Connect(redis_server.port());
  std::unique_ptr<RespClient> cairn = RespClient::Connect(cairn_server.port());
  ASSERT_TRUE(redis && cairn);

  std::mt19937 rng(20261130);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  const std::vector<std::string> keys = {"k0", "k1", "k2", "n0", "n1"};
  const std::vector<std::string> values = {"1", "-7", "42", "x", "", "9223372036854775807"};
  auto key = [&] { return keys[pick(keys.size())]; };
  auto value = [&] { return values[pick(values.size())]; };
  auto command = [&]() -> std::vector<std::string> {
    switch (pick(20)) {
      case 0:
        return {"SET", key(), value()};
      case 1:
        return {"SET", key(), value(), "NX"};
      case 2:
        return {"SET", key(), value(), "XX", "GET"};
      case 3:
        return {"INCR", key()};
      case 4:
        return {"INCRBY", key(), std::to_string(static_cast<int>(pick(2001)) - 1000)};
      case 5:
        return {"DECR", key()};
      case 6:
        return {"APPEND", key(), value()};
      case 7:
        return {"DEL", key(), key()};
      case 8:
        return {"GET", key()};
      case 9:
        return {"GETSET", key(), value()};
      case 10:
        return {"SETNX", key(), value()};
      case 11:
        return {"MSET", key(), value(), key(), value()};
      case 12:
        return {"GETDEL", key()};
      case 13:
        return {"EXISTS", key(), key()};
      case 14:
        return {"EXPIRE", key(), "100000"};
      case 15:
        return {"PERSIST", key()};
      case 16:
        return {"SETRANGE", key(), std::to_string(pick(4)), value()};
      case 17:
        return {"STRLEN", key()};
      case 18:
        return {"INCR"};  // Wrong arity: an error in the middle of a run.
      default:
        return {"RENAME", key(), key()};
    }
  };
  int compared = 0;
  for (int round = 0; round < 300; ++round) {
    const std::size_t length = 1 + pick(24);
    std::string pipeline, shown;
    for (std::size_t i = 0; i < length; ++i) {
      const std::vector<std::string> args = command();
      pipeline += RespClient::Encode(args);
      for (const std::string& a : args) shown += a + " ";
      shown += "| ";
    }
    ASSERT_TRUE(redis->Send(pipeline) && cairn->Send(pipeline));
    for (std::size_t i = 0; i < length; ++i) {
      const std::optional<Reply> expected = redis->Read();
      const std::optional<Reply> actual = cairn->Read();
      ASSERT_TRUE(expected && actual) << "round " << round << ": " << shown;
      ASSERT_EQ(actual->ToString(), expected->ToString())
          << "round " << round << ", command " << i << " of: " << shown;
      ++compared;
    }
  }
  // The keyspaces end equal too.
  for (const std::string& k : keys) {
    EXPECT_EQ(cairn->Call({"GET", k}).ToString(), redis->Call({"GET", k}).ToString()) << k;
  }
  EXPECT_GT(compared, 1000);
}

}  // namespace
}  // namespace cairn::test
