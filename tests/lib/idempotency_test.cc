// The idempotency engine's calls one by one, with a manual clock: claim outcomes, owner checks,
// transient and permanent failures, expiry and takeover, persistence, corruption, key scoping.
#include "cairn/idempotency.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "support/temp_dir.h"
#include "testing/store_testing.h"

namespace cairn {
namespace {

using test::OpenOrDie;
using test::TempDir;
using test::TestOptions;

constexpr std::int64_t kLockTtl = 1000;
constexpr std::int64_t kResultTtl = 60'000;

IdempotencyKey Key(std::string_view k) { return *IdempotencyKey::Make("tenant-a", "2.0.0", k); }

class IdempotencyTest : public ::testing::Test {
 protected:
  IdempotencyTest() : clock_(std::make_shared<ManualClock>()) { Open(); }

  void Open() {
    idem_.reset();
    store_.reset();
    store_ = OpenOrDie(TestOptions(dir_.path(), clock_));
    idem_ = std::make_unique<IdempotencyStore>(*store_);
  }

  ClaimResult Claim(const IdempotencyKey& key, const Fingerprint& fp, std::int64_t ttl = kLockTtl) {
    auto r = idem_->Claim(key, fp, ttl);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : ClaimResult(Mismatch{});
  }

  Claimed MustClaim(const IdempotencyKey& key, const Fingerprint& fp) {
    ClaimResult r = Claim(key, fp);
    EXPECT_TRUE(std::holds_alternative<Claimed>(r)) << "index " << r.index();
    return std::holds_alternative<Claimed>(r) ? std::get<Claimed>(r) : Claimed{};
  }

  static Outcome Ok(std::string body) {
    Outcome o;
    o.status_code = 201;
    o.body = std::move(body);
    o.metadata = {{"content-type", "application/json"}};
    return o;
  }

  TempDir dir_;
  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<IdempotencyStore> idem_;
  const Fingerprint fp_ = Fingerprint::OfBytes("POST /orders {\"qty\":1}");
  const Fingerprint other_fp_ = Fingerprint::OfBytes("POST /orders {\"qty\":2}");
};

TEST_F(IdempotencyTest, FirstClaimWinsAndDuplicatesSeeInProgress) {
  Claimed c = MustClaim(Key("o1"), fp_);
  EXPECT_EQ(c.attempt, 1u);
  EXPECT_EQ(c.claim_id.size(), 32u);
  EXPECT_GT(c.fencing_token, 0u);
  EXPECT_EQ(c.lock_expires_at_ms, clock_->NowMs() + kLockTtl);
  clock_->Advance(300);
  ClaimResult dup = Claim(Key("o1"), fp_);
  ASSERT_TRUE(std::holds_alternative<InProgress>(dup));
  EXPECT_EQ(std::get<InProgress>(dup).expires_in_ms, 700);
  EXPECT_EQ(std::get<InProgress>(dup).attempt, 1u);
}

TEST_F(IdempotencyTest, ConcurrentClaimsHaveExactlyOneWinnerPerKey) {
  constexpr int kThreads = 16;
  constexpr int kKeys = 200;
  std::vector<std::atomic<int>> winners(kKeys);
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kKeys; ++i) {
        auto r = idem_->Claim(Key("k" + std::to_string(i)), fp_, kLockTtl);
        if (!r.ok()) {
          ++errors;
        } else if (std::holds_alternative<Claimed>(*r)) {
          ++winners[i];
        } else if (!std::holds_alternative<InProgress>(*r)) {
          ++errors;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(errors.load(), 0);
  for (int i = 0; i < kKeys; ++i) ASSERT_EQ(winners[i].load(), 1) << "key " << i;
}

TEST_F(IdempotencyTest, CompletedOutcomeIsReturnedToDuplicates) {
  Claimed c = MustClaim(Key("o1"), fp_);
  ASSERT_EQ(*idem_->Complete(Key("o1"), c.claim_id, Ok("{\"id\":7}"), kResultTtl),
            OwnerResult::kDone);
  ClaimResult dup = Claim(Key("o1"), fp_);
  ASSERT_TRUE(std::holds_alternative<Completed>(dup));
  EXPECT_EQ(std::get<Completed>(dup).outcome, Ok("{\"id\":7}"));
  auto record = idem_->Get(Key("o1"));
  ASSERT_TRUE(record.ok() && record->has_value());
  EXPECT_EQ((*record)->state, IdempotencyState::kCompleted);
  EXPECT_EQ((*record)->fingerprint, fp_);
  EXPECT_EQ((*record)->attempt, 1u);
  EXPECT_EQ((*record)->expires_at_ms, clock_->NowMs() + kResultTtl);
  EXPECT_EQ((*record)->outcome, Ok("{\"id\":7}"));
}

TEST_F(IdempotencyTest, DifferentRequestUnderTheSameKeyIsMismatch) {
  MustClaim(Key("o1"), fp_);
  ClaimResult r = Claim(Key("o1"), other_fp_);
  ASSERT_TRUE(std::holds_alternative<Mismatch>(r));
  EXPECT_EQ(std::get<Mismatch>(r).stored, fp_);
}

TEST_F(IdempotencyTest, OnlyTheOwnerCanCompleteFailOrExtend) {
  Claimed c = MustClaim(Key("o1"), fp_);
  EXPECT_EQ(*idem_->Complete(Key("o1"), "someone-else", Ok("x"), kResultTtl),
            OwnerResult::kNotOwner);
  EXPECT_EQ(*idem_->Fail(Key("o1"), "someone-else", FailureKind::kPermanent, "no", kResultTtl),
            OwnerResult::kNotOwner);
  EXPECT_EQ(*idem_->Extend(Key("o1"), "someone-else", 5000), OwnerResult::kNotOwner);
  EXPECT_EQ(*idem_->Complete(Key("missing"), c.claim_id, Ok("x"), kResultTtl),
            OwnerResult::kNotOwner);
  EXPECT_EQ((*idem_->Get(Key("o1")))->state, IdempotencyState::kInProgress) << "unchanged";
  EXPECT_EQ(*idem_->Extend(Key("o1"), c.claim_id, 5000), OwnerResult::kDone);
  EXPECT_EQ((*idem_->Get(Key("o1")))->lock_expires_at_ms, clock_->NowMs() + 5000);
}

TEST_F(IdempotencyTest, ExpiredClaimIsTakenOverWithHigherAttemptAndFencing) {
  Claimed first = MustClaim(Key("o1"), fp_);
  clock_->Advance(kLockTtl);  // The owner crashed: its lock lapses.
  Claimed second = MustClaim(Key("o1"), fp_);
  EXPECT_EQ(second.attempt, 2u);
  EXPECT_GT(second.fencing_token, first.fencing_token);
  EXPECT_NE(second.claim_id, first.claim_id);
  // The stale owner wakes up: it can change nothing.
  EXPECT_EQ(*idem_->Complete(Key("o1"), first.claim_id, Ok("stale"), kResultTtl),
            OwnerResult::kNotOwner);
  EXPECT_EQ(*idem_->Extend(Key("o1"), first.claim_id, kLockTtl), OwnerResult::kNotOwner);
  EXPECT_EQ(*idem_->Complete(Key("o1"), second.claim_id, Ok("fresh"), kResultTtl),
            OwnerResult::kDone);
  EXPECT_EQ(std::get<Completed>(Claim(Key("o1"), fp_)).outcome.body, "fresh");
}

TEST_F(IdempotencyTest, OwnerWhoseLockLapsedCannotCompleteEvenIfNobodyTookOver) {
  Claimed c = MustClaim(Key("o1"), fp_);
  clock_->Advance(kLockTtl);
  EXPECT_EQ(*idem_->Complete(Key("o1"), c.claim_id, Ok("late"), kResultTtl),
            OwnerResult::kNotOwner);
}

TEST_F(IdempotencyTest, TransientFailureReleasesForARetry) {
  Claimed c = MustClaim(Key("o1"), fp_);
  ASSERT_EQ(*idem_->Fail(Key("o1"), c.claim_id, FailureKind::kTransient, "timeout", kResultTtl),
            OwnerResult::kDone);
  EXPECT_EQ((*idem_->Get(Key("o1")))->state, IdempotencyState::kReleased);
  Claimed retry = MustClaim(Key("o1"), fp_);  // At once: no need to wait for the lock TTL.
  EXPECT_EQ(retry.attempt, 2u);
  EXPECT_GT(retry.fencing_token, c.fencing_token);
}

TEST_F(IdempotencyTest, PermanentFailureIsStoredAsTheOutcome) {
  Claimed c = MustClaim(Key("o1"), fp_);
  ASSERT_EQ(
      *idem_->Fail(Key("o1"), c.claim_id, FailureKind::kPermanent, "card declined", kResultTtl),
      OwnerResult::kDone);
  ClaimResult dup = Claim(Key("o1"), fp_);
  ASSERT_TRUE(std::holds_alternative<Completed>(dup));
  const Outcome& o = std::get<Completed>(dup).outcome;
  EXPECT_EQ(o.kind, Outcome::Kind::kPermanentFailure);
  EXPECT_EQ(o.body, "card declined");
  EXPECT_EQ((*idem_->Get(Key("o1")))->state, IdempotencyState::kFailed);
}

TEST_F(IdempotencyTest, ResultExpiresAfterItsTtl) {
  Claimed c = MustClaim(Key("o1"), fp_);
  ASSERT_EQ(*idem_->Complete(Key("o1"), c.claim_id, Ok("x"), kResultTtl), OwnerResult::kDone);
  clock_->Advance(kResultTtl - 1);
  EXPECT_TRUE(std::holds_alternative<Completed>(Claim(Key("o1"), fp_)));
  clock_->Advance(1);
  EXPECT_EQ(*idem_->Get(Key("o1")), std::nullopt);
  Claimed again = MustClaim(Key("o1"), other_fp_);  // A new life: any request may claim it.
  EXPECT_EQ(again.attempt, 1u);
  EXPECT_GT(again.fencing_token, c.fencing_token);
}

TEST_F(IdempotencyTest, AbandonedClaimIsForgottenAfterTheRetention) {
  idem_ = std::make_unique<IdempotencyStore>(*store_,
                                             IdempotencyOptions{.abandoned_retention_ms = 5000});
  MustClaim(Key("o1"), fp_);
  clock_->Advance(kLockTtl + 4999);
  EXPECT_EQ((*idem_->Get(Key("o1")))->attempt, 1u);
  clock_->Advance(1);
  EXPECT_EQ(*idem_->Get(Key("o1")), std::nullopt);
}

TEST_F(IdempotencyTest, RecordsSurviveReopen) {
  Claimed running = MustClaim(Key("running"), fp_);
  Claimed done = MustClaim(Key("done"), fp_);
  ASSERT_EQ(*idem_->Complete(Key("done"), done.claim_id, Ok("kept"), kResultTtl),
            OwnerResult::kDone);
  Open();  // Restart.
  ClaimResult r1 = Claim(Key("running"), fp_);
  ASSERT_TRUE(std::holds_alternative<InProgress>(r1)) << "a claim taken before the restart holds";
  ClaimResult r2 = Claim(Key("done"), fp_);
  ASSERT_TRUE(std::holds_alternative<Completed>(r2));
  EXPECT_EQ(std::get<Completed>(r2).outcome.body, "kept");
  EXPECT_EQ(*idem_->Complete(Key("running"), running.claim_id, Ok("after restart"), kResultTtl),
            OwnerResult::kDone)
      << "the owner's claim id still works after a restart";
  Claimed fresh = MustClaim(Key("new"), fp_);
  EXPECT_GT(fresh.fencing_token, done.fencing_token) << "fencing never goes back";
}

TEST_F(IdempotencyTest, CorruptRecordFailsClosed) {
  const IdempotencyKey key = Key("o1");
  const std::string header_ok_payload_bad =
      std::string("\x01\x02", 2) + std::string(8, '\0') + "garbage";
  for (const std::string& bytes : {std::string("\x01"), header_ok_payload_bad}) {
    ASSERT_TRUE(testing::PutRawIdempotencyRow(*store_, key.encoded(), bytes).ok());
    auto claim = idem_->Claim(key, fp_, kLockTtl);
    ASSERT_FALSE(claim.ok());
    EXPECT_EQ(claim.status().code(), StatusCode::kCorruption);
    EXPECT_EQ(idem_->Get(key).status().code(), StatusCode::kCorruption);
    EXPECT_EQ(idem_->Complete(key, "x", Ok("y"), kResultTtl).status().code(),
              StatusCode::kCorruption);
  }
  EXPECT_TRUE(*idem_->Delete(key)) << "an administrator can remove it";
  MustClaim(key, fp_);
}

TEST_F(IdempotencyTest, DeleteRemovesTheRecord) {
  Claimed c = MustClaim(Key("o1"), fp_);
  EXPECT_TRUE(*idem_->Delete(Key("o1")));
  EXPECT_FALSE(*idem_->Delete(Key("o1")));
  EXPECT_EQ(*idem_->Complete(Key("o1"), c.claim_id, Ok("x"), kResultTtl), OwnerResult::kNotOwner);
}

TEST_F(IdempotencyTest, KeysAreScopedWithoutCollisions) {
  auto a = IdempotencyKey::Make("a:b", "", "c");
  auto b = IdempotencyKey::Make("a", "b:c", "x");
  auto c = IdempotencyKey::Make("a", "", "b:c");
  auto d = IdempotencyKey::Make("", "a", "b:c");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok() && d.ok());
  EXPECT_NE(a->encoded(), c->encoded());
  EXPECT_NE(c->encoded(), d->encoded());
  EXPECT_EQ(a->ToString(), "a:b//c");
  // Same business key in two tenants or versions: two independent records.
  MustClaim(*IdempotencyKey::Make("tenant-a", "1", "order-1"), fp_);
  MustClaim(*IdempotencyKey::Make("tenant-b", "1", "order-1"), fp_);
  MustClaim(*IdempotencyKey::Make("tenant-a", "2", "order-1"), fp_);
  MustClaim(*c, fp_);
  MustClaim(*d, fp_);
}

TEST_F(IdempotencyTest, BadInputIsRejected) {
  EXPECT_EQ(IdempotencyKey::Make("ns", "v", "").status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(IdempotencyKey::Make(std::string(kMaxIdempotencyKeyBytes + 1, 'k')).ok());
  EXPECT_FALSE(IdempotencyKey::Make(std::string(kMaxIdempotencyScopeBytes + 1, 'n'), "", "k").ok());
  EXPECT_TRUE(IdempotencyKey::Make(std::string(kMaxIdempotencyKeyBytes, 'k')).ok());
  auto zero = idem_->Claim(Key("o1"), fp_, 0);
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("lock TTL"), std::string::npos);
  Claimed c = MustClaim(Key("o1"), fp_);
  EXPECT_FALSE(idem_->Complete(Key("o1"), c.claim_id, Ok("x"), -1).ok());
  EXPECT_FALSE(idem_->Complete(Key("o1"), "", Ok("x"), kResultTtl).ok());
  Outcome huge = Ok("x");
  for (std::size_t i = 0; i <= kMaxOutcomeMetadataEntries; ++i) {
    huge.metadata["h" + std::to_string(i)] = "v";
  }
  EXPECT_EQ(idem_->Complete(Key("o1"), c.claim_id, huge, kResultTtl).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ((*idem_->Get(Key("o1")))->state, IdempotencyState::kInProgress) << "nothing written";
}

}  // namespace
}  // namespace cairn
