// Clocks and timed waits: a ManualClock wait ends exactly when time is moved to its deadline,
// and a notification ends a wait early or, sent before the wait, makes it return at once.
#include "cairn/clock.h"

#include <gtest/gtest.h>

#include <thread>

namespace cairn {
namespace {

// Blocks until `clock` has `n` parked waiters (no sleeping: yields until the waiter is there).
void AwaitWaiters(const ManualClock& clock, std::size_t n) {
  while (clock.waiters() < n) std::this_thread::yield();
}

TEST(ManualClockTest, MovesOnlyWhenTold) {
  ManualClock clock(1000);
  EXPECT_EQ(clock.NowMs(), 1000);
  clock.Advance(5);
  EXPECT_EQ(clock.NowMs(), 1005);
  clock.Set(42);
  EXPECT_EQ(clock.NowMs(), 42);
}

TEST(ManualClockTest, WaitEndsWhenTheDeadlineIsReached) {
  ManualClock clock(1000);
  Wakeup wakeup;
  bool notified = true;
  std::thread waiter([&] { notified = clock.WaitUntil(wakeup, 1100); });
  AwaitWaiters(clock, 1);
  clock.Advance(99);  // Not yet: the waiter re-checks and keeps waiting.
  clock.Advance(1);
  waiter.join();
  EXPECT_FALSE(notified);
  EXPECT_EQ(clock.waiters(), 0u);
}

TEST(ManualClockTest, NotifyEndsTheWaitEarly) {
  ManualClock clock(1000);
  Wakeup wakeup;
  bool notified = false;
  std::thread waiter([&] { notified = clock.WaitUntil(wakeup, 1'000'000); });
  AwaitWaiters(clock, 1);
  wakeup.Notify();
  waiter.join();
  EXPECT_TRUE(notified);
  EXPECT_EQ(clock.NowMs(), 1000);
}

TEST(ClockTest, NotificationBeforeTheWaitIsNotLost) {
  ManualClock manual(0);
  Wakeup wakeup;
  wakeup.Notify();
  EXPECT_TRUE(manual.WaitUntil(wakeup, 1'000'000));
  SystemClock system;
  wakeup.Notify();
  EXPECT_TRUE(system.WaitUntil(wakeup, system.NowMs() + 60'000));
}

TEST(ClockTest, DeadlineInThePastReturnsAtOnce) {
  ManualClock manual(500);
  Wakeup wakeup;
  EXPECT_FALSE(manual.WaitUntil(wakeup, 500));
  SystemClock system;
  EXPECT_FALSE(system.WaitUntil(wakeup, system.NowMs() - 1));
}

}  // namespace
}  // namespace cairn
