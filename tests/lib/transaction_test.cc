// Transactions: own-write visibility, all-or-nothing commit, rollback, isolation through key
// locks, deadlocks and lock timeouts reported as kBusy, and a bank-transfer stress test in
// which the total is conserved and no reader ever sees part of a transaction.
#include <gtest/gtest.h>

#include <atomic>
#include <random>
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

class TransactionTest : public ::testing::Test {
 protected:
  void Open(std::int64_t lock_timeout_ms = 1000, bool serialize_keyspace = false) {
    Options options = TestOptions(dir_.path());
    options.lock_timeout_ms = lock_timeout_ms;
    options.serialize_keyspace = serialize_keyspace;
    store_ = OpenOrDie(options);
  }

  void TransfersConserveTheTotal();

  std::unique_ptr<Transaction> Begin() {
    auto txn = store_->BeginTransaction();
    EXPECT_TRUE(txn.ok()) << txn.status().ToString();
    return std::move(txn).value();
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(TransactionTest, ReadsOwnWritesAndCommitsAtomically) {
  Open();
  ASSERT_TRUE(store_->Set("a", "1").ok());
  auto txn = Begin();
  ASSERT_TRUE(txn->Set("a", "2").ok());
  ASSERT_TRUE(txn->Set("b", "3").ok());
  EXPECT_EQ(*txn->IncrBy("c", 5), 5);
  EXPECT_EQ(*txn->Get("a"), "2");
  EXPECT_EQ(*txn->Get("c"), "5");
  ASSERT_EQ(txn->Scan({})->entries.size(), 3u) << "scan sees the transaction's writes";
  // Not yet visible outside.
  EXPECT_EQ(*store_->Get("a"), "1");
  EXPECT_EQ(*store_->Get("b"), std::nullopt);
  ASSERT_TRUE(txn->Commit().ok());
  EXPECT_EQ(*store_->Get("a"), "2");
  EXPECT_EQ(*store_->Get("b"), "3");
  EXPECT_EQ(*store_->Get("c"), "5");
}

TEST_F(TransactionTest, RollbackAndDestructionDiscardWrites) {
  Open();
  {
    auto txn = Begin();
    ASSERT_TRUE(txn->Set("a", "1").ok());
    txn->Rollback();
    EXPECT_EQ(txn->Get("a").status().code(), StatusCode::kFailedPrecondition);
  }
  {
    auto txn = Begin();
    ASSERT_TRUE(txn->Set("b", "1").ok());
  }  // Destroyed without Commit.
  EXPECT_EQ(*store_->Get("a"), std::nullopt);
  EXPECT_EQ(*store_->Get("b"), std::nullopt);
  // The locks were released: a plain write goes through.
  EXPECT_TRUE(store_->Set("b", "2").ok());
}

TEST_F(TransactionTest, CommitTwiceIsRefused) {
  Open();
  auto txn = Begin();
  ASSERT_TRUE(txn->Set("a", "1").ok());
  ASSERT_TRUE(txn->Commit().ok());
  EXPECT_EQ(txn->Commit().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(txn->Set("a", "2").status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(*store_->Get("a"), "1");
}

TEST_F(TransactionTest, AllRecordOperationsWorkInATransaction) {
  Open();
  ASSERT_TRUE(store_->Set("x", "old").ok());
  auto txn = Begin();
  EXPECT_TRUE(txn->CompareAndSwap("x", "old", "new")->swapped);
  EXPECT_TRUE(*txn->Expire("x", 1000));
  EXPECT_EQ(txn->GetTtl("x")->kind, TtlState::Kind::kExpires);
  EXPECT_TRUE(*txn->Persist("x"));
  EXPECT_TRUE(txn->Set("y", "1", {.condition = SetCondition::kIfAbsent})->applied);
  EXPECT_TRUE(*txn->CompareAndDelete("y", "1"));
  EXPECT_TRUE(*txn->Delete("x"));
  EXPECT_FALSE(*txn->ExpireAt("x", 1));
  ASSERT_TRUE(txn->Commit().ok());
  EXPECT_EQ(*store_->Get("x"), std::nullopt);
  EXPECT_EQ(*store_->Get("y"), std::nullopt);
}

TEST_F(TransactionTest, ALockedKeyMakesOtherWritersWaitThenBusy) {
  Open(/*lock_timeout_ms=*/50);
  auto holder = Begin();
  ASSERT_TRUE(holder->Get("k").ok());  // Reading locks the key.
  auto other = Begin();
  auto blocked = other->Set("k", "x");
  ASSERT_FALSE(blocked.ok());
  EXPECT_TRUE(blocked.status().IsBusy()) << blocked.status().ToString();
  other->Rollback();
  auto single = store_->IncrBy("k", 1);
  EXPECT_TRUE(single.status().IsBusy()) << "single calls also wait for the lock";
  holder->Rollback();
  EXPECT_EQ(*store_->IncrBy("k", 1), 1);
}

TEST_F(TransactionTest, SavePointTakesBackTheWritesSinceIt) {
  Open(/*lock_timeout_ms=*/1);
  auto txn = Begin();
  ASSERT_TRUE(txn->Set("kept", "1").ok());
  txn->SetSavePoint();
  ASSERT_TRUE(txn->Set("undone", "2").ok());
  ASSERT_TRUE(txn->IncrBy("kept", 5).ok());
  ASSERT_TRUE(txn->RollbackToSavePoint().ok());
  EXPECT_EQ(*txn->Get("kept"), "1");
  EXPECT_EQ(*txn->Get("undone"), std::nullopt);
  // Its lock is kept until the transaction ends.
  EXPECT_TRUE(store_->Set("undone", "other").status().IsBusy());
  txn->SetSavePoint();
  ASSERT_TRUE(txn->Set("popped", "3").ok());
  ASSERT_TRUE(txn->PopSavePoint().ok());
  EXPECT_EQ(txn->RollbackToSavePoint().code(), StatusCode::kNotFound) << "no mark is left";
  ASSERT_TRUE(txn->Commit().ok());
  EXPECT_EQ(*store_->Get("kept"), "1");
  EXPECT_EQ(*store_->Get("popped"), "3");
  EXPECT_EQ(*store_->Get("undone"), std::nullopt);
  EXPECT_TRUE(store_->Set("undone", "other").ok());
}

// What a transaction holds for its writes and their save points is counted, so that a caller
// can bound a transaction it does not trust to stay small (a script).
TEST_F(TransactionTest, BufferedBytesCountWritesAndTheCopiesSavePointsKeep) {
  Open();
  auto txn = Begin();
  EXPECT_LT(txn->BufferedBytes(), 4096u) << "nothing written yet";
  const std::string mib(1 << 20, 'v');
  ASSERT_TRUE(txn->Set("k", mib).ok());
  EXPECT_GE(txn->BufferedBytes(), mib.size());
  EXPECT_LT(txn->BufferedBytes(), 4 * mib.size());
  // Under a save point each rewrite keeps the value it replaces, to undo to.
  txn->SetSavePoint();
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(txn->Set("k", mib).ok());
  EXPECT_GE(txn->BufferedBytes(), 8 * mib.size());
  ASSERT_TRUE(txn->Commit().ok());
  EXPECT_EQ(*store_->Get("k"), mib);
}

// A hash's field rows are written into the transaction's batch without a lock of their own
// (the hash's metadata row guards them): a write of nothing but such rows still commits, and
// a rollback to a save point still takes them back.
// A rollback to a save point releases the locks taken since: a key read after the save point
// may then be changed by others, and the transaction's next read must see the change.
TEST_F(TransactionTest, AReadAfterARollbackToASavePointSeesWritesMadeMeanwhile) {
  Open(/*lock_timeout_ms=*/50);
  ASSERT_TRUE(store_->Set("k", "old").ok());
  auto txn = Begin();
  txn->SetSavePoint();
  EXPECT_EQ(*txn->Get("k"), "old");
  EXPECT_EQ(*txn->Get("k"), "old");
  ASSERT_TRUE(txn->RollbackToSavePoint().ok());
  ASSERT_TRUE(store_->Set("k", "new").ok()) << "the lock was released";
  EXPECT_EQ(*txn->Get("k"), "new");
  ASSERT_TRUE(txn->Commit().ok());
}

TEST_F(TransactionTest, HashFieldWritesCommitAndRollBackLikeOtherWrites) {
  Open(/*lock_timeout_ms=*/1);
  const HashField initial[] = {{"f", "1"}, {"g", "1"}};
  ASSERT_TRUE(store_->HashSet("h", initial).ok());
  auto txn = Begin();
  const HashField changed{"f", "2"};  // An existing field: only its row is written.
  ASSERT_EQ(*txn->HashSet("h", {&changed, 1}), 0u);
  txn->SetSavePoint();
  const HashField undone[] = {{"g", "3"}, {"new", "4"}};
  ASSERT_EQ(*txn->HashSet("h", undone), 1u);
  ASSERT_TRUE(txn->RollbackToSavePoint().ok());
  EXPECT_EQ(*txn->HashGet("h", "g"), "1");
  EXPECT_EQ(*txn->HashGet("h", "new"), std::nullopt);
  EXPECT_EQ(*txn->HashLength("h"), 2u);
  ASSERT_TRUE(txn->Commit().ok());
  EXPECT_EQ(*store_->HashGet("h", "f"), "2");
  EXPECT_EQ(*store_->HashGet("h", "g"), "1");
  EXPECT_EQ(*store_->HashGet("h", "new"), std::nullopt);
  EXPECT_EQ(*store_->HashLength("h"), 2u);
}

std::uint64_t MemtableEntries(Store& store) {
  Result<std::uint64_t> entries = testing::KeyspaceMemtableEntries(store);
  EXPECT_TRUE(entries.ok()) << entries.status().ToString();
  return entries.ok() ? *entries : 0;
}

TEST_F(TransactionTest, AKeyWrittenManyTimesReachesTheMemtableOnce) {
  Open(/*lock_timeout_ms=*/1);
  ASSERT_TRUE(store_->Set("gone", "x").ok());
  ASSERT_TRUE(store_->Set("counter", "10").ok());
  const std::uint64_t before = MemtableEntries(*store_);
  auto txn = Begin();
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(txn->Set("hot", "v" + std::to_string(i)).ok());
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(txn->IncrBy("counter", 2).ok());
  ASSERT_TRUE(txn->Set("gone", "y").ok());
  ASSERT_TRUE(*txn->Delete("gone"));
  txn->SetSavePoint();
  ASSERT_TRUE(txn->Set("hot", "undone").ok());
  ASSERT_TRUE(txn->Set("undone", "1").ok());
  ASSERT_TRUE(txn->RollbackToSavePoint().ok());
  // Locked until the commit, as in any transaction.
  EXPECT_TRUE(store_->Set("hot", "other").status().IsBusy());
  ASSERT_TRUE(txn->Commit().ok());

  EXPECT_EQ(MemtableEntries(*store_) - before, 3u) << "hot, counter and the delete of gone";
  EXPECT_EQ(*store_->Get("hot"), "v99");
  EXPECT_EQ(*store_->Get("counter"), "110");
  EXPECT_EQ(*store_->Get("gone"), std::nullopt);
  EXPECT_EQ(*store_->Get("undone"), std::nullopt);
  // The commit released every lock, the rolled-back key's included.
  EXPECT_TRUE(store_->Set("hot", "other").ok());
  EXPECT_TRUE(store_->Set("undone", "other").ok());
  EXPECT_TRUE(txn->Commit().code() == StatusCode::kFailedPrecondition);
  txn.reset();

  // Survives a reopen (the collapsed write went to the log like any commit).
  ASSERT_TRUE(store_->Close().ok());
  store_.reset();
  Open();
  EXPECT_EQ(*store_->Get("hot"), "other");
  EXPECT_EQ(*store_->Get("counter"), "110");
  EXPECT_EQ(*store_->Get("gone"), std::nullopt);
}

TEST_F(TransactionTest, ReadsAfterWritesOfOneKeySeeTheNewestWrite) {
  Open();
  auto txn = Begin();
  EXPECT_EQ(*txn->IncrBy("n", 1), 1);
  EXPECT_EQ(*txn->IncrBy("n", 1), 2);
  ASSERT_TRUE(txn->Set("other", "x").ok());
  EXPECT_EQ(*txn->IncrBy("n", 1), 3);
  ASSERT_TRUE(*txn->Delete("n"));
  EXPECT_EQ(*txn->Get("n"), std::nullopt);
  EXPECT_EQ(txn->GetTtl("n")->kind, TtlState::Kind::kMissing);
  EXPECT_EQ(*txn->IncrBy("n", 5), 5);
  ASSERT_TRUE(*txn->Expire("n", 10'000));
  EXPECT_EQ(txn->GetTtl("n")->kind, TtlState::Kind::kExpires);
  EXPECT_EQ(*txn->IncrBy("n", 1), 6);
  EXPECT_EQ(txn->GetTtl("n")->kind, TtlState::Kind::kExpires) << "INCR keeps the expiry";
  ASSERT_TRUE(txn->Commit().ok());
  EXPECT_EQ(*store_->Get("n"), "6");
  EXPECT_EQ(*store_->Get("other"), "x");
}

TEST_F(TransactionTest, DistinctKeysAreCommittedEachOnce) {
  Open();
  const std::uint64_t before = MemtableEntries(*store_);
  auto txn = Begin();
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(txn->Set("k" + std::to_string(i), "v").ok());
  ASSERT_TRUE(txn->Commit().ok());
  EXPECT_EQ(MemtableEntries(*store_) - before, 20u);
  EXPECT_EQ(*store_->Get("k19"), "v");
}

TEST_F(TransactionTest, DeadlockIsDetectedAndReportedAsBusy) {
  Open(/*lock_timeout_ms=*/60'000);  // Only deadlock detection can end the wait quickly.
  auto first = Begin();
  auto second = Begin();
  ASSERT_TRUE(first->Get("a").ok());
  ASSERT_TRUE(second->Get("b").ok());
  Status first_status;
  std::thread t([&] {
    first_status = first->Get("b").status();
    if (!first_status.ok()) first->Rollback();  // Lets `second` proceed.
  });
  Status second_status = second->Get("a").status();
  // Which of the two detects the cycle depends on which waited first; either way the loser
  // rolls back and the other one gets its lock.
  if (!second_status.ok()) second->Rollback();
  t.join();
  EXPECT_NE(first_status.ok(), second_status.ok()) << "exactly one of the two must lose";
  const Status& lost = first_status.ok() ? second_status : first_status;
  EXPECT_TRUE(lost.IsBusy()) << lost.ToString();
  EXPECT_NE(lost.message().find("deadlock"), std::string::npos) << lost.ToString();
}

TEST_F(TransactionTest, RunTransactionRetriesBusyAndPropagatesOtherErrors) {
  Open();
  int calls = 0;
  Status s = store_->RunTransaction([&](Transaction& txn) {
    ++calls;
    if (calls < 3) return Status::Busy("simulated conflict");
    return txn.Set("k", "done").status();
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(*store_->Get("k"), "done");

  calls = 0;
  s = store_->RunTransaction([&](Transaction& txn) {
    ++calls;
    EXPECT_TRUE(txn.Set("k", "partial").ok());
    return Status::InvalidArgument("caller's own error");
  });
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(*store_->Get("k"), "done") << "the failed attempt was rolled back";

  calls = 0;
  s = store_->RunTransaction([&](Transaction&) { return ++calls, Status::Busy("always"); }, 4);
  EXPECT_TRUE(s.IsBusy());
  EXPECT_EQ(calls, 4);
  EXPECT_TRUE(store_->RunTransaction([](Transaction&) { return Status(); }, 0).IsInvalidArgument());
}

// 4 writers move amounts between random pairs of 100 accounts, touching the two keys in random
// order; readers check that every consistent view sums to the starting total.
TEST_F(TransactionTest, TransfersConserveTheTotalAndAreNeverSeenHalfDone) {
  Open();
  TransfersConserveTheTotal();
}

// The same with the keyspace taken in turns: no row locks, rows rewritten in place.
TEST_F(TransactionTest, TransfersConserveTheTotalWhenThreadsTakeTurns) {
  Open(/*lock_timeout_ms=*/10000, /*serialize_keyspace=*/true);
  TransfersConserveTheTotal();
}

void TransactionTest::TransfersConserveTheTotal() {
  constexpr int kAccounts = 100;
  constexpr int kStart = 1000;
  constexpr int kWriters = 4;
  constexpr int kTransfersPerWriter = 400;
  constexpr std::int64_t kTotal = std::int64_t{kAccounts} * kStart;
  auto account = [](int i) { return "acct:" + std::to_string(1000 + i); };
  for (int i = 0; i < kAccounts; ++i) ASSERT_TRUE(store_->Set(account(i), "1000").ok());

  std::atomic<int> committed{0}, gave_up{0}, errors{0}, torn_reads{0}, reads{0};
  std::atomic<bool> writers_done{false};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      std::mt19937 rng(w);
      for (int n = 0; n < kTransfersPerWriter; ++n) {
        int from = rng() % kAccounts;
        int to = (from + 1 + rng() % (kAccounts - 1)) % kAccounts;
        const int amount = 1 + rng() % 50;
        const bool reverse = rng() % 2;
        Status s = store_->RunTransaction([&](Transaction& txn) -> Status {
          const std::string first = account(reverse ? to : from);
          const std::string second = account(reverse ? from : to);
          auto a = txn.Get(first);
          if (!a.ok()) return a.status();
          auto b = txn.Get(second);
          if (!b.ok()) return b.status();
          if (!a->has_value() || !b->has_value()) return Status::Internal("account missing");
          std::int64_t from_balance = std::stoll(reverse ? **b : **a);
          std::int64_t to_balance = std::stoll(reverse ? **a : **b);
          if (from_balance < amount) return Status::Ok();  // Nothing to move.
          auto s1 = txn.Set(account(from), std::to_string(from_balance - amount));
          if (!s1.ok()) return s1.status();
          return txn.Set(account(to), std::to_string(to_balance + amount)).status();
        });
        if (s.ok()) {
          ++committed;
        } else if (s.IsBusy()) {
          ++gave_up;
        } else {
          ++errors;
          ADD_FAILURE() << s.ToString();
        }
      }
    });
  }
  // Reader 1: snapshot scans of all accounts.
  threads.emplace_back([&] {
    while (!writers_done.load()) {
      auto page = store_->Scan({.prefix = "acct:", .count = kAccounts});
      if (!page.ok() || page->entries.size() != kAccounts) {
        ++errors;
        continue;
      }
      std::int64_t sum = 0;
      for (const ScanEntry& e : page->entries) sum += std::stoll(e.value);
      if (sum != kTotal) ++torn_reads;
      ++reads;
    }
  });
  // Reader 2: locking reads of every account inside a transaction, in random order.
  threads.emplace_back([&] {
    std::mt19937 rng(99);
    std::vector<int> order(kAccounts);
    for (int i = 0; i < kAccounts; ++i) order[i] = i;
    while (!writers_done.load()) {
      std::shuffle(order.begin(), order.end(), rng);
      std::int64_t sum = 0;
      Status s = store_->RunTransaction([&](Transaction& txn) -> Status {
        sum = 0;
        for (int i : order) {
          auto v = txn.Get(account(i));
          if (!v.ok()) return v.status();
          sum += std::stoll(v->value_or("0"));
        }
        return Status::Ok();
      });
      if (s.ok()) {
        if (sum != kTotal) ++torn_reads;
        ++reads;
      } else if (!s.IsBusy()) {
        ++errors;
      }
    }
  });
  for (int w = 0; w < kWriters; ++w) threads[w].join();
  writers_done = true;
  for (std::size_t i = kWriters; i < threads.size(); ++i) threads[i].join();

  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(torn_reads.load(), 0);
  EXPECT_GT(reads.load(), 0);
  EXPECT_EQ(committed.load() + gave_up.load(), kWriters * kTransfersPerWriter);
  EXPECT_GT(committed.load(), 0);
  std::int64_t sum = 0;
  for (int i = 0; i < kAccounts; ++i) sum += std::stoll(store_->Get(account(i))->value());
  EXPECT_EQ(sum, kTotal);
}

}  // namespace
}  // namespace cairn
