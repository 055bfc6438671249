// Command sequences through the dispatcher (CommandRunner, as an io thread runs a client's
// input) over a real store in a temporary directory, opened as cairn-server opens it. The input
// is what a client sends — inline lines or RESP — with a few commands left out because they
// act on the process rather than the keyspace (SHUTDOWN, CONFIG, SAVE and the like).
//
// Beyond ASan and UBSan, after each input the target checks that the store stays readable:
// every key KEYS lists has a type, and reading all of it by that type answers without an
// error; the write batch commits; and FLUSHALL leaves nothing behind. Each input starts on an
// empty store with a new client.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cairn/clock.h"
#include "cairn/store.h"
#include "commands/all_commands.h"
#include "config/server_config.h"
#include "execution/command_runner.h"
#include "execution/command_table.h"
#include "execution/pubsub_session.h"
#include "execution/server_state.h"
#include "execution/session.h"
#include "execution/write_batch.h"
#include "fuzz_support.h"
#include "resp/parser.h"
#include "support/temp_dir.h"

namespace {

using namespace cairn;
using namespace cairn::server;
using cairn::fuzz::RespArray;

// Commands on the process, not the keyspace: they would stop or reconfigure the target, or
// spend its time on snapshots.
bool LeftOut(std::string_view name) {
  static constexpr std::string_view kLeftOut[] = {
      "shutdown", "config", "save",  "bgsave",    "bgrewriteaof", "debug",
      "monitor",  "sync",   "psync", "replicaof", "slaveof",      "failover"};
  for (std::string_view c : kLeftOut) {
    if (name.size() == c.size() && std::equal(name.begin(), name.end(), c.begin(),
                                              [](char a, char b) { return (a | 0x20) == b; })) {
      return true;
    }
  }
  return false;
}

// The top-level reply at the front of `reply`, when it is an array of bulk strings (KEYS).
std::vector<std::string> BulkArray(std::string_view reply) {
  std::vector<std::string> out;
  FUZZ_CHECK(!reply.empty() && reply[0] == '*');
  std::size_t pos = reply.find("\r\n");
  const long count = std::stol(std::string(reply.substr(1, pos - 1)));
  pos += 2;
  for (long i = 0; i < count; ++i) {
    FUZZ_CHECK(reply[pos] == '$');
    const std::size_t end = reply.find("\r\n", pos);
    const std::size_t len = std::stoul(std::string(reply.substr(pos + 1, end - pos - 1)));
    out.emplace_back(reply.substr(end + 2, len));
    pos = end + 2 + len + 2;
  }
  return out;
}

class Target {
 public:
  Target() {
    ServerConfig config;
    config.lua_time_limit_ms = 20;  // An endless script costs an execution 20 ms.
    // Values as large as Redis allows (512 MB) would only measure the allocator.
    config.proto_max_bulk_len = 1 << 20;
    Options options;
    options.data_dir = dir_.path();
    options.durability = Durability::kNone;
    options.row_cache_bytes = config.row_cache_bytes;
    options.serialize_keyspace = true;  // As cairn-server opens it.
    options.caller_serializes_keyspace = true;
    Result<std::unique_ptr<Store>> store = Store::Open(options);
    FUZZ_CHECK(store.ok());
    store_ = std::move(*store);
    state_ = std::make_unique<ServerState>(*store_, table_, config, DefaultClock());
    batch_ = std::make_unique<WriteBatch>(*store_);
  }

  void RunInput(std::string_view input) {
    std::string commands;
    std::vector<std::string_view> args;
    std::string storage;
    while (!input.empty()) {
      const resp::ParseResult r = resp::ParseCommand(input, resp::Limits{}, &args, &storage);
      if (r.status == resp::ParseStatus::kNeedMore || r.status == resp::ParseStatus::kError) {
        break;
      }
      if (r.status == resp::ParseStatus::kCommand && !LeftOut(args[0])) commands += RespArray(args);
      input.remove_prefix(r.consumed);
    }

    Session client(next_id_, "fuzz:1", "fuzz:0", 0);
    ++next_id_;
    RunAs(client, commands);
    EndSession(client);

    Session checker(next_id_, "fuzz:2", "fuzz:0", 0);
    ++next_id_;
    CheckReadable(checker);
    FUZZ_CHECK(RunAs(checker, RespArray({"FLUSHALL"})) == "+OK\r\n");
    FUZZ_CHECK(RunAs(checker, RespArray({"KEYS", "*"})) == "*0\r\n");
    EndSession(checker);
  }

 private:
  // Runs `input` as one client's commands and commits; returns the replies. A command that
  // parks (a blocking one) is dropped, as if its client had gone.
  std::string RunAs(Session& session, std::string_view input) {
    std::string out;
    CommandRunner runner(*state_, session, *batch_);
    while (!input.empty()) {
      const CommandRunner::Progress p = runner.Run(input, &out);
      batch_->Commit();
      const Status committed = batch_->TakeStatus();
      if (!committed.ok()) std::fprintf(stderr, "commit: %s\n", committed.ToString().c_str());
      FUZZ_CHECK(committed.ok());
      input.remove_prefix(p.consumed);
      if (session.parked) {
        session.parked.reset();
        session.blocked.store(false);
        continue;
      }
      if (p.consumed == 0 || session.close_after_reply) break;
    }
    return out;
  }

  void EndSession(Session& session) {
    ClearTransactionState(*state_, session);
    LeavePubSub(*state_, session, nullptr);
  }

  void CheckReadable(Session& checker) {
    for (const std::string& key : BulkArray(RunAs(checker, RespArray({"KEYS", "*"})))) {
      const std::string type = RunAs(checker, RespArray({"TYPE", key}));
      std::vector<std::string_view> read;
      if (type == "+string\r\n") {
        read = {"GET", key};
      } else if (type == "+list\r\n") {
        read = {"LRANGE", key, "0", "-1"};
      } else if (type == "+hash\r\n") {
        read = {"HGETALL", key};
      } else if (type == "+set\r\n") {
        read = {"SMEMBERS", key};
      } else if (type == "+zset\r\n") {
        read = {"ZRANGE", key, "0", "-1", "WITHSCORES"};
      } else if (type == "+stream\r\n") {
        read = {"XRANGE", key, "-", "+"};
      } else if (type == "+none\r\n") {
        continue;  // Expired since KEYS listed it.
      } else {
        std::fprintf(stderr, "TYPE %s: %s\n", key.c_str(), type.c_str());
        FUZZ_CHECK(false);
      }
      const std::string reply = RunAs(checker, RespArray(read));
      if (reply.empty() || reply[0] == '-') {
        std::fprintf(stderr, "%s %s: %s\n", std::string(read[0]).c_str(), key.c_str(),
                     reply.c_str());
      }
      FUZZ_CHECK(!reply.empty() && reply[0] != '-');
    }
  }

  test::TempDir dir_;
  std::unique_ptr<Store> store_;
  const CommandTable table_ = BuildCommandTable();
  std::unique_ptr<ServerState> state_;
  std::unique_ptr<WriteBatch> batch_;
  std::uint64_t next_id_ = 1;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Target target;
  target.RunInput(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
