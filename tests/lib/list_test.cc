// Lists in the keyspace: pushes and pops at both ends, Redis's index and range rules, LSET,
// LINSERT, LREM and LTRIM (checked against a std::deque model over random operations), moves
// between lists and within one, kinds of keys meeting, expiry on a manual clock, transactions,
// rename, reads that never see half of a concurrent write, and the promise that deleting a
// list of any size is one row, with compaction removing its items afterwards.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cairn/limits.h"
#include "cairn/store.h"
#include "support/temp_dir.h"
#include "support/test_scale.h"
#include "testing/store_testing.h"

namespace cairn {
namespace {

using test::kHugeValueMembers;
using test::OpenOrDie;
using test::TempDir;
using test::TestOptions;
using Items = std::vector<std::string>;

class ListTest : public ::testing::Test {
 protected:
  ListTest() : clock_(std::make_shared<ManualClock>()) {
    store_ = OpenOrDie(TestOptions(dir_.path(), clock_));
  }

  std::uint64_t Push(Records& data, std::string_view key, std::vector<std::string_view> values,
                     ListEnd end = ListEnd::kTail, bool only_if_exists = false) {
    auto length = data.ListPush(key, values, end, only_if_exists);
    EXPECT_TRUE(length.ok()) << length.status().ToString();
    return length.ok() ? *length : 0;
  }
  std::uint64_t Push(std::string_view key, std::vector<std::string_view> values,
                     ListEnd end = ListEnd::kTail, bool only_if_exists = false) {
    return Push(*store_, key, std::move(values), end, only_if_exists);
  }
  std::optional<Items> Pop(std::string_view key, ListEnd end, std::uint64_t count) {
    auto popped = store_->ListPop(key, end, count);
    EXPECT_TRUE(popped.ok()) << popped.status().ToString();
    return popped.ok() ? *popped : std::nullopt;
  }
  Items Range(Records& data, std::string_view key, std::int64_t start = 0, std::int64_t stop = -1) {
    auto items = data.ListRange(key, start, stop);
    EXPECT_TRUE(items.ok()) << items.status().ToString();
    return items.ok() ? *items : Items{};
  }
  Items Range(std::string_view key, std::int64_t start = 0, std::int64_t stop = -1) {
    return Range(*store_, key, start, stop);
  }
  std::uint64_t Length(std::string_view key) {
    auto n = store_->ListLength(key);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? *n : 0;
  }
  std::optional<std::string> Index(std::string_view key, std::int64_t index) {
    auto item = store_->ListIndex(key, index);
    EXPECT_TRUE(item.ok()) << item.status().ToString();
    return item.ok() ? *item : std::nullopt;
  }
  std::vector<std::uint64_t> Position(std::string_view key, std::string_view value,
                                      ListPositionOptions options = {}) {
    auto found = store_->ListPosition(key, value, options);
    EXPECT_TRUE(found.ok()) << found.status().ToString();
    return found.ok() ? *found : std::vector<std::uint64_t>{};
  }
  std::size_t MemberRows() {
    auto n = testing::CountRawMemberRows(*store_);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? *n : 0;
  }
  // Appends `n` items i000000… in pushes of 10,000.
  void Fill(std::string_view key, std::size_t n) {
    for (std::size_t start = 0; start < n; start += 10'000) {
      std::vector<std::string> names;
      for (std::size_t i = start; i < std::min(n, start + 10'000); ++i) {
        char name[24];
        std::snprintf(name, sizeof name, "i%07zu", i);
        names.emplace_back(name);
      }
      const std::vector<std::string_view> values(names.begin(), names.end());
      ASSERT_EQ(Push(key, values), std::min(n, start + 10'000));
    }
  }

  TempDir dir_;
  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<Store> store_;
};

TEST_F(ListTest, PushAndPopAtBothEnds) {
  EXPECT_EQ(Push("l", {"a", "b", "c"}), 3u);
  EXPECT_EQ(Push("l", {"x", "y"}, ListEnd::kHead), 5u);
  EXPECT_EQ(Range("l"), (Items{"y", "x", "a", "b", "c"}));
  EXPECT_EQ(Length("l"), 5u);
  EXPECT_EQ(*store_->Type("l"), KeyType::kList);
  EXPECT_EQ(Pop("l", ListEnd::kHead, 2), (Items{"y", "x"}));
  EXPECT_EQ(Pop("l", ListEnd::kTail, 1), (Items{"c"}));
  EXPECT_EQ(Pop("l", ListEnd::kHead, 0), Items{});  // Present: an empty answer, not nullopt.
  EXPECT_EQ(Range("l"), (Items{"a", "b"}));
  // More than it holds: what it holds, and the list is gone.
  EXPECT_EQ(Pop("l", ListEnd::kTail, 10), (Items{"b", "a"}));
  EXPECT_EQ(*store_->Type("l"), KeyType::kNone);
  EXPECT_EQ(Pop("l", ListEnd::kHead, 1), std::nullopt);
  EXPECT_EQ(Pop("l", ListEnd::kHead, 0), std::nullopt);
  EXPECT_EQ(Length("l"), 0u);
  // Only-if-exists leaves an absent list absent, and pushes onto a present one.
  EXPECT_EQ(Push("l", {"a"}, ListEnd::kHead, true), 0u);
  EXPECT_EQ(*store_->Type("l"), KeyType::kNone);
  EXPECT_EQ(Push("l", {"a"}), 1u);
  EXPECT_EQ(Push("l", {"b", "c"}, ListEnd::kHead, true), 3u);
  EXPECT_EQ(Range("l"), (Items{"c", "b", "a"}));
}

TEST_F(ListTest, BinaryAndEmptyItems) {
  const std::string item("\0i\xff", 3);
  EXPECT_EQ(Push("l", {item, "", item}), 3u);
  EXPECT_EQ(Range("l"), (Items{item, "", item}));
  EXPECT_EQ(Index("l", 1), "");
  EXPECT_EQ(Position("l", item, {.rank = -1}), std::vector<std::uint64_t>{2});
}

TEST_F(ListTest, RangesAndIndexesFollowRedis) {
  for (int i = 0; i < 10; ++i) Push("l", {std::to_string(i)});
  EXPECT_EQ(Range("l").size(), 10u);
  EXPECT_EQ(Range("l", -3, -1), (Items{"7", "8", "9"}));
  EXPECT_EQ(Range("l", 2, 4), (Items{"2", "3", "4"}));
  EXPECT_EQ(Range("l", -100, 1), (Items{"0", "1"}));
  EXPECT_EQ(Range("l", 8, 100), (Items{"8", "9"}));
  EXPECT_EQ(Range("l", INT64_MIN, INT64_MAX).size(), 10u);
  EXPECT_EQ(Range("l", 3, 2), Items{});
  EXPECT_EQ(Range("l", 10, 20), Items{});
  EXPECT_EQ(Range("l", -1, -2), Items{});
  EXPECT_EQ(Range("l", -100, -50), Items{});
  EXPECT_EQ(Range("missing"), Items{});
  EXPECT_EQ(Index("l", 0), "0");
  EXPECT_EQ(Index("l", -1), "9");
  EXPECT_EQ(Index("l", -10), "0");
  EXPECT_EQ(Index("l", -11), std::nullopt);
  EXPECT_EQ(Index("l", 10), std::nullopt);
  EXPECT_EQ(Index("l", INT64_MIN), std::nullopt);
  EXPECT_EQ(Index("l", INT64_MAX), std::nullopt);
  EXPECT_EQ(Index("missing", 0), std::nullopt);
  // Head pushes move the indexes with them.
  Push("l", {"a", "b"}, ListEnd::kHead);
  EXPECT_EQ(Index("l", 0), "b");
  EXPECT_EQ(Range("l", 0, 2), (Items{"b", "a", "0"}));
}

TEST_F(ListTest, SetInsertRemoveAndTrim) {
  Push("l", {"a", "b", "c", "b", "d"});
  EXPECT_EQ(*store_->ListSet("l", 1, "B"), ListSetOutcome::kSet);
  EXPECT_EQ(*store_->ListSet("l", -1, "D"), ListSetOutcome::kSet);
  EXPECT_EQ(*store_->ListSet("l", 5, "x"), ListSetOutcome::kOutOfRange);
  EXPECT_EQ(*store_->ListSet("l", -6, "x"), ListSetOutcome::kOutOfRange);
  EXPECT_EQ(*store_->ListSet("missing", 0, "x"), ListSetOutcome::kNoSuchKey);
  EXPECT_EQ(Range("l"), (Items{"a", "B", "c", "b", "D"}));

  EXPECT_EQ(*store_->ListInsert("l", true, "c", "x"), 6);
  EXPECT_EQ(*store_->ListInsert("l", false, "c", "y"), 7);
  EXPECT_EQ(*store_->ListInsert("l", false, "D", "z"), 8);
  EXPECT_EQ(*store_->ListInsert("l", true, "a", "w"), 9);
  EXPECT_EQ(*store_->ListInsert("l", true, "nope", "v"), -1);
  EXPECT_EQ(*store_->ListInsert("missing", true, "a", "v"), 0);
  EXPECT_EQ(*store_->Type("missing"), KeyType::kNone);
  EXPECT_EQ(Range("l"), (Items{"w", "a", "B", "x", "c", "y", "b", "D", "z"}));

  Push("r", {"1", "x", "2", "x", "3", "x", "4", "x"});
  EXPECT_EQ(*store_->ListRemove("r", 1, "x"), 1u);
  EXPECT_EQ(*store_->ListRemove("r", -2, "x"), 2u);
  EXPECT_EQ(Range("r"), (Items{"1", "2", "x", "3", "4"}));
  EXPECT_EQ(*store_->ListRemove("r", 0, "nope"), 0u);
  EXPECT_EQ(*store_->ListRemove("r", 0, "x"), 1u);
  EXPECT_EQ(Range("r"), (Items{"1", "2", "3", "4"}));
  EXPECT_EQ(*store_->ListRemove("missing", 0, "x"), 0u);
  Push("same", {"x", "x", "x"});
  EXPECT_EQ(*store_->ListRemove("same", INT64_MIN, "x"), 3u);
  EXPECT_EQ(*store_->Type("same"), KeyType::kNone);

  EXPECT_EQ(*store_->ListTrim("l", 1, -2), 7u);
  EXPECT_EQ(Range("l"), (Items{"a", "B", "x", "c", "y", "b", "D"}));
  EXPECT_EQ(*store_->ListTrim("l", -3, 100), 3u);
  EXPECT_EQ(Range("l"), (Items{"y", "b", "D"}));
  EXPECT_EQ(*store_->ListTrim("l", 0, -1), 3u);
  EXPECT_EQ(*store_->ListTrim("l", 2, 1), 0u);
  EXPECT_EQ(*store_->Type("l"), KeyType::kNone);
  EXPECT_EQ(*store_->ListTrim("missing", 0, 1), 0u);
}

TEST_F(ListTest, PositionHonoursRankCountAndMaxLen) {
  Push("l", {"a", "b", "c", "1", "2", "3", "c", "c"});
  EXPECT_EQ(Position("l", "c"), std::vector<std::uint64_t>{2});
  EXPECT_EQ(Position("l", "c", {.rank = 2}), std::vector<std::uint64_t>{6});
  EXPECT_EQ(Position("l", "c", {.rank = -1}), std::vector<std::uint64_t>{7});
  EXPECT_EQ(Position("l", "c", {.rank = -2, .count = 0}), (std::vector<std::uint64_t>{6, 2}));
  EXPECT_EQ(Position("l", "c", {.count = 0}), (std::vector<std::uint64_t>{2, 6, 7}));
  EXPECT_EQ(Position("l", "c", {.count = 2}), (std::vector<std::uint64_t>{2, 6}));
  EXPECT_EQ(Position("l", "c", {.count = 0, .max_len = 7}), (std::vector<std::uint64_t>{2, 6}));
  EXPECT_EQ(Position("l", "c", {.rank = -1, .count = 0, .max_len = 1}),
            std::vector<std::uint64_t>{7});
  EXPECT_EQ(Position("l", "c", {.rank = 4}), std::vector<std::uint64_t>{});
  EXPECT_EQ(Position("l", "zz"), std::vector<std::uint64_t>{});
  EXPECT_EQ(Position("missing", "a"), std::vector<std::uint64_t>{});
  EXPECT_EQ(store_->ListPosition("l", "a", {.rank = 0}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->ListPosition("l", "a", {.rank = INT64_MIN}).status().code(),
            StatusCode::kInvalidArgument);
}

// Random operations against a std::deque: inserts and removals in the middle move one side
// or the other, so both must keep every item in its place.
TEST_F(ListTest, RandomOperationsMatchADequeModel) {
  std::mt19937 rng(20261201);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::deque<std::string> model;
  const std::vector<std::string> values = {"a", "b", "c", "d"};
  for (int step = 0; step < 3000; ++step) {
    const std::string v = values[static_cast<std::size_t>(pick(4))];
    const auto n = static_cast<std::int64_t>(model.size());
    switch (pick(8)) {
      case 0:
      case 1:
        Push("m", {v}, ListEnd::kHead);
        model.push_front(v);
        break;
      case 2:
      case 3:
        Push("m", {v, v + v});
        model.push_back(v);
        model.push_back(v + v);
        break;
      case 4: {
        const bool before = pick(2) == 0;
        const std::string pivot = values[static_cast<std::size_t>(pick(4))];
        auto it = std::find(model.begin(), model.end(), pivot);
        const std::int64_t expected = model.empty()       ? 0
                                      : it == model.end() ? -1
                                                          : static_cast<std::int64_t>(n + 1);
        if (it != model.end()) model.insert(before ? it : it + 1, v);
        ASSERT_EQ(*store_->ListInsert("m", before, pivot, v), expected) << step;
        break;
      }
      case 5: {
        const std::int64_t count = pick(5) - 2;
        std::uint64_t removed = 0;
        if (count >= 0) {
          for (auto it = model.begin(); it != model.end();) {
            if (*it == v && (count == 0 || removed < static_cast<std::uint64_t>(count))) {
              it = model.erase(it);
              ++removed;
            } else {
              ++it;
            }
          }
        } else {
          for (std::int64_t i = n - 1; i >= 0; --i) {
            if (model[static_cast<std::size_t>(i)] == v &&
                removed < static_cast<std::uint64_t>(-count)) {
              model.erase(model.begin() + i);
              ++removed;
            }
          }
        }
        ASSERT_EQ(*store_->ListRemove("m", count, v), removed) << step;
        break;
      }
      case 6: {
        if (model.size() < 30) break;
        const std::int64_t start = pick(3), stop = -1 - pick(3);
        model.erase(model.end() + stop + 1, model.end());
        model.erase(model.begin(), model.begin() + start);
        ASSERT_EQ(*store_->ListTrim("m", start, stop), model.size()) << step;
        break;
      }
      default: {
        if (model.empty()) break;
        const auto i = static_cast<std::size_t>(pick(static_cast<int>(model.size())));
        model[i] = v;
        ASSERT_EQ(*store_->ListSet("m", static_cast<std::int64_t>(i), v), ListSetOutcome::kSet);
      }
    }
    ASSERT_EQ(Range("m"), Items(model.begin(), model.end())) << "step " << step;
    ASSERT_EQ(Length("m"), model.size());
  }
}

TEST_F(ListTest, MoveBetweenListsAndWithinOne) {
  Push("src", {"a", "b", "c"});
  // Rotation: the tail goes to the head, and back.
  EXPECT_EQ(*store_->ListMove("src", "src", ListEnd::kTail, ListEnd::kHead), "c");
  EXPECT_EQ(Range("src"), (Items{"c", "a", "b"}));
  EXPECT_EQ(*store_->ListMove("src", "src", ListEnd::kHead, ListEnd::kTail), "c");
  EXPECT_EQ(Range("src"), (Items{"a", "b", "c"}));
  EXPECT_EQ(*store_->ListMove("src", "src", ListEnd::kHead, ListEnd::kHead), "a");
  EXPECT_EQ(Range("src"), (Items{"a", "b", "c"}));
  // Two lists; the destination is created.
  EXPECT_EQ(*store_->ListMove("src", "dst", ListEnd::kHead, ListEnd::kTail), "a");
  EXPECT_EQ(*store_->ListMove("src", "dst", ListEnd::kTail, ListEnd::kHead), "c");
  EXPECT_EQ(Range("src"), (Items{"b"}));
  EXPECT_EQ(Range("dst"), (Items{"c", "a"}));
  // A one-item list rotates onto itself; moving its last item away deletes it.
  EXPECT_EQ(*store_->ListMove("src", "src", ListEnd::kHead, ListEnd::kTail), "b");
  EXPECT_EQ(Range("src"), (Items{"b"}));
  EXPECT_EQ(*store_->ListMove("src", "dst", ListEnd::kHead, ListEnd::kHead), "b");
  EXPECT_EQ(*store_->Type("src"), KeyType::kNone);
  EXPECT_EQ(Range("dst"), (Items{"b", "c", "a"}));
  EXPECT_EQ(*store_->ListMove("src", "dst", ListEnd::kHead, ListEnd::kHead), std::nullopt);
  // A destination of another kind: refused, and nothing moves.
  ASSERT_TRUE(store_->Set("str", "v").ok());
  EXPECT_EQ(store_->ListMove("dst", "str", ListEnd::kHead, ListEnd::kHead).status().code(),
            StatusCode::kWrongType);
  EXPECT_EQ(Range("dst"), (Items{"b", "c", "a"}));
  EXPECT_EQ(store_->ListMove("str", "dst", ListEnd::kHead, ListEnd::kHead).status().code(),
            StatusCode::kWrongType);
  // An absent source answers nullopt whatever the destination holds.
  EXPECT_EQ(*store_->ListMove("nope", "str", ListEnd::kHead, ListEnd::kHead), std::nullopt);
}

TEST_F(ListTest, KindsOfKeysDoNotMix) {
  ASSERT_TRUE(store_->Set("s", "v").ok());
  const std::vector<std::string_view> one{"a"};
  auto wrong = [](const Status& s) { return s.code() == StatusCode::kWrongType; };
  EXPECT_TRUE(wrong(store_->ListPush("s", one, ListEnd::kHead, false).status()));
  EXPECT_TRUE(wrong(store_->ListPush("s", one, ListEnd::kTail, true).status()));
  EXPECT_TRUE(wrong(store_->ListPop("s", ListEnd::kHead, 0).status()));
  EXPECT_TRUE(wrong(store_->ListLength("s").status()));
  EXPECT_TRUE(wrong(store_->ListRange("s", 0, -1).status()));
  EXPECT_TRUE(wrong(store_->ListIndex("s", 0).status()));
  EXPECT_TRUE(wrong(store_->ListSet("s", 0, "x").status()));
  EXPECT_TRUE(wrong(store_->ListRemove("s", 0, "x").status()));
  EXPECT_TRUE(wrong(store_->ListTrim("s", 0, -1).status()));
  EXPECT_TRUE(wrong(store_->ListInsert("s", true, "a", "b").status()));
  EXPECT_TRUE(wrong(store_->ListPosition("s", "a", {}).status()));
  EXPECT_EQ(*store_->Get("s"), "v");
  Push("l", {"a"});
  EXPECT_TRUE(wrong(store_->Get("l").status()));
  EXPECT_TRUE(wrong(store_->HashGet("l", "a").status()));
  EXPECT_TRUE(wrong(store_->SetAdd("l", one).status()));
  // An unconditional Set replaces a list; its items are gone with it.
  ASSERT_TRUE(store_->Set("l", "now a string").ok());
  EXPECT_EQ(*store_->Get("l"), "now a string");
  ASSERT_TRUE(store_->Delete("l").ok());
  Push("l", {"b"});
  EXPECT_EQ(Range("l"), Items{"b"});
}

TEST_F(ListTest, ExpiryIsTheKeysAndWritesKeepIt) {
  Push("l", {"a"});
  ASSERT_TRUE(*store_->Expire("l", 1000));
  Push("l", {"b"});
  EXPECT_EQ(Pop("l", ListEnd::kHead, 1), Items{"a"});
  EXPECT_EQ(store_->GetTtl("l")->remaining_ms, 1000);
  clock_->Advance(999);
  EXPECT_EQ(Range("l"), Items{"b"});
  clock_->Advance(1);
  EXPECT_EQ(Range("l"), Items{});
  EXPECT_EQ(Length("l"), 0u);
  EXPECT_EQ(Index("l", 0), std::nullopt);
  EXPECT_EQ(*store_->Type("l"), KeyType::kNone);
  EXPECT_EQ(Pop("l", ListEnd::kTail, 1), std::nullopt);
  EXPECT_EQ(*store_->ListSet("l", 0, "x"), ListSetOutcome::kNoSuchKey);
  // Pushing to an expired list starts a new one, without the old items or expiry.
  EXPECT_EQ(Push("l", {"c"}, ListEnd::kHead), 1u);
  EXPECT_EQ(Range("l"), Items{"c"});
  EXPECT_EQ(store_->GetTtl("l")->kind, TtlState::Kind::kNoExpiry);
}

TEST_F(ListTest, TransactionWritesAreAllOrNothing) {
  Push("l", {"a"});
  {
    auto txn = store_->BeginTransaction();
    ASSERT_TRUE(txn.ok());
    EXPECT_EQ(Push(**txn, "l", {"b", "c"}), 3u);
    EXPECT_EQ(Range(**txn, "l"), (Items{"a", "b", "c"}));  // Its own writes.
    EXPECT_EQ(*(*txn)->ListMove("l", "other", ListEnd::kHead, ListEnd::kHead), "a");
    EXPECT_EQ(*(*txn)->ListInsert("l", true, "c", "x"), 3);
    EXPECT_EQ(Range(**txn, "l"), (Items{"b", "x", "c"}));
    (*txn)->Rollback();
  }
  EXPECT_EQ(Range("l"), Items{"a"});
  EXPECT_EQ(*store_->Type("other"), KeyType::kNone);
  Status s = store_->RunTransaction([&](Transaction& txn) -> Status {
    const std::vector<std::string_view> values{"z"};
    auto pushed = txn.ListPush("l", values, ListEnd::kHead, false);
    if (!pushed.ok()) return pushed.status();
    return txn.ListMove("l", "other", ListEnd::kTail, ListEnd::kTail).status();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Range("l"), Items{"z"});
  EXPECT_EQ(Range("other"), Items{"a"});
}

TEST_F(ListTest, RenameMovesItemsAndExpiryAndReplacesTheTarget) {
  Push("src", {"a", "b"});
  Push("src", {"z"}, ListEnd::kHead);  // A head below zero moves too.
  ASSERT_TRUE(*store_->Expire("src", 5000));
  Push("dst", {"old"});
  EXPECT_EQ(*store_->Rename("src", "dst", /*only_if_absent=*/true), RenameOutcome::kTargetExists);
  EXPECT_EQ(*store_->Rename("src", "dst", false), RenameOutcome::kRenamed);
  EXPECT_EQ(*store_->Type("src"), KeyType::kNone);
  EXPECT_EQ(Range("dst"), (Items{"z", "a", "b"}));
  EXPECT_EQ(Index("dst", -1), "b");
  EXPECT_EQ(store_->GetTtl("dst")->remaining_ms, 5000);
  EXPECT_EQ(Push("dst", {"c"}), 4u);
  EXPECT_EQ(*store_->Rename("dst", "dst", false), RenameOutcome::kRenamed);
  EXPECT_EQ(Length("dst"), 4u);
}

TEST_F(ListTest, ScanOfTheKeyspaceReportsLists) {
  Push("l", {"a"});
  auto page = store_->Scan({});
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->entries.size(), 1u);
  EXPECT_EQ(page->entries[0].type, KeyType::kList);
  EXPECT_EQ(page->entries[0].value, "");
}

TEST_F(ListTest, BadInputIsRefusedBeforeAnythingIsWritten) {
  const std::string too_big(kMaxValueBytes + 1, 'v');
  const std::vector<std::string_view> bad{"ok", too_big};
  EXPECT_EQ(store_->ListPush("l", bad, ListEnd::kTail, false).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->ListPush("l", {}, ListEnd::kTail, false).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(*store_->Type("l"), KeyType::kNone);
  Push("l", {"a"});
  EXPECT_EQ(store_->ListSet("l", 0, too_big).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->ListInsert("l", true, "a", too_big).status().code(),
            StatusCode::kInvalidArgument);
  const std::string long_key(kMaxKeyBytes + 1, 'k');
  EXPECT_EQ(store_->ListLength(long_key).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->ListMove("l", long_key, ListEnd::kHead, ListEnd::kHead).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Range("l"), Items{"a"});
}

// A reader outside any transaction sees each write whole: a writer keeps the list at ten or
// eleven consecutive numbers (push one at the tail, pop one at the head), and every range read
// meanwhile must be such a run.
TEST_F(ListTest, ReadsNeverSeeHalfAWrite) {
  for (int i = 0; i < 10; ++i) Push("q", {std::to_string(i)});
  std::atomic<bool> done{false};
  auto write = [&] {
    for (int next = 10; next < 1500; ++next) {
      const std::string value = std::to_string(next);
      const std::vector<std::string_view> values{value};
      ASSERT_TRUE(store_->ListPush("q", values, ListEnd::kTail, false).ok());
      ASSERT_TRUE(store_->ListPop("q", ListEnd::kHead, 1).ok());
      if (next % 50 == 0) {
        // A move to the middle and back: LINSERT then LREM shift items in place.
        ASSERT_EQ(*store_->ListInsert("q", true, std::to_string(next - 5), "m"), 11);
        ASSERT_EQ(*store_->ListRemove("q", 0, "m"), 1u);
      }
    }
  };
  std::thread writer([&] {
    write();
    done = true;
  });
  int reads = 0;
  while (!done) {
    const Items items = Range("q");
    ASSERT_TRUE(items.size() == 10 || items.size() == 11 || items.size() == 12) << items.size();
    std::vector<int> numbers;
    for (const std::string& item : items) {
      if (item != "m") numbers.push_back(std::stoi(item));
    }
    for (std::size_t i = 1; i < numbers.size(); ++i) {
      ASSERT_EQ(numbers[i], numbers[i - 1] + 1) << "read " << reads;
    }
    ++reads;
  }
  writer.join();
  EXPECT_GT(reads, 0);
}

// The size: a million items (kHugeValueMembers). Deleting is one row whatever the size;
// compaction then removes every item of the deleted list, of the expired one and of the one trimmed
// to nothing, and none of the live one.
TEST_F(ListTest, DeletingAMillionItemsIsOneRowAndCompactionReclaimsThem) {
  constexpr std::size_t n = kHugeValueMembers;
  Fill("big", n);
  Fill("expiring", 1'000);
  Fill("trimmed", 1'000);
  Fill("live", 1'000);
  ASSERT_TRUE(*store_->Expire("expiring", 10));
  EXPECT_EQ(MemberRows(), n + 3'000);

  auto before = testing::KeyspaceMemtableEntries(*store_);
  ASSERT_TRUE(before.ok());
  EXPECT_TRUE(*store_->Delete("big"));
  auto after = testing::KeyspaceMemtableEntries(*store_);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after - *before, 1u);  // One keyspace row written, no member row touched.
  EXPECT_EQ(MemberRows(), n + 3'000);
  EXPECT_EQ(Length("big"), 0u);
  clock_->Advance(10);
  EXPECT_EQ(Length("expiring"), 0u);
  EXPECT_EQ(*store_->ListTrim("trimmed", 5, 1), 0u);

  ASSERT_TRUE(store_->Compact().ok());
  EXPECT_EQ(MemberRows(), 1'000u);
  EXPECT_EQ(Length("live"), 1'000u);
  EXPECT_EQ(Range("live").size(), 1'000u);
  EXPECT_EQ(Index("live", 999), "i0000999");
}

TEST_F(ListTest, ItemsSurviveReopen) {
  Push("l", {"a", "b"});
  Push("l", {"z"}, ListEnd::kHead);
  ASSERT_TRUE(store_->Close().ok());
  store_ = OpenOrDie(TestOptions(dir_.path(), clock_));
  EXPECT_EQ(Range("l"), (Items{"z", "a", "b"}));
  EXPECT_EQ(Index("l", 0), "z");
  // Versions keep increasing across the restart: a new list cannot meet old rows.
  ASSERT_TRUE(*store_->Delete("l"));
  Push("l", {"c"});
  EXPECT_EQ(Range("l"), Items{"c"});
  EXPECT_EQ(Length("l"), 1u);
}

}  // namespace
}  // namespace cairn
