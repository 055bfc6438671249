// WriteBuffer (storage/write_buffer.h), the newest write of each key of a transaction: Put and
// Delete with their "first write of the key" answer (which an undone write does not reset),
// nested save points rolled back and popped, the batch AppendTo makes (applied to a real RocksDB
// database with two column families and read back), Clear and reuse, values past the initial
// arena, and keys with zero and 0xff bytes, which sort bytewise unsigned as RocksDB's do.
#include "storage/write_buffer.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/temp_dir.h"

namespace cairn::internal {
namespace {

using test::TempDir;
using Model = std::map<std::string, std::string>;
using State = WriteBuffer::State;
using namespace std::string_literals;

class WriteBufferTest : public ::testing::Test {
 protected:
  WriteBufferTest() {
    rocksdb::DBOptions options;
    options.create_if_missing = true;
    options.create_missing_column_families = true;
    std::vector<rocksdb::ColumnFamilyDescriptor> families = {
        {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()},
        {"other", rocksdb::ColumnFamilyOptions()},
    };
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* db = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(options, dir_.path(), families, &handles, &db);
    EXPECT_TRUE(s.ok()) << s.ToString();
    db_.reset(db);
    if (s.ok()) {
      default_ = handles[0];
      other_ = handles[1];
    }
  }
  ~WriteBufferTest() override {
    if (db_ == nullptr) return;
    for (rocksdb::ColumnFamilyHandle* cf : {default_, other_}) {
      if (cf != nullptr) {
        EXPECT_TRUE(db_->DestroyColumnFamilyHandle(cf).ok());
      }
    }
  }

  // The newest write of `key`: nullopt when there is none, "<deleted>" for a delete, else the
  // value put.
  std::optional<std::string> Written(rocksdb::ColumnFamilyHandle* cf, std::string_view key) {
    const WriteBuffer::Write* write = buffer_.Find(cf, key);
    if (write == nullptr) return std::nullopt;
    EXPECT_NE(write->state, State::kUnwritten);
    if (write->state == State::kDeleted) {
      EXPECT_TRUE(write->value.empty());
      return "<deleted>";
    }
    return std::string(write->value);
  }

  // Every key ForEach shows, as Written describes them.
  std::map<std::pair<rocksdb::ColumnFamilyHandle*, std::string>, std::string> All() {
    std::map<std::pair<rocksdb::ColumnFamilyHandle*, std::string>, std::string> all;
    buffer_.ForEach(
        [&](rocksdb::ColumnFamilyHandle* cf, std::string_view key, const WriteBuffer::Write& w) {
          EXPECT_NE(w.state, State::kUnwritten);
          const bool inserted =
              all.emplace(std::pair(cf, std::string(key)),
                          w.state == State::kDeleted ? "<deleted>"s : std::string(w.value))
                  .second;
          EXPECT_TRUE(inserted) << "key shown twice: " << key;
        });
    return all;
  }

  Model Read(rocksdb::ColumnFamilyHandle* cf) {
    Model rows;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), cf));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      rows.emplace(it->key().ToString(), it->value().ToString());
    }
    EXPECT_TRUE(it->status().ok()) << it->status().ToString();
    return rows;
  }

  // Commits the buffer as RowTransaction does: one batch of AppendTo's writes.
  void Commit() {
    rocksdb::WriteBatch batch;
    const std::size_t appended = buffer_.AppendTo(batch);
    EXPECT_EQ(appended, static_cast<std::size_t>(batch.Count()));
    rocksdb::Status s = db_->Write(rocksdb::WriteOptions(), &batch);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  TempDir dir_;
  std::unique_ptr<rocksdb::DB> db_;
  rocksdb::ColumnFamilyHandle* default_ = nullptr;
  rocksdb::ColumnFamilyHandle* other_ = nullptr;
  WriteBuffer buffer_;
};

// Records every operation of a batch, in order.
class BatchLog : public rocksdb::WriteBatch::Handler {
 public:
  struct Op {
    std::uint32_t cf;
    bool put;
    std::string key;
    std::string value;
    bool operator==(const Op&) const = default;
  };
  rocksdb::Status PutCF(std::uint32_t cf, const rocksdb::Slice& key,
                        const rocksdb::Slice& value) override {
    ops.push_back({cf, true, key.ToString(), value.ToString()});
    return rocksdb::Status::OK();
  }
  rocksdb::Status DeleteCF(std::uint32_t cf, const rocksdb::Slice& key) override {
    ops.push_back({cf, false, key.ToString(), ""});
    return rocksdb::Status::OK();
  }
  rocksdb::Status SingleDeleteCF(std::uint32_t, const rocksdb::Slice&) override {
    ADD_FAILURE() << "unexpected SingleDelete";
    return rocksdb::Status::OK();
  }
  rocksdb::Status MergeCF(std::uint32_t, const rocksdb::Slice&, const rocksdb::Slice&) override {
    ADD_FAILURE() << "unexpected Merge";
    return rocksdb::Status::OK();
  }
  std::vector<Op> ops;
};

TEST_F(WriteBufferTest, PutAndDeleteKeepTheNewestWriteOfEachKey) {
  EXPECT_EQ(Written(default_, "a"), std::nullopt) << "nothing written yet";

  EXPECT_TRUE(buffer_.Put(default_, "a", "1"));
  EXPECT_EQ(Written(default_, "a"), "1");
  EXPECT_FALSE(buffer_.Put(default_, "a", "2"));
  EXPECT_EQ(Written(default_, "a"), "2");
  EXPECT_FALSE(buffer_.Delete(default_, "a"));
  EXPECT_EQ(Written(default_, "a"), "<deleted>");
  EXPECT_FALSE(buffer_.Put(default_, "a", "3"));
  EXPECT_EQ(Written(default_, "a"), "3");

  EXPECT_TRUE(buffer_.Delete(default_, "b")) << "a delete is a first write too";
  EXPECT_EQ(Written(default_, "b"), "<deleted>");
  EXPECT_FALSE(buffer_.Put(default_, "b", ""));
  EXPECT_EQ(Written(default_, "b"), "") << "an empty value is a put, not a delete";

  // Column families are separate.
  EXPECT_EQ(Written(other_, "a"), std::nullopt);
  EXPECT_TRUE(buffer_.Put(other_, "a", "other"));
  EXPECT_EQ(Written(other_, "a"), "other");
  EXPECT_EQ(Written(default_, "a"), "3");
  EXPECT_FALSE(buffer_.Delete(other_, "a"));
  EXPECT_EQ(Written(other_, "a"), "<deleted>");
  EXPECT_EQ(Written(default_, "a"), "3");

  // A prefix of a written key, and a key past every written one, are not written.
  EXPECT_EQ(Written(default_, ""), std::nullopt);
  EXPECT_EQ(Written(default_, "aa"), std::nullopt);
  EXPECT_EQ(Written(default_, "c"), std::nullopt);

  using Key = std::pair<rocksdb::ColumnFamilyHandle*, std::string>;
  EXPECT_EQ(All(),
            (std::map<Key, std::string>{
                {{default_, "a"}, "3"}, {{default_, "b"}, ""}, {{other_, "a"}, "<deleted>"}}));
}

TEST_F(WriteBufferTest, WritesOfShowsEveryEntryInOrderAndLaterWrites) {
  const WriteBuffer::Writes& writes = buffer_.WritesOf(default_);
  EXPECT_TRUE(writes.empty());
  buffer_.Put(default_, "b", "2");
  buffer_.Delete(default_, "a");
  buffer_.Put(other_, "z", "other");
  buffer_.Put(default_, "c", "3");
  std::vector<std::pair<std::string, State>> seen;
  for (const auto& [key, write] : writes) seen.emplace_back(std::string(key), write.state);
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, State>>{
                      {"a", State::kDeleted}, {"b", State::kPut}, {"c", State::kPut}}));
  EXPECT_EQ(&buffer_.WritesOf(default_), &writes) << "one map per column family";
  EXPECT_EQ(buffer_.WritesOf(other_).size(), 1u);
}

TEST_F(WriteBufferTest, PutIsAFirstWriteOnlyOnceEvenAfterARollbackUndidIt) {
  buffer_.SetSavePoint();
  EXPECT_TRUE(buffer_.Put(default_, "a", "1"));
  EXPECT_TRUE(buffer_.Delete(default_, "b"));
  EXPECT_FALSE(buffer_.Put(default_, "a", "2"));
  ASSERT_TRUE(buffer_.RollbackToSavePoint().ok());
  EXPECT_EQ(Written(default_, "a"), std::nullopt);
  EXPECT_EQ(Written(default_, "b"), std::nullopt);
  EXPECT_TRUE(All().empty()) << "an undone write is not shown";

  // The transaction did write the keys once: the answer stays false.
  EXPECT_FALSE(buffer_.Put(default_, "a", "3"));
  EXPECT_EQ(Written(default_, "a"), "3");
  EXPECT_FALSE(buffer_.Put(default_, "b", "4"));
  EXPECT_EQ(Written(default_, "b"), "4");
  EXPECT_TRUE(buffer_.Put(default_, "c", "5"));

  // The same with a rollback that leaves no save point, then a delete as the next write.
  buffer_.SetSavePoint();
  EXPECT_TRUE(buffer_.Put(default_, "d", "6"));
  ASSERT_TRUE(buffer_.RollbackToSavePoint().ok());
  EXPECT_EQ(Written(default_, "d"), std::nullopt);
  EXPECT_FALSE(buffer_.Delete(default_, "d"));
  EXPECT_EQ(Written(default_, "d"), "<deleted>");
}

TEST_F(WriteBufferTest, NestedSavePointsRestoreWhatEachKeyHeld) {
  // Before any save point: a put, b deleted, c never written.
  buffer_.Put(default_, "a", "a0");
  buffer_.Delete(default_, "b");
  buffer_.Put(other_, "a", "other0");

  buffer_.SetSavePoint();  // 1
  buffer_.Put(default_, "a", "a1");
  buffer_.Put(default_, "a", "a1b");  // Twice within one save point.
  buffer_.Put(default_, "b", "b1");
  buffer_.Put(default_, "c", "c1");
  buffer_.Delete(other_, "a");

  buffer_.SetSavePoint();  // 2
  buffer_.Delete(default_, "a");
  buffer_.Put(default_, "b", "b2");
  buffer_.Delete(default_, "c");
  buffer_.Put(default_, "d", "d2");
  buffer_.Put(other_, "a", "other2");

  buffer_.SetSavePoint();  // 3, with no write after it.

  EXPECT_EQ(Written(default_, "a"), "<deleted>");
  EXPECT_EQ(Written(default_, "b"), "b2");
  EXPECT_EQ(Written(default_, "c"), "<deleted>");
  EXPECT_EQ(Written(default_, "d"), "d2");
  EXPECT_EQ(Written(other_, "a"), "other2");

  ASSERT_TRUE(buffer_.RollbackToSavePoint().ok());  // To 3: nothing changes.
  EXPECT_EQ(Written(default_, "a"), "<deleted>");
  EXPECT_EQ(Written(default_, "b"), "b2");
  EXPECT_EQ(Written(default_, "c"), "<deleted>");
  EXPECT_EQ(Written(default_, "d"), "d2");
  EXPECT_EQ(Written(other_, "a"), "other2");

  ASSERT_TRUE(buffer_.RollbackToSavePoint().ok());  // To 2.
  EXPECT_EQ(Written(default_, "a"), "a1b");
  EXPECT_EQ(Written(default_, "b"), "b1");
  EXPECT_EQ(Written(default_, "c"), "c1");
  EXPECT_EQ(Written(default_, "d"), std::nullopt);
  EXPECT_EQ(Written(other_, "a"), "<deleted>");

  // Writes between rollbacks are undone by the older save point too.
  buffer_.Put(default_, "e", "e1");
  buffer_.Put(default_, "a", "a1c");

  ASSERT_TRUE(buffer_.RollbackToSavePoint().ok());  // To 1.
  EXPECT_EQ(Written(default_, "a"), "a0");
  EXPECT_EQ(Written(default_, "b"), "<deleted>");
  EXPECT_EQ(Written(default_, "c"), std::nullopt);
  EXPECT_EQ(Written(default_, "d"), std::nullopt);
  EXPECT_EQ(Written(default_, "e"), std::nullopt);
  EXPECT_EQ(Written(other_, "a"), "other0");

  EXPECT_TRUE(buffer_.RollbackToSavePoint().IsNotFound());
  EXPECT_TRUE(buffer_.PopSavePoint().IsNotFound());
  // Nothing changed.
  using Key = std::pair<rocksdb::ColumnFamilyHandle*, std::string>;
  EXPECT_EQ(All(), (std::map<Key, std::string>{{{default_, "a"}, "a0"},
                                               {{default_, "b"}, "<deleted>"},
                                               {{other_, "a"}, "other0"}}));
}

TEST_F(WriteBufferTest, PopSavePointKeepsTheWritesForTheOlderSavePoint) {
  EXPECT_TRUE(buffer_.RollbackToSavePoint().IsNotFound()) << "none was ever set";
  EXPECT_TRUE(buffer_.PopSavePoint().IsNotFound());

  buffer_.Put(default_, "a", "a0");
  buffer_.SetSavePoint();  // 1
  buffer_.Put(default_, "a", "a1");
  buffer_.SetSavePoint();  // 2
  buffer_.Put(default_, "a", "a2");
  buffer_.Put(default_, "b", "b2");
  ASSERT_TRUE(buffer_.PopSavePoint().ok());  // Drops 2, keeping its writes.
  EXPECT_EQ(Written(default_, "a"), "a2");
  EXPECT_EQ(Written(default_, "b"), "b2");

  ASSERT_TRUE(buffer_.RollbackToSavePoint().ok());  // To 1: undoes 2's writes as well.
  EXPECT_EQ(Written(default_, "a"), "a0");
  EXPECT_EQ(Written(default_, "b"), std::nullopt);

  // Popping the last save point keeps everything, and a later one starts afresh.
  buffer_.SetSavePoint();
  buffer_.Put(default_, "a", "a3");
  buffer_.Delete(default_, "c");
  ASSERT_TRUE(buffer_.PopSavePoint().ok());
  EXPECT_TRUE(buffer_.RollbackToSavePoint().IsNotFound());
  EXPECT_TRUE(buffer_.PopSavePoint().IsNotFound());
  EXPECT_EQ(Written(default_, "a"), "a3");
  EXPECT_EQ(Written(default_, "c"), "<deleted>");

  buffer_.SetSavePoint();
  buffer_.Put(default_, "a", "a4");
  buffer_.Put(default_, "c", "c4");
  ASSERT_TRUE(buffer_.RollbackToSavePoint().ok());
  EXPECT_EQ(Written(default_, "a"), "a3");
  EXPECT_EQ(Written(default_, "c"), "<deleted>");
}

TEST_F(WriteBufferTest, AppendToWritesTheNewestWriteOfEachKeyOnce) {
  for (const char* key : {"k1", "k2", "k5", "k6"}) {
    ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), default_, key, "old").ok());
  }
  ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), other_, "k1", "old-other").ok());
  ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), other_, "k2", "old-other").ok());

  buffer_.Put(default_, "k1", "v1");
  buffer_.Put(default_, "k1", "v1b");
  buffer_.Delete(default_, "k2");
  buffer_.Put(default_, "k3", "v3");
  buffer_.Delete(default_, "k3");  // Delete of a key the database does not hold.
  buffer_.Delete(default_, "k5");
  buffer_.Put(default_, "k5", "v5");
  buffer_.Put(other_, "k9", "o9");
  buffer_.Put(other_, "k9", "o9b");
  buffer_.Delete(other_, "k1");
  buffer_.SetSavePoint();
  buffer_.Put(default_, "k4", "undone");  // Left kUnwritten: not in the batch.
  buffer_.Put(default_, "k6", "undone");  // Back to never written: k6 stays "old".
  buffer_.Put(default_, "k1", "undone");
  buffer_.Delete(other_, "k2");
  ASSERT_TRUE(buffer_.RollbackToSavePoint().ok());

  rocksdb::WriteBatch batch;
  EXPECT_EQ(buffer_.AppendTo(batch), 6u);
  EXPECT_EQ(batch.Count(), 6u);
  BatchLog log;
  ASSERT_TRUE(batch.Iterate(&log).ok());
  const std::uint32_t d = default_->GetID();
  const std::uint32_t o = other_->GetID();
  // Per column family, in key order (the order across families is not part of the contract).
  std::map<std::pair<std::uint32_t, std::string>, BatchLog::Op> by_key;
  std::map<std::uint32_t, std::string> last_key;
  for (const BatchLog::Op& op : log.ops) {
    EXPECT_TRUE(by_key.emplace(std::pair(op.cf, op.key), op).second) << "twice: " << op.key;
    if (last_key.contains(op.cf)) {
      EXPECT_LT(last_key[op.cf], op.key);
    }
    last_key[op.cf] = op.key;
  }
  std::vector<BatchLog::Op> ops;
  for (const auto& [key, op] : by_key) ops.push_back(op);
  EXPECT_EQ(ops, (std::vector<BatchLog::Op>{
                     {d, true, "k1", "v1b"},
                     {d, false, "k2", ""},
                     {d, false, "k3", ""},
                     {d, true, "k5", "v5"},
                     {o, false, "k1", ""},
                     {o, true, "k9", "o9b"},
                 }));

  // AppendTo does not consume the buffer: a second batch is the same.
  rocksdb::WriteBatch again;
  EXPECT_EQ(buffer_.AppendTo(again), 6u);
  EXPECT_EQ(again.Data(), batch.Data());

  ASSERT_TRUE(db_->Write(rocksdb::WriteOptions(), &batch).ok());
  EXPECT_EQ(Read(default_), (Model{{"k1", "v1b"}, {"k5", "v5"}, {"k6", "old"}}));
  EXPECT_EQ(Read(other_), (Model{{"k2", "old-other"}, {"k9", "o9b"}}));
}

TEST_F(WriteBufferTest, AppendToOfAnEmptyBufferAppendsNothing) {
  rocksdb::WriteBatch batch;
  EXPECT_EQ(buffer_.AppendTo(batch), 0u);
  EXPECT_EQ(batch.Count(), 0u);
  buffer_.WritesOf(other_);  // A family iterated but never written.
  buffer_.SetSavePoint();
  buffer_.Put(default_, "a", "1");
  ASSERT_TRUE(buffer_.RollbackToSavePoint().ok());
  EXPECT_EQ(buffer_.AppendTo(batch), 0u);
  EXPECT_EQ(batch.Count(), 0u);
}

TEST_F(WriteBufferTest, ClearForgetsEverythingAndTheBufferServesAgain) {
  for (int round = 0; round < 5; ++round) {
    SCOPED_TRACE(round);
    // Enough writes for the arena to grow past its initial block every round.
    Model expected;
    for (int i = 0; i < 300; ++i) {
      const std::string key = "r" + std::to_string(round) + "k" + std::to_string(i % 200);
      const std::string value(i % 50 + 1, static_cast<char>('a' + round));
      EXPECT_EQ(buffer_.Put(default_, key, value), i < 200) << key;
      expected[key] = value;
      if (i == 100) buffer_.SetSavePoint();
    }
    buffer_.Delete(other_, "x");
    buffer_.SetSavePoint();
    for (const auto& [key, value] : expected) ASSERT_EQ(Written(default_, key), value);

    buffer_.Clear();
    EXPECT_TRUE(All().empty());
    EXPECT_EQ(Written(default_, "r" + std::to_string(round) + "k0"), std::nullopt);
    EXPECT_EQ(Written(other_, "x"), std::nullopt);
    EXPECT_TRUE(buffer_.RollbackToSavePoint().IsNotFound());
    EXPECT_TRUE(buffer_.PopSavePoint().IsNotFound());
    rocksdb::WriteBatch batch;
    EXPECT_EQ(buffer_.AppendTo(batch), 0u);
    EXPECT_TRUE(buffer_.WritesOf(default_).empty());

    // A key written before the Clear is a first write again.
    EXPECT_TRUE(buffer_.Put(default_, "r" + std::to_string(round) + "k0", "again"));
    EXPECT_TRUE(buffer_.Delete(other_, "x"));
    buffer_.SetSavePoint();
    EXPECT_FALSE(buffer_.Put(default_, "r" + std::to_string(round) + "k0", "undone"));
    ASSERT_TRUE(buffer_.RollbackToSavePoint().ok());
    EXPECT_EQ(Written(default_, "r" + std::to_string(round) + "k0"), "again");
    EXPECT_EQ(Written(other_, "x"), "<deleted>");
    EXPECT_EQ(All().size(), 2u);
    buffer_.Clear();
  }
  // And the cleared buffer commits as any other.
  buffer_.Put(default_, "z", "last");
  Commit();
  EXPECT_EQ(Read(default_), (Model{{"z", "last"}}));
}

TEST_F(WriteBufferTest, ValuesLargerThanTheInitialArena) {
  const std::string big(10000, 'x');
  std::string patterned(5000, '\0');
  for (std::size_t i = 0; i < patterned.size(); ++i) patterned[i] = static_cast<char>(i * 7);
  const std::string big_key(3000, 'k');

  EXPECT_TRUE(buffer_.Put(default_, "big", big));
  EXPECT_TRUE(buffer_.Put(default_, "patterned", patterned));
  EXPECT_TRUE(buffer_.Put(other_, big_key, big));
  EXPECT_EQ(Written(default_, "big"), big);
  EXPECT_EQ(Written(default_, "patterned"), patterned);
  EXPECT_EQ(Written(other_, big_key), big);

  // Many values of about the arena's size, and a rollback that restores a big value.
  Model expected{{"big", big}, {"patterned", patterned}};
  for (int i = 0; i < 100; ++i) {
    const std::string key = "v" + std::to_string(100 + i);
    expected[key] = std::string(2000 + i * 10, static_cast<char>('a' + i % 26));
    buffer_.Put(default_, key, expected[key]);
  }
  buffer_.SetSavePoint();
  buffer_.Put(default_, "big", std::string(20000, 'y'));
  buffer_.Put(default_, "patterned", "small");
  buffer_.Delete(default_, "v100");
  EXPECT_EQ(Written(default_, "big"), std::string(20000, 'y'));
  ASSERT_TRUE(buffer_.RollbackToSavePoint().ok());
  for (const auto& [key, value] : expected) ASSERT_EQ(Written(default_, key), value) << key;

  Commit();
  EXPECT_EQ(Read(default_), expected);
  EXPECT_EQ(Read(other_), (Model{{big_key, big}}));
}

TEST_F(WriteBufferTest, KeysWithZeroAndFfBytesSortBytewiseUnsigned) {
  const std::vector<std::string> keys = {
      ""s,          "\x00"s,   "\x00\x00"s, "\x00\xff"s, "\x01"s,     "a"s,        "a\x00"s,
      "a\x00\x00"s, "a\x00b"s, "a\x01"s,    "a\x7f"s,    "a\x80"s,    "a\xff"s,    "b"s,
      "\x7f"s,      "\x80"s,   "\xfe"s,     "\xff"s,     "\xff\x00"s, "\xff\xff"s, "\xff\xff\xff"s,
  };
  // Written in reverse, each with a value naming it.
  for (auto it = keys.rbegin(); it != keys.rend(); ++it) {
    EXPECT_TRUE(buffer_.Put(default_, *it, "v" + *it));
  }
  for (const std::string& key : keys) EXPECT_EQ(Written(default_, key), "v" + key);
  // Zero bytes are part of a key, not its end.
  EXPECT_EQ(Written(default_, "a\x00\x00\x00"s), std::nullopt);
  EXPECT_EQ(Written(default_, "\x00\x00\x00"s), std::nullopt);
  EXPECT_FALSE(buffer_.Put(default_, "a\x00"s, "va\x00"s));
  EXPECT_EQ(Written(default_, "a"), "va");

  // The map's order is RocksDB's bytewise order.
  Model model;
  for (const std::string& key : keys) model[key] = "v" + key;
  std::vector<std::string> in_buffer;
  for (const auto& [key, write] : buffer_.WritesOf(default_)) in_buffer.emplace_back(key);
  std::vector<std::string> in_model;
  for (const auto& [key, value] : model) in_model.push_back(key);
  EXPECT_EQ(in_buffer, in_model);
  for (std::size_t i = 1; i < in_buffer.size(); ++i) {
    EXPECT_LT(rocksdb::BytewiseComparator()->Compare(in_buffer[i - 1], in_buffer[i]), 0) << i;
  }

  // The database reads back the same rows, in the same order.
  Commit();
  const Model rows = Read(default_);
  EXPECT_EQ(rows, model);
  std::vector<std::string> in_db;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), default_));
  for (it->SeekToFirst(); it->Valid(); it->Next()) in_db.push_back(it->key().ToString());
  EXPECT_EQ(in_db, in_buffer);
}

}  // namespace
}  // namespace cairn::internal
