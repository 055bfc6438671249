// The wake-ups of clients blocked on keys: a signal wakes the oldest taker of each line and
// every reader, and a taker that leaves wakes the next one of its own line only.
#include "commands/key_waiters.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace cairn::server {
namespace {

std::shared_ptr<KeyWaiter> Taker(std::string line) {
  return std::make_shared<KeyWaiter>(std::vector<std::string>{"k"}, true, std::move(line));
}

TEST(KeyWaitersTest, ASignalWakesTheOldestTakerOfEachLineAndEveryReader) {
  KeyWaiters waiters;
  auto g1 = Taker("g"), g2 = Taker("g"), h1 = Taker("h"), pop = Taker("");
  auto reader = std::make_shared<KeyWaiter>(std::vector<std::string>{"k"}, false);
  for (const auto& w : {g1, g2, h1, pop, reader}) waiters.Add(w);
  waiters.Signal(std::vector<std::string>{"k"});
  EXPECT_TRUE(g1->TakeWakeup());
  EXPECT_FALSE(g2->TakeWakeup());  // One entry: one consumer of the group is woken for it.
  EXPECT_TRUE(h1->TakeWakeup());   // Another group's consumer is woken for the same entry.
  EXPECT_TRUE(pop->TakeWakeup());
  EXPECT_TRUE(reader->TakeWakeup());

  waiters.Remove(g1);  // Served or gone: the next of its line may take what it left.
  EXPECT_TRUE(g2->TakeWakeup());
  EXPECT_FALSE(h1->TakeWakeup());
  EXPECT_FALSE(pop->TakeWakeup());
  EXPECT_FALSE(reader->TakeWakeup());
  for (const auto& w : {g2, h1, pop, reader}) waiters.Remove(w);
  EXPECT_EQ(waiters.waiting(), 0u);
}

TEST(KeyWaitersTest, OtherKeysAreNotWoken) {
  KeyWaiters waiters;
  auto g = Taker("g");
  waiters.Add(g);
  waiters.Signal(std::vector<std::string>{"other"});
  EXPECT_FALSE(g->TakeWakeup());
  waiters.Remove(g);
}

}  // namespace
}  // namespace cairn::server
