// Options::serialize_keyspace: threads take turns at the keyspace instead of locking rows. A
// transaction keeps other threads out from its begin to its commit or rollback, its own
// thread may call in meanwhile, waiters give up with kBusy after lock_timeout_ms, nothing is
// lost between threads, and a row rewritten at the same size keeps one memtable entry. With
// Options::caller_serializes_keyspace the program takes the turns itself: nothing waits, and a
// transaction may move between threads.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cairn/store.h"
#include "support/temp_dir.h"
#include "testing/store_testing.h"

namespace cairn {
namespace {

using test::OpenOrDie;
using test::TempDir;
using test::TestOptions;

class KeyspaceTurnsTest : public ::testing::Test {
 protected:
  void Open(std::int64_t lock_timeout_ms) {
    Options options = TestOptions(dir_.path());
    options.serialize_keyspace = true;
    options.lock_timeout_ms = lock_timeout_ms;
    store_ = OpenOrDie(options);
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(KeyspaceTurnsTest, AnOpenTransactionKeepsOtherThreadsOutUntilItEnds) {
  Open(/*lock_timeout_ms=*/50);
  auto txn = store_->BeginTransaction();
  ASSERT_TRUE(txn.ok());
  ASSERT_TRUE((*txn)->Set("k", "5").ok());
  Result<std::int64_t> from_other = Status::Internal("not run");
  Result<std::optional<std::string>> read_from_other = Status::Internal("not run");
  std::thread([&] {
    from_other = store_->IncrBy("k", 1);
    read_from_other = store_->Get("unrelated");
  }).join();
  EXPECT_TRUE(from_other.status().IsBusy()) << from_other.status().ToString();
  EXPECT_TRUE(read_from_other.status().IsBusy()) << "reads take turns too";
  EXPECT_NE(from_other.status().message().find("serialize_keyspace"), std::string::npos)
      << from_other.status().ToString();

  // Its own thread may call in while it is open (these calls do not see its writes).
  EXPECT_EQ(*store_->Get("k"), std::nullopt);
  EXPECT_TRUE(store_->Set("other", "1").ok());

  ASSERT_TRUE((*txn)->Commit().ok());
  std::thread([&] { from_other = store_->IncrBy("k", 1); }).join();
  ASSERT_TRUE(from_other.ok()) << from_other.status().ToString();
  EXPECT_EQ(*from_other, 6);
}

TEST_F(KeyspaceTurnsTest, RollbackAndDestructionLetOthersIn) {
  Open(/*lock_timeout_ms=*/50);
  auto incr_from_other = [&] {
    Result<std::int64_t> out = Status::Internal("not run");
    std::thread([&] { out = store_->IncrBy("n", 1); }).join();
    return out;
  };
  {
    auto txn = store_->BeginTransaction();
    ASSERT_TRUE(txn.ok());
    (*txn)->Rollback();
    EXPECT_TRUE(incr_from_other().ok());
  }
  {
    auto txn = store_->BeginTransaction();
    ASSERT_TRUE(txn.ok());
  }
  EXPECT_TRUE(incr_from_other().ok());
  EXPECT_EQ(*store_->Get("n"), "2");
}

// Read-modify-write cycles from several threads, in transactions and as single calls (a list
// push rewrites the list's metadata), with no row locks: every one must survive.
TEST_F(KeyspaceTurnsTest, IncrementsFromManyThreadsAreNeverLost) {
  Open(/*lock_timeout_ms=*/10000);
  constexpr int kThreads = 4;
  constexpr int kRounds = 300;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kRounds; ++i) {
        Status s = store_->RunTransaction([](Transaction& txn) -> Status {
          auto v = txn.Get("counter");
          if (!v.ok()) return v.status();
          const std::int64_t n = v->has_value() ? std::stoll(**v) : 0;
          return txn.Set("counter", std::to_string(n + 1)).status();
        });
        if (!s.ok()) ++failures;
        const std::string_view item = "x";
        if (!store_->ListPush("list", {&item, 1}, ListEnd::kTail, false).ok()) ++failures;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(*store_->Get("counter"), std::to_string(kThreads * kRounds));
  EXPECT_EQ(*store_->ListLength("list"), std::uint64_t{kThreads * kRounds});
}

TEST_F(KeyspaceTurnsTest, ARowRewrittenAtTheSameSizeKeepsOneMemtableEntry) {
  Open(/*lock_timeout_ms=*/1000);
  ASSERT_TRUE(store_->Set("lock", "owner-1").ok());
  auto before = testing::KeyspaceMemtableEntries(*store_);
  ASSERT_TRUE(before.ok());
  for (int i = 0; i < 500; ++i) {
    ASSERT_TRUE(store_->Set("lock", "owner-" + std::to_string(i % 10)).ok());
  }
  auto after = testing::KeyspaceMemtableEntries(*store_);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after, *before) << "rewrites of one size replaced the entry in place";
  EXPECT_EQ(*store_->Get("lock"), "owner-9");
  // A longer value cannot replace it in place: one more entry, and it reads back whole.
  ASSERT_TRUE(store_->Set("lock", "owner-longer").ok());
  EXPECT_EQ(*testing::KeyspaceMemtableEntries(*store_), *before + 1);
  EXPECT_EQ(*store_->Get("lock"), "owner-longer");
  // And what was rewritten in place survives a reopen (from the write-ahead log).
  store_.reset();
  Open(/*lock_timeout_ms=*/1000);
  EXPECT_EQ(*store_->Get("lock"), "owner-longer");
}

TEST(KeyspaceTurnsOptionsTest, CallerSerializesRequiresASerializedKeyspace) {
  TempDir dir;
  Options options = TestOptions(dir.path());
  options.caller_serializes_keyspace = true;  // serialize_keyspace left false
  auto opened = Store::Open(options);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(opened.status().message().find("requires Options::serialize_keyspace"),
            std::string::npos)
      << opened.status().ToString();
}

// As cairn-server runs it: the keyspace turn passes between io threads (a mutex here), and the
// write batch's transaction, begun on one, goes on and commits on another.
TEST(KeyspaceTurnsOptionsTest, WhenTheCallerSerializesATransactionMovesBetweenThreads) {
  TempDir dir;
  Options options = TestOptions(dir.path());
  options.serialize_keyspace = true;
  options.caller_serializes_keyspace = true;
  options.lock_timeout_ms = 50;
  std::unique_ptr<Store> store = OpenOrDie(options);

  auto begun = store->BeginTransaction();
  ASSERT_TRUE(begun.ok());
  std::unique_ptr<Transaction> txn = std::move(*begun);
  ASSERT_TRUE(txn->Set("k", "1").ok());
  // Another thread, in its turn, continues it and commits it: no kBusy from a gate held by
  // the thread that began it.
  Status committed = Status::Internal("not run");
  std::thread([&] {
    ASSERT_TRUE(txn->IncrBy("k", 4).ok());
    committed = txn->Commit();
  }).join();
  ASSERT_TRUE(committed.ok()) << committed.ToString();
  EXPECT_EQ(*store->Get("k"), "5");

  // Turns kept by the caller (a mutex) over several threads: nothing is lost.
  std::mutex turn;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        std::lock_guard<std::mutex> hold(turn);
        ASSERT_TRUE(store->IncrBy("n", 1).ok());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(*store->Get("n"), "800");
}

}  // namespace
}  // namespace cairn
