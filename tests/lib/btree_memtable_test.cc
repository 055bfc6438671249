// The B+tree memtable (storage/btree_memtable.h) on a plain RocksDB database, checked against
// a std::map: keys with long shared prefixes (so that nodes compare partial keys past them),
// keys that are prefixes of others and keys with zero and 0xff bytes (where zero-padded
// partial keys tie), enough of them for leaves and inner nodes to split many times, in
// random order and in ascending order (the last leaf fills instead of halving). Point reads,
// deletions, snapshots, forward and backward iteration, Seek and SeekForPrev, an iterator
// that keeps walking while the tree splits under it, a flush, and a reopen that replays the
// log through the tree.
#include "storage/btree_memtable.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support/temp_dir.h"

namespace cairn::internal {
namespace {

using test::TempDir;
using Model = std::map<std::string, std::string>;
using namespace std::string_literals;

// Run with and without the read lock (concurrent_readers).
class BTreeMemtableTest : public ::testing::TestWithParam<bool> {
 protected:
  void Open() {
    rocksdb::Options options;
    options.create_if_missing = true;
    options.memtable_factory = NewBTreeMemTableFactory(/*concurrent_readers=*/GetParam());
    options.allow_concurrent_memtable_write = false;
    options.write_buffer_size = 256 << 20;  // Everything stays in the memtable until Flush.
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, dir_.path(), &db).ok());
    db_.reset(db);
  }

  void Put(const std::string& key, const std::string& value) {
    ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), key, value).ok());
    model_[key] = value;
  }
  void Delete(const std::string& key) {
    ASSERT_TRUE(db_->Delete(rocksdb::WriteOptions(), key).ok());
    model_.erase(key);
  }

  std::optional<std::string> Get(const std::string& key, const rocksdb::Snapshot* at = nullptr) {
    rocksdb::ReadOptions read;
    read.snapshot = at;
    std::string value;
    rocksdb::Status s = db_->Get(read, key, &value);
    if (s.IsNotFound()) return std::nullopt;
    EXPECT_TRUE(s.ok()) << s.ToString();
    return value;
  }

  // Every key of `model` reads back, the iteration both ways is `model`, and Seek and
  // SeekForPrev land where the model's bounds are, for every key and for `probes`.
  void ExpectMatches(const Model& model, const std::vector<std::string>& probes,
                     const rocksdb::Snapshot* at = nullptr) {
    for (const auto& [key, value] : model) ASSERT_EQ(Get(key, at), value) << key;
    rocksdb::ReadOptions read;
    read.snapshot = at;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read));
    auto expected = model.begin();
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++expected) {
      ASSERT_NE(expected, model.end());
      ASSERT_EQ(it->key().ToString(), expected->first);
      ASSERT_EQ(it->value().ToString(), expected->second);
    }
    ASSERT_EQ(expected, model.end());
    auto back = model.rbegin();
    for (it->SeekToLast(); it->Valid(); it->Prev(), ++back) {
      ASSERT_NE(back, model.rend());
      ASSERT_EQ(it->key().ToString(), back->first);
    }
    ASSERT_EQ(back, model.rend());
    for (const std::string& probe : probes) {
      if (!model.contains(probe)) {
        ASSERT_EQ(Get(probe, at), std::nullopt) << probe;
      }
      it->Seek(probe);
      auto lower = model.lower_bound(probe);
      ASSERT_EQ(it->Valid(), lower != model.end()) << probe;
      if (it->Valid()) {
        ASSERT_EQ(it->key().ToString(), lower->first) << probe;
      }
      it->SeekForPrev(probe);
      auto upper = model.upper_bound(probe);
      ASSERT_EQ(it->Valid(), upper != model.begin()) << probe;
      if (it->Valid()) {
        ASSERT_EQ(it->key().ToString(), std::prev(upper)->first) << probe;
      }
    }
  }

  TempDir dir_;
  std::unique_ptr<rocksdb::DB> db_;
  Model model_;
};

// Keys like the members column family's: a few long prefixes (tag, key, version), then a
// member; some members are prefixes of others or hold zero and 0xff bytes.
std::string RandomKey(std::mt19937& random) {
  static const std::vector<std::string> kPrefixes = {
      "\x03zset:leaderboard\x00\x00\x00\x00\x00\x00\x00\x01"s,
      "\x03zset:leaderboard\x00\x00\x00\x00\x00\x00\x00\x02"s,
      "\x04h"s,
      ""s,
  };
  const std::string& prefix = kPrefixes[random() % kPrefixes.size()];
  switch (random() % 4) {
    case 0:
      return prefix + "element:" + std::to_string(100000000 + random() % 50000);
    case 1:
      return prefix + std::string(random() % 12, '\0');
    case 2:
      return prefix + std::string(random() % 12, '\xff') + std::to_string(random() % 10);
    default:
      return prefix + "m" + std::to_string(random() % 3000);
  }
}

TEST_P(BTreeMemtableTest, RandomWritesReadBackLikeAMapAtEverySnapshot) {
  Open();
  std::mt19937 random(7);
  std::vector<std::string> probes;
  std::vector<std::pair<const rocksdb::Snapshot*, Model>> snapshots;
  for (int i = 0; i < 40000; ++i) {
    const std::string key = RandomKey(random);
    if (random() % 5 == 0) {
      Delete(key);
    } else {
      Put(key, "v" + std::to_string(i));
    }
    if (i % 10000 == 5000) snapshots.emplace_back(db_->GetSnapshot(), model_);
    if (i % 97 == 0) probes.push_back(RandomKey(random));
  }
  probes.push_back("");
  probes.push_back(std::string(1, '\xff'));
  ExpectMatches(model_, probes);
  for (auto& [snapshot, model] : snapshots) {
    ExpectMatches(model, probes, snapshot);
    db_->ReleaseSnapshot(snapshot);
  }
}

TEST_P(BTreeMemtableTest, AscendingWritesFillTheLastLeaf) {
  Open();
  for (int i = 0; i < 20000; ++i) Put("list\x01item:" + std::to_string(1000000 + i), "x");
  ExpectMatches(model_, {"list", "list\x01item:1005000", "list\x01item:1005000~", "m"});
}

TEST_P(BTreeMemtableTest, AnIteratorKeepsItsPlaceWhileTheTreeSplitsUnderIt) {
  Open();
  for (int i = 0; i < 2000; i += 2) Put("k" + std::to_string(10000 + i), "old");
  const Model before = model_;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  it->Seek("k11000");
  ASSERT_TRUE(it->Valid());
  // New keys all around the iterator's place: every leaf splits, and so do inner nodes.
  for (int i = 1; i < 2000; i += 2) Put("k" + std::to_string(10000 + i), "new");
  for (int i = 0; i < 5000; ++i) Put("j" + std::to_string(i), "new");
  auto expected = before.find("k11000");
  for (int steps = 0; steps < 300; ++steps, ++expected) {
    ASSERT_TRUE(it->Valid()) << steps;
    ASSERT_EQ(it->key().ToString(), expected->first);  // The new keys are not in its view.
    it->Next();
    if (steps % 50 == 0) Put("k" + std::to_string(11000 + steps) + "5", "new");
  }
  for (int steps = 0; steps < 400; ++steps) {
    --expected;
    it->Prev();
    ASSERT_TRUE(it->Valid());
    ASSERT_EQ(it->key().ToString(), expected->first);
  }
}

TEST_P(BTreeMemtableTest, ReadsTheSameAfterAFlushAndAfterAReopen) {
  Open();
  std::mt19937 random(11);
  for (int i = 0; i < 5000; ++i) Put(RandomKey(random), std::to_string(i));
  ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok());
  for (int i = 0; i < 5000; ++i) Put(RandomKey(random), std::to_string(i));
  const std::vector<std::string> probes = {"", "m1", "\x04hm2"};
  ExpectMatches(model_, probes);
  db_.reset();
  Open();  // The second half comes back from the log, through the tree.
  ExpectMatches(model_, probes);
}

// With concurrent_readers, threads read while one writes: every key written before a read
// began is found with its value, and scans see keys in order.
TEST_P(BTreeMemtableTest, ReadersOnOtherThreadsSeeEveryKeyWrittenBeforeTheyLook) {
  if (!GetParam()) GTEST_SKIP() << "only with concurrent_readers";
  Open();
  constexpr int kKeys = 3000;
  std::vector<int> order(kKeys);
  for (int i = 0; i < kKeys; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(3));
  const auto key_of = [](int i) { return "row:" + std::to_string(1000000 + i); };
  std::atomic<int> written{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&, r] {
      std::mt19937 random(r);
      while (written.load() < kKeys) {
        const int known = written.load();
        if (known == 0) continue;
        const int i = order[random() % known];
        std::string value;
        if (!db_->Get(rocksdb::ReadOptions(), key_of(i), &value).ok() ||
            value != std::to_string(i)) {
          ++failures;
        }
        std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
        std::string last;
        int steps = 0;
        for (it->Seek(key_of(i)); it->Valid() && steps < 20; it->Next(), ++steps) {
          if (it->key().ToString() <= last) ++failures;
          last = it->key().ToString();
        }
        std::this_thread::yield();  // Let the writer in (glibc's lock prefers readers).
      }
    });
  }
  for (int i : order) {
    ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), key_of(i), std::to_string(i)).ok());
    written.store(written.load() + 1);
  }
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(failures.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(ReadLock, BTreeMemtableTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? "ConcurrentReaders" : "OneThread";
                         });

}  // namespace
}  // namespace cairn::internal
