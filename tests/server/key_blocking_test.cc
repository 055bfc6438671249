// Redis's blocking commands over real sockets: a client blocked on keys is woken by the write
// that can serve it — whichever way the write arrives (alone, pipelined, in EXEC, in a
// script) — in arrival order, one waiter per new element; it times out with a null reply;
// inside MULTI it does not block (scripts may not call it, but for BLMPOP and BZMPOP, which do
// not block there either); a client that goes away while blocked takes nothing. BLMPOP and
// BZMPOP are served from the first of their keys that has something. Nothing here measures time:
// each test waits for the state it needs (INFO's blocked_clients) and every read has a
// hang-detecting timeout.
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

TEST_F(KeyBlockingTest, InsideMultiTheyDoNotBlockAndScriptsMayNotCallThem) {
  ASSERT_EQ(Do({"MULTI"}), "OK");
  ASSERT_EQ(Do({"BZPOPMIN", "z", "0"}), "QUEUED");
  ASSERT_EQ(Do({"ZADD", "z", "1", "a"}), "QUEUED");
  ASSERT_EQ(Do({"BZPOPMAX", "z", "0"}), "QUEUED");
  EXPECT_EQ(Do({"EXEC"}), R"([(nil), (integer) 1, ["z", "a", "1"]])");
  // As in Redis: a script must not wait.
  EXPECT_EQ(Do({"EVAL", "return redis.pcall('BZPOPMAX', KEYS[1], 0)", "1", "z"})
                .starts_with("(error) ERR This Redis command is not allowed from script"),
            true);
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

TEST_F(KeyBlockingTest, BlpopAndBrpopWaitForAPush) {
  std::unique_ptr<RespClient> left = Connect(), right = Connect();
  Send(*left, {"BLPOP", "l1", "l2", "0"});
  AwaitBlocked(1);
  Send(*right, {"BRPOP", "l2", "0"});
  AwaitBlocked(2);
  // One push of three items: the first waiter takes the head, the second the tail.
  ASSERT_EQ(Do({"RPUSH", "l2", "a", "b", "c"}), "(integer) 3");
  EXPECT_EQ(Next(*left).ToString(), R"(["l2", "a"])");
  EXPECT_EQ(Next(*right).ToString(), R"(["l2", "c"])");
  AwaitBlocked(0);
  EXPECT_EQ(Do({"LRANGE", "l2", "0", "-1"}), R"(["b"])");
  // Served at once when an item is there; a timeout answers a null array.
  EXPECT_EQ(Do({"BLPOP", "l1", "l2", "0"}), R"(["l2", "b"])");
  EXPECT_EQ(Call({"BRPOP", "l2", "0.01"}).type, Reply::Type::kNullArray);
}

TEST_F(KeyBlockingTest, BlmoveWaitsAndItsPushWakesTheNextWaiter) {
  std::unique_ptr<RespClient> mover = Connect(), popper = Connect();
  Send(*mover, {"BLMOVE", "src", "dst", "LEFT", "RIGHT", "0"});
  AwaitBlocked(1);
  Send(*popper, {"BLPOP", "dst", "0"});
  AwaitBlocked(2);
  ASSERT_EQ(Do({"LPUSH", "src", "job"}), "(integer) 1");
  EXPECT_EQ(Next(*mover).ToString(), R"("job")");
  // The move's push to dst is a write like any other: it serves dst's waiter.
  EXPECT_EQ(Next(*popper).ToString(), R"(["dst", "job"])");
  AwaitBlocked(0);
  // BRPOPLPUSH answers a null bulk string at its timeout.
  EXPECT_EQ(Call({"BRPOPLPUSH", "src", "dst", "0.01"}).type, Reply::Type::kNullBulk);
  EXPECT_EQ(Do({"BLMOVE", "src", "dst", "UP", "RIGHT", "0"}), "(error) ERR syntax error");
}

TEST_F(KeyBlockingTest, AParkedMoveServedLaterIsAWriteThatWatchSees) {
  std::unique_ptr<RespClient> mover = Connect(), watcher = Connect();
  Send(*mover, {"BLMOVE", "src", "dst", "LEFT", "RIGHT", "0"});
  AwaitBlocked(1);
  // dst is written only by the parked move, once the push to src wakes it.
  Send(*watcher, {"WATCH", "dst"});
  ASSERT_EQ(Next(*watcher).ToString(), R"(OK)");
  ASSERT_EQ(Do({"LPUSH", "src", "job"}), "(integer) 1");
  EXPECT_EQ(Next(*mover).ToString(), R"("job")");
  Send(*watcher, {"MULTI"});
  Send(*watcher, {"SET", "seen", "1"});
  Send(*watcher, {"EXEC"});
  EXPECT_EQ(Next(*watcher).ToString(), "OK");
  EXPECT_EQ(Next(*watcher).ToString(), "QUEUED");
  EXPECT_EQ(Next(*watcher).type, Reply::Type::kNullArray);
  EXPECT_EQ(Call({"EXISTS", "seen"}).ToString(), "(integer) 0");
}

TEST_F(KeyBlockingTest, ListWaitsInsideMultiDoNotBlock) {
  ASSERT_EQ(Do({"MULTI"}), "OK");
  ASSERT_EQ(Do({"BLPOP", "l", "0"}), "QUEUED");
  ASSERT_EQ(Do({"BLMOVE", "l", "m", "LEFT", "LEFT", "0"}), "QUEUED");
  ASSERT_EQ(Do({"RPUSH", "l", "x"}), "QUEUED");
  ASSERT_EQ(Do({"BRPOPLPUSH", "l", "m", "0"}), "QUEUED");
  EXPECT_EQ(Do({"EXEC"}), R"([(nil), (nil), (integer) 1, "x"])");
  EXPECT_EQ(Do({"LRANGE", "m", "0", "-1"}), R"(["x"])");
}

TEST_F(KeyBlockingTest, BlmpopIsServedFromTheFirstOfItsKeysThatAWriteFilled) {
  std::unique_ptr<RespClient> waiter = Connect();
  Send(*waiter, {"BLMPOP", "0", "3", "l1", "l2", "l3", "LEFT", "COUNT", "5"});
  AwaitBlocked(1);
  // One transaction fills the third key and the second: the waiter tries its keys in order.
  ASSERT_EQ(Do({"MULTI"}), "OK");
  ASSERT_EQ(Do({"RPUSH", "l3", "c"}), "QUEUED");
  ASSERT_EQ(Do({"RPUSH", "l2", "a", "b"}), "QUEUED");
  ASSERT_EQ(Do({"EXEC"}), "[(integer) 1, (integer) 2]");
  EXPECT_EQ(Next(*waiter).ToString(), R"(["l2", ["a", "b"]])");
  AwaitBlocked(0);
  EXPECT_EQ(Do({"LRANGE", "l3", "0", "-1"}), R"(["c"])");
  EXPECT_EQ(Do({"EXISTS", "l2"}), "(integer) 0");
}

TEST_F(KeyBlockingTest, BlmpopTakesAtMostItsCountAndLeavesTheRestToTheNextWaiter) {
  std::unique_ptr<RespClient> first = Connect(), second = Connect();
  Send(*first, {"BLMPOP", "0", "1", "l", "RIGHT", "COUNT", "2"});
  AwaitBlocked(1);
  Send(*second, {"BLMPOP", "0", "2", "other", "l", "LEFT"});
  AwaitBlocked(2);
  ASSERT_EQ(Do({"RPUSH", "l", "a", "b", "c"}), "(integer) 3");
  EXPECT_EQ(Next(*first).ToString(), R"(["l", ["c", "b"]])");
  EXPECT_EQ(Next(*second).ToString(), R"(["l", ["a"]])");
  AwaitBlocked(0);
}

TEST_F(KeyBlockingTest, BzmpopIsServedFromTheFirstOfItsKeysThatAWriteFilled) {
  std::unique_ptr<RespClient> waiter = Connect();
  Send(*waiter, {"BZMPOP", "0", "3", "z1", "z2", "z3", "MAX", "COUNT", "2"});
  AwaitBlocked(1);
  EXPECT_EQ(Do({"PING"}), "PONG");  // Others are served meanwhile.
  ASSERT_EQ(Do({"MULTI"}), "OK");
  ASSERT_EQ(Do({"ZADD", "z3", "9", "x"}), "QUEUED");
  ASSERT_EQ(Do({"ZADD", "z2", "1", "a", "2.5", "b", "3", "c"}), "QUEUED");
  ASSERT_EQ(Do({"EXEC"}), "[(integer) 1, (integer) 3]");
  EXPECT_EQ(Next(*waiter).ToString(), R"(["z2", [["c", "3"], ["b", "2.5"]]])");
  AwaitBlocked(0);
  EXPECT_EQ(Do({"ZRANGE", "z2", "0", "-1"}), R"(["a"])");
  EXPECT_EQ(Do({"ZCARD", "z3"}), "(integer) 1");
}

TEST_F(KeyBlockingTest, BzmpopWokenUnderResp3RepliesDoubleScores) {
  std::unique_ptr<RespClient> waiter = Connect();
  ASSERT_EQ(waiter->Call({"HELLO", "3"}).type, Reply::Type::kMap);
  Send(*waiter, {"BZMPOP", "0", "1", "z", "MIN"});
  AwaitBlocked(1);
  ASSERT_EQ(Do({"ZADD", "z", "1.5", "m"}), "(integer) 1");
  EXPECT_EQ(Next(*waiter).ToString(), R"(["z", [["m", (double) 1.5]]])");
  AwaitBlocked(0);
}

TEST_F(KeyBlockingTest, MpopTimeoutsAnswerANullArrayOrResp3Null) {
  std::unique_ptr<RespClient> waiter = Connect();
  EXPECT_EQ(waiter->Call({"BLMPOP", "0.01", "2", "l1", "l2", "LEFT"}).type,
            Reply::Type::kNullArray);
  EXPECT_EQ(waiter->Call({"BZMPOP", "0.01", "1", "z", "MIN", "COUNT", "3"}).type,
            Reply::Type::kNullArray);
  // The non-blocking forms answer the same at once.
  EXPECT_EQ(waiter->Call({"LMPOP", "1", "l1", "RIGHT"}).type, Reply::Type::kNullArray);
  EXPECT_EQ(waiter->Call({"HELLO", "3"}).type, Reply::Type::kMap);
  EXPECT_EQ(waiter->Call({"BLMPOP", "0.01", "1", "l1", "RIGHT"}).type, Reply::Type::kNull);
  EXPECT_EQ(waiter->Call({"BZMPOP", "0.01", "1", "z", "MAX"}).type, Reply::Type::kNull);
  EXPECT_EQ(waiter->Call({"ZMPOP", "1", "z", "MAX"}).type, Reply::Type::kNull);
  // Nothing was left waiting.
  AwaitBlocked(0);
}

TEST_F(KeyBlockingTest, MpopWaitsDoNotBlockInsideMultiOrScripts) {
  ASSERT_EQ(Do({"MULTI"}), "OK");
  ASSERT_EQ(Do({"BLMPOP", "0", "1", "l", "LEFT"}), "QUEUED");
  ASSERT_EQ(Do({"RPUSH", "l", "x"}), "QUEUED");
  ASSERT_EQ(Do({"BLMPOP", "0", "1", "l", "LEFT"}), "QUEUED");
  ASSERT_EQ(Do({"BZMPOP", "0", "1", "z", "MIN"}), "QUEUED");
  EXPECT_EQ(Do({"EXEC"}), R"([(nil), (integer) 1, ["l", ["x"]], (nil)])");
  // Redis 7.0 lets scripts call BLMPOP and BZMPOP (not BLPOP and BZPOPMIN): they never wait.
  EXPECT_EQ(Do({"EVAL", "return redis.call('BLMPOP', 0, 1, KEYS[1], 'LEFT')", "1", "l"}), "(nil)");
  EXPECT_EQ(Do({"EVAL", "return redis.call('BZMPOP', 0, 1, KEYS[1], 'MIN')", "1", "z"}), "(nil)");
  AwaitBlocked(0);
}

}  // namespace
}  // namespace cairn::test
