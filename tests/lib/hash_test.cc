// Hashes in the keyspace: field semantics, kinds of keys meeting, expiry on a manual clock,
// transactions, rename, and the promise that deleting or expiring a hash of any size is one
// row, with compaction removing its fields afterwards (and only those).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cairn/limits.h"
#include "cairn/store.h"
#include "support/temp_dir.h"
#include "support/test_scale.h"
#include "testing/store_testing.h"

namespace cairn {
namespace {

using test::kHugeValueMembers;
using test::OpenOrDie;
using test::TempDir;
using test::TestOptions;

class HashTest : public ::testing::Test {
 protected:
  HashTest() : clock_(std::make_shared<ManualClock>()) {
    store_ = OpenOrDie(TestOptions(dir_.path(), clock_));
  }

  std::size_t Set(Records& data, std::string_view key, std::vector<HashField> fields) {
    auto added = data.HashSet(key, fields);
    EXPECT_TRUE(added.ok()) << added.status().ToString();
    return added.ok() ? *added : 0;
  }
  std::size_t Set(std::string_view key, std::vector<HashField> fields) {
    return Set(*store_, key, std::move(fields));
  }
  std::optional<std::string> Field(Records& data, std::string_view key, std::string_view field) {
    auto got = data.HashGet(key, field);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() ? *got : std::nullopt;
  }
  std::optional<std::string> Field(std::string_view key, std::string_view field) {
    return Field(*store_, key, field);
  }
  std::uint64_t Length(std::string_view key) {
    auto n = store_->HashLength(key);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? *n : 0;
  }
  // Every field, paging `count` at a time.
  std::vector<std::pair<std::string, std::string>> All(std::string_view key,
                                                       std::size_t count = 100) {
    std::vector<std::pair<std::string, std::string>> out;
    std::string cursor;
    do {
      auto page = store_->HashScan(key, {.cursor = cursor, .count = count});
      EXPECT_TRUE(page.ok()) << page.status().ToString();
      if (!page.ok()) break;
      for (HashEntry& e : page->entries) out.emplace_back(e.field, e.value);
      cursor = page->cursor;
    } while (!cursor.empty());
    return out;
  }
  std::size_t MemberRows() {
    auto n = testing::CountRawMemberRows(*store_);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? *n : 0;
  }
  // Writes `n` fields f000000… in transactions of 10,000.
  void Fill(std::string_view key, std::size_t n) {
    for (std::size_t start = 0; start < n; start += 10'000) {
      std::vector<std::string> names;
      std::vector<HashField> fields;
      for (std::size_t i = start; i < std::min(n, start + 10'000); ++i) {
        char name[24];
        std::snprintf(name, sizeof name, "f%07zu", i);
        names.emplace_back(name);
      }
      for (const std::string& name : names) fields.push_back({name, "v"});
      ASSERT_EQ(Set(key, fields), fields.size());
    }
  }

  TempDir dir_;
  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<Store> store_;
};

TEST_F(HashTest, SetCountsNewFieldsAndKeepsTheLastValueOfARepeatedOne) {
  EXPECT_EQ(Set("h", {{"a", "1"}, {"b", "2"}}), 2u);
  EXPECT_EQ(Set("h", {{"b", "3"}, {"c", "4"}, {"c", "5"}}), 1u);
  EXPECT_EQ(Field("h", "a"), "1");
  EXPECT_EQ(Field("h", "b"), "3");
  EXPECT_EQ(Field("h", "c"), "5");
  EXPECT_EQ(Field("h", "nope"), std::nullopt);
  EXPECT_EQ(Field("missing", "a"), std::nullopt);
  EXPECT_EQ(Length("h"), 3u);
  EXPECT_EQ(Length("missing"), 0u);
  EXPECT_EQ(*store_->Type("h"), KeyType::kHash);
  // A field named twice in the call that creates the hash (which skips its reads).
  EXPECT_EQ(Set("fresh", {{"x", "1"}, {"y", "2"}, {"x", "3"}}), 2u);
  EXPECT_EQ(Field("fresh", "x"), "3");
  EXPECT_EQ(Length("fresh"), 2u);
  EXPECT_EQ(MemberRows(), 0u);  // Small hashes are packed in their keyspace row.
}

TEST_F(HashTest, GetManyAnswersEachFieldInOrder) {
  Set("h", {{"a", "1"}, {"b", "2"}});
  using Values = std::vector<std::optional<std::string>>;
  const std::vector<std::string_view> fields{"b", "nope", "a", "b"};
  EXPECT_EQ(*store_->HashGetMany("h", fields), (Values{"2", std::nullopt, "1", "2"}));
  EXPECT_EQ(*store_->HashGetMany("missing", fields), Values(4));
  const std::vector<std::string_view> one{"a"};
  EXPECT_EQ(*store_->HashGetMany("h", one), (Values{"1"}));
  // In a transaction: its own writes and deletes, then the committed fields.
  auto txn = store_->BeginTransaction();
  ASSERT_TRUE(txn.ok());
  EXPECT_EQ(Set(**txn, "h", {{"c", "3"}}), 1u);
  const std::vector<std::string_view> a{"a"};
  EXPECT_EQ(*(*txn)->HashDelete("h", a), 1u);
  const std::vector<std::string_view> abc{"a", "b", "c"};
  EXPECT_EQ(*(*txn)->HashGetMany("h", abc), (Values{std::nullopt, "2", "3"}));
  EXPECT_EQ(*store_->HashGetMany("h", abc), (Values{"1", "2", std::nullopt}));
  // Wrong kinds and oversized fields are refused, as for HashGet.
  ASSERT_TRUE(store_->Set("s", "v").ok());
  EXPECT_EQ(store_->HashGetMany("s", abc).status().code(), StatusCode::kWrongType);
  const std::string huge(kMaxKeyBytes + 1, 'f');
  const std::vector<std::string_view> bad{"a", huge};
  EXPECT_EQ(store_->HashGetMany("h", bad).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(HashTest, BinaryAndEmptyFieldsAndValues) {
  const std::string field("\0f\xff", 3), value("\0\0v", 3);
  EXPECT_EQ(Set("h", {{field, value}, {"", ""}}), 2u);
  EXPECT_EQ(Field("h", field), value);
  EXPECT_EQ(Field("h", ""), "");
  EXPECT_EQ(All("h"), (std::vector<std::pair<std::string, std::string>>{{"", ""}, {field, value}}));
}

TEST_F(HashTest, DeletingTheLastFieldDeletesTheHash) {
  Set("h", {{"a", "1"}, {"b", "2"}});
  const std::vector<std::string_view> some{"a", "a", "zz"};
  EXPECT_EQ(*store_->HashDelete("h", some), 1u);
  EXPECT_EQ(Length("h"), 1u);
  const std::vector<std::string_view> rest{"b"};
  EXPECT_EQ(*store_->HashDelete("h", rest), 1u);
  EXPECT_EQ(*store_->Type("h"), KeyType::kNone);
  EXPECT_EQ(store_->GetTtl("h")->kind, TtlState::Kind::kMissing);
  EXPECT_EQ(*store_->HashDelete("h", rest), 0u);
}

TEST_F(HashTest, KindsOfKeysDoNotMix) {
  ASSERT_TRUE(store_->Set("s", "v").ok());
  Set("h", {{"a", "1"}});
  EXPECT_EQ(store_->HashGet("s", "a").status().code(), StatusCode::kWrongType);
  const HashField f{"a", "1"};
  EXPECT_EQ(store_->HashSet("s", {&f, 1}).status().code(), StatusCode::kWrongType);
  EXPECT_EQ(store_->HashLength("s").status().code(), StatusCode::kWrongType);
  EXPECT_EQ(store_->Get("h").status().code(), StatusCode::kWrongType);
  EXPECT_EQ(store_->IncrBy("h", 1).status().code(), StatusCode::kWrongType);
  // An unconditional Set replaces a hash; its fields are gone with it.
  ASSERT_TRUE(store_->Set("h", "now a string").ok());
  EXPECT_EQ(*store_->Get("h"), "now a string");
  ASSERT_TRUE(store_->Delete("h").ok());
  Set("h", {{"b", "2"}});
  EXPECT_EQ(Field("h", "a"), std::nullopt);
  EXPECT_EQ(Length("h"), 1u);
}

TEST_F(HashTest, ARecreatedHashDoesNotSeeTheFieldsOfTheOldOne) {
  Set("h", {{"a", "1"}, {"b", "2"}});
  EXPECT_TRUE(*store_->Delete("h"));
  EXPECT_EQ(Length("h"), 0u);
  EXPECT_EQ(Set("h", {{"c", "3"}}), 1u);
  EXPECT_EQ(All("h"), (std::vector<std::pair<std::string, std::string>>{{"c", "3"}}));
  EXPECT_EQ(Length("h"), 1u);
}

TEST_F(HashTest, ExpiryIsTheKeysAndWritesKeepIt) {
  Set("h", {{"a", "1"}});
  ASSERT_TRUE(*store_->Expire("h", 1000));
  Set("h", {{"b", "2"}});
  EXPECT_EQ(store_->GetTtl("h")->remaining_ms, 1000);
  clock_->Advance(999);
  EXPECT_EQ(Field("h", "b"), "2");
  clock_->Advance(1);
  EXPECT_EQ(Field("h", "a"), std::nullopt);
  EXPECT_EQ(Length("h"), 0u);
  EXPECT_EQ(*store_->Type("h"), KeyType::kNone);
  // Writing to an expired hash starts a new one, without the old fields or expiry.
  EXPECT_EQ(Set("h", {{"c", "3"}}), 1u);
  EXPECT_EQ(All("h"), (std::vector<std::pair<std::string, std::string>>{{"c", "3"}}));
  EXPECT_EQ(store_->GetTtl("h")->kind, TtlState::Kind::kNoExpiry);
}

TEST_F(HashTest, ScanPagesThroughEveryFieldOnceInByteOrder) {
  Fill("h", 250);
  const auto all = All("h", 7);
  ASSERT_EQ(all.size(), 250u);
  for (std::size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1].first, all[i].first);
  EXPECT_EQ(store_->HashScan("h", {.count = 0}).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(HashTest, TransactionWritesAreAllOrNothing) {
  Set("h", {{"a", "1"}});
  {
    auto txn = store_->BeginTransaction();
    ASSERT_TRUE(txn.ok());
    EXPECT_EQ(Set(**txn, "h", {{"b", "2"}}), 1u);
    EXPECT_EQ(Field(**txn, "h", "b"), "2");    // Its own write.
    EXPECT_EQ(Field("h", "b"), std::nullopt);  // Not yet anyone else's.
    const std::vector<std::string_view> a{"a"};
    EXPECT_EQ(*(*txn)->HashDelete("h", a), 1u);
    (*txn)->Rollback();
  }
  EXPECT_EQ(All("h"), (std::vector<std::pair<std::string, std::string>>{{"a", "1"}}));
  Status s = store_->RunTransaction([&](Transaction& txn) -> Status {
    const HashField f{"b", "2"};
    return txn.HashSet("h", {&f, 1}).status();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Length("h"), 2u);
}

TEST_F(HashTest, RenameMovesFieldsAndExpiryAndReplacesTheTarget) {
  Set("src", {{"a", "1"}, {"b", "2"}});
  ASSERT_TRUE(*store_->Expire("src", 5000));
  Set("dst", {{"old", "x"}});
  EXPECT_EQ(*store_->Rename("src", "dst", /*only_if_absent=*/true), RenameOutcome::kTargetExists);
  EXPECT_EQ(*store_->Rename("src", "dst", false), RenameOutcome::kRenamed);
  EXPECT_EQ(*store_->Type("src"), KeyType::kNone);
  EXPECT_EQ(All("dst"), (std::vector<std::pair<std::string, std::string>>{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(Length("dst"), 2u);
  EXPECT_EQ(store_->GetTtl("dst")->remaining_ms, 5000);
  EXPECT_EQ(*store_->Rename("src", "x", false), RenameOutcome::kNoSuchKey);
  EXPECT_EQ(*store_->Rename("dst", "dst", false), RenameOutcome::kRenamed);
  ASSERT_TRUE(store_->Set("s", "v").ok());
  EXPECT_EQ(*store_->Rename("s", "t", true), RenameOutcome::kRenamed);
  EXPECT_EQ(*store_->Get("t"), "v");
}

TEST_F(HashTest, ScanOfTheKeyspaceReportsKinds) {
  ASSERT_TRUE(store_->Set("a", "v").ok());
  Set("b", {{"f", "1"}});
  auto page = store_->Scan({});
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->entries.size(), 2u);
  EXPECT_EQ(page->entries[0].type, KeyType::kString);
  EXPECT_EQ(page->entries[0].value, "v");
  EXPECT_EQ(page->entries[1].type, KeyType::kHash);
  EXPECT_EQ(page->entries[1].value, "");
}

TEST_F(HashTest, BadInputIsRefusedBeforeAnythingIsWritten) {
  const std::string long_field(kMaxKeyBytes + 1, 'f');
  const HashField bad{long_field, "v"};
  EXPECT_EQ(store_->HashSet("h", {&bad, 1}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->HashSet("h", {}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(*store_->Type("h"), KeyType::kNone);
}

// The size: a million fields (kHugeValueMembers). Deleting is one row whatever the size;
// compaction then removes every field of the deleted and of the expired hash, and none of the live
// one.
TEST_F(HashTest, DeletingOrExpiringAMillionFieldsIsOneRowAndCompactionReclaimsThem) {
  constexpr std::size_t n = kHugeValueMembers;
  Fill("big", n);
  Fill("expiring", 1'000);
  Fill("live", 1'000);
  ASSERT_TRUE(*store_->Expire("expiring", 10));
  EXPECT_EQ(MemberRows(), n + 2'000);

  auto before = testing::KeyspaceMemtableEntries(*store_);
  ASSERT_TRUE(before.ok());
  EXPECT_TRUE(*store_->Delete("big"));
  auto after = testing::KeyspaceMemtableEntries(*store_);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after - *before, 1u);  // One keyspace row written, no member row touched.
  EXPECT_EQ(MemberRows(), n + 2'000);
  EXPECT_EQ(Length("big"), 0u);
  clock_->Advance(10);
  EXPECT_EQ(Length("expiring"), 0u);

  ASSERT_TRUE(store_->Compact().ok());
  EXPECT_EQ(MemberRows(), 1'000u);
  EXPECT_EQ(Length("live"), 1'000u);
  EXPECT_EQ(All("live").size(), 1'000u);
}

// Past 128 fields, or with a field or value over 64 bytes (Redis's listpack limits), a hash
// keeps its fields as member rows, for good; below them, in its keyspace row.
TEST_F(HashTest, AHashOutgrowingThePackedFormMovesToMemberRowsWithEveryField) {
  for (int i = 0; i < 128; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "f%03d", i % 1000);
    ASSERT_EQ(Set("many", {{name, std::to_string(i)}}), 1u);
  }
  EXPECT_EQ(MemberRows(), 0u);
  EXPECT_EQ(Set("many", {{"f000", "again"}, {"zz", "last"}}), 1u);
  EXPECT_EQ(MemberRows(), 129u);
  EXPECT_EQ(Length("many"), 129u);
  EXPECT_EQ(Field("many", "f000"), "again");
  EXPECT_EQ(Field("many", "f127"), "127");
  EXPECT_EQ(Field("many", "zz"), "last");
  const auto all = All("many", 10);
  ASSERT_EQ(all.size(), 129u);
  for (std::size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1].first, all[i].first);
  // Shrinking again does not pack it back.
  std::vector<std::string_view> most;
  for (const auto& [field, value] : all) {
    if (field != "zz") most.push_back(field);
  }
  EXPECT_EQ(*store_->HashDelete("many", most), 128u);
  EXPECT_EQ(MemberRows(), 1u);
  EXPECT_EQ(All("many"), (std::vector<std::pair<std::string, std::string>>{{"zz", "last"}}));

  Set("long", {{"a", "1"}, {"b", std::string(64, 'v')}});
  EXPECT_EQ(MemberRows(), 1u);
  EXPECT_EQ(Set("long", {{"c", std::string(65, 'v')}}), 1u);
  EXPECT_EQ(MemberRows(), 4u);
  EXPECT_EQ(Field("long", "a"), "1");
  EXPECT_EQ(Field("long", "b"), std::string(64, 'v'));
  EXPECT_EQ(Field("long", "c"), std::string(65, 'v'));

  EXPECT_EQ(Set("wide", {{std::string(65, 'f'), "1"}, {"g", "2"}}), 2u);
  EXPECT_EQ(MemberRows(), 6u);
  EXPECT_EQ(Field("wide", std::string(65, 'f')), "1");
  EXPECT_EQ(Length("wide"), 2u);

  // Deleted, the rows go with compaction; the key starts packed again.
  EXPECT_TRUE(*store_->Delete("long"));
  EXPECT_EQ(Set("long", {{"x", "1"}}), 1u);
  ASSERT_TRUE(store_->Compact().ok());
  EXPECT_EQ(MemberRows(), 3u);
  EXPECT_EQ(All("long"), (std::vector<std::pair<std::string, std::string>>{{"x", "1"}}));
}

TEST_F(HashTest, APackedHashPagesRemovesAndRenamesLikeOneOfRows) {
  std::vector<HashField> fields;
  const std::vector<std::string> names{"k",     "b", "",  "a", "zz",
                                       "b\xff", "m", "c", "y", std::string("b\0", 2)};
  std::vector<std::string> values;
  for (const std::string& name : names) values.push_back("v" + name);
  for (std::size_t i = 0; i < names.size(); ++i) fields.push_back({names[i], values[i]});
  EXPECT_EQ(Set("h", fields), names.size());
  for (std::size_t count : {1, 3, 10, 11}) {
    const auto all = All("h", count);
    ASSERT_EQ(all.size(), names.size()) << count;
    for (std::size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1].first, all[i].first);
    EXPECT_EQ(all.front(), (std::pair<std::string, std::string>{"", "v"}));
  }
  auto first = store_->HashScan("h", {.count = 4});
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->entries.size(), 4u);
  EXPECT_EQ(first->cursor, std::string("b\0\0", 3));  // After "b\0": resumes past it.

  const std::vector<std::string_view> gone{"a", "nope", "zz", "a"};
  EXPECT_EQ(*store_->HashDelete("h", gone), 2u);
  EXPECT_EQ(Length("h"), names.size() - 2);
  EXPECT_EQ(Field("h", "a"), std::nullopt);
  EXPECT_EQ(Field("h", "m"), "vm");

  ASSERT_TRUE(*store_->Expire("h", 5000));
  EXPECT_EQ(*store_->Rename("h", "moved", false), RenameOutcome::kRenamed);
  EXPECT_EQ(Length("moved"), names.size() - 2);
  EXPECT_EQ(Field("moved", "b\xff"), "vb\xff");
  EXPECT_EQ(store_->GetTtl("moved")->remaining_ms, 5000);
  EXPECT_EQ(Set("moved", {{"new", "1"}}), 1u);
  EXPECT_EQ(Length("moved"), names.size() - 1);
  EXPECT_EQ(MemberRows(), 0u);
}

TEST_F(HashTest, FieldsSurviveReopen) {
  Set("h", {{"a", "1"}, {"b", "2"}});
  ASSERT_TRUE(store_->Close().ok());
  store_ = OpenOrDie(TestOptions(dir_.path(), clock_));
  EXPECT_EQ(All("h"), (std::vector<std::pair<std::string, std::string>>{{"a", "1"}, {"b", "2"}}));
  // Versions keep increasing across the restart: a new hash cannot meet old rows.
  ASSERT_TRUE(*store_->Delete("h"));
  Set("h", {{"c", "3"}});
  EXPECT_EQ(Length("h"), 1u);
  EXPECT_EQ(All("h").size(), 1u);
}

}  // namespace
}  // namespace cairn
