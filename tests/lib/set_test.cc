// Sets in the keyspace: members, kinds of keys meeting, expiry, transactions, rename, and
// compaction removing the members of a deleted set while a live one keeps its own.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cairn/store.h"
#include "support/temp_dir.h"
#include "testing/store_testing.h"

namespace cairn {
namespace {

using test::OpenOrDie;
using test::TempDir;
using test::TestOptions;
using Members = std::vector<std::string>;

class SetTest : public ::testing::Test {
 protected:
  SetTest() : clock_(std::make_shared<ManualClock>()) {
    store_ = OpenOrDie(TestOptions(dir_.path(), clock_));
  }

  std::size_t Add(Records& data, std::string_view key, std::vector<std::string_view> members) {
    auto added = data.SetAdd(key, members);
    EXPECT_TRUE(added.ok()) << added.status().ToString();
    return added.ok() ? *added : 0;
  }
  std::size_t Add(std::string_view key, std::vector<std::string_view> members) {
    return Add(*store_, key, std::move(members));
  }
  bool Contains(std::string_view key, std::string_view member) {
    auto found = store_->SetContains(key, member);
    EXPECT_TRUE(found.ok()) << found.status().ToString();
    return found.ok() && *found;
  }
  Members All(std::string_view key, std::size_t count = 100) {
    Members out;
    std::string cursor;
    do {
      auto page = store_->SetScan(key, {.cursor = cursor, .count = count});
      EXPECT_TRUE(page.ok()) << page.status().ToString();
      if (!page.ok()) break;
      out.insert(out.end(), page->members.begin(), page->members.end());
      cursor = page->cursor;
    } while (!cursor.empty());
    return out;
  }

  TempDir dir_;
  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<Store> store_;
};

TEST_F(SetTest, AddRemoveContainsAndSize) {
  EXPECT_EQ(Add("s", {"b", "a", "a"}), 2u);
  EXPECT_EQ(Add("s", {"a", "c"}), 1u);
  EXPECT_TRUE(Contains("s", "a"));
  EXPECT_FALSE(Contains("s", "z"));
  EXPECT_FALSE(Contains("missing", "a"));
  EXPECT_EQ(*store_->SetSize("s"), 3u);
  EXPECT_EQ(All("s", 2), (Members{"a", "b", "c"}));
  EXPECT_EQ(*store_->Type("s"), KeyType::kSet);
  const std::vector<std::string_view> gone{"a", "a", "z"};
  EXPECT_EQ(*store_->SetRemove("s", gone), 1u);
  const std::vector<std::string_view> rest{"b", "c"};
  EXPECT_EQ(*store_->SetRemove("s", rest), 2u);
  EXPECT_EQ(*store_->Type("s"), KeyType::kNone);
  EXPECT_EQ(*store_->SetSize("s"), 0u);
}

TEST_F(SetTest, SetsHashesAndStringsDoNotMix) {
  Add("s", {"a"});
  const HashField f{"a", "1"};
  ASSERT_TRUE(store_->HashSet("h", {&f, 1}).ok());
  EXPECT_EQ(store_->HashGet("s", "a").status().code(), StatusCode::kWrongType);
  EXPECT_EQ(store_->SetContains("h", "a").status().code(), StatusCode::kWrongType);
  const std::string_view a = "a";
  EXPECT_EQ(store_->SetAdd("h", {&a, 1}).status().code(), StatusCode::kWrongType);
  EXPECT_EQ(store_->Get("s").status().code(), StatusCode::kWrongType);
}

TEST_F(SetTest, ExpiryTransactionsAndRename) {
  Add("s", {"a", "b"});
  ASSERT_TRUE(*store_->Expire("s", 100));
  ASSERT_EQ(*store_->Rename("s", "t", false), RenameOutcome::kRenamed);
  EXPECT_EQ(All("t"), (Members{"a", "b"}));
  EXPECT_EQ(store_->GetTtl("t")->remaining_ms, 100);
  {
    auto txn = store_->BeginTransaction();
    ASSERT_TRUE(txn.ok());
    EXPECT_EQ(Add(**txn, "t", {"c"}), 1u);
    EXPECT_FALSE(Contains("t", "c"));
    ASSERT_TRUE((*txn)->Commit().ok());
  }
  EXPECT_TRUE(Contains("t", "c"));
  clock_->Advance(100);
  EXPECT_FALSE(Contains("t", "a"));
  EXPECT_EQ(Add("t", {"z"}), 1u);
  EXPECT_EQ(All("t"), (Members{"z"}));
}

TEST_F(SetTest, CompactionRemovesTheMembersOfDeletedSetsOnly) {
  std::vector<std::string> names;
  for (int i = 0; i < 5000; ++i) names.push_back("m" + std::to_string(i));
  const std::vector<std::string_view> members(names.begin(), names.end());
  ASSERT_EQ(*store_->SetAdd("gone", members), 5000u);
  ASSERT_EQ(*store_->SetAdd("kept", members), 5000u);
  ASSERT_TRUE(*store_->Delete("gone"));
  ASSERT_TRUE(store_->Compact().ok());
  EXPECT_EQ(*testing::CountRawMemberRows(*store_), 5000u);
  EXPECT_EQ(*store_->SetSize("kept"), 5000u);
  EXPECT_EQ(All("kept", 1000).size(), 5000u);
}

}  // namespace
}  // namespace cairn
