// Mutual exclusion on the real clock: 16 threads increment a shared, non-atomic counter only
// while holding the lease, waiting for it with Acquire. The count must equal the number of
// critical sections, and the recorded critical sections must never overlap.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "cairn/lease.h"
#include "support/temp_dir.h"

namespace cairn {
namespace {

TEST(LeaseExclusionTest, SixteenThreadsNeverOverlap) {
  test::TempDir dir;
  auto store = test::OpenOrDie(test::TestOptions(dir.path()));
  LeaseManager leases(*store);
  constexpr int kThreads = 16;
  constexpr int kSectionsPerThread = 25;
  long counter = 0;  // Deliberately not atomic: the lease is the only protection.
  std::atomic<std::uint64_t> clock_ticks{0};
  struct Interval {
    std::uint64_t begin, end;
  };
  std::mutex intervals_mu;
  std::vector<Interval> intervals;
  std::atomic<int> errors{0};

  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kSectionsPerThread; ++i) {
        auto r = leases.Acquire("counter", "t" + std::to_string(t), 60'000, 60'000);
        if (!r.ok() || !std::holds_alternative<Lease>(*r)) {
          ++errors;
          continue;
        }
        const std::uint64_t begin = ++clock_ticks;
        const long read = counter;
        std::this_thread::yield();  // Widen the window a race would need.
        counter = read + 1;
        const std::uint64_t end = ++clock_ticks;
        {
          std::lock_guard<std::mutex> lock(intervals_mu);
          intervals.push_back({begin, end});
        }
        auto released = leases.Release("counter", std::get<Lease>(*r).token);
        if (!released.ok() || *released != OwnerResult::kDone) ++errors;
      }
    });
  }
  for (auto& th : threads) th.join();

  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(counter, kThreads * kSectionsPerThread);
  ASSERT_EQ(intervals.size(), static_cast<std::size_t>(kThreads * kSectionsPerThread));
  std::sort(intervals.begin(), intervals.end(),
            [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  for (std::size_t i = 1; i < intervals.size(); ++i) {
    ASSERT_LT(intervals[i - 1].end, intervals[i].begin) << "critical sections overlap at " << i;
  }
}

}  // namespace
}  // namespace cairn
