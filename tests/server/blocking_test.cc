// The blocking forms of the native commands, end to end over real sockets: QUEUE.CLAIM … BLOCK
// and LEASE.ACQUIRE … BLOCK park their connection until the write that satisfies them (an
// enqueue, a release), a due time (a delayed job, a holder's expiry) or their BLOCK time;
// commands pipelined behind them are answered after them, in order; other clients are served
// meanwhile; a client that goes away while parked takes nothing; shutdown ends the waits.
// Nothing here measures time: each test waits for the state it needs (INFO's
// blocked_clients) and every read has a hang-detecting timeout.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "server/support/blocking_fixture.h"
#include "server/support/reply_fields.h"
#include "server/support/resp_client.h"

namespace cairn::test {
namespace {

using Args = std::vector<std::string>;

using BlockingTest = BlockingFixture;

TEST_F(BlockingTest, ClaimWaitsForTheEnqueueThatSatisfiesIt) {
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g"}), "(integer) 1");
  std::unique_ptr<RespClient> worker = Connect();
  Send(*worker, {"QUEUE.CLAIM", "q", "g", "w1", "BLOCK", "0"});
  AwaitBlocked(1);
  EXPECT_NE(Do({"CLIENT", "LIST"}).find("flags=b"), std::string::npos);
  // Other clients are served while one is parked.
  EXPECT_EQ(Do({"PING"}), "PONG");
  const std::string id = Field(Call({"QUEUE.ADD", "q", "job-1"}), "id").str;
  const Reply claimed = Next(*worker);
  ASSERT_EQ(claimed.type, Reply::Type::kArray) << claimed.ToString();
  ASSERT_EQ(claimed.elements.size(), 1u) << claimed.ToString();
  EXPECT_EQ(Field(claimed.elements[0], "id").str, id);
  EXPECT_EQ(Field(claimed.elements[0], "payload").str, "job-1");
  AwaitBlocked(0);
  // The claim is a real lease: the job is in flight, and acks with the token it carried.
  const std::string token = Field(claimed.elements[0], "token").str;
  EXPECT_EQ(worker->Call({"QUEUE.ACK", "q", "g", id, token}).ToString(), "OK");
}

TEST_F(BlockingTest, ClaimWithNothingToWaitForAnswersEmptyAfterItsBlockTime) {
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g"}), "(integer) 1");
  const Reply claimed = Call({"QUEUE.CLAIM", "q", "g", "w1", "BLOCK", "50"});
  EXPECT_EQ(claimed.type, Reply::Type::kArray);
  EXPECT_TRUE(claimed.elements.empty()) << claimed.ToString();
}

TEST_F(BlockingTest, ClaimWakesWhenADelayedJobFallsDue) {
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g"}), "(integer) 1");
  Call({"QUEUE.ADD", "q", "later", "DELAY", "200"});
  const Reply claimed = Call({"QUEUE.CLAIM", "q", "g", "w1", "BLOCK", "0"});
  ASSERT_EQ(claimed.elements.size(), 1u) << claimed.ToString();
  EXPECT_EQ(Field(claimed.elements[0], "payload").str, "later");
}

TEST_F(BlockingTest, ReadyJobIsClaimedAtOnceEvenWithBlock) {
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g"}), "(integer) 1");
  Call({"QUEUE.ADD", "q", "now"});
  const Reply claimed = Call({"QUEUE.CLAIM", "q", "g", "w1", "COUNT", "5", "BLOCK", "0"});
  ASSERT_EQ(claimed.elements.size(), 1u) << claimed.ToString();
}

TEST_F(BlockingTest, CommandsPipelinedBehindAParkedClaimAreAnsweredAfterIt) {
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g"}), "(integer) 1");
  std::unique_ptr<RespClient> worker = Connect();
  ASSERT_TRUE(worker->Send(RespClient::Encode({"SET", "before", "1"}) +
                           RespClient::Encode({"QUEUE.CLAIM", "q", "g", "w1", "BLOCK", "0"}) +
                           RespClient::Encode({"SET", "after", "2"}) +
                           RespClient::Encode({"ECHO", "last"})));
  // The write before the claim is answered before the claim parks.
  EXPECT_EQ(Next(*worker).ToString(), "OK");
  AwaitBlocked(1);
  // The command behind the parked claim has not run yet.
  EXPECT_EQ(Do({"EXISTS", "after"}), "(integer) 0");
  Call({"QUEUE.ADD", "q", "job"});
  const Reply claimed = Next(*worker);
  ASSERT_EQ(claimed.elements.size(), 1u) << claimed.ToString();
  EXPECT_EQ(Next(*worker).ToString(), "OK");
  EXPECT_EQ(Next(*worker).ToString(), "\"last\"");
  EXPECT_EQ(Do({"GET", "after"}), "\"2\"");
}

TEST_F(BlockingTest, ClientThatLeavesWhileParkedTakesNoJob) {
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g"}), "(integer) 1");
  {
    std::unique_ptr<RespClient> gone = Connect();
    Send(*gone, {"QUEUE.CLAIM", "q", "g", "gone", "BLOCK", "0"});
    AwaitBlocked(1);
  }  // Disconnects.
  AwaitBlocked(0);
  Call({"QUEUE.ADD", "q", "job"});
  const Reply claimed = Call({"QUEUE.CLAIM", "q", "g", "w2"});
  ASSERT_EQ(claimed.elements.size(), 1u) << claimed.ToString();
  EXPECT_EQ(Field(claimed.elements[0], "attempt").ToString(), "(integer) 1");
}

TEST_F(BlockingTest, ClientKillEndsAParkedClaim) {
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g"}), "(integer) 1");
  std::unique_ptr<RespClient> worker = Connect();
  ASSERT_EQ(worker->Call({"CLIENT", "SETNAME", "parked"}).ToString(), "OK");
  Send(*worker, {"QUEUE.CLAIM", "q", "g", "w1", "BLOCK", "0"});
  AwaitBlocked(1);
  const std::string list = Do({"CLIENT", "LIST"});
  const std::size_t at = list.find("name=parked");
  ASSERT_NE(at, std::string::npos) << list;
  const std::size_t id_at = list.rfind("id=", at);
  const std::string id = list.substr(id_at + 3, list.find(' ', id_at) - id_at - 3);
  EXPECT_EQ(Do({"CLIENT", "KILL", "ID", id}), "(integer) 1");
  EXPECT_TRUE(worker->WaitClosed());
  AwaitBlocked(0);
}

TEST_F(BlockingTest, ShutdownEndsParkedCallsAndClosesTheStore) {
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g"}), "(integer) 1");
  ASSERT_EQ(Do({"LEASE.ACQUIRE", "r", "holder", "60000"}).substr(0, 1), "[");
  std::unique_ptr<RespClient> worker = Connect();
  std::unique_ptr<RespClient> locker = Connect();
  Send(*worker, {"QUEUE.CLAIM", "q", "g", "w1", "BLOCK", "0"});
  Send(*locker, {"LEASE.ACQUIRE", "r", "waiter", "1000", "BLOCK", "0"});
  AwaitBlocked(2);
  EXPECT_EQ(server_->Stop(SIGTERM), 0);
  server_.reset();
  client_.reset();
  // The data directory was closed cleanly: a new server opens it and finds the group.
  Start();
  EXPECT_EQ(Do({"QUEUE.GROUPS", "q"}), "[\"g\"]");
}

TEST_F(BlockingTest, BadBlockValuesAreRefused) {
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g"}), "(integer) 1");
  EXPECT_EQ(Do({"QUEUE.CLAIM", "q", "g", "w", "BLOCK", "-1"}), "(error) ERR timeout is negative");
  EXPECT_EQ(Do({"QUEUE.CLAIM", "q", "g", "w", "BLOCK", "soon"}),
            "(error) ERR timeout is not an integer or out of range");
  EXPECT_EQ(Do({"QUEUE.CLAIM", "q", "g", "w", "BLOCK"}), "(error) ERR syntax error");
  EXPECT_EQ(Do({"QUEUE.CLAIM", "q", "g", "w", "BLOCK", "1", "BLOCK", "1"}),
            "(error) ERR syntax error");
  EXPECT_EQ(Do({"LEASE.ACQUIRE", "r", "o", "1000", "BLOCK", "-5"}),
            "(error) ERR timeout is negative");
  // A missing group is reported at once, not after a wait.
  EXPECT_EQ(Call({"QUEUE.CLAIM", "q", "nogroup", "w", "BLOCK", "0"}).type, Reply::Type::kError);
  // Refused inside MULTI, like every native command.
  EXPECT_EQ(Do({"MULTI"}), "OK");
  EXPECT_EQ(Do({"QUEUE.CLAIM", "q", "g", "w", "BLOCK", "0"}),
            "(error) ERR Command not allowed inside a transaction");
  EXPECT_EQ(Do({"DISCARD"}), "OK");
}

TEST_F(BlockingTest, AcquireWaitsForTheRelease) {
  const Reply held = Call({"LEASE.ACQUIRE", "r", "a", "60000"});
  const std::string token = Field(held, "token").str;
  std::unique_ptr<RespClient> waiter = Connect();
  Send(*waiter, {"LEASE.ACQUIRE", "r", "b", "60000", "BLOCK", "0"});
  AwaitBlocked(1);
  EXPECT_EQ(Do({"LEASE.RELEASE", "r", token}), "OK");
  const Reply got = Next(*waiter);
  EXPECT_EQ(Field(got, "acquired").ToString(), "(integer) 1") << got.ToString();
  EXPECT_GT(Field(got, "fencing").integer, Field(held, "fencing").integer);
}

TEST_F(BlockingTest, AcquireWakesAtTheHoldersExpiry) {
  Call({"LEASE.ACQUIRE", "r", "a", "150"});
  const Reply got = Call({"LEASE.ACQUIRE", "r", "b", "60000", "BLOCK", "0"});
  EXPECT_EQ(Field(got, "acquired").ToString(), "(integer) 1") << got.ToString();
}

TEST_F(BlockingTest, AcquireGivesUpAfterItsBlockTime) {
  Call({"LEASE.ACQUIRE", "r", "a", "60000"});
  const Reply got = Call({"LEASE.ACQUIRE", "r", "b", "60000", "BLOCK", "50"});
  EXPECT_EQ(Field(got, "acquired").ToString(), "(integer) 0") << got.ToString();
  EXPECT_EQ(Field(got, "holder").str, "a");
}

TEST_F(BlockingTest, SemaphoreWaiterTakesTheFreedSlot) {
  const std::string t1 =
      Field(Call({"LEASE.ACQUIRE", "s", "a", "60000", "LIMIT", "2"}), "token").str;
  Call({"LEASE.ACQUIRE", "s", "b", "60000", "LIMIT", "2"});
  std::unique_ptr<RespClient> waiter = Connect();
  Send(*waiter, {"LEASE.ACQUIRE", "s", "c", "60000", "LIMIT", "2", "BLOCK", "0"});
  AwaitBlocked(1);
  EXPECT_EQ(Do({"LEASE.RELEASE", "s", t1}), "OK");
  EXPECT_EQ(Field(Next(*waiter), "acquired").ToString(), "(integer) 1");
}

TEST_F(BlockingTest, AcquirerThatLeavesWhileParkedTakesNoLease) {
  const std::string token = Field(Call({"LEASE.ACQUIRE", "r", "a", "60000"}), "token").str;
  {
    std::unique_ptr<RespClient> gone = Connect();
    Send(*gone, {"LEASE.ACQUIRE", "r", "gone", "60000", "BLOCK", "0"});
    AwaitBlocked(1);
  }
  AwaitBlocked(0);
  EXPECT_EQ(Do({"LEASE.RELEASE", "r", token}), "OK");
  const Reply info = Call({"LEASE.INFO", "r"});
  EXPECT_TRUE(Field(info, "holders").elements.empty()) << info.ToString();
  EXPECT_EQ(Field(Call({"LEASE.ACQUIRE", "r", "next", "1000"}), "acquired").ToString(),
            "(integer) 1");
}

TEST_F(BlockingTest, ParkedClientIsNotClosedForIdleness) {
  server_->Stop(SIGTERM);
  server_.reset();
  client_.reset();
  Start({"--timeout", "1"});
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g"}), "(integer) 1");
  std::unique_ptr<RespClient> worker = Connect();
  Send(*worker, {"QUEUE.CLAIM", "q", "g", "w1", "BLOCK", "2500"});
  // Its BLOCK time, longer than the idle timeout, bounds the wait: it gets an answer.
  const Reply claimed = Next(*worker);
  EXPECT_EQ(claimed.type, Reply::Type::kArray) << claimed.ToString();
}

}  // namespace
}  // namespace cairn::test
