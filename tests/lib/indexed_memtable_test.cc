// The indexed memtable (storage/indexed_memtable.h) on a plain RocksDB database: point reads
// of the newest and of older versions (snapshots), deletions, in-place rewrites found through
// the index after it grew past its first size, iteration in order, merges (before each, RocksDB
// counts the key's merge entries by stepping from its newest one through the index's
// iterator; the count only decides when RocksDB collapses them, so what shows here is that the
// values stay right, and under the sanitizers that nothing is read astray), and a reopen that
// replays the log through it.
#include "storage/indexed_memtable.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/options.h>

#include <memory>
#include <string>

#include "support/temp_dir.h"

namespace cairn::internal {
namespace {

using test::TempDir;

// Appends operands with commas, to check that a read walks a key's older entries.
class Append final : public rocksdb::AssociativeMergeOperator {
 public:
  bool Merge(const rocksdb::Slice&, const rocksdb::Slice* existing, const rocksdb::Slice& value,
             std::string* out, rocksdb::Logger*) const override {
    *out = existing != nullptr ? existing->ToString() + "," + value.ToString() : value.ToString();
    return true;
  }
  const char* Name() const override { return "Append"; }
};

class IndexedMemtableTest : public ::testing::Test {
 protected:
  void Open(bool in_place) {
    rocksdb::Options options;
    options.create_if_missing = true;
    options.memtable_factory = NewIndexedMemTableFactory();
    options.allow_concurrent_memtable_write = false;
    options.inplace_update_support = in_place;
    options.merge_operator = std::make_shared<Append>();
    // Before each merge RocksDB counts the key's merge entries, stepping from its newest.
    options.max_successive_merges = 3;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, dir_.path(), &db).ok());
    db_.reset(db);
  }

  std::string Get(const std::string& key, const rocksdb::Snapshot* at = nullptr) {
    rocksdb::ReadOptions read;
    read.snapshot = at;
    std::string value;
    rocksdb::Status s = db_->Get(read, key, &value);
    if (s.IsNotFound()) return "<none>";
    EXPECT_TRUE(s.ok()) << s.ToString();
    return value;
  }

  void Put(const std::string& key, const std::string& value) {
    ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), key, value).ok());
  }

  TempDir dir_;
  std::unique_ptr<rocksdb::DB> db_;
};

TEST_F(IndexedMemtableTest, ReadsTheNewestVersionAndOlderOnesAtSnapshots) {
  Open(/*in_place=*/false);
  EXPECT_EQ(Get("k"), "<none>");
  Put("k", "v1");
  const rocksdb::Snapshot* first = db_->GetSnapshot();
  Put("k", "v2");
  const rocksdb::Snapshot* second = db_->GetSnapshot();
  ASSERT_TRUE(db_->Delete(rocksdb::WriteOptions(), "k").ok());
  EXPECT_EQ(Get("k"), "<none>");
  EXPECT_EQ(Get("k", first), "v1");
  EXPECT_EQ(Get("k", second), "v2");
  Put("k", "v3");
  EXPECT_EQ(Get("k"), "v3");
  EXPECT_EQ(Get("k", first), "v1");
  db_->ReleaseSnapshot(first);
  db_->ReleaseSnapshot(second);
}

TEST_F(IndexedMemtableTest, MergesWalkTheOlderEntriesOfTheKey) {
  Open(/*in_place=*/false);
  Put("m", "a");
  Put("n", "x");  // A neighbour whose entries must not be mixed in.
  for (const char* operand : {"b", "c", "d", "e", "f"}) {
    ASSERT_TRUE(db_->Merge(rocksdb::WriteOptions(), "m", operand).ok());
  }
  EXPECT_EQ(Get("m"), "a,b,c,d,e,f");
  EXPECT_EQ(Get("n"), "x");
}

TEST_F(IndexedMemtableTest, RewritesInPlaceAndReadsBackEveryKeyAfterTheIndexGrew) {
  Open(/*in_place=*/true);
  constexpr int kKeys = 5000;  // Past the index's first 1,024 slots several times.
  for (int i = 0; i < kKeys; ++i) Put("key:" + std::to_string(i), "first-" + std::to_string(i));
  for (int i = 0; i < kKeys; i += 2) Put("key:" + std::to_string(i), "again-" + std::to_string(i));
  std::uint64_t entries = 0;
  ASSERT_TRUE(db_->GetIntProperty("rocksdb.num-entries-active-mem-table", &entries));
  EXPECT_EQ(entries, std::uint64_t{kKeys}) << "same-size rewrites replaced their entries";
  for (int i = 0; i < kKeys; ++i) {
    const std::string expected = (i % 2 == 0 ? "again-" : "first-") + std::to_string(i);
    ASSERT_EQ(Get("key:" + std::to_string(i)), expected) << i;
  }
  EXPECT_EQ(Get("key:"), "<none>");
  EXPECT_EQ(Get("key:50000"), "<none>");

  // Iteration goes through the tree, in key order.
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  int seen = 0;
  std::string last;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++seen) {
    EXPECT_LT(last, it->key().ToString());
    last = it->key().ToString();
  }
  EXPECT_EQ(seen, kKeys);
  it->Seek("key:2");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key().ToString(), "key:2");
  EXPECT_EQ(it->value().ToString(), "again-2");

  // The log replays through the same memtable on reopen.
  it.reset();
  db_.reset();
  Open(/*in_place=*/true);
  EXPECT_EQ(Get("key:1"), "first-1");
  EXPECT_EQ(Get("key:4998"), "again-4998");
}

}  // namespace
}  // namespace cairn::internal
