// IDEM.* end to end: each test starts its own cairn-server and drives the idempotency commands
// over a real socket (RESP2 and RESP3) or through the real redis-cli. Fingerprints in replies
// are checked against the library's own digest of the argument, so a change in how the server
// fingerprints requests fails here.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cairn/fingerprint.h"
#include "server/support/reply_fields.h"
#include "server/support/resp_client.h"
#include "server/support/server_fixture.h"
#include "server/support/server_process.h"
#include "support/temp_dir.h"

namespace cairn::test {
namespace {

using Args = std::vector<std::string>;

constexpr std::string_view kNotOwner =
    "(error) ERR claim does not own this key (no such claim, its lock expired, or it was settled "
    "or taken over)";

std::string Hex(std::string_view fingerprint_argument) {
  return Fingerprint::OfBytes(fingerprint_argument).ToHex();
}

// The field names of a map reply (RESP3) or of a flat name, value, … array (RESP2), in order.
std::vector<std::string> FieldNames(const Reply& reply) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < reply.elements.size(); i += 2) {
    names.push_back(reply.elements[i].str);
  }
  return names;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

class NativeIdempotencyTest : public ServerFixture {
 protected:
  // Claims key (expecting to win) and returns the claim id.
  std::string ClaimOrFail(const std::string& key, const std::string& fingerprint) {
    const Reply r = Call({"IDEM.CLAIM", key, fingerprint});
    EXPECT_EQ(Field(r, "outcome").str, "claimed") << r.ToString();
    return Field(r, "claim_id").str;
  }
};

TEST_F(NativeIdempotencyTest, ClaimCompleteAndDuplicatesUnderResp2) {
  Start();
  const Reply claim = Call({"IDEM.CLAIM", "order-1", "fp-a"});
  ASSERT_EQ(claim.type, Reply::Type::kArray) << "RESP2: a flat array; " << claim.ToString();
  EXPECT_EQ(FieldNames(claim), (std::vector<std::string>{"outcome", "claim_id", "fencing_token",
                                                         "attempt", "lock_expires_at_ms"}));
  EXPECT_EQ(Field(claim, "outcome").ToString(), "\"claimed\"");
  const std::string claim_id = Field(claim, "claim_id").str;
  EXPECT_EQ(claim_id.size(), 32u) << claim_id;
  const Reply fencing = Field(claim, "fencing_token");
  ASSERT_EQ(fencing.type, Reply::Type::kInteger);
  EXPECT_GT(fencing.integer, 0);
  EXPECT_EQ(Field(claim, "attempt").ToString(), "(integer) 1");
  const std::int64_t lock_expires = Field(claim, "lock_expires_at_ms").integer;

  // A duplicate while the first request runs: told to wait, nothing claimed.
  const Reply busy = Call({"IDEM.CLAIM", "order-1", "fp-a"});
  EXPECT_EQ(FieldNames(busy),
            (std::vector<std::string>{"outcome", "attempt", "lock_expires_in_ms"}));
  EXPECT_EQ(Field(busy, "outcome").str, "in_progress");
  EXPECT_EQ(Field(busy, "attempt").integer, 1);
  EXPECT_GT(Field(busy, "lock_expires_in_ms").integer, 0);
  EXPECT_LE(Field(busy, "lock_expires_in_ms").integer, 30'000) << "the default lock is 30 s";

  // Another request under the same key: refused, with both digests.
  EXPECT_EQ(Do({"IDEM.CLAIM", "order-1", "fp-b"}),
            "[\"outcome\", \"mismatch\", \"fingerprint\", \"" + Hex("fp-b") +
                "\", \"stored_fingerprint\", \"" + Hex("fp-a") + "\"]");

  EXPECT_EQ(Do({"IDEM.COMPLETE", "order-1", claim_id, "{\"id\":42}", "STATUS", "201"}), "OK");
  EXPECT_EQ(Do({"IDEM.CLAIM", "order-1", "fp-a"}),
            "[\"outcome\", \"completed\", \"status_code\", (integer) 201, \"response\", "
            "\"{\"id\":42}\"]");
  EXPECT_EQ(Do({"IDEM.CLAIM", "order-1", "fp-b"}),
            "[\"outcome\", \"mismatch\", \"fingerprint\", \"" + Hex("fp-b") +
                "\", \"stored_fingerprint\", \"" + Hex("fp-a") + "\"]")
      << "a settled record still refuses another request";
  EXPECT_EQ(Do({"IDEM.COMPLETE", "order-1", claim_id, "again"}), kNotOwner)
      << "a settled claim owns nothing";

  const Reply record = Call({"IDEM.GET", "order-1"});
  EXPECT_EQ(FieldNames(record),
            (std::vector<std::string>{"state", "fingerprint", "claim_id", "fencing_token",
                                      "attempt", "created_at_ms", "updated_at_ms", "expires_at_ms",
                                      "status_code", "response"}));
  EXPECT_EQ(Field(record, "state").str, "completed");
  EXPECT_EQ(Field(record, "fingerprint").str, Hex("fp-a"));
  EXPECT_EQ(Field(record, "claim_id").str, claim_id);
  EXPECT_EQ(Field(record, "fencing_token").integer, fencing.integer);
  EXPECT_EQ(Field(record, "attempt").integer, 1);
  EXPECT_LE(Field(record, "created_at_ms").integer, Field(record, "updated_at_ms").integer);
  EXPECT_LT(Field(record, "created_at_ms").integer, lock_expires);
  const std::int64_t ttl =
      Field(record, "expires_at_ms").integer - Field(record, "updated_at_ms").integer;
  EXPECT_EQ(ttl, 24LL * 60 * 60 * 1000) << "the default result TTL is a day";
  EXPECT_EQ(Field(record, "status_code").integer, 201);
  EXPECT_EQ(Field(record, "response").str, "{\"id\":42}");

  EXPECT_EQ(Do({"IDEM.DEL", "order-1"}), "(integer) 1");
  EXPECT_EQ(Do({"IDEM.DEL", "order-1"}), "(integer) 0");
  EXPECT_EQ(Do({"IDEM.GET", "order-1"}), "(nil)");
  EXPECT_EQ(Field(Call({"IDEM.CLAIM", "order-1", "fp-b"}), "outcome").str, "claimed")
      << "a deleted key is free for any request";
}

TEST_F(NativeIdempotencyTest, Resp3RepliesAreMaps) {
  Start();
  std::unique_ptr<RespClient> v3 = Connect();
  ASSERT_EQ(v3->Call({"HELLO", "3"}).type, Reply::Type::kMap);
  std::unique_ptr<RespClient> v2 = Connect();

  const Reply claim = v3->Call({"IDEM.CLAIM", "k", "fp", "LOCK", "60000"});
  ASSERT_EQ(claim.type, Reply::Type::kMap) << claim.ToString();
  EXPECT_EQ(FieldNames(claim), (std::vector<std::string>{"outcome", "claim_id", "fencing_token",
                                                         "attempt", "lock_expires_at_ms"}));
  const std::string id = Field(claim, "claim_id").str;
  EXPECT_EQ(v3->Call({"IDEM.COMPLETE", "k", id, "done"}).ToString(), "OK");

  EXPECT_EQ(v3->Call({"IDEM.CLAIM", "k", "fp"}).ToString(),
            "{\"outcome\": \"completed\", \"status_code\": (integer) 0, \"response\": \"done\"}");
  EXPECT_EQ(v2->Call({"IDEM.CLAIM", "k", "fp"}).ToString(),
            "[\"outcome\", \"completed\", \"status_code\", (integer) 0, \"response\", \"done\"]");
  const Reply record = v3->Call({"IDEM.GET", "k"});
  ASSERT_EQ(record.type, Reply::Type::kMap) << record.ToString();
  EXPECT_EQ(Field(record, "state").str, "completed");
  EXPECT_EQ(v3->Call({"IDEM.GET", "absent"}).type, Reply::Type::kNull);
  EXPECT_EQ(v2->Call({"IDEM.GET", "absent"}).type, Reply::Type::kNullBulk);
}

TEST_F(NativeIdempotencyTest, OnlyTheOwningClaimMaySettleOrExtend) {
  Start();
  const Reply claim = Call({"IDEM.CLAIM", "pay-7", "fp", "LOCK", "10000"});
  const std::string id = Field(claim, "claim_id").str;
  const std::int64_t first_lock = Field(claim, "lock_expires_at_ms").integer;
  ASSERT_FALSE(id.empty()) << claim.ToString();

  EXPECT_EQ(Do({"IDEM.COMPLETE", "pay-7", "not-the-id", "x"}), kNotOwner);
  EXPECT_EQ(Do({"IDEM.FAIL", "pay-7", "not-the-id", "PERMANENT"}), kNotOwner);
  EXPECT_EQ(Do({"IDEM.EXTEND", "pay-7", "not-the-id", "5000"}), kNotOwner);
  EXPECT_EQ(Do({"IDEM.COMPLETE", "never-claimed", id, "x"}), kNotOwner);
  EXPECT_EQ(Field(Call({"IDEM.GET", "pay-7"}), "state").str, "in_progress")
      << "refused calls change nothing";

  EXPECT_EQ(Do({"IDEM.EXTEND", "pay-7", id, "600000"}), "OK");
  const Reply extended = Call({"IDEM.GET", "pay-7"});
  EXPECT_GE(Field(extended, "lock_expires_at_ms").integer, first_lock + 590'000)
      << extended.ToString();
  EXPECT_EQ(Field(extended, "claim_id").str, id);
  EXPECT_EQ(Do({"IDEM.COMPLETE", "pay-7", id, "paid", "TTL", "3600000"}), "OK");
  const Reply done = Call({"IDEM.GET", "pay-7"});
  EXPECT_EQ(Field(done, "expires_at_ms").integer - Field(done, "updated_at_ms").integer, 3'600'000);
  EXPECT_FALSE(HasField(done, "lock_expires_at_ms")) << "no lock once settled: " << done.ToString();
}

TEST_F(NativeIdempotencyTest, ALapsedLockIsTakenOverWithAHigherFencingToken) {
  Start();
  const Reply first = Call({"IDEM.CLAIM", "job", "fp", "LOCK", "1"});
  const std::string old_id = Field(first, "claim_id").str;
  // The one place time has to pass: a lock of 1 ms lapses by itself.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const Reply second = Call({"IDEM.CLAIM", "job", "fp"});
  EXPECT_EQ(Field(second, "outcome").str, "claimed") << second.ToString();
  EXPECT_EQ(Field(second, "attempt").integer, 2);
  EXPECT_GT(Field(second, "fencing_token").integer, Field(first, "fencing_token").integer);
  const std::string new_id = Field(second, "claim_id").str;
  EXPECT_NE(new_id, old_id);
  EXPECT_EQ(Do({"IDEM.COMPLETE", "job", old_id, "stale"}), kNotOwner)
      << "the stale owner cannot overwrite the new claim";
  EXPECT_EQ(Do({"IDEM.COMPLETE", "job", new_id, "fresh"}), "OK");
  EXPECT_EQ(Field(Call({"IDEM.CLAIM", "job", "fp"}), "response").str, "fresh");
}

TEST_F(NativeIdempotencyTest, FailReleasesForRetryOrStoresAPermanentError) {
  Start();
  const Reply first = Call({"IDEM.CLAIM", "charge", "fp"});
  const std::string id1 = Field(first, "claim_id").str;
  EXPECT_EQ(Do({"IDEM.FAIL", "charge", id1}), "OK") << "RETRYABLE is the default";
  const Reply released = Call({"IDEM.GET", "charge"});
  EXPECT_EQ(Field(released, "state").str, "released");
  EXPECT_EQ(
      FieldNames(released),
      (std::vector<std::string>{"state", "fingerprint", "claim_id", "fencing_token", "attempt",
                                "created_at_ms", "updated_at_ms", "expires_at_ms"}));
  EXPECT_EQ(Do({"IDEM.FAIL", "charge", id1, "RETRYABLE"}), kNotOwner) << "already given back";

  const Reply second = Call({"IDEM.CLAIM", "charge", "fp"});
  EXPECT_EQ(Field(second, "outcome").str, "claimed") << second.ToString();
  EXPECT_EQ(Field(second, "attempt").integer, 2);
  EXPECT_GT(Field(second, "fencing_token").integer, Field(first, "fencing_token").integer);
  const std::string id2 = Field(second, "claim_id").str;
  EXPECT_EQ(
      Do({"IDEM.FAIL", "charge", id2, "permanent", "reason", "card declined", "ttl", "120000"}),
      "OK");
  EXPECT_EQ(Do({"IDEM.CLAIM", "charge", "fp"}),
            "[\"outcome\", \"failed\", \"error\", \"card declined\"]");
  const Reply failed = Call({"IDEM.GET", "charge"});
  EXPECT_EQ(Field(failed, "state").str, "failed");
  EXPECT_EQ(Field(failed, "error").str, "card declined");
  EXPECT_EQ(Field(failed, "attempt").integer, 2);
  EXPECT_EQ(Field(failed, "expires_at_ms").integer - Field(failed, "updated_at_ms").integer,
            120'000);

  // PERMANENT without a reason stores an empty error.
  const std::string id3 = ClaimOrFail("charge-2", "fp");
  EXPECT_EQ(Do({"IDEM.FAIL", "charge-2", id3, "PERMANENT"}), "OK");
  EXPECT_EQ(Do({"IDEM.CLAIM", "charge-2", "fp"}), "[\"outcome\", \"failed\", \"error\", \"\"]");
}

TEST_F(NativeIdempotencyTest, JsonFingerprintsIgnoreKeyOrderAndSpacing) {
  Start();
  const std::string id = ClaimOrFail("j", "");  // An empty fingerprint is a request too.
  EXPECT_EQ(Do({"IDEM.COMPLETE", "j", id, "empty"}), "OK");
  EXPECT_EQ(Field(Call({"IDEM.CLAIM", "j", ""}), "response").str, "empty");

  const Reply claim = Call({"IDEM.CLAIM", "order", "{\"a\":1,\"b\":[1,2]}", "JSON"});
  ASSERT_EQ(Field(claim, "outcome").str, "claimed") << claim.ToString();
  EXPECT_EQ(Do({"IDEM.COMPLETE", "order", Field(claim, "claim_id").str, "ok"}), "OK");
  EXPECT_EQ(
      Field(Call({"IDEM.CLAIM", "order", "{ \"b\": [1, 2], \"a\": 1.0 }", "json"}), "outcome").str,
      "completed");
  const Reply as_bytes = Call({"IDEM.CLAIM", "order", "{ \"b\": [1, 2], \"a\": 1.0 }"});
  EXPECT_EQ(Field(as_bytes, "outcome").str, "mismatch")
      << "without JSON the text itself is the request";
  EXPECT_EQ(Field(as_bytes, "stored_fingerprint").str,
            Fingerprint::OfJson("{\"b\":[1,2],\"a\":1}")->ToHex());
  EXPECT_EQ(Field(Call({"IDEM.CLAIM", "order", "{\"a\":2,\"b\":[1,2]}", "JSON"}), "outcome").str,
            "mismatch");
}

TEST_F(NativeIdempotencyTest, BadArgumentsAreRefusedBeforeAnythingIsWritten) {
  Start();
  EXPECT_EQ(Do({"IDEM.CLAIM", "k"}),
            "(error) ERR wrong number of arguments for 'idem.claim' command");
  EXPECT_EQ(Do({"idem.complete", "k", "id"}),
            "(error) ERR wrong number of arguments for 'idem.complete' command");
  EXPECT_EQ(Do({"IDEM.FAIL", "k"}),
            "(error) ERR wrong number of arguments for 'idem.fail' command");
  EXPECT_EQ(Do({"IDEM.EXTEND", "k", "id"}),
            "(error) ERR wrong number of arguments for 'idem.extend' command");
  EXPECT_EQ(Do({"IDEM.GET"}), "(error) ERR wrong number of arguments for 'idem.get' command");
  EXPECT_EQ(Do({"IDEM.DEL", "a", "b"}),
            "(error) ERR wrong number of arguments for 'idem.del' command");

  EXPECT_EQ(Do({"IDEM.CLAIM", "k", "fp", "LOCK"}), "(error) ERR syntax error");
  EXPECT_EQ(Do({"IDEM.CLAIM", "k", "fp", "LOCK", "x"}),
            "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"IDEM.CLAIM", "k", "fp", "LOCK", "0"}),
            "(error) ERR invalid expire time in 'idem.claim' command");
  EXPECT_EQ(Do({"IDEM.CLAIM", "k", "fp", "LOCK", "-5"}),
            "(error) ERR invalid expire time in 'idem.claim' command");
  EXPECT_EQ(Do({"IDEM.CLAIM", "k", "fp", "LOCK", "3153600000001"}),
            "(error) ERR invalid expire time in 'idem.claim' command");
  EXPECT_EQ(Do({"IDEM.CLAIM", "k", "fp", "LOCK", "5", "LOCK", "6"}), "(error) ERR syntax error");
  EXPECT_EQ(Do({"IDEM.CLAIM", "k", "fp", "NOPE"}), "(error) ERR syntax error");
  EXPECT_EQ(Do({"IDEM.CLAIM", "k", "fp", "JSON", "JSON"}), "(error) ERR syntax error");
  const std::string bad_json = Do({"IDEM.CLAIM", "k", "{oops", "JSON"});
  EXPECT_TRUE(bad_json.starts_with("(error) ERR invalid JSON fingerprint: ")) << bad_json;
  EXPECT_EQ(Do({"IDEM.CLAIM", "", "fp"}), "(error) ERR idempotency key is empty");
  EXPECT_EQ(Do({"IDEM.CLAIM", std::string(1025, 'k'), "fp"}),
            "(error) ERR idempotency key is 1025 bytes; the limit is 1024");
  EXPECT_EQ(Do({"IDEM.GET", "k"}), "(nil)") << "no refused claim wrote a record";

  const std::string id = ClaimOrFail("k", "fp");
  EXPECT_EQ(Do({"IDEM.COMPLETE", "k", id, "r", "STATUS", "x"}),
            "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"IDEM.COMPLETE", "k", id, "r", "STATUS", "2147483648"}),
            "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"IDEM.COMPLETE", "k", id, "r", "TTL", "0"}),
            "(error) ERR invalid expire time in 'idem.complete' command");
  EXPECT_EQ(Do({"IDEM.COMPLETE", "k", id, "r", "TTL"}), "(error) ERR syntax error");
  EXPECT_EQ(Do({"IDEM.COMPLETE", "k", id, "r", "EXTRA"}), "(error) ERR syntax error");
  EXPECT_EQ(Do({"IDEM.FAIL", "k", id, "REASON", "why"}),
            "(error) ERR REASON and TTL apply only to PERMANENT failures");
  EXPECT_EQ(Do({"IDEM.FAIL", "k", id, "RETRYABLE", "TTL", "100"}),
            "(error) ERR REASON and TTL apply only to PERMANENT failures");
  EXPECT_EQ(Do({"IDEM.FAIL", "k", id, "PERMANENT", "RETRYABLE"}), "(error) ERR syntax error");
  EXPECT_EQ(Do({"IDEM.FAIL", "k", id, "PERMANENT", "TTL", "-1"}),
            "(error) ERR invalid expire time in 'idem.fail' command");
  EXPECT_EQ(Do({"IDEM.EXTEND", "k", id, "soon"}),
            "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"IDEM.EXTEND", "k", id, "0"}),
            "(error) ERR invalid expire time in 'idem.extend' command");
  const Reply record = Call({"IDEM.GET", "k"});
  EXPECT_EQ(Field(record, "state").str, "in_progress") << "still claimed, untouched";
  EXPECT_EQ(Field(record, "attempt").integer, 1);
  EXPECT_EQ(Do({"IDEM.COMPLETE", "k", id, "r", "status", "-1", "ttl", "1000"}), "OK")
      << "options in any order and letter case";
}

TEST_F(NativeIdempotencyTest, RefusedInsideMulti) {
  Start();
  EXPECT_EQ(Do({"MULTI"}), "OK");
  EXPECT_EQ(Do({"SET", "s", "v"}), "QUEUED");
  EXPECT_EQ(Do({"IDEM.CLAIM", "k", "fp"}), "(error) ERR Command not allowed inside a transaction");
  EXPECT_EQ(Do({"EXEC"}), "(error) EXECABORT Transaction discarded because of previous errors.");
  EXPECT_EQ(Do({"IDEM.GET", "k"}), "(nil)");
  EXPECT_EQ(Do({"GET", "s"}), "(nil)");

  // COMMAND reports the declaration clients rely on.
  const Reply info = Call({"COMMAND", "INFO", "idem.claim"});
  ASSERT_EQ(info.elements.size(), 1u) << info.ToString();
  const Reply& spec = info.elements[0];
  EXPECT_EQ(spec.elements[0].str, "idem.claim");
  EXPECT_EQ(spec.elements[1].integer, -3);
  EXPECT_EQ(spec.elements[2].ToString(), "[write, fast, no_multi]");
  EXPECT_EQ(spec.elements[3].integer, 1);
  EXPECT_EQ(spec.elements[4].integer, 1);
  EXPECT_EQ(spec.elements[5].integer, 1);
}

TEST_F(NativeIdempotencyTest, RecordsAreApartFromTheStringKeyspace) {
  Start();
  const std::string id = ClaimOrFail("shared-name", "fp");
  EXPECT_EQ(Do({"GET", "shared-name"}), "(nil)");
  EXPECT_EQ(Do({"DBSIZE"}), "(integer) 0");
  EXPECT_EQ(Do({"KEYS", "*"}), "[]");
  EXPECT_EQ(Do({"SET", "shared-name", "string"}), "OK");
  EXPECT_EQ(Do({"DEL", "shared-name"}), "(integer) 1");
  EXPECT_EQ(Do({"FLUSHDB"}), "OK");
  EXPECT_EQ(Do({"IDEM.COMPLETE", "shared-name", id, "still here"}), "OK")
      << "DEL and FLUSHDB left the claim alone";
}

TEST_F(NativeIdempotencyTest, RecordsSurviveARestart) {
  Start();
  const std::string id = ClaimOrFail("durable", "fp");
  EXPECT_EQ(Do({"IDEM.COMPLETE", "durable", id, "kept"}), "OK");
  client_.reset();
  const int status = server_->Stop(SIGTERM);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  Start();
  EXPECT_EQ(Do({"IDEM.CLAIM", "durable", "fp"}),
            "[\"outcome\", \"completed\", \"status_code\", (integer) 0, \"response\", \"kept\"]");
}

TEST_F(NativeIdempotencyTest, ThroughRedisCli) {
  ASSERT_FALSE(FindProgram("redis-cli").empty()) << "redis-cli is not installed (redis-tools)";
  Start();
  // Not a terminal: redis-cli prints each element of the RESP2 array on its own line.
  const std::vector<std::string> claim = Lines(Cli({"IDEM.CLAIM", "cli:order", "body"}));
  ASSERT_EQ(claim.size(), 10u) << ::testing::PrintToString(claim);
  EXPECT_EQ(claim[0], "outcome");
  EXPECT_EQ(claim[1], "claimed");
  EXPECT_EQ(claim[2], "claim_id");
  EXPECT_EQ(claim[4], "fencing_token");
  EXPECT_EQ(claim[6], "attempt");
  EXPECT_EQ(claim[7], "1");
  EXPECT_EQ(claim[8], "lock_expires_at_ms");
  const std::string id = claim[3];

  const std::vector<std::string> busy = Lines(Cli({"IDEM.CLAIM", "cli:order", "body"}));
  ASSERT_EQ(busy.size(), 6u) << ::testing::PrintToString(busy);
  EXPECT_EQ(busy[1], "in_progress");
  // redis-cli prints an error reply and a blank line.
  EXPECT_EQ(Cli({"IDEM.COMPLETE", "cli:order", "wrong", "r"}),
            std::string(kNotOwner.substr(std::string_view("(error) ").size())) + "\n\n");
  EXPECT_EQ(Cli({"IDEM.COMPLETE", "cli:order", id, "hello world", "STATUS", "200"}), "OK\n");
  EXPECT_EQ(Cli({"IDEM.CLAIM", "cli:order", "body"}),
            "outcome\ncompleted\nstatus_code\n200\nresponse\nhello world\n");
  EXPECT_EQ(Cli({"--no-raw", "IDEM.CLAIM", "cli:order", "body"}),
            "1) \"outcome\"\n2) \"completed\"\n3) \"status_code\"\n4) (integer) 200\n"
            "5) \"response\"\n6) \"hello world\"\n");
  // RESP3 (redis-cli -3 says HELLO 3): a map.
  EXPECT_EQ(Cli({"-3", "--no-raw", "IDEM.CLAIM", "cli:order", "body"}),
            "1# \"outcome\" => \"completed\"\n2# \"status_code\" => (integer) 200\n"
            "3# \"response\" => \"hello world\"\n");
  EXPECT_EQ(Cli({"IDEM.DEL", "cli:order"}), "1\n");
  EXPECT_EQ(Cli({"--no-raw", "IDEM.GET", "cli:order"}), "(nil)\n");
}

}  // namespace
}  // namespace cairn::test
