// XREADGROUP BLOCK over real sockets: a consumer blocked on a group is served by an XADD from
// another client, and the entry becomes pending for it; consumers of one group are served one
// per new entry, oldest first, while a consumer of every other group gets the entry too; a
// timeout answers a null array and leaves the consumer created; a consumer that leaves is
// forgotten, so an entry added after it left stays new for the group. Nothing here measures
// time: each test waits for the state it needs (INFO's blocked_clients).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "server/support/blocking_fixture.h"
#include "server/support/resp_client.h"

namespace cairn::test {
namespace {

using StreamGroupBlockingTest = BlockingFixture;

std::vector<std::string> ReadGroup(const std::string& group, const std::string& consumer,
                                   const std::string& block_ms = "0") {
  return {"XREADGROUP", "GROUP", group, consumer, "BLOCK", block_ms, "STREAMS", "s", ">"};
}

TEST_F(StreamGroupBlockingTest, AConsumerWaitsForTheXaddOfAnotherClient) {
  ASSERT_EQ(Do({"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"}), "OK");
  std::unique_ptr<RespClient> consumer = Connect();
  Send(*consumer, ReadGroup("g", "alice"));
  AwaitBlocked(1);
  ASSERT_EQ(Do({"XADD", "s", "1-1", "a", "1"}), R"("1-1")");
  EXPECT_EQ(Next(*consumer).ToString(), R"([["s", [["1-1", ["a", "1"]]]]])");
  AwaitBlocked(0);
  EXPECT_EQ(Do({"XPENDING", "s", "g"}), R"([(integer) 1, "1-1", "1-1", [["alice", "1"]]])");
}

TEST_F(StreamGroupBlockingTest, OneEntryServesOneConsumerOfAGroupAndOneOfEachOtherGroup) {
  ASSERT_EQ(Do({"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"}), "OK");
  ASSERT_EQ(Do({"XGROUP", "CREATE", "s", "h", "$"}), "OK");
  std::unique_ptr<RespClient> first = Connect(), second = Connect(), other = Connect();
  Send(*first, ReadGroup("g", "first"));
  AwaitBlocked(1);
  Send(*second, ReadGroup("g", "second"));
  AwaitBlocked(2);
  Send(*other, ReadGroup("h", "other"));
  AwaitBlocked(3);
  ASSERT_EQ(Do({"XADD", "s", "1-0", "n", "1"}), R"("1-0")");
  EXPECT_EQ(Next(*first).ToString(), R"([["s", [["1-0", ["n", "1"]]]]])");
  EXPECT_EQ(Next(*other).ToString(), R"([["s", [["1-0", ["n", "1"]]]]])");
  AwaitBlocked(1);  // The second consumer of g waits for an entry of its own.
  ASSERT_EQ(Do({"XADD", "s", "2-0", "n", "2"}), R"("2-0")");
  EXPECT_EQ(Next(*second).ToString(), R"([["s", [["2-0", ["n", "2"]]]]])");
  AwaitBlocked(0);
  EXPECT_EQ(Do({"XPENDING", "s", "g"}),
            R"([(integer) 2, "1-0", "2-0", [["first", "1"], ["second", "1"]]])");
}

TEST_F(StreamGroupBlockingTest, ATimeoutAnswersNullAndTheConsumerExists) {
  ASSERT_EQ(Do({"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"}), "OK");
  std::unique_ptr<RespClient> consumer = Connect();
  EXPECT_EQ(consumer->Call(ReadGroup("g", "alice", "50")).type, Reply::Type::kNullArray);
  EXPECT_EQ(Do({"XINFO", "GROUPS", "s"}).find(R"("consumers", (integer) 1)") != std::string::npos,
            true)
      << Do({"XINFO", "GROUPS", "s"});
  // A history read never waits.
  EXPECT_EQ(consumer->Call({"XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", "0"})
                .ToString(),
            R"([["s", []]])");
}

TEST_F(StreamGroupBlockingTest, AConsumerThatLeavesIsForgotten) {
  ASSERT_EQ(Do({"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"}), "OK");
  {
    std::unique_ptr<RespClient> gone = Connect();
    Send(*gone, ReadGroup("g", "gone"));
    AwaitBlocked(1);
  }
  AwaitBlocked(0);
  ASSERT_EQ(Do({"XADD", "s", "1-1", "a", "1"}), R"("1-1")");
  EXPECT_EQ(Do({"XPENDING", "s", "g"}), "[(integer) 0, (nil), (nil), (nil)]");
  EXPECT_EQ(Do({"XREADGROUP", "GROUP", "g", "next", "STREAMS", "s", ">"}),
            R"([["s", [["1-1", ["a", "1"]]]]])");
}

}  // namespace
}  // namespace cairn::test
