// Opening and reopening: data and TTLs survive, the schema version guards against newer
// formats, directories that are not Cairn stores are refused, and corrupt records fail closed.
#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include "cairn/store.h"
#include "support/temp_dir.h"
#include "testing/store_testing.h"

namespace cairn {
namespace {

using test::OpenOrDie;
using test::TempDir;
using test::TestOptions;

TEST(ReopenTest, KeepsDataAndTtls) {
  TempDir dir;
  auto clock = std::make_shared<ManualClock>();
  {
    auto store = OpenOrDie(TestOptions(dir.path(), clock));
    for (int i = 0; i < 1000; ++i) {
      ASSERT_TRUE(store->Set("k" + std::to_string(i), "v" + std::to_string(i)).ok());
    }
    ASSERT_TRUE(store->Set("ttl", "x", {.expiry = Expiry::After(5000)}).ok());
    ASSERT_TRUE(store->Set("short", "x", {.expiry = Expiry::After(10)}).ok());
    ASSERT_TRUE(store->Close().ok());
  }
  clock->Advance(1000);
  auto store = OpenOrDie(TestOptions(dir.path(), clock));
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(*store->Get("k" + std::to_string(i)), "v" + std::to_string(i));
  }
  auto ttl = store->GetTtl("ttl");
  EXPECT_EQ(ttl->kind, TtlState::Kind::kExpires);
  EXPECT_EQ(ttl->remaining_ms, 4000);
  EXPECT_EQ(*store->Get("short"), std::nullopt);
}

TEST(ReopenTest, KeepsDataWithoutExplicitClose) {
  TempDir dir;
  { ASSERT_TRUE(OpenOrDie(TestOptions(dir.path()))->Set("k", "v").ok()); }
  EXPECT_EQ(*OpenOrDie(TestOptions(dir.path()))->Get("k"), "v");
}

TEST(ReopenTest, MissingStoreWithoutCreateIsNotFound) {
  TempDir dir;
  Options options = TestOptions(dir.Sub("absent"));
  options.create_if_missing = false;
  auto store = Store::Open(options);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kNotFound);
  EXPECT_NE(store.status().message().find("create_if_missing"), std::string::npos);
}

TEST(ReopenTest, SecondOpenOfTheSameDirectoryIsRefused) {
  TempDir dir;
  auto first = OpenOrDie(TestOptions(dir.path()));
  auto second = Store::Open(TestOptions(dir.path()));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kIOError) << second.status().ToString();
  EXPECT_NE(second.status().message().find(dir.path()), std::string::npos);
}

TEST(ReopenTest, NewerSchemaVersionIsRefused) {
  TempDir dir;
  {
    auto store = OpenOrDie(TestOptions(dir.path()));
    ASSERT_TRUE(store->Set("k", "v").ok());
    ASSERT_TRUE(testing::PutSchemaVersion(*store, 2).ok());
  }
  auto reopened = Store::Open(TestOptions(dir.path()));
  ASSERT_FALSE(reopened.ok());
  EXPECT_EQ(reopened.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(reopened.status().message().find("newer Cairn (schema version 2)"), std::string::npos)
      << reopened.status().ToString();
  // Refusing must not have changed the directory: a matching build would still read it.
  {
    auto again = Store::Open(TestOptions(dir.path()));
    ASSERT_FALSE(again.ok());
  }
}

TEST(ReopenTest, ARocksDbThatIsNotACairnStoreIsRefused) {
  TempDir dir;
  {
    rocksdb::Options options;
    options.create_if_missing = true;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, dir.path(), &db).ok());
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), "foreign", "data").ok());
    delete db;
  }
  auto store = Store::Open(TestOptions(dir.path()));
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(store.status().message().find("not a Cairn store"), std::string::npos);
}

// RocksDB writes CURRENT before it creates column families one by one, so a process killed
// during a store's very first Open leaves only some of them. Such a directory is finished on
// the next Open, not refused.
TEST(ReopenTest, InterruptedCreationIsCompletedOnNextOpen) {
  TempDir dir;
  {
    rocksdb::Options options;
    options.create_if_missing = true;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, dir.path(), &db).ok());
    rocksdb::ColumnFamilyHandle* records = nullptr;
    ASSERT_TRUE(db->CreateColumnFamily(rocksdb::ColumnFamilyOptions(), "records", &records).ok());
    ASSERT_TRUE(db->DestroyColumnFamilyHandle(records).ok());
    delete db;
  }
  auto store = OpenOrDie(TestOptions(dir.path()));
  ASSERT_TRUE(store->Set("k", "v").ok());
  EXPECT_EQ(*store->Get("k"), "v");
}

TEST(ReopenTest, ForeignColumnFamiliesAreRefusedEvenWhenEmpty) {
  TempDir dir;
  {
    rocksdb::Options options;
    options.create_if_missing = true;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, dir.path(), &db).ok());
    rocksdb::ColumnFamilyHandle* other = nullptr;
    ASSERT_TRUE(db->CreateColumnFamily(rocksdb::ColumnFamilyOptions(), "users", &other).ok());
    ASSERT_TRUE(db->DestroyColumnFamilyHandle(other).ok());
    delete db;
  }
  auto store = Store::Open(TestOptions(dir.path()));
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("not a Cairn store"), std::string::npos);
}

class CorruptionTest : public ::testing::Test {
 protected:
  CorruptionTest() { store_ = OpenOrDie(TestOptions(dir_.path())); }

  void Plant(const std::string& key, const std::string& bytes) {
    ASSERT_TRUE(testing::PutRawKeyspaceRow(*store_, key, bytes).ok());
  }
  std::string Raw(const std::string& key) {
    return testing::GetRawKeyspaceRow(*store_, key)->value_or("<absent>");
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(CorruptionTest, ReadsReportCorruption) {
  const std::string too_short = "\x01";
  const std::string bad_version = std::string("\x09\x01", 2) + std::string(8, '\0') + "v";
  const std::string bad_type = std::string("\x01\x7f", 2) + std::string(8, '\0') + "v";
  for (const std::string& bytes : {too_short, bad_version, bad_type}) {
    Plant("bad", bytes);
    auto got = store_->Get("bad");
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kCorruption);
    EXPECT_NE(got.status().message().find("'bad'"), std::string::npos) << "names the key";
    EXPECT_EQ(store_->GetTtl("bad").status().code(), StatusCode::kCorruption);
    EXPECT_EQ(store_->Scan({}).status().code(), StatusCode::kCorruption);
  }
}

TEST_F(CorruptionTest, ConditionalWritesRefuseToOverwrite) {
  const std::string bytes = std::string("\x07\x01", 2) + std::string(8, '\0') + "payload";
  Plant("bad", bytes);
  auto expect_refused = [&](const Status& s, const char* what) {
    EXPECT_EQ(s.code(), StatusCode::kCorruption) << what << ": " << s.ToString();
    EXPECT_EQ(Raw("bad"), bytes) << what << " must leave the bytes alone";
  };
  expect_refused(store_->Set("bad", "x", {.condition = SetCondition::kIfAbsent}).status(), "NX");
  expect_refused(store_->Set("bad", "x", {.condition = SetCondition::kIfPresent}).status(), "XX");
  expect_refused(store_->Set("bad", "x", {.return_old = true}).status(), "GET");
  expect_refused(store_->Set("bad", "x", {.expiry = Expiry::Keep()}).status(), "KEEPTTL");
  expect_refused(store_->CompareAndSwap("bad", "payload", "x").status(), "CAS");
  expect_refused(store_->CompareAndDelete("bad", "payload").status(), "CAD");
  expect_refused(store_->IncrBy("bad", 1).status(), "INCR");
  expect_refused(store_->Expire("bad", 100).status(), "EXPIRE");
  expect_refused(store_->Persist("bad").status(), "PERSIST");

  auto txn = store_->BeginTransaction();
  ASSERT_TRUE(txn.ok());
  expect_refused((*txn)->IncrBy("bad", 1).status(), "INCR in a transaction");
  (*txn)->Rollback();
}

TEST_F(CorruptionTest, UnconditionalSetAndDeleteRepair) {
  Plant("bad", "zz");
  auto deleted = store_->Delete("bad");
  ASSERT_TRUE(deleted.ok());
  EXPECT_TRUE(*deleted);
  EXPECT_EQ(Raw("bad"), "<absent>");
  Plant("bad", "zz");
  ASSERT_TRUE(store_->Set("bad", "fresh").ok());
  EXPECT_EQ(*store_->Get("bad"), "fresh");
}

}  // namespace
}  // namespace cairn

namespace cairn {
namespace {

// Sync makes everything acknowledged durable under every durability; the data it covered is
// there after a reopen, and a closed store refuses it.
TEST(SyncTest, SyncsUnderEveryDurability) {
  for (Durability durability : {Durability::kAlways, Durability::kEverySec, Durability::kNone}) {
    test::TempDir dir;
    Options options = test::TestOptions(dir.path());
    options.durability = durability;
    {
      auto store = test::OpenOrDie(options);
      for (int i = 0; i < 100; ++i) ASSERT_TRUE(store->Set("k" + std::to_string(i), "v").ok());
      EXPECT_TRUE(store->Sync().ok()) << DurabilityName(durability);
      ASSERT_TRUE(store->Close().ok());
      EXPECT_EQ(store->Sync().code(), StatusCode::kFailedPrecondition);
    }
    auto reopened = test::OpenOrDie(options);
    EXPECT_EQ(*reopened->Get("k99"), "v") << DurabilityName(durability);
  }
}

}  // namespace
}  // namespace cairn
