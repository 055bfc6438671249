// The keyspace row cache: on its own (hits, known-absent rows, writes that drop a row and
// hold off fills, stale fills refused, keys it is told not to keep, the byte budget), and under a
// Store, where every way of writing a key must be seen by the next Get, and a reader racing a
// writer must never see a value go backwards.
#include "storage/row_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "cairn/store.h"
#include "support/temp_dir.h"
#include "testing/store_testing.h"

namespace cairn {
namespace {

using internal::RowCache;
using test::OpenOrDie;
using test::TempDir;
using test::TestOptions;

// The cached row (nullopt inside: known absent), or nullopt on a miss.
std::optional<std::optional<std::string>> Cached(RowCache& cache, std::string_view key) {
  RowCache::Miss miss;
  std::string row;
  switch (cache.Lookup(key, &row, &miss)) {
    case RowCache::Found::kRow:
      return std::optional<std::string>(row);
    case RowCache::Found::kAbsent:
      return std::optional<std::string>();
    case RowCache::Found::kMiss:
      break;
  }
  return std::nullopt;
}

// Looks key up and, on a miss, fills it with `row` as a reader would.
void ReadThrough(RowCache& cache, std::string_view key, const std::optional<std::string>& row) {
  RowCache::Miss miss;
  std::string cached;
  if (cache.Lookup(key, &cached, &miss) == RowCache::Found::kMiss) cache.Fill(miss, key, row);
}

TEST(RowCacheTest, RemembersRowsAndAbsence) {
  RowCache cache(1 << 20);
  EXPECT_FALSE(Cached(cache, "a"));
  ReadThrough(cache, "a", "row-a");
  ReadThrough(cache, "none", std::nullopt);
  EXPECT_EQ(Cached(cache, "a"), std::optional<std::optional<std::string>>("row-a"));
  auto absent = Cached(cache, "none");
  ASSERT_TRUE(absent);
  EXPECT_FALSE(*absent);
}

TEST(RowCacheTest, AWriteDropsTheRowAndNoFillLandsUntilItEnds) {
  RowCache cache(1 << 20);
  ReadThrough(cache, "a", "old");
  const std::size_t shard = cache.BeginWrite("a");
  EXPECT_FALSE(Cached(cache, "a"));
  ReadThrough(cache, "a", "old");  // A reader during the write: not remembered.
  EXPECT_FALSE(Cached(cache, "a"));
  cache.EndWrite(shard);
  ReadThrough(cache, "a", "new");
  EXPECT_EQ(Cached(cache, "a"), std::optional<std::optional<std::string>>("new"));
}

TEST(RowCacheTest, AFillFromBeforeAWriteIsRefused) {
  RowCache cache(1 << 20);
  RowCache::Miss miss;
  std::string row;
  ASSERT_EQ(cache.Lookup("a", &row, &miss), RowCache::Found::kMiss);
  // The reader read "old" from the database; meanwhile a write began and ended.
  cache.EndWrite(cache.BeginWrite("a"));
  cache.Fill(miss, "a", "old");
  EXPECT_FALSE(Cached(cache, "a"));
}

TEST(RowCacheTest, KeysTheFilterRefusesAreNeverKeptAndNeedNoBracket) {
  RowCache cache(1 << 20, [](std::string_view key) { return !key.starts_with("skip"); });
  ReadThrough(cache, "skip-a", "row");
  EXPECT_FALSE(Cached(cache, "skip-a"));
  cache.Publish("skip-a", "row");
  EXPECT_FALSE(Cached(cache, "skip-a"));
  // A write of such a key leaves the rest of its shard fillable.
  const std::size_t skipped = cache.BeginWrite("skip-a");
  ReadThrough(cache, "kept", "row-k");
  EXPECT_EQ(Cached(cache, "kept"), std::optional<std::optional<std::string>>("row-k"));
  cache.EndWrite(skipped);
  EXPECT_EQ(Cached(cache, "kept"), std::optional<std::optional<std::string>>("row-k"));
}

TEST(RowCacheTest, StaysWithinItsBudgetDroppingTheLeastRecentlyUsed) {
  RowCache cache(16 * 4096);  // 4 KiB per shard.
  const std::string row(500, 'x');
  ReadThrough(cache, "kept", row);
  for (int i = 0; i < 2000; ++i) {
    ReadThrough(cache, "k" + std::to_string(i), row);
    ASSERT_TRUE(Cached(cache, "kept")) << "used after every fill, so never the oldest";
  }
  int cached = 0;
  for (int i = 0; i < 2000; ++i) cached += Cached(cache, "k" + std::to_string(i)) ? 1 : 0;
  EXPECT_LT(cached, 16 * 4096 / 500);
  EXPECT_TRUE(Cached(cache, "k1999"));
  ReadThrough(cache, "big", std::string(RowCache::kMaxRowBytes + 1, 'x'));
  EXPECT_FALSE(Cached(cache, "big"));
}

// Each case runs with row locks and with the keyspace taken in turns (serialize_keyspace),
// where a transaction's writes open no cache brackets and its commit publishes them.
class StoreRowCacheTest : public ::testing::TestWithParam<bool> {
 protected:
  StoreRowCacheTest() : clock_(std::make_shared<ManualClock>()) {
    Options options = TestOptions(dir_.path(), clock_);
    options.serialize_keyspace = GetParam();
    store_ = OpenOrDie(options);
  }

  std::optional<std::string> Get(std::string_view key) {
    Result<std::optional<std::string>> got = store_->Get(key);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() ? *got : std::nullopt;
  }

  TempDir dir_;
  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<Store> store_;
};

TEST_P(StoreRowCacheTest, EveryKindOfWriteIsSeenByTheNextRead) {
  EXPECT_EQ(Get("k"), std::nullopt);  // Cached as absent ...
  ASSERT_TRUE(store_->Set("k", "1").ok());
  EXPECT_EQ(Get("k"), "1");  // ... and forgotten by the write.
  ASSERT_TRUE(store_->IncrBy("k", 4).ok());
  EXPECT_EQ(Get("k"), "5");
  ASSERT_TRUE(store_->CompareAndSwap("k", "5", "6").ok());
  EXPECT_EQ(Get("k"), "6");
  ASSERT_TRUE(store_->Set("k", "7", {.condition = SetCondition::kIfPresent}).ok());
  EXPECT_EQ(Get("k"), "7");
  ASSERT_TRUE(store_->Expire("k", 1000).ok());
  EXPECT_EQ(Get("k"), "7");
  clock_->Advance(1000);
  EXPECT_EQ(Get("k"), std::nullopt) << "a cached row expires like a stored one";
  ASSERT_TRUE(store_->Set("k", "8").ok());
  EXPECT_EQ(Get("k"), "8");
  ASSERT_TRUE(*store_->Delete("k"));
  EXPECT_EQ(Get("k"), std::nullopt);
  ASSERT_TRUE(testing::PutRawKeyspaceRow(*store_, "k", "not a record").ok());
  EXPECT_FALSE(store_->Get("k").ok()) << "a raw write is seen too";
}

TEST_P(StoreRowCacheTest, TransactionWritesShowOnlyOnceCommitted) {
  ASSERT_TRUE(store_->Set("k", "old").ok());
  EXPECT_EQ(Get("k"), "old");
  {
    auto txn = std::move(store_->BeginTransaction()).value();
    ASSERT_TRUE(txn->Set("k", "rolled back").ok());
    EXPECT_EQ(Get("k"), "old");
    txn->Rollback();
  }
  EXPECT_EQ(Get("k"), "old");
  auto txn = std::move(store_->BeginTransaction()).value();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(txn->Set("k", "new" + std::to_string(i)).ok());
  EXPECT_EQ(Get("k"), "old");
  EXPECT_EQ(Get("k"), "old");
  ASSERT_TRUE(txn->Commit().ok());
  EXPECT_EQ(Get("k"), "new9");
}

TEST_P(StoreRowCacheTest, AReaderRacingWritersNeverSeesAValueGoBack) {
  constexpr int kIncrements = 3000;
  ASSERT_TRUE(store_->Set("n", "0").ok());
  std::atomic<bool> done{false};
  std::atomic<int> regressions{0};
  std::thread reader([&] {
    long last = 0;
    while (!done.load()) {
      Result<std::optional<std::string>> got = store_->Get("n");
      if (!got.ok() || !*got) {
        regressions.fetch_add(1);
        continue;
      }
      const long now = std::stol(**got);
      if (now < last) regressions.fetch_add(1);
      last = now;
    }
  });
  std::vector<std::thread> writers;
  for (int w = 0; w < 2; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kIncrements; ++i) {
        if (w == 0) {
          ASSERT_TRUE(store_->IncrBy("n", 1).ok());
        } else {
          ASSERT_TRUE(
              store_->RunTransaction([](Transaction& txn) { return txn.IncrBy("n", 1).status(); })
                  .ok());
        }
      }
    });
  }
  for (std::thread& t : writers) t.join();
  done.store(true);
  reader.join();
  EXPECT_EQ(regressions.load(), 0);
  EXPECT_EQ(Get("n"), std::to_string(2 * kIncrements));
}

TEST_P(StoreRowCacheTest, ATransactionReadsItsOwnWritesAndTheCommittedRowsOfOthers) {
  ASSERT_TRUE(store_->Set("a", "committed").ok());
  EXPECT_EQ(Get("a"), "committed");  // Now cached.
  auto txn = std::move(store_->BeginTransaction()).value();
  EXPECT_EQ(*txn->Get("a"), "committed");
  ASSERT_TRUE(txn->Set("a", "mine").ok());
  ASSERT_TRUE(txn->Set("b", "also mine").ok());
  EXPECT_EQ(*txn->Get("a"), "mine");
  EXPECT_EQ(*txn->Get("b"), "also mine");  // Not the last write: found in its own batch.
  ASSERT_TRUE(*txn->Delete("a"));
  EXPECT_EQ(*txn->Get("a"), std::nullopt);
  txn->SetSavePoint();
  ASSERT_TRUE(txn->Set("c", "undone").ok());
  ASSERT_TRUE(txn->RollbackToSavePoint().ok());
  EXPECT_EQ(*txn->Get("c"), std::nullopt);  // Written, undone: read as committed (absent).
  EXPECT_EQ(Get("a"), "committed");
  ASSERT_TRUE(txn->Commit().ok());
  // The commit published what it wrote: the next readers, in or out of a transaction, see it.
  EXPECT_EQ(Get("a"), std::nullopt);
  EXPECT_EQ(Get("b"), "also mine");
  auto next = std::move(store_->BeginTransaction()).value();
  EXPECT_EQ(*next->Get("b"), "also mine");
  EXPECT_EQ(*next->Get("a"), std::nullopt);
  next->Rollback();
}

TEST_P(StoreRowCacheTest, ReadModifyWriteTransactionsLoseNoUpdate) {
  // Each transaction reads the counter (locking it, then reading it through the cache) and
  // writes it back plus one; a stale cached read would lose an update.
  constexpr int kThreads = 4;
  constexpr int kEach = 500;
  ASSERT_TRUE(store_->Set("n", "0").ok());
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        ASSERT_TRUE(store_
                        ->RunTransaction([](Transaction& txn) -> Status {
                          Result<std::optional<std::string>> got = txn.Get("n");
                          if (!got.ok()) return got.status();
                          return txn.Set("n", std::to_string(std::stol(**got) + 1)).status();
                        })
                        .ok());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(Get("n"), std::to_string(kThreads * kEach));
}

INSTANTIATE_TEST_SUITE_P(LocksAndTurns, StoreRowCacheTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? "Serialized" : "RowLocks";
                         });

TEST(StoreRowCacheOffTest, ASizeOfZeroTurnsItOff) {
  TempDir dir;
  Options options = TestOptions(dir.path());
  options.row_cache_bytes = 0;
  std::unique_ptr<Store> store = OpenOrDie(options);
  ASSERT_TRUE(store->Set("k", "v").ok());
  EXPECT_EQ(*store->Get("k"), "v");
}

}  // namespace
}  // namespace cairn
