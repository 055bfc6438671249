// The command runner without sockets: input bytes in, reply bytes out, against a real store.
// Covers: pipelined writes answer in order and land; a read commits the batch first; input that
// ends inside a command leaves that command for later; MULTI queues; a parked blocking command
// stops the run. Each test commits the batch as the pass would. The store is opened as
// cairn-server opens it: the serialized keyspace.
#include "execution/command_runner.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cairn/clock.h"
#include "cairn/store.h"
#include "commands/all_commands.h"
#include "config/server_config.h"
#include "execution/command_table.h"
#include "execution/server_state.h"
#include "execution/session.h"
#include "execution/write_batch.h"
#include "support/temp_dir.h"

namespace cairn::server {
namespace {

std::string Encode(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return out;
}

class CommandRunnerTest : public ::testing::Test {
 protected:
  CommandRunnerTest() {
    Options options = test::TestOptions(dir_.path());
    options.serialize_keyspace = true;
    options.caller_serializes_keyspace = true;
    store_ = test::OpenOrDie(options);
    state_ = std::make_unique<ServerState>(*store_, table_, ServerConfig{}, DefaultClock());
    session_ = std::make_unique<Session>(1, "test:1", "test:0", 0);
    batch_ = std::make_unique<WriteBatch>(*store_);
    runner_ = std::make_unique<CommandRunner>(*state_, *session_, *batch_);
  }

  // Runs `input` and commits the batch; returns the replies, and the bytes consumed in
  // *consumed.
  std::string Run(const std::string& input, std::size_t* consumed = nullptr) {
    std::string out;
    const CommandRunner::Progress p = runner_->Run(input, &out);
    if (consumed != nullptr) *consumed = p.consumed;
    batch_->Commit();
    const Status committed = batch_->TakeStatus();
    EXPECT_TRUE(committed.ok()) << committed.ToString();
    return out;
  }

  test::TempDir dir_;
  std::unique_ptr<Store> store_;
  const CommandTable table_ = BuildCommandTable();
  std::unique_ptr<ServerState> state_;
  std::unique_ptr<Session> session_;
  std::unique_ptr<WriteBatch> batch_;
  std::unique_ptr<CommandRunner> runner_;
};

TEST_F(CommandRunnerTest, PipelinedWritesAnswerInOrderAndLand) {
  const std::string input = Encode({"SET", "a", "1"}) + Encode({"INCR", "a"}) +
                            Encode({"INCR", "nope", "extra"}) + Encode({"APPEND", "a", "0"}) +
                            Encode({"INCRBY", "a", "x"});
  EXPECT_EQ(Run(input),
            "+OK\r\n:2\r\n-ERR wrong number of arguments for 'incr' command\r\n:2\r\n"
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(*store_->Get("a"), "20");
  EXPECT_EQ(state_->commands_processed.load(), 4u);  // Not the one refused for its arity.
}

TEST_F(CommandRunnerTest, AReadEndsARunAndSeesItsWrites) {
  const std::string input = Encode({"SET", "a", "1"}) + Encode({"GET", "a"}) +
                            Encode({"SET", "a", "2"}) + Encode({"GET", "a"});
  EXPECT_EQ(Run(input), "+OK\r\n$1\r\n1\r\n+OK\r\n$1\r\n2\r\n");
}

TEST_F(CommandRunnerTest, InputEndingInsideACommandLeavesItForLater) {
  const std::string whole = Encode({"SET", "a", "1"}) + Encode({"SET", "b", "2"});
  const std::string partial = Encode({"SET", "c", "3"}).substr(0, 9);
  std::size_t consumed = 0;
  EXPECT_EQ(Run(whole + partial, &consumed), "+OK\r\n+OK\r\n");
  EXPECT_EQ(consumed, whole.size());
  EXPECT_EQ(*store_->Get("a"), "1");
  EXPECT_EQ(*store_->Get("b"), "2");
  EXPECT_EQ(*store_->Get("c"), std::nullopt);
}

TEST_F(CommandRunnerTest, MultiQueuesRatherThanBatches) {
  const std::string input =
      Encode({"MULTI"}) + Encode({"SET", "a", "1"}) + Encode({"INCR", "a"}) + Encode({"EXEC"});
  EXPECT_EQ(Run(input), "+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n+OK\r\n:2\r\n");
}

TEST_F(CommandRunnerTest, AParkedCommandStopsTheRun) {
  ASSERT_EQ(Run(Encode({"QUEUE.GROUP", "q", "g"})), ":1\r\n");
  const std::string claim = Encode({"QUEUE.CLAIM", "q", "g", "w", "BLOCK", "0"});
  std::size_t consumed = 0;
  EXPECT_EQ(Run(Encode({"SET", "a", "1"}) + claim + Encode({"SET", "a", "2"}), &consumed),
            "+OK\r\n");
  EXPECT_EQ(consumed, Encode({"SET", "a", "1"}).size() + claim.size());
  EXPECT_TRUE(session_->parked.has_value());
  EXPECT_EQ(*store_->Get("a"), "1");
}

TEST_F(CommandRunnerTest, AProtocolErrorAnswersAndStops) {
  std::size_t consumed = 0;
  EXPECT_EQ(Run(Encode({"SET", "a", "1"}) + "*1\r\n$x\r\n", &consumed),
            "+OK\r\n-ERR Protocol error: invalid bulk length\r\n");
  EXPECT_TRUE(session_->close_after_reply);
  EXPECT_EQ(*store_->Get("a"), "1");
}

}  // namespace
}  // namespace cairn::server
