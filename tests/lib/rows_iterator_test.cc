// Rows iterators with an upper bound, over the database and over a transaction whose own
// writes the iterator merges in: no key at or past the bound is ever shown.
#include <gtest/gtest.h>
#include <rocksdb/utilities/transaction_db.h>

#include <memory>
#include <string>
#include <vector>

#include "records/rows.h"
#include "support/temp_dir.h"

namespace cairn::internal {
namespace {

std::vector<std::string> Keys(rocksdb::Iterator& it, const std::string& from) {
  std::vector<std::string> keys;
  for (it.Seek(from); it.Valid(); it.Next()) keys.push_back(it.key().ToString());
  EXPECT_TRUE(it.status().ok()) << it.status().ToString();
  return keys;
}

class RowsIteratorTest : public ::testing::Test {
 protected:
  RowsIteratorTest() {
    rocksdb::Options options;
    options.create_if_missing = true;
    rocksdb::TransactionDB* db = nullptr;
    rocksdb::Status s =
        rocksdb::TransactionDB::Open(options, rocksdb::TransactionDBOptions(), dir_.path(), &db);
    EXPECT_TRUE(s.ok()) << s.ToString();
    db_.reset(db);
    for (const char* key : {"a1", "a2", "a3", "b1", "c1"}) {
      EXPECT_TRUE(db_->Put(rocksdb::WriteOptions(), key, "v").ok());
    }
  }

  test::TempDir dir_;
  std::unique_ptr<rocksdb::TransactionDB> db_;
  rocksdb::ReadOptions read_;
  rocksdb::WriteOptions write_;
};

TEST(PrefixSuccessorTest, IsTheLeastKeyPastThePrefix) {
  EXPECT_EQ(Rows::PrefixSuccessor("ab"), "ac");
  EXPECT_EQ(Rows::PrefixSuccessor(std::string("a\xff\xff", 3)), "b");
  EXPECT_EQ(Rows::PrefixSuccessor(std::string("\xff", 1)), "") << "no bound";
  EXPECT_EQ(Rows::PrefixSuccessor(""), "");
}

TEST_F(RowsIteratorTest, DatabaseIteratorStopsAtTheBound) {
  StorageHealth health(DefaultClock(), 0, nullptr);
  DbRows rows(db_.get(), db_->DefaultColumnFamily(), read_, write_, nullptr, health);
  EXPECT_EQ(Keys(*rows.NewIterator("a3"), "a"), (std::vector<std::string>{"a1", "a2"}));
  EXPECT_EQ(Keys(*rows.NewPrefixIterator("a"), "a2"), (std::vector<std::string>{"a2", "a3"}));
  EXPECT_EQ(Keys(*rows.NewIterator(), "b"), (std::vector<std::string>{"b1", "c1"}));
  EXPECT_TRUE(Keys(*rows.NewIterator("a3"), "a3").empty());
}

TEST_F(RowsIteratorTest, TransactionIteratorMergesItsWritesAndStopsAtTheBound) {
  RowTransaction txn(db_.get(), write_, nullptr);
  TransactionRows rows(&txn, db_.get(), db_->DefaultColumnFamily(), read_, nullptr);
  ASSERT_TRUE(rows.Write("a0", "v").ok());
  ASSERT_TRUE(rows.Remove("a2").ok());
  ASSERT_TRUE(rows.Write("a9", "v").ok());
  ASSERT_TRUE(rows.Write("ab", "v").ok());
  EXPECT_EQ(Keys(*rows.NewIterator("a9"), "a"), (std::vector<std::string>{"a0", "a1", "a3"}));
  EXPECT_EQ(Keys(*rows.NewPrefixIterator("a"), "a"),
            (std::vector<std::string>{"a0", "a1", "a3", "a9", "ab"}));
  ASSERT_TRUE(rows.Write("b0", "v").ok());
  EXPECT_EQ(Keys(*rows.NewPrefixIterator("a"), "a9"), (std::vector<std::string>{"a9", "ab"}));
  txn.Rollback();
}

}  // namespace
}  // namespace cairn::internal
