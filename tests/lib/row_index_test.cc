// The row cache's open-addressing index: finds what was inserted, forgets what was erased,
// keeps every key findable while colliding keys are erased around it (backward-shift
// deletion, also across the end of the slots), and grows without losing any.
#include "storage/row_index.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <list>
#include <map>
#include <random>
#include <string>

namespace cairn {
namespace {

struct Entry {
  std::string key;
};
using Index = internal::RowIndex<std::list<Entry>::iterator>;

// Keeps the entries and the index together, as the cache does, with hashes the test picks.
class Indexed {
 public:
  void Add(const std::string& key, std::uint64_t hash) {
    entries_.push_front(Entry{key});
    index_.Insert(hash, entries_.begin());
    hashes_[key] = hash;
  }
  void Remove(const std::string& key) {
    index_.Erase(hashes_.at(key), key);
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->key == key) {
        entries_.erase(it);
        break;
      }
    }
    hashes_.erase(key);
  }
  bool Has(const std::string& key, std::uint64_t hash) const {
    std::optional<std::list<Entry>::iterator> found = index_.Find(hash, key);
    if (found) {
      EXPECT_EQ((*found)->key, key);
    }
    return found.has_value();
  }
  // Every key still present is found, under its own hash only.
  void ExpectAllFound() const {
    for (const auto& [key, hash] : hashes_) EXPECT_TRUE(Has(key, hash)) << key;
    EXPECT_EQ(index_.size(), hashes_.size());
  }

 private:
  std::list<Entry> entries_;
  Index index_;
  std::map<std::string, std::uint64_t> hashes_;
};

// A hash whose home slot (bits 16 and up) is `home` in any table of up to 2^16 slots.
std::uint64_t AtHome(std::uint64_t home, std::uint64_t low = 0) { return (home << 16) | low; }

TEST(RowIndexTest, FindsInsertedKeysAndForgetsErasedOnes) {
  Indexed index;
  index.Add("a", 11);
  index.Add("b", 22);
  EXPECT_TRUE(index.Has("a", 11));
  EXPECT_FALSE(index.Has("a", 22)) << "another hash is another key";
  EXPECT_FALSE(index.Has("c", 33));
  index.Remove("a");
  EXPECT_FALSE(index.Has("a", 11));
  EXPECT_TRUE(index.Has("b", 22));
}

TEST(RowIndexTest, KeysWithTheSameHashAreToldApartByKey) {
  Indexed index;
  index.Add("x", 7);
  index.Add("y", 7);
  index.Add("z", 0);  // 0 marks empty slots; such a key is still kept.
  index.ExpectAllFound();
  index.Remove("x");
  EXPECT_FALSE(index.Has("x", 7));
  index.ExpectAllFound();
}

TEST(RowIndexTest, ErasingWithinARunOfCollidingKeysKeepsTheRestFindable) {
  Indexed index;
  // A run over slots 5..9: three keys at home 5, then keys at homes 6 and 8 pushed along.
  index.Add("h5a", AtHome(5, 1));
  index.Add("h5b", AtHome(5, 2));
  index.Add("h6", AtHome(6));
  index.Add("h5c", AtHome(5, 3));
  index.Add("h8", AtHome(8));
  for (const char* key : {"h5b", "h5a", "h8", "h5c", "h6"}) {
    index.Remove(key);
    index.ExpectAllFound();
  }
}

TEST(RowIndexTest, RunsThatWrapPastTheLastSlotSurviveErasure) {
  Indexed index;
  // The index starts with 64 slots: homes 62 and 63 spill over into slots 0, 1, ….
  index.Add("a", AtHome(62, 1));
  index.Add("b", AtHome(63, 1));
  index.Add("c", AtHome(62, 2));
  index.Add("d", AtHome(63, 2));
  index.Add("e", AtHome(0, 1));
  index.Add("f", AtHome(1, 1));
  for (const char* key : {"a", "c", "e", "b", "f", "d"}) {
    index.Remove(key);
    index.ExpectAllFound();
  }
}

TEST(RowIndexTest, GrowsAndShrinksRandomlyWithoutLosingAKey) {
  Indexed index;
  std::mt19937_64 random(42);
  std::map<std::string, std::uint64_t> present;
  for (int step = 0; step < 20000; ++step) {
    // Few home slots, so that runs are long and erasures shift entries often.
    const std::string key = "k" + std::to_string(random() % 3000);
    if (present.count(key)) {
      index.Remove(key);
      present.erase(key);
    } else {
      const std::uint64_t hash = AtHome(random() % 512, random() % 4);
      index.Add(key, hash);
      present[key] = hash;
    }
    if (step % 997 == 0) index.ExpectAllFound();
  }
  index.ExpectAllFound();
  for (const auto& [key, hash] : present) index.Remove(key);
  index.ExpectAllFound();
}

}  // namespace
}  // namespace cairn
