// The clients blocked on keys, as waiter entries: a signal serves the takers of each line oldest
// first for as long as their tries succeed, tries every reader, serves keys a served try wrote
// before it returns, and deadlines time waiters out.
#include "execution/key_waiters.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace cairn::server {
namespace {

using Clock = KeyWaiters::Clock;

// The pools the takers of each line take one item at a time from (as a consumer group's
// undelivered entries); what each waiter got, in order.
struct World {
  KeyWaiters waiters;
  std::map<std::string, int> pools;
  int& items = pools[""];
  std::vector<std::string> log;

  KeyWaiters::Id Taker(const std::string& name, std::string line = {},
                       Clock::time_point deadline = Clock::time_point::max()) {
    KeyWaiters::Waiter w;
    w.key_hashes = {KeyWaiters::KeyHash("k")};
    w.line = line;
    w.deadline = deadline;
    w.try_serve = [this, name, line] {
      int& pool = pools[line];
      if (pool == 0) return false;
      --pool;
      log.push_back(name);
      return true;
    };
    w.time_out = [this, name] { log.push_back(name + ":timeout"); };
    return waiters.Add(std::move(w));
  }
};

TEST(KeyWaitersTest, ASignalServesTakersOldestFirstWhileTheyFindSomething) {
  World world;
  world.Taker("a");
  world.Taker("b");
  world.Taker("c");
  world.items = 2;
  world.waiters.Signal(std::vector<std::string>{"k"});
  EXPECT_EQ(world.log, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(world.waiters.waiting(), 1u);
  world.items = 1;
  world.waiters.Signal(std::vector<std::string>{"other"});  // Not its key.
  EXPECT_EQ(world.waiters.waiting(), 1u);
  world.waiters.Signal(std::vector<std::string>{"k"});
  EXPECT_EQ(world.log.back(), "c");
  EXPECT_EQ(world.waiters.waiting(), 0u);
}

TEST(KeyWaitersTest, EachLineAndEveryReaderIsTried) {
  World world;
  world.Taker("g1", "g");
  world.Taker("g2", "g");
  world.Taker("h1", "h");
  int reads = 0;
  for (int i = 0; i < 2; ++i) {
    KeyWaiters::Waiter reader;
    reader.key_hashes = {KeyWaiters::KeyHash("k")};
    reader.takes = false;
    reader.try_serve = [&reads] {
      ++reads;
      return true;
    };
    world.waiters.Add(std::move(reader));
  }
  world.pools["g"] = 1;
  world.pools["h"] = 1;
  world.waiters.Signal(std::vector<std::string>{"k"});
  EXPECT_EQ(reads, 2);
  // Each line's oldest taker takes its line's one entry; g2 then finds none.
  EXPECT_EQ(world.log, (std::vector<std::string>{"g1", "h1"}));
  EXPECT_EQ(world.waiters.waiting(), 1u);
}

TEST(KeyWaitersTest, KeysAServedTryWritesAreServedBeforeSignalReturns) {
  KeyWaiters waiters;
  std::vector<std::string> log;
  bool source = true, destination = false;
  KeyWaiters::Waiter mover;  // BLMOVE source destination
  mover.key_hashes = {KeyWaiters::KeyHash("source")};
  mover.try_serve = [&] {
    if (!source) return false;
    source = false;
    destination = true;
    log.push_back("moved");
    waiters.Signal(std::vector<std::string>{"destination"});
    log.push_back("mover answered");
    return true;
  };
  waiters.Add(std::move(mover));
  KeyWaiters::Waiter popper;  // BLPOP destination
  popper.key_hashes = {KeyWaiters::KeyHash("destination")};
  popper.try_serve = [&] {
    if (!destination) return false;
    destination = false;
    log.push_back("popped");
    return true;
  };
  waiters.Add(std::move(popper));
  waiters.Signal(std::vector<std::string>{"source"});
  EXPECT_EQ(log, (std::vector<std::string>{"moved", "mover answered", "popped"}));
  EXPECT_EQ(waiters.waiting(), 0u);
}

TEST(KeyWaitersTest, DeadlinesTimeWaitersOutAndRemovedOnesAreNeverAnswered) {
  World world;
  std::vector<Clock::time_point> armed;
  world.waiters.set_on_earlier_deadline([&](Clock::time_point t) { armed.push_back(t); });
  const Clock::time_point t0 = Clock::now();
  world.Taker("late", {}, t0 + std::chrono::seconds(2));
  world.Taker("early", {}, t0 + std::chrono::seconds(1));
  const KeyWaiters::Id gone = world.Taker("gone", {}, t0 + std::chrono::milliseconds(500));
  world.Taker("forever");
  EXPECT_EQ(armed.size(), 3u);  // Each new earliest deadline; "forever" has none.
  world.waiters.Remove(gone);
  EXPECT_EQ(world.waiters.NextDeadline(), t0 + std::chrono::seconds(1));
  world.waiters.Expire(t0 + std::chrono::milliseconds(1500));
  EXPECT_EQ(world.log, (std::vector<std::string>{"early:timeout"}));
  world.waiters.Expire(t0 + std::chrono::seconds(3));
  EXPECT_EQ(world.log, (std::vector<std::string>{"early:timeout", "late:timeout"}));
  EXPECT_EQ(world.waiters.NextDeadline(), Clock::time_point::max());
  world.items = 1;
  world.waiters.SignalAll();
  EXPECT_EQ(world.log.back(), "forever");
  EXPECT_EQ(world.waiters.waiting(), 0u);
}

TEST(KeyWaitersTest, AWaiterWithARetryTimeIsTriedThenWithoutASignal) {
  KeyWaiters waiters;
  const Clock::time_point t0 = Clock::now();
  Clock::time_point retry = t0 + std::chrono::seconds(1);  // A holder's expiry.
  bool free = false;
  int tries = 0;
  std::vector<std::string> log;
  KeyWaiters::Waiter w;  // LEASE.ACQUIRE … BLOCK 10000
  w.key_hashes = {KeyWaiters::KeyHash("lease")};
  w.deadline = t0 + std::chrono::seconds(10);
  w.retry_at = [&] { return retry; };
  w.try_serve = [&] {
    ++tries;
    if (!free) {
      retry += std::chrono::seconds(1);  // Taken again meanwhile: its new holder's expiry.
      return false;
    }
    log.push_back("acquired");
    return true;
  };
  w.time_out = [&] { log.push_back("timeout"); };
  waiters.Add(std::move(w));
  EXPECT_EQ(waiters.NextDeadline(), t0 + std::chrono::seconds(1));
  waiters.Expire(t0 + std::chrono::milliseconds(500));
  EXPECT_EQ(tries, 0);
  waiters.Expire(t0 + std::chrono::milliseconds(1500));  // The holder's lease ran out ...
  EXPECT_EQ(tries, 1);  // ... but someone else took it: the waiter waits for that one's.
  EXPECT_EQ(waiters.NextDeadline(), t0 + std::chrono::seconds(2));
  free = true;
  waiters.Expire(t0 + std::chrono::milliseconds(2500));
  EXPECT_EQ(log, (std::vector<std::string>{"acquired"}));
  EXPECT_EQ(waiters.waiting(), 0u);
}

}  // namespace
}  // namespace cairn::server
