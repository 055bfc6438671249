// Redis's blocking commands over real sockets: a client blocked on keys is woken by the write
// that can serve it — whichever way the write arrives (alone, pipelined, in EXEC, in a
// script) — in arrival order, one waiter per new element; it times out with a null reply;
// inside MULTI it does not block; a client that goes away while blocked takes nothing.
// Nothing here measures time: each test waits for the state it needs (INFO's
// blocked_clients) and every read has a hang-detecting timeout.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "server/support/blocking_fixture.h"
#include "server/support/resp_client.h"

namespace cairn::test {
namespace {

using KeyBlockingTest = BlockingFixture;

TEST_F(KeyBlockingTest, BzpopminIsServedAtOnceWhenAMemberIsThere) {
  ASSERT_EQ(Do({"ZADD", "z", "2", "b", "1", "a"}), "(integer) 2");
  EXPECT_EQ(Do({"BZPOPMIN", "z", "0"}), R"(["z", "a", "1"])");
  EXPECT_EQ(Do({"BZPOPMAX", "nokey", "z", "0"}), R"(["z", "b", "2"])");
  EXPECT_EQ(Do({"EXISTS", "z"}), "(integer) 0");
}

TEST_F(KeyBlockingTest, BzpopminWaitsForTheWriteOfAnotherClient) {
  std::unique_ptr<RespClient> waiter = Connect();
  Send(*waiter, {"BZPOPMIN", "z1", "z2", "0"});
  AwaitBlocked(1);
  EXPECT_EQ(Do({"PING"}), "PONG");  // Others are served meanwhile.
  ASSERT_EQ(Do({"ZADD", "z2", "5", "m"}), "(integer) 1");
  EXPECT_EQ(Next(*waiter).ToString(), R"(["z2", "m", "5"])");
  AwaitBlocked(0);
  EXPECT_EQ(Do({"EXISTS", "z2"}), "(integer) 0");
}

TEST_F(KeyBlockingTest, ATimeoutAnswersANullArray) {
  std::unique_ptr<RespClient> waiter = Connect();
  EXPECT_EQ(waiter->Call({"BZPOPMIN", "z", "0.05"}).type, Reply::Type::kNullArray);
  EXPECT_EQ(waiter->Call({"HELLO", "3"}).type, Reply::Type::kMap);
  EXPECT_EQ(waiter->Call({"BZPOPMAX", "z", "0.01"}).type, Reply::Type::kNull);
}

TEST_F(KeyBlockingTest, WaitersAreServedInArrivalOrderOnePerNewMember) {
  std::unique_ptr<RespClient> first = Connect(), second = Connect(), third = Connect();
  Send(*first, {"BZPOPMIN", "z", "0"});
  AwaitBlocked(1);
  Send(*second, {"BZPOPMIN", "z", "0"});
  AwaitBlocked(2);
  Send(*third, {"BZPOPMIN", "z", "0"});
  AwaitBlocked(3);
  ASSERT_EQ(Do({"ZADD", "z", "1", "a"}), "(integer) 1");
  EXPECT_EQ(Next(*first).ToString(), R"(["z", "a", "1"])");
  AwaitBlocked(2);
  // One write of two members serves the next two.
  ASSERT_EQ(Do({"ZADD", "z", "2", "b", "3", "c"}), "(integer) 2");
  EXPECT_EQ(Next(*second).ToString(), R"(["z", "b", "2"])");
  EXPECT_EQ(Next(*third).ToString(), R"(["z", "c", "3"])");
  AwaitBlocked(0);
}

TEST_F(KeyBlockingTest, PipelinedTransactionalAndScriptedWritesWakeWaiters) {
  std::unique_ptr<RespClient> waiter = Connect();
  // Pipelined writes share one batched commit: the wake-up comes after it.
  Send(*waiter, {"BZPOPMIN", "z", "0"});
  AwaitBlocked(1);
  std::unique_ptr<RespClient> writer = Connect();
  ASSERT_TRUE(writer->Send(RespClient::Encode({"SET", "x", "1"}) +
                           RespClient::Encode({"ZADD", "z", "1", "a"}) +
                           RespClient::Encode({"INCR", "x"})));
  for (int i = 0; i < 3; ++i) Next(*writer);
  EXPECT_EQ(Next(*waiter).ToString(), R"(["z", "a", "1"])");

  Send(*waiter, {"BZPOPMIN", "z", "0"});
  AwaitBlocked(1);
  ASSERT_EQ(writer->Call({"MULTI"}).ToString(), "OK");
  ASSERT_EQ(writer->Call({"ZADD", "z", "2", "b"}).ToString(), "QUEUED");
  ASSERT_EQ(writer->Call({"EXEC"}).ToString(), "[(integer) 1]");
  EXPECT_EQ(Next(*waiter).ToString(), R"(["z", "b", "2"])");

  Send(*waiter, {"BZPOPMIN", "z", "0"});
  AwaitBlocked(1);
  ASSERT_EQ(
      writer->Call({"EVAL", "return redis.call('ZADD', KEYS[1], 3, 'c')", "1", "z"}).ToString(),
      "(integer) 1");
  EXPECT_EQ(Next(*waiter).ToString(), R"(["z", "c", "3"])");
  AwaitBlocked(0);
}

TEST_F(KeyBlockingTest, InsideMultiAndScriptsTheyDoNotBlock) {
  ASSERT_EQ(Do({"MULTI"}), "OK");
  ASSERT_EQ(Do({"BZPOPMIN", "z", "0"}), "QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[(nil)]");
  EXPECT_EQ(Do({"EVAL", "return redis.call('BZPOPMAX', KEYS[1], 0)", "1", "z"}), "(nil)");
  ASSERT_EQ(Do({"ZADD", "z", "1", "a"}), "(integer) 1");
  EXPECT_EQ(Do({"EVAL", "return redis.call('BZPOPMAX', KEYS[1], 0)", "1", "z"}),
            R"(["z", "a", "1"])");
}

TEST_F(KeyBlockingTest, AClientThatLeavesWhileBlockedTakesNothing) {
  {
    std::unique_ptr<RespClient> waiter = Connect();
    Send(*waiter, {"BZPOPMIN", "z", "0"});
    AwaitBlocked(1);
  }
  AwaitBlocked(0);
  ASSERT_EQ(Do({"ZADD", "z", "1", "a"}), "(integer) 1");
  EXPECT_EQ(Do({"ZCARD", "z"}), "(integer) 1");
}

TEST_F(KeyBlockingTest, BadTimeoutsAreRefused) {
  EXPECT_EQ(Do({"BZPOPMIN", "z", "abc"}), "(error) ERR timeout is not a float or out of range");
  EXPECT_EQ(Do({"BZPOPMIN", "z", "-1"}), "(error) ERR timeout is negative");
  ASSERT_EQ(Do({"SET", "s", "v"}), "OK");
  EXPECT_EQ(Do({"BZPOPMIN", "s", "0"}),
            "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
}

}  // namespace
}  // namespace cairn::test
