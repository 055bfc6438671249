// QUEUE.* end to end, over real sockets: each test starts its own cairn-server on a free
// loopback port with its own data directory. Covers adding (with deduplication by ID, delays
// and retry policies), consumer groups, FIFO claims, ack, extend, failure with retries and
// the dead-letter queue (list, replay, purge), lapsed leases, stats, QUEUE.GET, argument
// errors, RESP2 flat arrays against RESP3 maps, the refusal inside MULTI, durability across a
// restart, and redis-cli. Leases are long unless their lapse itself is under test.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "server/support/reply_fields.h"
#include "server/support/resp_client.h"
#include "server/support/server_fixture.h"
#include "server/support/server_process.h"
#include "support/temp_dir.h"

namespace cairn::test {
namespace {

using Args = std::vector<std::string>;

const std::string kStatsZero =
    "[\"ready\", (integer) 0, \"delayed\", (integer) 0, \"in_flight\", (integer) 0, \"dead\", "
    "(integer) 0]";

// A group's counts as QUEUE.STATS writes them under RESP2.
std::string Counts(int ready, int delayed, int in_flight, int dead) {
  return "[\"ready\", (integer) " + std::to_string(ready) + ", \"delayed\", (integer) " +
         std::to_string(delayed) + ", \"in_flight\", (integer) " + std::to_string(in_flight) +
         ", \"dead\", (integer) " + std::to_string(dead) + "]";
}

class NativeQueueTest : public ServerFixture {
 protected:
  // Adds a job and returns its id.
  std::string Add(const Args& args) {
    Args command = {"QUEUE.ADD"};
    command.insert(command.end(), args.begin(), args.end());
    const Reply added = Call(command);
    EXPECT_EQ(Field(added, "created").ToString(), "(integer) 1") << added.ToString();
    return Field(added, "id").str;
  }

  // Claims with `args` after "QUEUE.CLAIM"; the array of jobs.
  std::vector<Reply> Claim(const Args& args) {
    Args command = {"QUEUE.CLAIM"};
    command.insert(command.end(), args.begin(), args.end());
    const Reply claimed = Call(command);
    EXPECT_EQ(claimed.type, Reply::Type::kArray) << claimed.ToString();
    return claimed.elements;
  }
};

TEST_F(NativeQueueTest, JobsAreClaimedInOrderAndAckedOnce) {
  Start();
  EXPECT_EQ(Do({"QUEUE.GROUP", "mail", "senders"}), "(integer) 1");
  EXPECT_EQ(Do({"QUEUE.GROUP", "mail", "senders"}), "(integer) 0") << "creation is idempotent";
  const std::string first = Add({"mail", "to:ann"});
  const std::string second = Add({"mail", "to:bob"});
  const std::string third = Add({"mail", "to:cyd"});
  EXPECT_FALSE(first.empty());
  EXPECT_NE(first, second);

  std::vector<Reply> jobs = Claim({"mail", "senders", "w1"});
  ASSERT_EQ(jobs.size(), 1u);
  const Reply& job = jobs[0];
  EXPECT_EQ(MapKeys(job),
            "id,payload,attempt,max_attempts,token,deadline_ms,enqueued_at_ms,errors");
  EXPECT_EQ(Field(job, "id").str, first);
  EXPECT_EQ(Field(job, "payload").ToString(), "\"to:ann\"");
  EXPECT_EQ(Field(job, "attempt").ToString(), "(integer) 1");
  EXPECT_EQ(Field(job, "max_attempts").ToString(), "(integer) 3");
  EXPECT_FALSE(Field(job, "token").str.empty());
  EXPECT_GT(Field(job, "deadline_ms").integer, Field(job, "enqueued_at_ms").integer);
  EXPECT_EQ(Field(job, "errors").ToString(), "[]");
  const std::string token = Field(job, "token").str;

  std::vector<Reply> rest = Claim({"mail", "senders", "w2", "COUNT", "10"});
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(Field(rest[0], "id").str, second);
  EXPECT_EQ(Field(rest[1], "id").str, third);
  EXPECT_TRUE(Claim({"mail", "senders", "w3"}).empty()) << "each job goes to one consumer";
  EXPECT_EQ(Do({"QUEUE.STATS", "mail"}), "[\"senders\", " + Counts(0, 0, 3, 0) + "]");

  EXPECT_EQ(Do({"QUEUE.ACK", "mail", "senders", first, token}), "OK");
  const std::string not_owner = "(error) NOTOWNER the token does not hold job '" + first +
                                "' in group 'senders' of queue 'mail': its lease lapsed, or it "
                                "was acked or failed";
  EXPECT_EQ(Do({"QUEUE.ACK", "mail", "senders", first, token}), not_owner);
  EXPECT_EQ(Do({"QUEUE.ACK", "mail", "senders", second, token}),
            "(error) NOTOWNER the token does not hold job '" + second +
                "' in group 'senders' of queue 'mail': its lease lapsed, or it was acked or "
                "failed")
      << "a token holds one delivery only";
  for (const Reply& r : rest) {
    EXPECT_EQ(Do({"QUEUE.ACK", "mail", "senders", Field(r, "id").str, Field(r, "token").str}),
              "OK");
  }
  EXPECT_EQ(Do({"QUEUE.STATS", "mail"}), "[\"senders\", " + kStatsZero + "]");
  EXPECT_TRUE(Claim({"mail", "senders", "w1"}).empty());
}

TEST_F(NativeQueueTest, AnIdDeduplicatesAdds) {
  Start();
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g"}), "(integer) 1");
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "original", "ID", "order-17"}),
            "[\"id\", \"order-17\", \"created\", (integer) 1]");
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "retried", "id", "order-17", "DELAY", "5"}),
            "[\"id\", \"order-17\", \"created\", (integer) 0]");
  EXPECT_EQ(Do({"QUEUE.STATS", "q"}), "[\"g\", " + Counts(1, 0, 0, 0) + "]");
  std::vector<Reply> jobs = Claim({"q", "g", "w", "COUNT", "5"});
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(Field(jobs[0], "payload").ToString(), "\"original\"");
  EXPECT_EQ(Do({"QUEUE.ACK", "q", "g", "order-17", Field(jobs[0], "token").str}), "OK");
  // Done by every group: only the id is kept, and it still deduplicates.
  EXPECT_EQ(Do({"QUEUE.GET", "q", "order-17"}),
            "[\"id\", \"order-17\", \"completed\", (integer) 1]");
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "again", "ID", "order-17"}),
            "[\"id\", \"order-17\", \"created\", (integer) 0]");
  EXPECT_TRUE(Claim({"q", "g", "w"}).empty());
  // With no dedup window the id is free once the job is done.
  Add({"q", "once", "ID", "order-18", "DEDUPWINDOW", "0"});
  jobs = Claim({"q", "g", "w"});
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(Do({"QUEUE.ACK", "q", "g", "order-18", Field(jobs[0], "token").str}), "OK");
  EXPECT_EQ(Do({"QUEUE.GET", "q", "order-18"}), "(nil)");
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "twice", "ID", "order-18"}),
            "[\"id\", \"order-18\", \"created\", (integer) 1]");
}

TEST_F(NativeQueueTest, FailuresRetryThenDeadLetterAndReplay) {
  Start();
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g"}), "(integer) 1");
  // A zero backoff makes the retry due at once, so no test waits for it.
  Add({"q", "resize:42", "ID", "j1", "MAXATTEMPTS", "2", "BACKOFF", "FIXED", "0"});

  std::vector<Reply> jobs = Claim({"q", "g", "w1"});
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(Field(jobs[0], "max_attempts").integer, 2);
  EXPECT_EQ(Do({"QUEUE.FAIL", "q", "g", "j1", Field(jobs[0], "token").str, "disk full"}), "retry");
  EXPECT_EQ(Do({"QUEUE.FAIL", "q", "g", "j1", Field(jobs[0], "token").str, "again"}),
            "(error) NOTOWNER the token does not hold job 'j1' in group 'g' of queue 'q': its "
            "lease lapsed, or it was acked or failed");

  jobs = Claim({"q", "g", "w2"});
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(Field(jobs[0], "attempt").integer, 2);
  const Reply errors = Field(jobs[0], "errors");
  ASSERT_EQ(errors.elements.size(), 1u) << errors.ToString();
  EXPECT_EQ(MapKeys(errors.elements[0]), "attempt,at_ms,consumer,message");
  EXPECT_EQ(Field(errors.elements[0], "attempt").integer, 1);
  EXPECT_EQ(Field(errors.elements[0], "consumer").ToString(), "\"w1\"");
  EXPECT_EQ(Field(errors.elements[0], "message").ToString(), "\"disk full\"");
  EXPECT_EQ(Do({"QUEUE.FAIL", "q", "g", "j1", Field(jobs[0], "token").str, "still full"}), "dead")
      << "attempts exhausted";
  EXPECT_TRUE(Claim({"q", "g", "w1"}).empty());
  EXPECT_EQ(Do({"QUEUE.STATS", "q"}), "[\"g\", " + Counts(0, 0, 0, 1) + "]");

  const Reply page = Call({"QUEUE.DLQ", "LIST", "q", "g"});
  EXPECT_EQ(MapKeys(page), "cursor,jobs");
  EXPECT_EQ(Field(page, "cursor").ToString(), "\"0\"");
  const Reply dead = Field(page, "jobs");
  ASSERT_EQ(dead.elements.size(), 1u) << page.ToString();
  EXPECT_EQ(MapKeys(dead.elements[0]), "id,payload,attempts,died_at_ms,errors");
  EXPECT_EQ(Field(dead.elements[0], "id").ToString(), "\"j1\"");
  EXPECT_EQ(Field(dead.elements[0], "payload").ToString(), "\"resize:42\"");
  EXPECT_EQ(Field(dead.elements[0], "attempts").integer, 2);
  EXPECT_EQ(Field(dead.elements[0], "errors").elements.size(), 2u);

  EXPECT_EQ(Do({"QUEUE.DLQ", "REPLAY", "q", "g", "j1"}), "(integer) 1");
  EXPECT_EQ(Do({"QUEUE.DLQ", "replay", "q", "g", "j1"}), "(integer) 0") << "no longer dead";
  EXPECT_EQ(Do({"QUEUE.STATS", "q"}), "[\"g\", " + Counts(1, 0, 0, 0) + "]");
  jobs = Claim({"q", "g", "w3"});
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(Field(jobs[0], "attempt").integer, 1) << "a replay resets the attempts";
  EXPECT_EQ(Field(jobs[0], "errors").elements.size(), 2u) << "and keeps the errors";
  // NORETRY dead-letters at once, attempts left or not.
  EXPECT_EQ(Do({"QUEUE.FAIL", "q", "g", "j1", Field(jobs[0], "token").str, "bad input", "NORETRY"}),
            "dead");
  EXPECT_EQ(Do({"QUEUE.DLQ", "PURGE", "q", "g", "j1"}), "(integer) 1");
  EXPECT_EQ(Do({"QUEUE.DLQ", "PURGE", "q", "g", "j1"}), "(integer) 0");
  EXPECT_EQ(Do({"QUEUE.DLQ", "LIST", "q", "g"}), "[\"cursor\", \"0\", \"jobs\", []]");
  EXPECT_EQ(Do({"QUEUE.DLQ", "PURGEALL", "q", "g"}), "(integer) 0");
  EXPECT_EQ(Do({"QUEUE.STATS", "q"}), "[\"g\", " + kStatsZero + "]");
}

TEST_F(NativeQueueTest, DeadLetterPagesAndPurgeAll) {
  Start();
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g"}), "(integer) 1");
  for (const char* id : {"a", "b", "c"}) Add({"q", std::string("p-") + id, "ID", id});
  for (const Reply& job : Claim({"q", "g", "w", "COUNT", "3"})) {
    EXPECT_EQ(
        Do({"QUEUE.FAIL", "q", "g", Field(job, "id").str, Field(job, "token").str, "x", "NORETRY"}),
        "dead");
  }
  const Reply first = Call({"QUEUE.DLQ", "LIST", "q", "g", "COUNT", "2"});
  const Reply first_jobs = Field(first, "jobs");
  ASSERT_EQ(first_jobs.elements.size(), 2u) << first.ToString();
  EXPECT_EQ(Field(first_jobs.elements[0], "id").str, "a");
  EXPECT_EQ(Field(first_jobs.elements[1], "id").str, "b");
  const std::string cursor = Field(first, "cursor").str;
  ASSERT_NE(cursor, "0");
  const Reply second = Call({"QUEUE.DLQ", "LIST", "q", "g", "CURSOR", cursor, "COUNT", "2"});
  ASSERT_EQ(Field(second, "jobs").elements.size(), 1u) << second.ToString();
  EXPECT_EQ(Field(Field(second, "jobs").elements[0], "id").str, "c");
  EXPECT_EQ(Field(second, "cursor").str, "0");
  EXPECT_EQ(Do({"QUEUE.DLQ", "PURGEALL", "q", "g"}), "(integer) 3");
  EXPECT_EQ(Do({"QUEUE.STATS", "q"}), "[\"g\", " + kStatsZero + "]");
  EXPECT_EQ(Do({"QUEUE.GET", "q", "a"}), "[\"id\", \"a\", \"completed\", (integer) 1]")
      << "purged from its only group: finished, its id kept for deduplication";
}

TEST_F(NativeQueueTest, DelayedJobsWaitAndPastRunAtIsReady) {
  Start();
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g"}), "(integer) 1");
  Add({"q", "later", "DELAY", "3600000"});
  Add({"q", "tomorrow", "RUNAT", "32503680000000"});  // Year 3000.
  EXPECT_EQ(Do({"QUEUE.STATS", "q"}), "[\"g\", " + Counts(0, 2, 0, 0) + "]");
  EXPECT_TRUE(Claim({"q", "g", "w"}).empty());
  Add({"q", "overdue", "RUNAT", "1"});
  std::vector<Reply> jobs = Claim({"q", "g", "w", "COUNT", "10"});
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(Field(jobs[0], "payload").str, "overdue");
}

TEST_F(NativeQueueTest, ALapsedLeaseIsAFailedAttemptAndItsTokenStale) {
  Start();
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g"}), "(integer) 1");
  const std::string id = Add({"q", "p", "BACKOFF", "FIXED", "0"});
  std::vector<Reply> jobs = Claim({"q", "g", "crashy", "VISIBILITY", "50"});
  ASSERT_EQ(jobs.size(), 1u);
  const std::string stale = Field(jobs[0], "token").str;
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  jobs = Claim({"q", "g", "steady", "VISIBILITY", "60000"});
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(Field(jobs[0], "attempt").integer, 2);
  const Reply errors = Field(jobs[0], "errors");
  ASSERT_EQ(errors.elements.size(), 1u) << errors.ToString();
  EXPECT_EQ(Field(errors.elements[0], "consumer").str, "crashy");
  EXPECT_EQ(Field(errors.elements[0], "message").str, "lease expired before the job was acked");
  const std::string not_owner = "(error) NOTOWNER the token does not hold job '" + id +
                                "' in group 'g' of queue 'q': its lease lapsed, or it was acked "
                                "or failed";
  EXPECT_EQ(Do({"QUEUE.ACK", "q", "g", id, stale}), not_owner);
  EXPECT_EQ(Do({"QUEUE.EXTEND", "q", "g", id, stale, "60000"}), not_owner);
  const std::string token = Field(jobs[0], "token").str;
  const Reply extended = Call({"QUEUE.EXTEND", "q", "g", id, token, "120000"});
  ASSERT_EQ(extended.type, Reply::Type::kInteger) << extended.ToString();
  EXPECT_GT(extended.integer, Field(jobs[0], "deadline_ms").integer);
  EXPECT_EQ(Do({"QUEUE.ACK", "q", "g", id, token}), "OK");
}

TEST_F(NativeQueueTest, GroupsReceiveNewOrAllJobs) {
  Start();
  EXPECT_EQ(Do({"QUEUE.GROUPS", "q"}), "[]");
  Add({"q", "before", "ID", "early"});  // No group yet: kept for a group that takes all jobs.
  EXPECT_EQ(Do({"QUEUE.GROUP", "q", "fresh"}), "(integer) 1");
  EXPECT_EQ(Do({"QUEUE.GROUP", "q", "audit", "ALL"}), "(integer) 1");
  EXPECT_EQ(Do({"QUEUE.GROUP", "q", "also-new", "new"}), "(integer) 1");
  EXPECT_EQ(Do({"QUEUE.GROUPS", "q"}), "[\"fresh\", \"audit\", \"also-new\"]");
  Add({"q", "after", "ID", "late"});
  EXPECT_EQ(Do({"QUEUE.STATS", "q"}), "[\"fresh\", " + Counts(1, 0, 0, 0) + ", \"audit\", " +
                                          Counts(2, 0, 0, 0) + ", \"also-new\", " +
                                          Counts(1, 0, 0, 0) + "]");
  std::vector<Reply> audit = Claim({"q", "audit", "a", "COUNT", "5"});
  ASSERT_EQ(audit.size(), 2u);
  EXPECT_EQ(Field(audit[0], "id").str, "early");
  EXPECT_EQ(Field(audit[1], "id").str, "late");
  std::vector<Reply> fresh = Claim({"q", "fresh", "f", "COUNT", "5"});
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_EQ(Field(fresh[0], "id").str, "late") << "each group gets its own delivery";
  EXPECT_EQ(Do({"QUEUE.STATS", "nothing"}), "[]");
}

TEST_F(NativeQueueTest, GetShowsThePolicyAndEachGroupsDelivery) {
  Start();
  EXPECT_EQ(Do({"QUEUE.GET", "q", "nope"}), "(nil)");
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g1"}), "(integer) 1");
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g2"}), "(integer) 1");
  Add({"q", "body", "ID", "j", "MAXATTEMPTS", "7", "BACKOFF", "EXPONENTIAL", "250", "8000",
       "JITTER", "0.5"});
  std::vector<Reply> jobs = Claim({"q", "g1", "worker-9"});
  ASSERT_EQ(jobs.size(), 1u);
  const Reply job = Call({"QUEUE.GET", "q", "j"});
  EXPECT_EQ(MapKeys(job), "id,completed,payload,enqueued_at_ms,max_attempts,backoff,deliveries");
  EXPECT_EQ(Field(job, "completed").ToString(), "(integer) 0");
  EXPECT_EQ(Field(job, "payload").str, "body");
  EXPECT_EQ(Field(job, "max_attempts").integer, 7);
  EXPECT_EQ(Field(job, "backoff").ToString(),
            "[\"kind\", \"exponential\", \"base_ms\", (integer) 250, \"max_ms\", (integer) 8000, "
            "\"jitter\", \"0.5\"]");
  const Reply deliveries = Field(job, "deliveries");
  ASSERT_EQ(deliveries.elements.size(), 2u) << job.ToString();
  const Reply& d1 = deliveries.elements[0];
  EXPECT_EQ(MapKeys(d1), "group,state,attempts,at_ms,consumer,errors");
  EXPECT_EQ(Field(d1, "group").str, "g1");
  EXPECT_EQ(Field(d1, "state").str, "in_flight");
  EXPECT_EQ(Field(d1, "attempts").integer, 1);
  EXPECT_EQ(Field(d1, "at_ms").integer, Field(jobs[0], "deadline_ms").integer);
  EXPECT_EQ(Field(d1, "consumer").str, "worker-9");
  EXPECT_EQ(Field(deliveries.elements[1], "group").str, "g2");
  EXPECT_EQ(Field(deliveries.elements[1], "state").str, "ready");
  EXPECT_EQ(Field(deliveries.elements[1], "consumer").str, "");

  // Exponential without a cap takes the library's default cap (1 hour), or the base if larger.
  Add({"q", "x", "ID", "k", "BACKOFF", "EXPONENTIAL", "7200000"});
  EXPECT_EQ(Field(Call({"QUEUE.GET", "q", "k"}), "backoff").ToString(),
            "[\"kind\", \"exponential\", \"base_ms\", (integer) 7200000, \"max_ms\", (integer) "
            "7200000, \"jitter\", \"0\"]");
  Add({"q", "y", "ID", "m", "BACKOFF", "FIXED", "500", "JITTER", "0.25"});
  EXPECT_EQ(Field(Call({"QUEUE.GET", "q", "m"}), "backoff").ToString(),
            "[\"kind\", \"fixed\", \"base_ms\", (integer) 500, \"max_ms\", (integer) 500, "
            "\"jitter\", \"0.25\"]");
}

TEST_F(NativeQueueTest, BadArgumentsAreRefusedAndChangeNothing) {
  Start();
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g"}), "(integer) 1");
  const std::string not_integer = "(error) ERR value is not an integer or out of range";
  const std::string syntax = "(error) ERR syntax error";
  EXPECT_EQ(Do({"QUEUE.ADD", "q"}),
            "(error) ERR wrong number of arguments for 'queue.add' command");
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "p", "DELAY", "soon"}), not_integer);
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "p", "DELAY", "5", "RUNAT", "9"}), syntax);
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "p", "DELAY"}), syntax);
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "p", "DELAY", "-1"}),
            "(error) ERR job delay must be between 0 and 315360000000 ms, got -1 ms");
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "p", "ID", ""}), "(error) ERR ID must not be empty");
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "p", "ID", "a", "ID", "b"}), syntax);
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "p", "MAXATTEMPTS", "0"}),
            "(error) ERR MAXATTEMPTS must be between 1 and 1000");
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "p", "MAXATTEMPTS", "4294967297"}),
            "(error) ERR MAXATTEMPTS must be between 1 and 1000");
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "p", "BACKOFF", "LINEAR", "5"}), syntax);
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "p", "BACKOFF", "FIXED"}), syntax);
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "p", "BACKOFF", "FIXED", "x"}), not_integer);
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "p", "BACKOFF", "FIXED", "5", "10"}), syntax)
      << "a fixed backoff has no cap";
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "p", "BACKOFF", "EXPONENTIAL", "500", "100"}),
            "(error) ERR backoff max must be between 500 and 315360000000 ms, got 100 ms");
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "p", "JITTER", "0.1", "JITTER", "0.2"}), syntax);
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "p", "JITTER", "lots"}),
            "(error) ERR value is not a valid float");
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "p", "JITTER", "1.5"}),
            "(error) ERR backoff jitter must be between 0 and 1, got 1.500000");
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "p", "DEDUPWINDOW", "-1"}),
            "(error) ERR dedup window must be between 0 and 31536000000 ms, got -1 ms");
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "p", "PRIORITY", "1"}), syntax);
  EXPECT_EQ(Do({"QUEUE.ADD", "", "p"}),
            "(error) ERR queue name must be between 1 and 256 bytes, got 0 bytes");
  EXPECT_EQ(Do({"QUEUE.STATS", "q"}), "[\"g\", " + kStatsZero + "]") << "no refused add added";

  EXPECT_EQ(Do({"QUEUE.GROUP", "q", "h", "SOME"}), syntax);
  EXPECT_EQ(Do({"QUEUE.GROUP", "q", "h", "ALL", "NEW"}), syntax);
  EXPECT_EQ(Do({"QUEUE.GROUPS", "q"}), "[\"g\"]");

  EXPECT_EQ(Do({"QUEUE.CLAIM", "q", "g"}),
            "(error) ERR wrong number of arguments for 'queue.claim' command");
  EXPECT_EQ(Do({"QUEUE.CLAIM", "q", "g", "w", "COUNT", "0"}),
            "(error) ERR COUNT must be between 1 and 1000");
  EXPECT_EQ(Do({"QUEUE.CLAIM", "q", "g", "w", "COUNT", "1001"}),
            "(error) ERR COUNT must be between 1 and 1000");
  EXPECT_EQ(Do({"QUEUE.CLAIM", "q", "g", "w", "VISIBILITY", "0"}),
            "(error) ERR visibility timeout must be between 1 and 604800000 ms, got 0 ms");
  EXPECT_EQ(Do({"QUEUE.CLAIM", "q", "g", "w", "BLOCK", "-100"}), "(error) ERR timeout is negative");
  EXPECT_EQ(Do({"QUEUE.CLAIM", "q", "nope", "w"}),
            "(error) NOGROUP No such consumer group 'nope' for queue 'q'; create it with "
            "QUEUE.GROUP");

  EXPECT_EQ(Do({"QUEUE.EXTEND", "q", "g", "j", "t", "later"}), not_integer);
  EXPECT_EQ(Do({"QUEUE.FAIL", "q", "g", "j", "t", "err", "NOW"}), syntax);
  EXPECT_EQ(Do({"QUEUE.FAIL", "q", "g", "j", "t", "err", "NORETRY", "x"}), syntax);
  EXPECT_EQ(Do({"QUEUE.ACK", "q", "g", "j", ""}),
            "(error) ERR lease token must be between 1 and 64 bytes, got 0 bytes");

  EXPECT_EQ(Do({"QUEUE.DLQ", "SHOW", "q", "g"}),
            "(error) ERR unknown subcommand 'SHOW'. Try QUEUE.DLQ LIST, REPLAY, PURGE or "
            "PURGEALL.");
  EXPECT_EQ(Do({"QUEUE.DLQ", "REPLAY", "q", "g"}),
            "(error) ERR wrong number of arguments for 'queue.dlq|replay' command");
  EXPECT_EQ(Do({"QUEUE.DLQ", "PURGEALL", "q", "g", "x"}),
            "(error) ERR wrong number of arguments for 'queue.dlq|purgeall' command");
  EXPECT_EQ(Do({"QUEUE.DLQ", "LIST", "q", "g", "CURSOR", "12"}), "(error) ERR invalid cursor");
  EXPECT_EQ(Do({"QUEUE.DLQ", "LIST", "q", "g", "COUNT", "0"}),
            "(error) ERR COUNT must be between 1 and 1000");
  EXPECT_EQ(Do({"QUEUE.DLQ", "LIST", "q", "g", "LIMIT", "5"}), syntax);
  EXPECT_EQ(Do({"QUEUE.DLQ", "LIST", "q", "nope"}),
            "(error) NOGROUP No such consumer group 'nope' for queue 'q'; create it with "
            "QUEUE.GROUP");
  EXPECT_EQ(Do({"QUEUE.DLQ", "PURGEALL", "q", "nope"}),
            "(error) NOGROUP No such consumer group 'nope' for queue 'q'; create it with "
            "QUEUE.GROUP");
  EXPECT_EQ(Do({"QUEUE.GET", "q", ""}),
            "(error) ERR job id must be between 1 and 512 bytes, got 0 bytes");
}

TEST_F(NativeQueueTest, Resp3RepliesAreMapsWithBooleans) {
  Start();
  EXPECT_EQ(Call({"HELLO", "3"}).type, Reply::Type::kMap);
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g"}), "(integer) 1");
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "p", "ID", "j"}), "{\"id\": \"j\", \"created\": (true)}");
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "p", "ID", "j"}), "{\"id\": \"j\", \"created\": (false)}");
  const Reply claimed = Call({"QUEUE.CLAIM", "q", "g", "w"});
  ASSERT_EQ(claimed.type, Reply::Type::kArray) << claimed.ToString();
  ASSERT_EQ(claimed.elements.size(), 1u);
  EXPECT_EQ(claimed.elements[0].type, Reply::Type::kMap);
  EXPECT_EQ(Field(claimed.elements[0], "id").str, "j");
  EXPECT_EQ(Do({"QUEUE.STATS", "q"}),
            "{\"g\": {\"ready\": (integer) 0, \"delayed\": (integer) 0, \"in_flight\": (integer) "
            "1, \"dead\": (integer) 0}}");
  const Reply job = Call({"QUEUE.GET", "q", "j"});
  ASSERT_EQ(job.type, Reply::Type::kMap) << job.ToString();
  EXPECT_EQ(Field(job, "completed").ToString(), "(false)");
  EXPECT_EQ(Field(Field(job, "backoff"), "jitter").ToString(), "(double) 0");
  EXPECT_EQ(Call({"QUEUE.GET", "q", "none"}).type, Reply::Type::kNull);
  EXPECT_EQ(Do({"QUEUE.DLQ", "LIST", "q", "g"}), "{\"cursor\": \"0\", \"jobs\": []}");
}

TEST_F(NativeQueueTest, RefusedInsideMultiAndDeclaredInTheCommandTable) {
  Start();
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g"}), "(integer) 1");
  EXPECT_EQ(Do({"MULTI"}), "OK");
  EXPECT_EQ(Do({"QUEUE.ADD", "q", "p"}), "(error) ERR Command not allowed inside a transaction");
  EXPECT_EQ(Do({"INCR", "n"}), "QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "(error) EXECABORT Transaction discarded because of previous errors.");
  EXPECT_EQ(Do({"GET", "n"}), "(nil)");
  EXPECT_EQ(Do({"QUEUE.STATS", "q"}), "[\"g\", " + kStatsZero + "]");

  const Reply info = Call({"COMMAND", "INFO", "queue.add", "queue.dlq", "queue.stats"});
  ASSERT_EQ(info.elements.size(), 3u) << info.ToString();
  EXPECT_EQ(info.elements[0].elements[0].str, "queue.add");
  EXPECT_EQ(info.elements[0].elements[1].integer, -3);
  EXPECT_EQ(info.elements[0].elements[2].ToString(), "[write, fast, no_multi]");
  EXPECT_EQ(info.elements[0].elements[3].integer, 1);
  EXPECT_EQ(info.elements[1].elements[3].integer, 2) << "QUEUE.DLQ names its queue second";
  EXPECT_EQ(info.elements[1].elements[4].integer, 2);
  EXPECT_EQ(info.elements[2].elements[2].ToString(), "[readonly, no_multi]");
  const Reply docs = Call({"COMMAND", "DOCS", "queue.claim"});
  EXPECT_NE(docs.ToString().find("\"group\", \"queue\""), std::string::npos) << docs.ToString();
  EXPECT_NE(docs.ToString().find("\"since\", \"cairn-0.1\""), std::string::npos);
}

TEST_F(NativeQueueTest, JobsSurviveARestart) {
  Start();
  ASSERT_EQ(Do({"QUEUE.GROUP", "q", "g"}), "(integer) 1");
  Add({"q", "durable", "ID", "d1"});
  std::vector<Reply> jobs = Claim({"q", "g", "w", "VISIBILITY", "600000"});
  ASSERT_EQ(jobs.size(), 1u);
  const std::string token = Field(jobs[0], "token").str;
  Add({"q", "second", "ID", "d2"});
  Restart();
  EXPECT_EQ(Do({"QUEUE.STATS", "q"}), "[\"g\", " + Counts(1, 0, 1, 0) + "]");
  EXPECT_EQ(Do({"QUEUE.ACK", "q", "g", "d1", token}), "OK") << "the lease outlives the restart";
  jobs = Claim({"q", "g", "w"});
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(Field(jobs[0], "payload").str, "second");
}

TEST_F(NativeQueueTest, ThroughRedisCli) {
  Start();
  const std::string cli = FindProgram("redis-cli");
  ASSERT_FALSE(cli.empty()) << "redis-cli is not installed (package redis-tools)";
  const std::string port = std::to_string(server_->port());
  std::string out;
  ASSERT_EQ(RunToExit(cli, {"-p", port, "QUEUE.GROUP", "emails", "senders"}, &out), 0) << out;
  EXPECT_EQ(out, "1\n");
  // Not a terminal, so redis-cli prints raw: one line per element of the flat array.
  out.clear();
  ASSERT_EQ(RunToExit(cli,
                      {"-p", port, "QUEUE.ADD", "emails", "{\"to\":\"ann\"}", "ID", "welcome-ann",
                       "MAXATTEMPTS", "5", "BACKOFF", "EXPONENTIAL", "1000", "60000"},
                      &out),
            0)
      << out;
  EXPECT_EQ(out, "id\nwelcome-ann\ncreated\n1\n");
  out.clear();
  ASSERT_EQ(RunToExit(cli, {"-p", port, "QUEUE.STATS", "emails"}, &out), 0);
  EXPECT_EQ(out, "senders\nready\n1\ndelayed\n0\nin_flight\n0\ndead\n0\n");
  out.clear();
  ASSERT_EQ(RunToExit(cli, {"-p", port, "QUEUE.CLAIM", "emails", "senders", "w1"}, &out), 0);
  EXPECT_TRUE(
      out.starts_with("id\nwelcome-ann\npayload\n{\"to\":\"ann\"}\nattempt\n1\n"
                      "max_attempts\n5\ntoken\n"))
      << out;

  // The human-readable form, as a person at a terminal sees it.
  out.clear();
  ASSERT_EQ(RunToExit(cli, {"--no-raw", "-p", port, "QUEUE.GROUPS", "emails"}, &out), 0);
  EXPECT_EQ(out, "1) \"senders\"\n");
  out.clear();
  RunToExit(cli, {"--no-raw", "-p", port, "QUEUE.CLAIM", "emails", "nobody", "w1"}, &out);
  EXPECT_EQ(out,
            "(error) NOGROUP No such consumer group 'nobody' for queue 'emails'; create it with "
            "QUEUE.GROUP\n");
}

}  // namespace
}  // namespace cairn::test
