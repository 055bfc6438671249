// BufferedIterator (storage/buffered_iterator.h), a transaction's buffered writes merged over a
// RocksDB iterator, checked against a std::map of the merged rows. Random committed rows (some
// flushed to a table file, some overwritten or deleted in the memtable after), random buffered
// puts and deletes over a small key alphabet with zero and 0xff bytes (so that buffered and
// committed keys often collide, and deletes often hit absent keys), save points rolled back
// (which leave undone entries in the buffer) and popped; then full scans both ways, Seek and
// SeekForPrev at probes before, between, on and after the keys, each followed by a random walk
// of Next and Prev, under several upper bounds. Then writes while an iterator is open: of the
// key it is on (the walk goes on from there), and of new keys (a later Seek sees them).
#include "storage/buffered_iterator.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "storage/write_buffer.h"
#include "support/temp_dir.h"

namespace cairn::internal {
namespace {

using test::TempDir;
using Model = std::map<std::string, std::string>;
using Rows = std::vector<std::pair<std::string, std::string>>;
using namespace std::string_literals;

// Printable form of a binary key, for failure messages.
std::string Show(const std::string& key) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : key) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out + "\"";
}

class BufferedIteratorTest : public ::testing::Test {
 protected:
  BufferedIteratorTest() {
    rocksdb::Options options;
    options.create_if_missing = true;
    rocksdb::DB* db = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(options, dir_.path(), &db);
    EXPECT_TRUE(s.ok()) << s.ToString();
    db_.reset(db);
    cf_ = db_ != nullptr ? db_->DefaultColumnFamily() : nullptr;
  }

  void Commit(const std::string& key, const std::string& value) {
    ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), key, value).ok());
    committed_[key] = value;
  }
  void CommitDelete(const std::string& key) {
    ASSERT_TRUE(db_->Delete(rocksdb::WriteOptions(), key).ok());
    committed_.erase(key);
  }

  // The transaction's writes, in the buffer and in the model of the merged rows.
  void Put(const std::string& key, const std::string& value) {
    buffer_.Put(cf_, key, value);
    model_[key] = value;
  }
  void Delete(const std::string& key) {
    buffer_.Delete(cf_, key);
    model_.erase(key);
  }

  // An iterator over the merged rows below `bound` (none: nullopt), the bound held in `slice`;
  // both must outlive the iterator.
  std::unique_ptr<BufferedIterator> NewIterator(const std::optional<std::string>& bound,
                                                rocksdb::Slice& slice) {
    rocksdb::ReadOptions read;
    const rocksdb::Slice* upper = nullptr;
    if (bound.has_value()) {
      slice = rocksdb::Slice(*bound);
      read.iterate_upper_bound = &slice;
      upper = &slice;
    }
    return std::make_unique<BufferedIterator>(
        std::unique_ptr<rocksdb::Iterator>(db_->NewIterator(read)), buffer_.WritesOf(cf_), upper);
  }

  // The model's rows below `bound`.
  Rows Visible(const std::optional<std::string>& bound) const {
    Rows rows;
    for (const auto& [key, value] : model_) {
      if (bound.has_value() && key >= *bound) break;
      rows.emplace_back(key, value);
    }
    return rows;
  }

  TempDir dir_;
  std::unique_ptr<rocksdb::DB> db_;
  rocksdb::ColumnFamilyHandle* cf_ = nullptr;
  WriteBuffer buffer_;
  Model committed_;  // The database's rows.
  Model model_;      // The rows the transaction sees.
};

// The iterator is at rows[pos] (invalid when pos is out of range), with its value.
void ExpectAt(const rocksdb::Iterator& it, const Rows& rows, std::ptrdiff_t pos) {
  ASSERT_TRUE(it.status().ok()) << it.status().ToString();
  const bool in_range = pos >= 0 && pos < static_cast<std::ptrdiff_t>(rows.size());
  ASSERT_EQ(it.Valid(), in_range) << "expected " << (in_range ? Show(rows[pos].first) : "the end"s)
                                  << ", at "
                                  << (it.Valid() ? Show(it.key().ToString()) : "the end"s);
  if (!in_range) return;
  ASSERT_EQ(it.key().ToString(), rows[pos].first)
      << Show(it.key().ToString()) << " != " << Show(rows[pos].first);
  ASSERT_EQ(it.value().ToString(), rows[pos].second) << "at " << Show(rows[pos].first);
}

// From rows[pos], `steps` random Next and Prev (changing direction often), checking each;
// stops at either end.
void Walk(rocksdb::Iterator& it, const Rows& rows, std::ptrdiff_t pos, std::mt19937& random,
          int steps, std::string& trace) {
  ExpectAt(it, rows, pos);
  for (int i = 0; i < steps && it.Valid(); ++i) {
    if (random() % 2 == 0) {
      it.Next();
      ++pos;
      trace += " Next";
    } else {
      it.Prev();
      --pos;
      trace += " Prev";
    }
    SCOPED_TRACE(trace);
    ExpectAt(it, rows, pos);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Small alphabet, short keys: 84 keys in all, so buffered and committed keys collide often.
std::string RandomKey(std::mt19937& random, int min_length = 1, int max_length = 3) {
  static const char kAlphabet[] = {'\0', 'a', 'b', '\xff'};
  const int length = min_length + static_cast<int>(random() % (max_length - min_length + 1));
  std::string key;
  for (int i = 0; i < length; ++i) key += kAlphabet[random() % 4];
  return key;
}

template <typename Map>
std::string AnyKeyOf(const Map& map, std::mt19937& random) {
  auto it = map.begin();
  std::advance(it, random() % map.size());
  return std::string(it->first);
}

TEST_F(BufferedIteratorTest, MatchesTheMergedRowsUnderRandomWritesAndBounds) {
  for (unsigned seed : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 10u, 11u, 12u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    // A fresh database and buffer per seed.
    buffer_.Clear();
    committed_.clear();
    {
      std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
      std::vector<std::string> keys;
      for (it->SeekToFirst(); it->Valid(); it->Next()) keys.push_back(it->key().ToString());
      for (const std::string& key : keys) CommitDelete(key);
    }
    std::mt19937 random(seed);

    // Committed rows: some in a table file, then overwrites and deletes in the memtable.
    for (int i = 0; i < 35; ++i) Commit(RandomKey(random), "c" + std::to_string(i));
    if (seed % 2 == 0) {
      ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok());
    }
    for (int i = 0; i < 15; ++i) {
      if (random() % 2 == 0 && !committed_.empty()) {
        CommitDelete(AnyKeyOf(committed_, random));
      } else {
        Commit(RandomKey(random), "m" + std::to_string(i));
      }
    }

    // The transaction's writes, with save points: the model at each one, to roll back to.
    model_ = committed_;
    std::vector<Model> save_points;
    const int writes = seed % 3 == 0 ? 10 : 60;  // Some runs with few buffered writes.
    for (int i = 0; i < writes; ++i) {
      const std::string key = random() % 2 == 0 && !committed_.empty()
                                  ? AnyKeyOf(committed_, random)
                                  : RandomKey(random);
      if (random() % 3 == 0) {
        Delete(key);
      } else {
        Put(key, "w" + std::to_string(i));
      }
      switch (random() % 10) {
        case 0:
        case 1:
          buffer_.SetSavePoint();
          save_points.push_back(model_);
          break;
        case 2:
          if (!save_points.empty()) {
            ASSERT_TRUE(buffer_.RollbackToSavePoint().ok());
            model_ = std::move(save_points.back());
            save_points.pop_back();
          }
          break;
        case 3:
          if (!save_points.empty()) {
            ASSERT_TRUE(buffer_.PopSavePoint().ok());
            save_points.pop_back();
          }
          break;
        default:
          break;
      }
    }
    // Undo the newest open save point, if any: its writes stay in the map as undone entries.
    if (!save_points.empty()) {
      ASSERT_TRUE(buffer_.RollbackToSavePoint().ok());
      model_ = std::move(save_points.back());
      save_points.pop_back();
    }
    const WriteBuffer::Writes& buffered = buffer_.WritesOf(cf_);

    std::vector<std::optional<std::string>> bounds = {
        std::nullopt,
        ""s,                  // Below every key.
        "\xff\xff\xff\xff"s,  // Above every key.
        RandomKey(random),
        "a\x80"s,  // Between keys.
    };
    if (!model_.empty()) bounds.push_back(AnyKeyOf(model_, random));  // A visible key.
    if (!buffered.empty()) {
      // A key the buffer holds, in whatever state (deleted and undone included).
      bounds.push_back(AnyKeyOf(buffered, random));
      bounds.push_back(AnyKeyOf(buffered, random));
    }
    if (!committed_.empty()) bounds.push_back(AnyKeyOf(committed_, random));

    for (const std::optional<std::string>& bound : bounds) {
      SCOPED_TRACE("bound " + (bound ? Show(*bound) : "none"s));
      const Rows rows = Visible(bound);
      rocksdb::Slice slice;
      std::unique_ptr<BufferedIterator> it = NewIterator(bound, slice);

      // Full scans both ways.
      std::ptrdiff_t pos = 0;
      for (it->SeekToFirst(); it->Valid(); it->Next(), ++pos) {
        ExpectAt(*it, rows, pos);
        ASSERT_FALSE(HasFatalFailure());
      }
      ASSERT_EQ(pos, static_cast<std::ptrdiff_t>(rows.size()));
      ExpectAt(*it, rows, pos);
      pos = static_cast<std::ptrdiff_t>(rows.size()) - 1;
      for (it->SeekToLast(); it->Valid(); it->Prev(), --pos) {
        ExpectAt(*it, rows, pos);
        ASSERT_FALSE(HasFatalFailure());
      }
      ASSERT_EQ(pos, -1);
      ExpectAt(*it, rows, pos);

      // Probes: before all, after all, every kind of key, between keys.
      std::vector<std::string> probes = {""s, "\x00"s, "\xff\xff\xff\xff\xff"s};
      if (bound) {
        probes.push_back(*bound);
        probes.push_back(*bound + "\x00"s);
      }
      for (int i = 0; i < 40; ++i) {
        switch (random() % 5) {
          case 0:
            if (!model_.empty()) probes.push_back(AnyKeyOf(model_, random));
            break;
          case 1:
            if (!buffered.empty()) probes.push_back(AnyKeyOf(buffered, random));
            break;
          case 2:
            if (!committed_.empty()) probes.push_back(AnyKeyOf(committed_, random));
            break;
          case 3:
            probes.push_back(RandomKey(random) + (random() % 2 == 0 ? "\x01"s : "\x80"s));
            break;
          default:
            probes.push_back(RandomKey(random, 0, 4));
            break;
        }
      }

      std::string trace;
      for (const std::string& probe : probes) {
        const auto lower = std::lower_bound(rows.begin(), rows.end(), probe,
                                            [](const std::pair<std::string, std::string>& row,
                                               const std::string& key) { return row.first < key; });
        const auto upper = std::upper_bound(
            rows.begin(), rows.end(), probe,
            [](const std::string& key, const std::pair<std::string, std::string>& row) {
              return key < row.first;
            });

        trace = "Seek(" + Show(probe) + ")";
        it->Seek(probe);
        Walk(*it, rows, lower - rows.begin(), random, 12, trace);
        ASSERT_FALSE(HasFatalFailure());

        trace = "SeekForPrev(" + Show(probe) + ")";
        it->SeekForPrev(probe);
        Walk(*it, rows, (upper - rows.begin()) - 1, random, 12, trace);
        ASSERT_FALSE(HasFatalFailure());
      }
      trace = "SeekToFirst";
      it->SeekToFirst();
      Walk(*it, rows, 0, random, 30, trace);
      ASSERT_FALSE(HasFatalFailure());
      trace = "SeekToLast";
      it->SeekToLast();
      Walk(*it, rows, static_cast<std::ptrdiff_t>(rows.size()) - 1, random, 30, trace);
      ASSERT_FALSE(HasFatalFailure());
    }
  }
}

// Committed a..e; the transaction puts "bb" (a key of its own), overwrites "c" and deletes "d".
class WriteWhileIteratingTest : public BufferedIteratorTest {
 protected:
  void SetUp() override {
    for (const char* key : {"a", "b", "c", "d", "e"}) Commit(key, "committed "s + key);
    model_ = committed_;
    Put("bb", "own bb");
    Put("c", "own c");
    Delete("d");
  }
};

TEST_F(WriteWhileIteratingTest, AStepAfterAWriteOfTheCurrentKeyGoesOnFromIt) {
  const Model start = model_;
  // Each key is a committed row only, one shadowed by an own put, or an own put only.
  const std::vector<std::string> keys = {"a", "b", "bb", "c", "e"};
  for (const std::string& key : keys) {
    for (bool arrive_forward : {true, false}) {
      for (bool remove : {false, true}) {
        for (bool step_forward : {true, false}) {
          SCOPED_TRACE((arrive_forward ? "Seek("s : "SeekForPrev("s) + key + ")" +
                       (remove ? ", Delete" : ", Put") + (step_forward ? ", Next" : ", Prev"));
          buffer_.Clear();
          model_ = committed_;
          Put("bb", "own bb");
          Put("c", "own c");
          Delete("d");
          ASSERT_EQ(model_, start);

          rocksdb::Slice slice;
          std::unique_ptr<BufferedIterator> it = NewIterator(std::nullopt, slice);
          if (arrive_forward) {
            it->Seek(key);
          } else {
            it->SeekForPrev(key);
          }
          ASSERT_TRUE(it->Valid());
          ASSERT_EQ(it->key().ToString(), key);

          if (remove) {
            Delete(key);
          } else {
            // Longer than the old value, so that its bytes move.
            Put(key, "new " + key + std::string(100, '!'));
            ASSERT_EQ(it->key().ToString(), key);
          }
          const Rows rows = Visible(std::nullopt);
          auto next = std::upper_bound(
              rows.begin(), rows.end(), key,
              [](const std::string& k, const std::pair<std::string, std::string>& row) {
                return k < row.first;
              });
          std::ptrdiff_t pos =
              step_forward ? next - rows.begin()
                           : std::lower_bound(rows.begin(), rows.end(),
                                              std::pair<std::string, std::string>(key, "")) -
                                 rows.begin() - 1;
          // Then on to the end the same way.
          for (;;) {
            if (step_forward) {
              it->Next();
            } else {
              it->Prev();
            }
            ExpectAt(*it, rows, pos);
            ASSERT_FALSE(HasFatalFailure());
            if (!it->Valid()) break;
            pos += step_forward ? 1 : -1;
          }
          // And the rows read the same from scratch.
          pos = 0;
          for (it->SeekToFirst(); it->Valid(); it->Next(), ++pos) ExpectAt(*it, rows, pos);
          EXPECT_EQ(pos, static_cast<std::ptrdiff_t>(rows.size()));
        }
      }
    }
  }
}

TEST_F(WriteWhileIteratingTest, ALaterSeekSeesKeysPutWhileTheIteratorWasOpen) {
  rocksdb::Slice slice;
  std::unique_ptr<BufferedIterator> it = NewIterator(std::nullopt, slice);
  Rows rows = Visible(std::nullopt);
  std::ptrdiff_t pos = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++pos) ExpectAt(*it, rows, pos);
  ASSERT_EQ(pos, static_cast<std::ptrdiff_t>(rows.size()));

  // New keys before, between and after the rows; one that the rows shadow; a delete.
  Put("0", "own 0");
  Put("ab", "own ab");
  Put("d", "own d again");
  Put("z", "own z");
  Delete("b");
  rows = Visible(std::nullopt);
  ASSERT_EQ(rows, (Rows{{"0", "own 0"},
                        {"a", "committed a"},
                        {"ab", "own ab"},
                        {"bb", "own bb"},
                        {"c", "own c"},
                        {"d", "own d again"},
                        {"e", "committed e"},
                        {"z", "own z"}}));

  it->Seek("a");
  ExpectAt(*it, rows, 1);
  for (pos = 1; it->Valid(); ++pos) {
    ExpectAt(*it, rows, pos);
    it->Next();
  }
  ASSERT_EQ(pos, static_cast<std::ptrdiff_t>(rows.size()));
  it->SeekToLast();
  ExpectAt(*it, rows, static_cast<std::ptrdiff_t>(rows.size()) - 1);
  it->SeekForPrev("b");
  ExpectAt(*it, rows, 2);
  it->Prev();
  ExpectAt(*it, rows, 1);
  it->SeekToFirst();
  ExpectAt(*it, rows, 0);
}

TEST_F(BufferedIteratorTest, AnIteratorMadeBeforeAnyWriteSeesLaterWrites) {
  Commit("k1", "c1");
  Commit("k3", "c3");
  model_ = committed_;
  const std::optional<std::string> bound = "k5";  // Outlives the iterator, which holds it.
  rocksdb::Slice slice;
  std::unique_ptr<BufferedIterator> it = NewIterator(bound, slice);  // No write yet.
  it->SeekToFirst();
  ExpectAt(*it, Visible(bound), 0);

  Put("k2", "w2");
  Put("k6", "w6");  // Past the bound.
  Delete("k3");
  buffer_.SetSavePoint();
  const Model before = model_;
  Put("k4", "undone");
  ASSERT_TRUE(buffer_.RollbackToSavePoint().ok());
  model_ = before;
  const Rows rows = Visible(bound);
  ASSERT_EQ(rows, (Rows{{"k1", "c1"}, {"k2", "w2"}}));
  std::ptrdiff_t pos = 0;
  for (it->Seek(""); it->Valid(); it->Next(), ++pos) ExpectAt(*it, rows, pos);
  EXPECT_EQ(pos, 2);
  pos = 1;
  for (it->SeekForPrev("\xff"); it->Valid(); it->Prev(), --pos) ExpectAt(*it, rows, pos);
  EXPECT_EQ(pos, -1);
}

}  // namespace
}  // namespace cairn::internal
