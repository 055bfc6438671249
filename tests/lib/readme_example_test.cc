// The in-process example of README.md, compiled and run, so that the README cannot drift from
// the API. Keep the two in step.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include "cairn/idempotency.h"
#include "cairn/lease.h"
#include "cairn/queue.h"
#include "cairn/queue_worker.h"
#include "cairn/ratelimit.h"
#include "cairn/store.h"
#include "support/temp_dir.h"

namespace {

// --- README example begins (after its two includes: <cstdio> and "cairn/store.h") ---
int RunExample(const std::string& dir) {
  cairn::Options options;
  options.data_dir = dir;  // created if missing
  auto opened = cairn::Store::Open(options);
  if (!opened.ok()) {
    std::fprintf(stderr, "%s\n", opened.status().ToString().c_str());
    return 1;
  }
  cairn::Store& store = **opened;

  // Claim a key for 30 s, only if nobody holds it (Redis: SET key value NX PX 30000).
  cairn::SetOptions claim;
  claim.condition = cairn::SetCondition::kIfAbsent;
  claim.expiry = cairn::Expiry::After(30'000);
  auto claimed = store.Set("order:1234", "worker-7", claim);
  if (!claimed.ok()) return 1;
  std::printf("claimed: %s\n", claimed->applied ? "yes" : "no, someone else holds it");

  auto holder = store.Get("order:1234");
  if (holder.ok() && holder->has_value()) std::printf("holder: %s\n", (*holder)->c_str());
  return 0;
}
// --- README example ends ---

// --- README transaction example ---
cairn::Status Transfer(cairn::Store& store) {
  cairn::Status s = store.RunTransaction([](cairn::Transaction& txn) -> cairn::Status {
    auto from = txn.IncrBy("balance:alice", -10);  // reads lock the key until commit
    if (!from.ok()) return from.status();
    return txn.IncrBy("balance:bob", 10).status();
  });
  return s;
}

TEST(ReadmeExampleTest, TransactionExampleRuns) {
  cairn::test::TempDir dir;
  auto store = cairn::test::OpenOrDie(cairn::test::TestOptions(dir.path()));
  ASSERT_TRUE(Transfer(*store).ok());
  EXPECT_EQ(*store->Get("balance:alice"), "-10");
  EXPECT_EQ(*store->Get("balance:bob"), "10");
}

// --- README idempotency example ---
cairn::Result<cairn::Outcome> PlaceOrder(cairn::IdempotencyStore& idem, std::string_view body,
                                         int* charges) {
  auto key = cairn::IdempotencyKey::Make("tenant-a", "v1", "order-1234");
  if (!key.ok()) return key.status();
  auto fingerprint = cairn::Fingerprint::OfJson(body);  // key order and spacing do not matter
  if (!fingerprint.ok()) return fingerprint.status();
  return idem.Run(
      *key, *fingerprint, [&](const cairn::Claimed& claim) -> cairn::Result<cairn::Outcome> {
        ++*charges;  // the side effect; claim.fencing_token fences what it writes
        cairn::Outcome outcome;
        outcome.status_code = 201;
        outcome.body = R"({"order":1234,"attempt":)" + std::to_string(claim.attempt) + "}";
        return outcome;
      });
}

TEST(ReadmeExampleTest, IdempotencyExampleRuns) {
  cairn::test::TempDir dir;
  auto store = cairn::test::OpenOrDie(cairn::test::TestOptions(dir.path()));
  cairn::IdempotencyStore idem(*store);
  int charges = 0;
  auto first = PlaceOrder(idem, R"({"sku":"A1","qty":2})", &charges);
  auto retry = PlaceOrder(idem, R"({ "qty": 2, "sku": "A1" })", &charges);
  auto other = PlaceOrder(idem, R"({"sku":"A1","qty":3})", &charges);
  ASSERT_TRUE(first.ok() && retry.ok());
  EXPECT_EQ(*first, *retry);
  EXPECT_EQ(first->status_code, 201);
  EXPECT_EQ(other.status().code(), cairn::StatusCode::kMismatch);
  EXPECT_EQ(charges, 1);
}

// --- README lease example ---
TEST(ReadmeExampleTest, LeaseExampleRuns) {
  cairn::test::TempDir dir;
  auto opened = cairn::test::OpenOrDie(cairn::test::TestOptions(dir.path()));
  cairn::Store& store = *opened;
  cairn::LeaseManager leases(store);
  cairn::Status s = leases.WithLock(
      "nightly-report", "worker-7", /*ttl_ms=*/30'000,
      [&](const cairn::Lease& lease) -> cairn::Status {
        // writes guarded by the lock carry lease.fencing:
        return leases.FencedSet("nightly-report", lease.fencing, "report:last", "done").status();
      });
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(*store.Get("report:last"), "done");
}

// --- README rate-limit example ---
TEST(ReadmeExampleTest, RateLimitExampleRuns) {
  cairn::test::TempDir dir;
  auto opened = cairn::test::OpenOrDie(
      cairn::test::TestOptions(dir.path(), std::make_shared<cairn::ManualClock>()));
  cairn::Store& store = *opened;
  cairn::RateLimiter limiter(store);
  int refused = 0;
  for (int i = 0; i < 25; ++i) {
    auto d = limiter.Take("api:user-42", cairn::Limit::GcraPerSecond(10, /*burst=*/20));
    ASSERT_TRUE(d.ok());
    if (!d->allowed) {
      ++refused;
      EXPECT_GE(cairn::RetryAfterSeconds(*d), 1);
    }
  }
  EXPECT_EQ(refused, 5);  // A burst of 20 out of 25 at one instant.
}

// --- README queue example ---
TEST(ReadmeExampleTest, QueueExampleRuns) {
  cairn::test::TempDir dir;
  auto opened = cairn::test::OpenOrDie(cairn::test::TestOptions(dir.path()));
  cairn::Store& store = *opened;
  std::atomic<int> handled{0};

  cairn::Queue queue(store);
  (void)queue.CreateGroup("email", "email-workers");  // false if it already exists

  cairn::EnqueueOptions job;
  job.job_id = "welcome:t1:u1";  // a retried enqueue with this id adds nothing
  job.max_attempts = 5;
  job.backoff = cairn::Backoff::Exponential(/*base_ms=*/1'000, /*max_ms=*/60'000);
  auto added = queue.Enqueue("email", R"({"tenant":"t1","user":"u1"})", job);

  cairn::WorkerOptions w;
  w.queue = "email";
  w.group = "email-workers";
  w.threads = 8;
  auto worker = cairn::Worker::Start(queue, w, [&](const cairn::ClaimedJob& claimed) {
    // Delivery is at least once: wrap side effects in IdempotencyStore::Run keyed by
    // claimed.ref.job_id, so a re-delivered job returns the stored result.
    ++handled;
    EXPECT_EQ(claimed.ref.job_id, "welcome:t1:u1");
    return cairn::HandlerResult::Ack();  // or Retry("why") / Fail("why") → dead-letter queue
  });
  // ... (*worker)->Stop() finishes running handlers and claims no more.

  ASSERT_TRUE(added.ok() && added->created);
  ASSERT_TRUE(worker.ok());
  while ((*worker)->stats().acked < 1) std::this_thread::yield();
  (*worker)->Stop();
  EXPECT_EQ(handled.load(), 1);
  EXPECT_FALSE(queue.Enqueue("email", "again", job)->created);
}

TEST(ReadmeExampleTest, Runs) {
  cairn::test::TempDir dir;
  EXPECT_EQ(RunExample(dir.Sub("data")), 0);
  auto store = cairn::test::OpenOrDie(cairn::test::TestOptions(dir.Sub("data")));
  EXPECT_EQ(*store->Get("order:1234"), "worker-7");
  EXPECT_EQ(store->GetTtl("order:1234")->kind, cairn::TtlState::Kind::kExpires);
}

}  // namespace
