// Expiry with a manual clock: records are visible until their expiry instant, invisible to
// every read from that instant on, and physically removed by compaction.
#include <gtest/gtest.h>

#include "cairn/store.h"
#include "support/temp_dir.h"
#include "testing/store_testing.h"

namespace cairn {
namespace {

using test::OpenOrDie;
using test::TempDir;
using test::TestOptions;

class TtlTest : public ::testing::Test {
 protected:
  TtlTest() : clock_(std::make_shared<ManualClock>()) {
    store_ = OpenOrDie(TestOptions(dir_.path(), clock_));
  }

  TempDir dir_;
  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<Store> store_;
};

TEST_F(TtlTest, VisibleBeforeExpiryAndInvisibleFromTheExpiryInstant) {
  ASSERT_TRUE(store_->Set("k", "v", {.expiry = Expiry::After(1000)}).ok());
  clock_->Advance(999);
  EXPECT_EQ(*store_->Get("k"), "v");
  EXPECT_EQ(store_->GetTtl("k")->remaining_ms, 1);
  clock_->Advance(1);
  EXPECT_EQ(*store_->Get("k"), std::nullopt);
}

TEST_F(TtlTest, ExpiredRecordIsAbsentToEveryOperation) {
  ASSERT_TRUE(store_->Set("k", "7", {.expiry = Expiry::After(10)}).ok());
  clock_->Advance(10);
  EXPECT_EQ(*store_->Get("k"), std::nullopt);
  EXPECT_EQ(store_->GetTtl("k")->kind, TtlState::Kind::kMissing);
  EXPECT_FALSE(*store_->Expire("k", 100));
  EXPECT_FALSE(*store_->Persist("k"));
  EXPECT_FALSE(store_->CompareAndSwap("k", "7", "8")->swapped);
  EXPECT_FALSE(*store_->CompareAndDelete("k", "7"));
  EXPECT_TRUE(store_->Scan({})->entries.empty());
  SetOptions xx;
  xx.condition = SetCondition::kIfPresent;
  EXPECT_FALSE(store_->Set("k", "x", xx)->applied);
  EXPECT_EQ(*store_->IncrBy("k", 1), 1) << "an expired counter starts again from 0";
  EXPECT_EQ(store_->GetTtl("k")->kind, TtlState::Kind::kNoExpiry)
      << "the new counter does not inherit the dead record's expiry";
}

TEST_F(TtlTest, SetIfAbsentWinsOverAnExpiredRecord) {
  ASSERT_TRUE(store_->Set("lock", "old-owner", {.expiry = Expiry::After(100)}).ok());
  SetOptions nx;
  nx.condition = SetCondition::kIfAbsent;
  nx.expiry = Expiry::After(100);
  EXPECT_FALSE(store_->Set("lock", "new-owner", nx)->applied);
  clock_->Advance(100);
  EXPECT_TRUE(store_->Set("lock", "new-owner", nx)->applied);
  EXPECT_EQ(*store_->Get("lock"), "new-owner");
}

TEST_F(TtlTest, ExpiredRecordsArePhysicallyRemovedByCompaction) {
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(
        store_->Set("short:" + std::to_string(i), "x", {.expiry = Expiry::After(100)}).ok());
    ASSERT_TRUE(
        store_->Set("long:" + std::to_string(i), "x", {.expiry = Expiry::After(100'000)}).ok());
    ASSERT_TRUE(store_->Set("forever:" + std::to_string(i), "x").ok());
  }
  ASSERT_TRUE(store_->Compact().ok());
  EXPECT_EQ(*testing::CountRawKeyspaceRows(*store_), 150u) << "nothing expired yet";

  clock_->Advance(100);
  EXPECT_EQ(*testing::CountRawKeyspaceRows(*store_), 150u)
      << "expired rows stay on disk until compaction runs";
  ASSERT_TRUE(store_->Compact().ok());
  EXPECT_EQ(*testing::CountRawKeyspaceRows(*store_), 100u);
  EXPECT_EQ(*testing::GetRawKeyspaceRow(*store_, "short:0"), std::nullopt);
  EXPECT_NE(*testing::GetRawKeyspaceRow(*store_, "long:0"), std::nullopt);

  clock_->Advance(100'000);
  ASSERT_TRUE(store_->Compact().ok());
  EXPECT_EQ(*testing::CountRawKeyspaceRows(*store_), 50u);
  EXPECT_EQ(*store_->Get("forever:49"), "x");
}

TEST_F(TtlTest, CompactionKeepsRecordsWhoseExpiryWasExtendedOrRemoved) {
  ASSERT_TRUE(store_->Set("a", "x", {.expiry = Expiry::After(100)}).ok());
  ASSERT_TRUE(store_->Set("b", "x", {.expiry = Expiry::After(100)}).ok());
  ASSERT_TRUE(store_->Compact().ok());  // The short-lived versions now sit in an SST file.
  ASSERT_TRUE(*store_->Expire("a", 10'000));
  ASSERT_TRUE(*store_->Persist("b"));
  clock_->Advance(200);
  ASSERT_TRUE(store_->Compact().ok());
  EXPECT_EQ(*store_->Get("a"), "x");
  EXPECT_EQ(*store_->Get("b"), "x");
  EXPECT_EQ(*testing::CountRawKeyspaceRows(*store_), 2u);
}

TEST_F(TtlTest, CompactionNeverDropsCorruptRecords) {
  ASSERT_TRUE(testing::PutRawKeyspaceRow(*store_, "bad", "xx").ok());
  clock_->Advance(1'000'000'000);
  ASSERT_TRUE(store_->Compact().ok());
  EXPECT_EQ(*testing::GetRawKeyspaceRow(*store_, "bad"), "xx");
}

}  // namespace
}  // namespace cairn
