// The record operations' semantics on a Store: set conditions, old values, compare-and-swap,
// compare-and-delete, increments, expiry changes and wrong input.
#include <gtest/gtest.h>

#include <limits>

#include "cairn/store.h"
#include "support/temp_dir.h"

namespace cairn {
namespace {

using test::OpenOrDie;
using test::TempDir;
using test::TestOptions;

class RecordsTest : public ::testing::Test {
 protected:
  RecordsTest() : clock_(std::make_shared<ManualClock>()) {
    store_ = OpenOrDie(TestOptions(dir_.path(), clock_));
  }

  std::optional<std::string> Value(std::string_view key) {
    auto got = store_->Get(key);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() ? *got : std::nullopt;
  }

  TempDir dir_;
  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<Store> store_;
};

TEST_F(RecordsTest, GetOfMissingKeyIsNullopt) { EXPECT_EQ(Value("nope"), std::nullopt); }

TEST_F(RecordsTest, SetThenGet) {
  auto set = store_->Set("a", "1");
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_TRUE(set->applied);
  EXPECT_FALSE(set->old_value.has_value());
  EXPECT_EQ(Value("a"), "1");
  ASSERT_TRUE(store_->Set("a", "2").ok());
  EXPECT_EQ(Value("a"), "2");
}

TEST_F(RecordsTest, BinaryKeysAndValuesRoundTrip) {
  const std::string key("k\0\xff\x01", 4);
  const std::string value("\0\0v\xfe", 4);
  ASSERT_TRUE(store_->Set(key, value).ok());
  EXPECT_EQ(Value(key), value);
  ASSERT_TRUE(store_->Set("", "empty key is allowed").ok());
  EXPECT_EQ(Value(""), "empty key is allowed");
  ASSERT_TRUE(store_->Set("empty-value", "").ok());
  EXPECT_EQ(Value("empty-value"), "");
}

TEST_F(RecordsTest, SetIfAbsent) {
  SetOptions nx;
  nx.condition = SetCondition::kIfAbsent;
  auto first = store_->Set("k", "first", nx);
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first->applied);
  auto second = store_->Set("k", "second", nx);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->applied);
  EXPECT_EQ(Value("k"), "first");
}

TEST_F(RecordsTest, SetIfPresent) {
  SetOptions xx;
  xx.condition = SetCondition::kIfPresent;
  auto missing = store_->Set("k", "v", xx);
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->applied);
  EXPECT_EQ(Value("k"), std::nullopt);
  ASSERT_TRUE(store_->Set("k", "v1").ok());
  auto present = store_->Set("k", "v2", xx);
  ASSERT_TRUE(present.ok());
  EXPECT_TRUE(present->applied);
  EXPECT_EQ(Value("k"), "v2");
}

TEST_F(RecordsTest, SetReturnsOldValue) {
  SetOptions get;
  get.return_old = true;
  auto first = store_->Set("k", "v1", get);
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first->applied);
  EXPECT_EQ(first->old_value, std::nullopt);
  auto second = store_->Set("k", "v2", get);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->old_value, "v1");
  // NX with GET: not applied, but the current value is still returned.
  get.condition = SetCondition::kIfAbsent;
  auto third = store_->Set("k", "v3", get);
  ASSERT_TRUE(third.ok());
  EXPECT_FALSE(third->applied);
  EXPECT_EQ(third->old_value, "v2");
  EXPECT_EQ(Value("k"), "v2");
}

TEST_F(RecordsTest, SetWithTtlAndKeepTtl) {
  SetOptions ttl;
  ttl.expiry = Expiry::After(1000);
  ASSERT_TRUE(store_->Set("k", "v1", ttl).ok());
  clock_->Advance(400);
  SetOptions keep;
  keep.expiry = Expiry::Keep();
  ASSERT_TRUE(store_->Set("k", "v2", keep).ok());
  auto state = store_->GetTtl("k");
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(state->kind, TtlState::Kind::kExpires);
  EXPECT_EQ(state->remaining_ms, 600);
  // A plain set clears the TTL, as in Redis.
  ASSERT_TRUE(store_->Set("k", "v3").ok());
  EXPECT_EQ(store_->GetTtl("k")->kind, TtlState::Kind::kNoExpiry);
  // Keep on an absent key means no expiry.
  ASSERT_TRUE(store_->Set("fresh", "v", keep).ok());
  EXPECT_EQ(store_->GetTtl("fresh")->kind, TtlState::Kind::kNoExpiry);
}

TEST_F(RecordsTest, SetWithAbsoluteExpiryInThePastDeletes) {
  ASSERT_TRUE(store_->Set("k", "v").ok());
  SetOptions at;
  at.expiry = Expiry::At(clock_->NowMs() - 1);
  auto r = store_->Set("k", "v2", at);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->applied);
  EXPECT_EQ(Value("k"), std::nullopt);
  at.expiry = Expiry::At(clock_->NowMs() + 50);
  ASSERT_TRUE(store_->Set("k", "v3", at).ok());
  EXPECT_EQ(store_->GetTtl("k")->expires_at_ms, clock_->NowMs() + 50);
}

TEST_F(RecordsTest, Delete) {
  auto missing = store_->Delete("k");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(*missing);
  ASSERT_TRUE(store_->Set("k", "v").ok());
  auto removed = store_->Delete("k");
  ASSERT_TRUE(removed.ok());
  EXPECT_TRUE(*removed);
  EXPECT_EQ(Value("k"), std::nullopt);
}

TEST_F(RecordsTest, CompareAndSwap) {
  auto absent = store_->CompareAndSwap("k", "x", "y");
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->swapped);
  EXPECT_EQ(absent->current, std::nullopt);
  EXPECT_EQ(Value("k"), std::nullopt);

  ASSERT_TRUE(store_->Set("k", "a", {.expiry = Expiry::After(5000)}).ok());
  auto mismatch = store_->CompareAndSwap("k", "b", "c");
  ASSERT_TRUE(mismatch.ok());
  EXPECT_FALSE(mismatch->swapped);
  EXPECT_EQ(mismatch->current, "a");
  EXPECT_EQ(Value("k"), "a");

  auto swapped = store_->CompareAndSwap("k", "a", "b");
  ASSERT_TRUE(swapped.ok());
  EXPECT_TRUE(swapped->swapped);
  EXPECT_EQ(Value("k"), "b");
  EXPECT_EQ(store_->GetTtl("k")->remaining_ms, 5000) << "default expiry is Keep";

  ASSERT_TRUE(store_->CompareAndSwap("k", "b", "c", Expiry::None()).ok());
  EXPECT_EQ(store_->GetTtl("k")->kind, TtlState::Kind::kNoExpiry);
}

TEST_F(RecordsTest, CompareAndDelete) {
  ASSERT_TRUE(store_->Set("k", "mine").ok());
  auto wrong = store_->CompareAndDelete("k", "theirs");
  ASSERT_TRUE(wrong.ok());
  EXPECT_FALSE(*wrong);
  EXPECT_EQ(Value("k"), "mine");
  auto right = store_->CompareAndDelete("k", "mine");
  ASSERT_TRUE(right.ok());
  EXPECT_TRUE(*right);
  EXPECT_EQ(Value("k"), std::nullopt);
  auto gone = store_->CompareAndDelete("k", "mine");
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(*gone);
}

TEST_F(RecordsTest, IncrBy) {
  EXPECT_EQ(*store_->IncrBy("n", 5), 5);
  EXPECT_EQ(*store_->IncrBy("n", -7), -2);
  EXPECT_EQ(Value("n"), "-2");
  ASSERT_TRUE(store_->Set("n", "41").ok());
  EXPECT_EQ(*store_->IncrBy("n", 1), 42);
}

TEST_F(RecordsTest, IncrByKeepsTtl) {
  ASSERT_TRUE(store_->Set("n", "1", {.expiry = Expiry::After(1000)}).ok());
  clock_->Advance(100);
  EXPECT_EQ(*store_->IncrBy("n", 1), 2);
  EXPECT_EQ(store_->GetTtl("n")->remaining_ms, 900);
}

TEST_F(RecordsTest, IncrByRejectsNonIntegers) {
  for (const char* bad : {"abc", "1.5", " 1", "1 ", "+1", "01", "-0", "", "99999999999999999999"}) {
    ASSERT_TRUE(store_->Set("n", bad).ok());
    auto r = store_->IncrBy("n", 1);
    ASSERT_FALSE(r.ok()) << "value '" << bad << "'";
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("not an integer"), std::string::npos);
    EXPECT_EQ(Value("n"), bad) << "a failed increment writes nothing";
  }
}

TEST_F(RecordsTest, IncrByOverflowIsAnErrorAndWritesNothing) {
  const auto max = std::numeric_limits<std::int64_t>::max();
  const auto min = std::numeric_limits<std::int64_t>::min();
  ASSERT_TRUE(store_->Set("n", std::to_string(max)).ok());
  auto up = store_->IncrBy("n", 1);
  ASSERT_FALSE(up.ok());
  EXPECT_EQ(up.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(Value("n"), std::to_string(max));
  ASSERT_TRUE(store_->Set("n", std::to_string(min)).ok());
  auto down = store_->IncrBy("n", -1);
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(*store_->IncrBy("n", max), -1);
}

TEST_F(RecordsTest, ExpirePersistAndTtl) {
  EXPECT_EQ(store_->GetTtl("k")->kind, TtlState::Kind::kMissing);
  EXPECT_FALSE(*store_->Expire("k", 100)) << "absent key";
  EXPECT_FALSE(*store_->Persist("k"));

  ASSERT_TRUE(store_->Set("k", "v").ok());
  EXPECT_EQ(store_->GetTtl("k")->kind, TtlState::Kind::kNoExpiry);
  EXPECT_FALSE(*store_->Persist("k")) << "no TTL to remove";
  EXPECT_TRUE(*store_->Expire("k", 2500));
  auto ttl = store_->GetTtl("k");
  EXPECT_EQ(ttl->kind, TtlState::Kind::kExpires);
  EXPECT_EQ(ttl->remaining_ms, 2500);
  EXPECT_EQ(ttl->expires_at_ms, clock_->NowMs() + 2500);
  EXPECT_TRUE(*store_->Persist("k"));
  EXPECT_EQ(store_->GetTtl("k")->kind, TtlState::Kind::kNoExpiry);
  EXPECT_EQ(Value("k"), "v");
}

TEST_F(RecordsTest, ExpireAtInThePastDeletes) {
  ASSERT_TRUE(store_->Set("k", "v").ok());
  EXPECT_TRUE(*store_->ExpireAt("k", clock_->NowMs()));
  EXPECT_EQ(Value("k"), std::nullopt);
  EXPECT_FALSE(*store_->Delete("k"));
}

TEST_F(RecordsTest, ClosedStoreRefusesCalls) {
  ASSERT_TRUE(store_->Close().ok());
  auto r = store_->Get("k");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->Set("k", "v").status().code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(store_->Close().ok()) << "Close is idempotent";
}

}  // namespace
}  // namespace cairn
