// The lock checker against histories written by hand: a clean one passes, and each broken
// promise it exists to catch is caught — so that a lockcheck PASS means something.
#include "lockcheck/checker.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cairn::lockcheck {
namespace {

constexpr std::int64_t kT0 = 1'800'000'000'000;  // ms
constexpr std::int64_t kTtl = 100;

// Times in ms after kT0; an event is answered 1 ms after it is sent unless said otherwise.
Event At(int client, Op op, Outcome outcome, std::int64_t sent_ms, std::int64_t answered_ms = -1) {
  Event e;
  e.client = client;
  e.op = op;
  e.outcome = outcome;
  e.invoked_us = (kT0 + sent_ms) * 1000;
  e.answered_us = (kT0 + (answered_ms < 0 ? sent_ms + 1 : answered_ms)) * 1000;
  return e;
}

Event Acquired(int client, std::int64_t fencing, std::int64_t sent_ms, int resource = 0) {
  Event e = At(client, Op::kAcquire, Outcome::kOk, sent_ms);
  e.resource = resource;
  e.fencing = fencing;
  e.ttl_ms = kTtl;
  e.expires_at_ms = kT0 + sent_ms + kTtl;  // Acquired at the instant it was sent.
  return e;
}

Event Owner(int client, Op op, Outcome outcome, std::int64_t fencing, std::int64_t sent_ms) {
  Event e = At(client, op, outcome, sent_ms);
  e.fencing = fencing;
  if (op == Op::kExtend) e.ttl_ms = kTtl;
  return e;
}

Event Write(int client, Outcome outcome, std::int64_t fencing, std::int64_t sent_ms,
            std::string value, std::int64_t issued = 0) {
  Event e = At(client, Op::kWrite, outcome, sent_ms);
  e.fencing = fencing;
  e.value = std::move(value);
  e.issued = issued;
  return e;
}

std::vector<ResourceSpec> OneLease(std::optional<std::string> final) {
  return {ResourceSpec{1, std::move(final)}};
}

// Client 1 holds fencing 1, is paused past its TTL; client 2 takes fencing 2 and writes; client
// 1 comes back, its write is refused and its extend answered NOTOWNER.
std::vector<Event> PausedHolder() {
  return {
      Acquired(1, 1, 0),
      Write(1, Outcome::kOk, 1, 10, "a"),
      Acquired(2, 2, 150),
      Write(2, Outcome::kOk, 2, 160, "b"),
      Write(1, Outcome::kStale, 1, 300, "late", 2),
      Owner(1, Op::kExtend, Outcome::kNotOwner, 1, 301),
      Owner(2, Op::kRelease, Outcome::kOk, 2, 170),
  };
}

bool Mentions(const CheckResult& result, const std::string& what) {
  for (const std::string& f : result.findings) {
    if (f.rfind(what, 0) == 0) return true;
  }
  return false;
}

TEST(LockCheckerTest, ACleanHistoryPasses) {
  const CheckResult result = Check(PausedHolder(), OneLease("b"));
  EXPECT_TRUE(result.findings.empty()) << result.findings.front();
  EXPECT_EQ(result.stats.acquisitions, 2);
  EXPECT_EQ(result.stats.writes, 2);
  EXPECT_EQ(result.stats.stale_refused, 1);
  EXPECT_EQ(result.stats.not_owner, 1);
  EXPECT_EQ(result.stats.releases, 1);
  EXPECT_EQ(result.stats.most_holders_at_once, 1);
}

TEST(LockCheckerTest, TwoHoldersAtOnceAreCaught) {
  std::vector<Event> h = PausedHolder();
  h[2] = Acquired(2, 2, 50);  // Taken while fencing 1 still had 50 ms to go.
  const CheckResult result = Check(h, OneLease("b"));
  EXPECT_TRUE(Mentions(result, "exclusion:")) << ::testing::PrintToString(result.findings);
  // A semaphore of two allows it.
  EXPECT_FALSE(Mentions(Check(h, {ResourceSpec{2, "b"}}), "exclusion:"));
}

TEST(LockCheckerTest, AnExtendThatSucceedsAfterTheNextHolderCameIsCaught) {
  std::vector<Event> h = PausedHolder();
  h[5].outcome = Outcome::kOk;  // Client 1's late extend went through: it overlaps client 2.
  EXPECT_TRUE(Mentions(Check(h, OneLease("b")), "exclusion:"));
}

TEST(LockCheckerTest, AReleaseLaterThanTheNextAcquisitionIsCaught) {
  std::vector<Event> h = PausedHolder();
  h.push_back(Owner(1, Op::kRelease, Outcome::kOk, 1, 90));
  h[2] = Acquired(2, 2, 80);  // Client 2 got it 10 ms before client 1's release was even sent.
  EXPECT_TRUE(Mentions(Check(h, OneLease("b")), "exclusion:"));
}

TEST(LockCheckerTest, FencingNumbersThatDoNotGrowAreCaught) {
  std::vector<Event> h = PausedHolder();
  h[2].fencing = 1;  // Issued twice.
  h[3].fencing = 1;
  h[4].issued = 1;
  EXPECT_TRUE(Mentions(Check(h, OneLease("b")), "fencing:"));
  h = PausedHolder();
  h.push_back(Acquired(3, 0, 400, 0));  // After both, yet smaller.
  h.back().fencing = -1;
  EXPECT_TRUE(Mentions(Check(h, OneLease("b")), "fencing:"));
}

TEST(LockCheckerTest, AnAcceptedStaleWriteIsCaught) {
  std::vector<Event> h = PausedHolder();
  h[4] = Write(1, Outcome::kOk, 1, 300, "late");
  EXPECT_TRUE(Mentions(Check(h, OneLease("b")), "stale write:"));
}

TEST(LockCheckerTest, ARefusalNamingNoRealAcquisitionIsCaught) {
  std::vector<Event> h = PausedHolder();
  h[4].issued = 7;  // No acquisition got 7.
  EXPECT_TRUE(Mentions(Check(h, OneLease("b")), "wrong refusal:"));
  h = PausedHolder();
  h[4] = Write(1, Outcome::kStale, 1, 100, "late", 2);  // Refused before fencing 2 was sent for.
  h[4].answered_us = (kT0 + 120) * 1000;
  EXPECT_TRUE(Mentions(Check(h, OneLease("b")), "wrong refusal:"));
}

TEST(LockCheckerTest, ANotOwnerBeforeTheExpiryIsCaught) {
  std::vector<Event> h = PausedHolder();
  h.push_back(Owner(2, Op::kExtend, Outcome::kNotOwner, 2, 165));  // Its lease runs to 250.
  EXPECT_TRUE(Mentions(Check(h, OneLease("b")), "wrong refusal:"));
}

TEST(LockCheckerTest, ALostAcceptedWriteIsCaught) {
  EXPECT_TRUE(Mentions(Check(PausedHolder(), OneLease("a")), "lost write:"));
  EXPECT_TRUE(Mentions(Check(PausedHolder(), OneLease(std::nullopt)), "lost write:"));
}

TEST(LockCheckerTest, AnErrorReplyIsAFinding) {
  std::vector<Event> h = PausedHolder();
  h.push_back(At(3, Op::kAcquire, Outcome::kError, 500));
  EXPECT_TRUE(Mentions(Check(h, OneLease("b")), "error:"));
}

TEST(LockCheckerTest, HistoryLinesRoundTrip) {
  Event e = Write(4, Outcome::kStale, 9, 12, "va\tlue", 11);
  e.resource = 2;
  const std::optional<Event> back = Parse(Format(e));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(Format(*back), Format(e));
  EXPECT_EQ(back->value, "va lue");
  EXPECT_EQ(back->issued, 11);
  EXPECT_FALSE(Parse("4\twrite\tok\t0").has_value());
  EXPECT_FALSE(Parse("x\twrite\tok\t0\t1\t2\t3\t4\t5\t6\tv").has_value());
}

}  // namespace
}  // namespace cairn::lockcheck
