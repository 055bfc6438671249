// Single calls are atomic under concurrency: racing set-if-absent has exactly one winner per
// key, and compare-and-swap increments never lose an update.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "cairn/store.h"
#include "support/temp_dir.h"

namespace cairn {
namespace {

using test::OpenOrDie;
using test::TempDir;
using test::TestOptions;

constexpr int kThreads = 8;

TEST(AtomicityTest, SetIfAbsentHasExactlyOneWinnerPerKey) {
  TempDir dir;
  auto store = OpenOrDie(TestOptions(dir.path()));
  constexpr int kKeys = 1000;
  std::vector<std::atomic<int>> winners(kKeys);
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      SetOptions nx;
      nx.condition = SetCondition::kIfAbsent;
      for (int i = 0; i < kKeys; ++i) {
        auto r = store->Set("key:" + std::to_string(i), "thread-" + std::to_string(t), nx);
        if (!r.ok()) {
          ++errors;
        } else if (r->applied) {
          ++winners[i];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(errors.load(), 0);
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_EQ(winners[i].load(), 1) << "key " << i;
  }
}

TEST(AtomicityTest, CompareAndSwapIncrementsLoseNothing) {
  TempDir dir;
  auto store = OpenOrDie(TestOptions(dir.path()));
  ASSERT_TRUE(store->Set("counter", "0").ok());
  constexpr int kAttemptsPerThread = 500;
  std::atomic<int> successes{0};
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kAttemptsPerThread; ++i) {
        auto current = store->Get("counter");
        if (!current.ok() || !current->has_value()) {
          ++errors;
          continue;
        }
        const std::string next = std::to_string(std::stoll(**current) + 1);
        auto cas = store->CompareAndSwap("counter", **current, next);
        if (!cas.ok()) {
          ++errors;
        } else if (cas->swapped) {
          ++successes;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_GT(successes.load(), 0);
  EXPECT_EQ(*store->Get("counter"), std::to_string(successes.load()));
}

TEST(AtomicityTest, ConcurrentIncrementsAreAllCounted) {
  TempDir dir;
  auto store = OpenOrDie(TestOptions(dir.path()));
  constexpr int kPerThread = 500;
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        if (!store->IncrBy("hits", 1).ok()) ++errors;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(*store->Get("hits"), std::to_string(kThreads * kPerThread));
}

}  // namespace
}  // namespace cairn
