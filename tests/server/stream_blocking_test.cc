// XREAD BLOCK over real sockets: a reader blocked on streams is woken by an XADD from another
// client (alone, in EXEC or in a script), with the entries after the id it gave — `$` meaning
// the stream's last id when it asked; every reader blocked on a stream is woken by one write,
// since reading takes nothing; a reader not satisfied by a write (its id is past the new
// entry) keeps waiting without keeping the others from being served; it times out with a null
// reply; it does not block inside MULTI, and scripts may not ask it to. Nothing here measures
// time: each test waits for the state it needs (INFO's blocked_clients).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "server/support/blocking_fixture.h"
#include "server/support/resp_client.h"

namespace cairn::test {
namespace {

using StreamBlockingTest = BlockingFixture;

TEST_F(StreamBlockingTest, XreadWaitsForTheXaddOfAnotherClient) {
  ASSERT_EQ(Do({"XADD", "s", "1-1", "a", "1"}), R"("1-1")");
  std::unique_ptr<RespClient> reader = Connect();
  Send(*reader, {"XREAD", "BLOCK", "0", "STREAMS", "other", "s", "0", "$"});
  AwaitBlocked(1);
  EXPECT_EQ(Do({"PING"}), "PONG");  // Others are served meanwhile.
  ASSERT_EQ(Do({"XADD", "s", "2-1", "b", "2"}), R"("2-1")");
  EXPECT_EQ(Next(*reader).ToString(), R"([["s", [["2-1", ["b", "2"]]]]])");
  AwaitBlocked(0);
  EXPECT_EQ(Do({"XLEN", "s"}), "(integer) 2");  // Reading took nothing.
}

TEST_F(StreamBlockingTest, OneWriteWakesEveryReader) {
  std::vector<std::unique_ptr<RespClient>> readers;
  for (int i = 0; i < 3; ++i) {
    readers.push_back(Connect());
    Send(*readers.back(), {"XREAD", "COUNT", "5", "BLOCK", "0", "STREAMS", "s", "$"});
    AwaitBlocked(i + 1);
  }
  ASSERT_EQ(Do({"XADD", "s", "5-0", "f", "v"}), R"("5-0")");
  for (auto& reader : readers) {
    EXPECT_EQ(Next(*reader).ToString(), R"([["s", [["5-0", ["f", "v"]]]]])");
  }
  AwaitBlocked(0);
}

TEST_F(StreamBlockingTest, AReaderPastTheNewEntryDoesNotHoldUpTheOthers) {
  ASSERT_EQ(Do({"XADD", "s", "1-0", "a", "1"}), R"("1-0")");
  std::unique_ptr<RespClient> ahead = Connect(), behind = Connect();
  Send(*ahead, {"XREAD", "BLOCK", "0", "STREAMS", "s", "10-0"});  // Waits for ids past 10-0.
  AwaitBlocked(1);
  Send(*behind, {"XREAD", "BLOCK", "0", "STREAMS", "s", "$"});
  AwaitBlocked(2);
  ASSERT_EQ(Do({"XADD", "s", "5-0", "b", "2"}), R"("5-0")");
  EXPECT_EQ(Next(*behind).ToString(), R"([["s", [["5-0", ["b", "2"]]]]])");
  AwaitBlocked(1);
  ASSERT_EQ(Do({"XADD", "s", "11-0", "c", "3"}), R"("11-0")");
  EXPECT_EQ(Next(*ahead).ToString(), R"([["s", [["11-0", ["c", "3"]]]]])");
  AwaitBlocked(0);
}

TEST_F(StreamBlockingTest, ReadersAndPoppersShareAWakeUp) {
  // A stream reader and a list popper on different keys of one write (a script): both served.
  std::unique_ptr<RespClient> reader = Connect(), popper = Connect();
  Send(*reader, {"XREAD", "BLOCK", "0", "STREAMS", "s", "$"});
  AwaitBlocked(1);
  Send(*popper, {"BLPOP", "l", "0"});
  AwaitBlocked(2);
  ASSERT_EQ(Do({"EVAL",
                "redis.call('xadd', KEYS[1], '3-3', 'k', 'v'); "
                "return redis.call('rpush', KEYS[2], 'item')",
                "2", "s", "l"}),
            "(integer) 1");
  EXPECT_EQ(Next(*reader).ToString(), R"([["s", [["3-3", ["k", "v"]]]]])");
  EXPECT_EQ(Next(*popper).ToString(), R"(["l", "item"])");
  AwaitBlocked(0);
}

TEST_F(StreamBlockingTest, WritesInsideExecWakeReaders) {
  std::unique_ptr<RespClient> reader = Connect(), writer = Connect();
  Send(*reader, {"XREAD", "BLOCK", "0", "STREAMS", "s", "$"});
  AwaitBlocked(1);
  ASSERT_EQ(writer->Call({"MULTI"}).ToString(), "OK");
  ASSERT_EQ(writer->Call({"XADD", "s", "7-0", "a", "1"}).ToString(), "QUEUED");
  ASSERT_EQ(writer->Call({"XADD", "s", "7-1", "b", "2"}).ToString(), "QUEUED");
  ASSERT_EQ(writer->Call({"EXEC"}).ToString(), R"(["7-0", "7-1"])");
  EXPECT_EQ(Next(*reader).ToString(), R"([["s", [["7-0", ["a", "1"]], ["7-1", ["b", "2"]]]]])");
  AwaitBlocked(0);
}

TEST_F(StreamBlockingTest, ATimeoutAnswersANullArray) {
  std::unique_ptr<RespClient> reader = Connect();
  EXPECT_EQ(reader->Call({"XREAD", "BLOCK", "50", "STREAMS", "s", "$"}).type,
            Reply::Type::kNullArray);
  EXPECT_EQ(reader->Call({"HELLO", "3"}).type, Reply::Type::kMap);
  EXPECT_EQ(reader->Call({"XREAD", "BLOCK", "10", "STREAMS", "s", "0"}).type, Reply::Type::kNull);
  // RESP3 served: a map of streams.
  ASSERT_EQ(Do({"XADD", "s", "1-1", "a", "1"}), R"("1-1")");
  EXPECT_EQ(reader->Call({"XREAD", "BLOCK", "10", "STREAMS", "s", "0"}).ToString(),
            R"({"s": [["1-1", ["a", "1"]]]})");
}

TEST_F(StreamBlockingTest, InsideMultiItDoesNotBlockAndScriptsMayNotAskIt) {
  std::unique_ptr<RespClient> c = Connect();
  ASSERT_EQ(c->Call({"MULTI"}).ToString(), "OK");
  ASSERT_EQ(c->Call({"XREAD", "BLOCK", "0", "STREAMS", "s", "$"}).ToString(), "QUEUED");
  EXPECT_EQ(c->Call({"EXEC"}).ToString(), "[(nil)]");
  const std::string refused =
      Do({"EVAL", "return redis.call('xread', 'block', '0', 'streams', KEYS[1], '$')", "1", "s"});
  EXPECT_TRUE(refused.starts_with(
      "(error) ERR xread command is not allowed with BLOCK option from scripts"))
      << refused;
}

TEST_F(StreamBlockingTest, AReaderThatLeavesIsForgotten) {
  {
    std::unique_ptr<RespClient> gone = Connect();
    Send(*gone, {"XREAD", "BLOCK", "0", "STREAMS", "s", "$"});
    AwaitBlocked(1);
  }
  AwaitBlocked(0);
  ASSERT_EQ(Do({"XADD", "s", "1-1", "a", "1"}), R"("1-1")");
  EXPECT_EQ(Do({"XLEN", "s"}), "(integer) 1");
}

}  // namespace
}  // namespace cairn::test
