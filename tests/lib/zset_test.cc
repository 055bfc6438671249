// Sorted sets in the keyspace: scores and their order over the whole range of doubles, ties
// broken by member bytes, ranges by rank, score and member (bounds, reverse, offset and limit),
// ranks, scans, kinds of keys meeting, expiry on a manual clock, transactions, rename, reopen,
// and the promise that deleting a sorted set of any size is one row, with compaction removing
// its member rows and its score-index rows afterwards (and only those).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <thread>
#include <utility>
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
using Scored = std::vector<std::pair<std::string, double>>;
using Names = std::vector<std::string>;
using Bound = ZRangeRequest::ScoreBound;
using Lex = ZRangeRequest::MemberBound;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Bound Incl(double v) { return {v, false}; }
Bound Excl(double v) { return {v, true}; }
Lex LexIncl(std::string_view v) { return {v, false, false}; }
Lex LexExcl(std::string_view v) { return {v, true, false}; }
const Lex kLexOpen{{}, false, true};

ZRangeRequest ByRank(std::int64_t start, std::int64_t stop, bool reverse = false) {
  ZRangeRequest r;
  r.by = ZRangeRequest::By::kRank;
  r.start = start;
  r.stop = stop;
  r.reverse = reverse;
  return r;
}

ZRangeRequest ByScore(Bound min, Bound max, bool reverse = false, std::int64_t offset = 0,
                      std::int64_t limit = -1) {
  ZRangeRequest r;
  r.by = ZRangeRequest::By::kScore;
  r.min_score = min;
  r.max_score = max;
  r.reverse = reverse;
  r.offset = offset;
  r.limit = limit;
  return r;
}

ZRangeRequest ByLex(Lex min, Lex max, bool reverse = false, std::int64_t offset = 0,
                    std::int64_t limit = -1) {
  ZRangeRequest r;
  r.by = ZRangeRequest::By::kLex;
  r.min_member = min;
  r.max_member = max;
  r.reverse = reverse;
  r.offset = offset;
  r.limit = limit;
  return r;
}

class ZSetTest : public ::testing::Test {
 protected:
  ZSetTest() : clock_(std::make_shared<ManualClock>()) {
    store_ = OpenOrDie(TestOptions(dir_.path(), clock_));
  }

  std::size_t Put(Records& data, std::string_view key, std::vector<ZSetEntry> entries) {
    auto added = data.ZSetPut(key, entries);
    EXPECT_TRUE(added.ok()) << added.status().ToString();
    return added.ok() ? *added : 0;
  }
  std::size_t Put(std::string_view key, std::vector<ZSetEntry> entries) {
    return Put(*store_, key, std::move(entries));
  }
  std::size_t Remove(std::string_view key, std::vector<std::string_view> members) {
    auto removed = store_->ZSetRemove(key, members);
    EXPECT_TRUE(removed.ok()) << removed.status().ToString();
    return removed.ok() ? *removed : 0;
  }
  std::optional<double> Score(Records& data, std::string_view key, std::string_view member) {
    auto got = data.ZSetScore(key, member);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() ? *got : std::nullopt;
  }
  std::optional<double> Score(std::string_view key, std::string_view member) {
    return Score(*store_, key, member);
  }
  std::uint64_t Size(Records& data, std::string_view key) {
    auto n = data.ZSetSize(key);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? *n : 0;
  }
  std::uint64_t Size(std::string_view key) { return Size(*store_, key); }
  Scored Range(Records& data, std::string_view key, const ZRangeRequest& request) {
    Scored out;
    auto got = data.ZSetRange(key, request);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    if (!got.ok()) return out;
    for (ScoredMember& m : *got) out.emplace_back(std::move(m.member), m.score);
    return out;
  }
  Scored Range(std::string_view key, const ZRangeRequest& request) {
    return Range(*store_, key, request);
  }
  // The members alone, in the order the range returns them.
  Names Members(Records& data, std::string_view key, const ZRangeRequest& request) {
    Names out;
    for (auto& [member, score] : Range(data, key, request)) out.push_back(member);
    return out;
  }
  Names Members(std::string_view key, const ZRangeRequest& request) {
    return Members(*store_, key, request);
  }
  std::optional<std::uint64_t> Rank(Records& data, std::string_view key, std::string_view member,
                                    bool reverse = false) {
    auto got = data.ZSetRank(key, member, reverse);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() ? *got : std::nullopt;
  }
  std::optional<std::uint64_t> Rank(std::string_view key, std::string_view member,
                                    bool reverse = false) {
    return Rank(*store_, key, member, reverse);
  }
  // Every member with its score, by ZSetScan, paging `count` at a time.
  Scored All(std::string_view key, std::size_t count = 100) {
    Scored out;
    std::string cursor;
    do {
      auto page = store_->ZSetScan(key, {.cursor = cursor, .count = count});
      EXPECT_TRUE(page.ok()) << page.status().ToString();
      if (!page.ok()) break;
      for (ScoredMember& e : page->entries) out.emplace_back(std::move(e.member), e.score);
      cursor = page->cursor;
    } while (!cursor.empty());
    return out;
  }
  std::size_t MemberRows() {
    auto n = testing::CountRawMemberRows(*store_);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? *n : 0;
  }
  // Writes `n` members m0000000… with scores n-1 … 0 (so that score order is the reverse of
  // member order), 10,000 per call.
  // Fill's i-th member: "m0000042".
  static std::string Name(std::size_t i) {
    char name[24];
    std::snprintf(name, sizeof name, "m%07zu", i);
    return name;
  }
  void Fill(std::string_view key, std::size_t n) {
    for (std::size_t start = 0; start < n; start += 10'000) {
      std::vector<std::string> names;
      std::vector<ZSetEntry> entries;
      for (std::size_t i = start; i < std::min(n, start + 10'000); ++i) {
        names.push_back(Name(i));
      }
      for (std::size_t i = 0; i < names.size(); ++i) {
        entries.push_back({names[i], static_cast<double>(n - 1 - (start + i))});
      }
      ASSERT_EQ(Put(key, entries), entries.size());
    }
  }
  TempDir dir_;
  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<Store> store_;
};

// --- Writing and reading scores ---

TEST_F(ZSetTest, PutCountsNewMembersAndKeepsTheLastScoreOfARepeatedOne) {
  EXPECT_EQ(Put("z", {{"a", 1}, {"b", 2}}), 2u);
  EXPECT_EQ(Put("z", {{"b", 3}, {"c", 4}, {"c", 5}}), 1u);
  EXPECT_EQ(Score("z", "a"), 1.0);
  EXPECT_EQ(Score("z", "b"), 3.0);
  EXPECT_EQ(Score("z", "c"), 5.0);
  EXPECT_EQ(Score("z", "nope"), std::nullopt);
  EXPECT_EQ(Score("missing", "a"), std::nullopt);
  EXPECT_EQ(Size("z"), 3u);
  EXPECT_EQ(Size("missing"), 0u);
  EXPECT_EQ(*store_->Type("z"), KeyType::kZSet);
  EXPECT_EQ(Range("z", ByRank(0, -1)), (Scored{{"a", 1}, {"b", 3}, {"c", 5}}));

  // A new member named twice, moving across the others between its two scores.
  EXPECT_EQ(Put("z", {{"d", 9}, {"d", -1}}), 1u);
  EXPECT_EQ(Score("z", "d"), -1.0);
  EXPECT_EQ(Size("z"), 4u);
  EXPECT_EQ(Range("z", ByRank(0, -1)), (Scored{{"d", -1}, {"a", 1}, {"b", 3}, {"c", 5}}));
  EXPECT_EQ(Members("z", ByScore(Incl(9), Incl(9))), Names{});
  // Writing the scores members already have adds nothing.
  EXPECT_EQ(Put("z", {{"a", 1}, {"b", 3}}), 0u);
  EXPECT_EQ(Size("z"), 4u);
  // One member row and one score-index row per member: no stale index row is left behind.
  EXPECT_EQ(MemberRows(), 8u);

  // The same on a sorted set the call creates (whose writes skip the reads of old scores).
  EXPECT_EQ(Put("fresh", {{"x", 9}, {"y", 2}, {"x", -1}, {"x", -1}}), 2u);
  EXPECT_EQ(Range("fresh", ByRank(0, -1)), (Scored{{"x", -1}, {"y", 2}}));
  EXPECT_EQ(Size("fresh"), 2u);
  EXPECT_EQ(MemberRows(), 12u);
}

TEST_F(ZSetTest, UpdatingAScoreMovesTheMember) {
  ASSERT_EQ(Put("z", {{"a", 1}, {"b", 2}, {"c", 3}}), 3u);
  EXPECT_EQ(Put("z", {{"a", 10}}), 0u);
  EXPECT_EQ(Members("z", ByRank(0, -1)), (Names{"b", "c", "a"}));
  EXPECT_EQ(Members("z", ByScore(Incl(1), Incl(1))), Names{});  // The old score is gone.
  EXPECT_EQ(Range("z", ByScore(Incl(10), Incl(10))), (Scored{{"a", 10}}));
  EXPECT_EQ(Rank("z", "a"), 2u);
  EXPECT_EQ(Rank("z", "a", /*reverse=*/true), 0u);
  EXPECT_EQ(Score("z", "a"), 10.0);
  EXPECT_EQ(Size("z"), 3u);

  // Down again, below everything, then back between two members in one call.
  EXPECT_EQ(Put("z", {{"a", -5}}), 0u);
  EXPECT_EQ(Members("z", ByRank(0, -1)), (Names{"a", "b", "c"}));
  EXPECT_EQ(Put("z", {{"a", 7}, {"a", 2.5}}), 0u);
  EXPECT_EQ(Range("z", ByRank(0, -1)), (Scored{{"b", 2}, {"a", 2.5}, {"c", 3}}));
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Incl(0))), Names{});
  EXPECT_EQ(Members("z", ByScore(Incl(5), Incl(kInf))), Names{});
  EXPECT_EQ(MemberRows(), 6u);
}

TEST_F(ZSetTest, NaNIsRefusedAndNothingIsWritten) {
  const std::vector<ZSetEntry> with_nan{{"a", 1}, {"b", kNaN}};
  EXPECT_EQ(store_->ZSetPut("z", with_nan).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(*store_->Type("z"), KeyType::kNone);
  EXPECT_EQ(MemberRows(), 0u);

  ASSERT_EQ(Put("z", {{"a", 1}}), 1u);
  const std::vector<ZSetEntry> update_with_nan{{"a", 5}, {"c", 2}, {"d", -kNaN}};
  EXPECT_EQ(store_->ZSetPut("z", update_with_nan).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Score("z", "a"), 1.0);
  EXPECT_EQ(Score("z", "c"), std::nullopt);
  EXPECT_EQ(Size("z"), 1u);
  EXPECT_EQ(Range("z", ByRank(0, -1)), (Scored{{"a", 1}}));
  EXPECT_EQ(MemberRows(), 2u);

  // A NaN bound of a score range, and an empty write, are refused too.
  EXPECT_EQ(store_->ZSetRange("z", ByScore(Incl(kNaN), Incl(1))).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->ZSetRange("z", ByScore(Incl(0), Incl(kNaN))).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->ZSetPut("z", {}).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(ZSetTest, MembersLongerThanTheKeyLimitAreRefused) {
  const std::string longest(kMaxKeyBytes, 'm');
  const std::string too_long(kMaxKeyBytes + 1, 'm');
  const std::vector<ZSetEntry> bad{{"a", 1}, {too_long, 2}};
  EXPECT_EQ(store_->ZSetPut("z", bad).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(*store_->Type("z"), KeyType::kNone);
  EXPECT_EQ(MemberRows(), 0u);

  // The longest member allowed, and the empty one, work like any other.
  EXPECT_EQ(Put("z", {{longest, 2}, {"", 1}}), 2u);
  EXPECT_EQ(Score("z", longest), 2.0);
  EXPECT_EQ(Range("z", ByRank(0, -1)), (Scored{{"", 1}, {longest, 2}}));
  EXPECT_EQ(Rank("z", longest), 1u);

  EXPECT_EQ(store_->ZSetScore("z", too_long).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->ZSetRank("z", too_long, false).status().code(), StatusCode::kInvalidArgument);
  const std::vector<std::string_view> remove{"", too_long};
  EXPECT_EQ(store_->ZSetRemove("z", remove).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Size("z"), 2u);
}

// --- Order ---

TEST_F(ZSetTest, ScoresOrderNumericallyOverTheWholeRangeOfDoubles) {
  const double denorm = std::numeric_limits<double>::denorm_min();
  // In ascending order; members named so that member order is not score order.
  const Scored ascending{
      {"q", -kInf},   {"p", -DBL_MAX}, {"o", -1e300},  {"n", -2.5}, {"m", -1},
      {"l", -1e-300}, {"k", -DBL_MIN}, {"j", -denorm}, {"i", 0},    {"h", denorm},
      {"g", DBL_MIN}, {"f", 1e-300},   {"e", 0.5},     {"d", 1},    {"c", 1e300},
      {"b", DBL_MAX}, {"a", kInf},
  };
  // Written in a scrambled order, several calls.
  std::vector<ZSetEntry> entries;
  for (std::size_t i = 0; i < ascending.size(); ++i) {
    const auto& [member, score] = ascending[(i * 7) % ascending.size()];
    entries.push_back({member, score});
  }
  ASSERT_EQ(Put("z", std::vector<ZSetEntry>(entries.begin(), entries.begin() + 5)), 5u);
  ASSERT_EQ(Put("z", std::vector<ZSetEntry>(entries.begin() + 5, entries.end())),
            ascending.size() - 5);

  EXPECT_EQ(Range("z", ByRank(0, -1)), ascending);
  EXPECT_EQ(Range("z", ByScore(Incl(-kInf), Incl(kInf))), ascending);
  const Scored descending(ascending.rbegin(), ascending.rend());
  EXPECT_EQ(Range("z", ByRank(0, -1, /*reverse=*/true)), descending);
  EXPECT_EQ(Range("z", ByScore(Incl(-kInf), Incl(kInf), /*reverse=*/true)), descending);
  // Exclusive infinite bounds leave out the infinite scores only.
  EXPECT_EQ(Range("z", ByScore(Excl(-kInf), Excl(kInf))),
            Scored(ascending.begin() + 1, ascending.end() - 1));
  EXPECT_EQ(Range("z", ByScore(Excl(-kInf), Excl(kInf), true)),
            Scored(descending.begin() + 1, descending.end() - 1));
  // Bounds between neighbours that differ in the last bit.
  EXPECT_EQ(Members("z", ByScore(Excl(-DBL_MIN), Excl(DBL_MIN))), (Names{"j", "i", "h"}));
  EXPECT_EQ(Members("z", ByScore(Incl(denorm), Incl(denorm))), Names{"h"});
  EXPECT_EQ(Members("z", ByScore(Incl(-denorm), Incl(-denorm), true)), Names{"j"});
  EXPECT_EQ(Members("z", ByScore(Incl(DBL_MAX), Incl(kInf), true)), (Names{"a", "b"}));
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Incl(-DBL_MAX), true)), (Names{"p", "q"}));
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Incl(-kInf))), Names{"q"});
  EXPECT_EQ(Members("z", ByScore(Incl(kInf), Incl(kInf), true)), Names{"a"});

  for (std::size_t i = 0; i < ascending.size(); ++i) {
    const auto& [member, score] = ascending[i];
    EXPECT_EQ(Score("z", member), score) << member;  // Exact, infinities included.
    EXPECT_EQ(Rank("z", member), i) << member;
    EXPECT_EQ(Rank("z", member, true), ascending.size() - 1 - i) << member;
  }
  Scored by_member = ascending;
  std::sort(by_member.begin(), by_member.end());
  EXPECT_EQ(All("z", 4), by_member);
}

TEST_F(ZSetTest, EqualScoresOrderByMemberBytes) {
  const std::string nul("\0", 1), a_nul("a\0", 2), a_ff("a\xff", 2), ff("\xff", 1),
      ff_nul("\xff\0", 2);
  // Byte order, 0x00 lowest and 0xFF highest (unsigned).
  const Names bytewise{"", nul, "A", "a", a_nul, "ab", a_ff, "b", ff, ff_nul};
  ASSERT_EQ(Put("z", {{"b", 1}, {ff_nul, 1}, {a_ff, 1}, {"a", 1}, {"", 1}}), 5u);
  ASSERT_EQ(Put("z", {{ff, 1}, {"ab", 1}, {nul, 1}, {a_nul, 1}, {"A", 1}}), 5u);
  EXPECT_EQ(Members("z", ByRank(0, -1)), bytewise);
  EXPECT_EQ(Members("z", ByScore(Incl(1), Incl(1))), bytewise);
  EXPECT_EQ(Members("z", ByRank(0, -1, true)), Names(bytewise.rbegin(), bytewise.rend()));
  EXPECT_EQ(Members("z", ByScore(Incl(1), Incl(1), true)),
            Names(bytewise.rbegin(), bytewise.rend()));
  for (std::size_t i = 0; i < bytewise.size(); ++i) {
    EXPECT_EQ(Rank("z", bytewise[i]), i) << i;
    EXPECT_EQ(Score("z", bytewise[i]), 1.0) << i;
  }
  Names scanned;
  for (auto& [member, score] : All("z", 3)) scanned.push_back(member);
  EXPECT_EQ(scanned, bytewise);

  // Ties among other scores: score first, member bytes second.
  ASSERT_EQ(Put("y", {{"b", 2}, {"a", 2}, {ff, 0}, {nul, 0}, {"c", 1}}), 5u);
  EXPECT_EQ(Members("y", ByRank(0, -1)), (Names{nul, ff, "c", "a", "b"}));
  EXPECT_EQ(Members("y", ByScore(Incl(0), Excl(2), true)), (Names{"c", ff, nul}));
}

TEST_F(ZSetTest, NegativeZeroAndZeroAreEqual) {
  ASSERT_EQ(Put("z", {{"b", -0.0}, {"a", 0.0}, {"c", -1}, {"d", 1}}), 4u);
  EXPECT_EQ(Members("z", ByRank(0, -1)), (Names{"c", "a", "b", "d"}));
  EXPECT_EQ(Score("z", "b"), 0.0);
  EXPECT_FALSE(std::signbit(*Score("z", "b")));  // Stored as 0: no negative zero comes back.
  // -0 replaces 0 (and the other way round) as no change at all.
  EXPECT_EQ(Put("z", {{"a", -0.0}, {"b", 0.0}}), 0u);
  EXPECT_EQ(Members("z", ByRank(0, -1)), (Names{"c", "a", "b", "d"}));
  EXPECT_EQ(MemberRows(), 8u);
  EXPECT_EQ(Members("z", ByScore(Incl(0.0), Incl(0.0))), (Names{"a", "b"}));
  EXPECT_EQ(Members("z", ByScore(Incl(-0.0), Incl(-0.0))), (Names{"a", "b"}));
  EXPECT_EQ(Members("z", ByScore(Incl(-0.0), Incl(0.0), true)), (Names{"b", "a"}));
  EXPECT_EQ(Members("z", ByScore(Excl(-0.0), Incl(kInf))), Names{"d"});
  EXPECT_EQ(Members("z", ByScore(Excl(0.0), Incl(kInf))), Names{"d"});
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Excl(0.0))), Names{"c"});
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Excl(-0.0), true)), Names{"c"});
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Incl(-0.0), true)), (Names{"b", "a", "c"}));
  EXPECT_EQ(Rank("z", "a"), 1u);
  EXPECT_EQ(Rank("z", "b"), 2u);
}

// --- Ranges ---

TEST_F(ZSetTest, RangeByRank) {
  ASSERT_EQ(Put("z", {{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}, {"e", 5}}), 5u);
  EXPECT_EQ(Range("z", ByRank(0, -1)), (Scored{{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}, {"e", 5}}));
  EXPECT_EQ(Members("z", ByRank(0, 0)), Names{"a"});
  EXPECT_EQ(Members("z", ByRank(1, 3)), (Names{"b", "c", "d"}));
  EXPECT_EQ(Members("z", ByRank(-2, -1)), (Names{"d", "e"}));
  EXPECT_EQ(Members("z", ByRank(-1, -1)), Names{"e"});
  EXPECT_EQ(Members("z", ByRank(1, -2)), (Names{"b", "c", "d"}));
  // Out of range: clamped at both ends; nothing when the whole range lies outside.
  EXPECT_EQ(Members("z", ByRank(-100, 1)), (Names{"a", "b"}));
  EXPECT_EQ(Members("z", ByRank(3, 100)), (Names{"d", "e"}));
  EXPECT_EQ(Members("z", ByRank(-100, 100)), (Names{"a", "b", "c", "d", "e"}));
  EXPECT_EQ(Members("z", ByRank(std::numeric_limits<std::int64_t>::min(),
                                std::numeric_limits<std::int64_t>::max())),
            (Names{"a", "b", "c", "d", "e"}));
  EXPECT_EQ(Members("z", ByRank(5, 10)), Names{});
  EXPECT_EQ(Members("z", ByRank(-100, -50)), Names{});
  EXPECT_EQ(Members("z", ByRank(-100, -6)), Names{});
  // start > stop.
  EXPECT_EQ(Members("z", ByRank(3, 1)), Names{});
  EXPECT_EQ(Members("z", ByRank(-1, -2)), Names{});
  EXPECT_EQ(Members("z", ByRank(4, -2)), Names{});
  // Reversed: ranks count from the highest score.
  EXPECT_EQ(Members("z", ByRank(0, -1, true)), (Names{"e", "d", "c", "b", "a"}));
  EXPECT_EQ(Members("z", ByRank(0, 1, true)), (Names{"e", "d"}));
  EXPECT_EQ(Members("z", ByRank(1, 3, true)), (Names{"d", "c", "b"}));
  EXPECT_EQ(Range("z", ByRank(-2, -1, true)), (Scored{{"b", 2}, {"a", 1}}));
  EXPECT_EQ(Members("z", ByRank(-100, 0, true)), Names{"e"});
  EXPECT_EQ(Members("z", ByRank(10, 20, true)), Names{});
  EXPECT_EQ(Members("z", ByRank(2, 1, true)), Names{});
  // An absent key is an empty set.
  EXPECT_EQ(Members("missing", ByRank(0, -1)), Names{});
  EXPECT_EQ(Members("missing", ByRank(0, -1, true)), Names{});
}

TEST_F(ZSetTest, RangeByScore) {
  ASSERT_EQ(Put("z", {{"a", 1}, {"b", 2}, {"c", 2}, {"d", 3}, {"e", 4}, {"f", 5}}), 6u);
  const Names all{"a", "b", "c", "d", "e", "f"};
  EXPECT_EQ(Range("z", ByScore(Incl(2), Incl(4))),
            (Scored{{"b", 2}, {"c", 2}, {"d", 3}, {"e", 4}}));
  EXPECT_EQ(Members("z", ByScore(Excl(2), Incl(4))), (Names{"d", "e"}));
  EXPECT_EQ(Members("z", ByScore(Incl(2), Excl(4))), (Names{"b", "c", "d"}));
  EXPECT_EQ(Members("z", ByScore(Excl(2), Excl(4))), Names{"d"});
  EXPECT_EQ(Members("z", ByScore(Excl(2), Excl(3))), Names{});
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Incl(kInf))), all);
  EXPECT_EQ(Members("z", ByScore(Excl(-kInf), Excl(kInf))), all);
  EXPECT_EQ(Members("z", ByScore(Incl(1.5), Incl(3.5))), (Names{"b", "c", "d"}));
  EXPECT_EQ(Members("z", ByScore(Incl(2.5), Incl(2.9))), Names{});
  EXPECT_EQ(Members("z", ByScore(Incl(6), Incl(kInf))), Names{});
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Excl(1))), Names{});
  EXPECT_EQ(Members("z", ByScore(Incl(4), Incl(2))), Names{});  // min > max
  EXPECT_EQ(Members("z", ByScore(Incl(3), Excl(3))), Names{});

  // Reversed: from max down to min.
  EXPECT_EQ(Members("z", ByScore(Incl(2), Incl(4), true)), (Names{"e", "d", "c", "b"}));
  EXPECT_EQ(Members("z", ByScore(Excl(2), Excl(4), true)), Names{"d"});
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Incl(kInf), true)), Names(all.rbegin(), all.rend()));
  EXPECT_EQ(Members("z", ByScore(Incl(4), Incl(2), true)), Names{});
  EXPECT_EQ(Members("z", ByScore(Incl(2.5), Incl(2.9), true)), Names{});
  EXPECT_EQ(Members("z", ByScore(Incl(10), Incl(20), true)), Names{});
  EXPECT_EQ(Members("z", ByScore(Incl(-20), Incl(-10), true)), Names{});
  // A max bound equal to a stored score, in reverse: inclusive takes that score's members
  // (the highest member first), exclusive starts below them.
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Incl(3), true)), (Names{"d", "c", "b", "a"}));
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Excl(3), true)), (Names{"c", "b", "a"}));
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Incl(2), true)), (Names{"c", "b", "a"}));
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Excl(2), true)), Names{"a"});
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Incl(5), true)), Names(all.rbegin(), all.rend()));
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Excl(5), true)), (Names{"e", "d", "c", "b", "a"}));
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Incl(1), true)), Names{"a"});
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Excl(1), true)), Names{});
  EXPECT_EQ(Members("z", ByScore(Excl(2), Incl(2), true)), Names{});
  EXPECT_EQ(Members("z", ByScore(Incl(2), Incl(2), true)), (Names{"c", "b"}));

  // Offset and limit, forward and reversed.
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Incl(kInf), false, 1, 2)), (Names{"b", "c"}));
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Incl(kInf), false, 2, -1)),
            (Names{"c", "d", "e", "f"}));
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Incl(kInf), false, 0, 100)), all);
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Incl(kInf), false, 5, 5)), Names{"f"});
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Incl(kInf), false, 6, 5)), Names{});
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Incl(kInf), false, 100, -1)), Names{});
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Incl(kInf), false, 0, 0)), Names{});
  EXPECT_EQ(Members("z", ByScore(Excl(1), Incl(4), false, 1, 2)), (Names{"c", "d"}));
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Incl(kInf), true, 1, 2)), (Names{"e", "d"}));
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Excl(4), true, 1, -1)), (Names{"c", "b", "a"}));
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Incl(kInf), true, 10, 1)), Names{});

  // Infinite scores, reached by infinite bounds.
  ASSERT_EQ(Put("i", {{"lo", -kInf}, {"mid", 0}, {"hi", kInf}}), 3u);
  EXPECT_EQ(Members("i", ByScore(Incl(-kInf), Incl(kInf))), (Names{"lo", "mid", "hi"}));
  EXPECT_EQ(Members("i", ByScore(Excl(-kInf), Incl(kInf))), (Names{"mid", "hi"}));
  EXPECT_EQ(Members("i", ByScore(Incl(-kInf), Excl(kInf), true)), (Names{"mid", "lo"}));
  EXPECT_EQ(Members("i", ByScore(Incl(kInf), Incl(kInf))), Names{"hi"});
  EXPECT_EQ(Members("i", ByScore(Incl(-kInf), Incl(-kInf), true)), Names{"lo"});
  EXPECT_EQ(Members("i", ByScore(Excl(-kInf), Excl(kInf), true)), Names{"mid"});
  EXPECT_EQ(Members("i", ByScore(Incl(DBL_MAX), Incl(kInf), true)), Names{"hi"});
  EXPECT_EQ(Members("missing", ByScore(Incl(-kInf), Incl(kInf), true)), Names{});
}

TEST_F(ZSetTest, RangeByLexAmongEqualScores) {
  ASSERT_EQ(Put("z", {{"e", 0}, {"a", 0}, {"c", 0}, {"g", 0}, {"b", 0}, {"f", 0}, {"d", 0}}), 7u);
  const Names all{"a", "b", "c", "d", "e", "f", "g"};
  EXPECT_EQ(Members("z", ByLex(kLexOpen, kLexOpen)), all);
  EXPECT_EQ(Range("z", ByLex(LexIncl("b"), LexIncl("d"))), (Scored{{"b", 0}, {"c", 0}, {"d", 0}}));
  EXPECT_EQ(Members("z", ByLex(LexExcl("b"), LexIncl("d"))), (Names{"c", "d"}));
  EXPECT_EQ(Members("z", ByLex(LexIncl("b"), LexExcl("d"))), (Names{"b", "c"}));
  EXPECT_EQ(Members("z", ByLex(LexExcl("b"), LexExcl("d"))), Names{"c"});
  EXPECT_EQ(Members("z", ByLex(LexExcl("b"), LexExcl("c"))), Names{});
  EXPECT_EQ(Members("z", ByLex(kLexOpen, LexExcl("c"))), (Names{"a", "b"}));
  EXPECT_EQ(Members("z", ByLex(kLexOpen, LexIncl("c"))), (Names{"a", "b", "c"}));
  EXPECT_EQ(Members("z", ByLex(LexIncl("e"), kLexOpen)), (Names{"e", "f", "g"}));
  EXPECT_EQ(Members("z", ByLex(LexExcl("e"), kLexOpen)), (Names{"f", "g"}));
  // Bounds between members, and bounds outside them all.
  EXPECT_EQ(Members("z", ByLex(LexIncl("bb"), LexIncl("dd"))), (Names{"c", "d"}));
  EXPECT_EQ(Members("z", ByLex(LexExcl("bb"), LexExcl("dd"))), (Names{"c", "d"}));
  EXPECT_EQ(Members("z", ByLex(LexIncl(""), LexIncl("zz"))), all);
  EXPECT_EQ(Members("z", ByLex(LexIncl("h"), kLexOpen)), Names{});
  EXPECT_EQ(Members("z", ByLex(kLexOpen, LexExcl("a"))), Names{});
  EXPECT_EQ(Members("z", ByLex(LexIncl("d"), LexIncl("b"))), Names{});  // min > max

  // Reversed.
  EXPECT_EQ(Members("z", ByLex(kLexOpen, kLexOpen, true)), Names(all.rbegin(), all.rend()));
  EXPECT_EQ(Members("z", ByLex(LexIncl("b"), LexIncl("d"), true)), (Names{"d", "c", "b"}));
  EXPECT_EQ(Members("z", ByLex(LexExcl("b"), LexExcl("d"), true)), Names{"c"});
  EXPECT_EQ(Members("z", ByLex(LexIncl("b"), LexExcl("d"), true)), (Names{"c", "b"}));
  EXPECT_EQ(Members("z", ByLex(LexExcl("e"), kLexOpen, true)), (Names{"g", "f"}));
  EXPECT_EQ(Members("z", ByLex(kLexOpen, LexExcl("c"), true)), (Names{"b", "a"}));
  EXPECT_EQ(Members("z", ByLex(kLexOpen, LexIncl("c"), true)), (Names{"c", "b", "a"}));
  EXPECT_EQ(Members("z", ByLex(LexIncl("bb"), LexIncl("dd"), true)), (Names{"d", "c"}));
  EXPECT_EQ(Members("z", ByLex(LexIncl("d"), LexIncl("b"), true)), Names{});

  // Offset and limit.
  EXPECT_EQ(Members("z", ByLex(kLexOpen, kLexOpen, false, 2, 3)), (Names{"c", "d", "e"}));
  EXPECT_EQ(Members("z", ByLex(kLexOpen, kLexOpen, false, 5, -1)), (Names{"f", "g"}));
  EXPECT_EQ(Members("z", ByLex(LexExcl("a"), LexIncl("f"), false, 1, 2)), (Names{"c", "d"}));
  EXPECT_EQ(Members("z", ByLex(kLexOpen, kLexOpen, true, 1, 2)), (Names{"f", "e"}));
  EXPECT_EQ(Members("z", ByLex(kLexOpen, LexExcl("f"), true, 1, -1)), (Names{"d", "c", "b", "a"}));
  EXPECT_EQ(Members("z", ByLex(kLexOpen, kLexOpen, false, 7, 1)), Names{});
  EXPECT_EQ(Members("z", ByLex(kLexOpen, kLexOpen, false, 0, 0)), Names{});
  EXPECT_EQ(Members("missing", ByLex(kLexOpen, kLexOpen)), Names{});

  // Binary members and bounds.
  const std::string nul("\0", 1), a_nul("a\0", 2), ff("\xff", 1);
  ASSERT_EQ(Put("bin", {{ff, 0}, {"a", 0}, {a_nul, 0}, {nul, 0}}), 4u);
  EXPECT_EQ(Members("bin", ByLex(kLexOpen, kLexOpen)), (Names{nul, "a", a_nul, ff}));
  EXPECT_EQ(Members("bin", ByLex(LexExcl("a"), kLexOpen)), (Names{a_nul, ff}));
  EXPECT_EQ(Members("bin", ByLex(LexExcl(nul), LexIncl(a_nul), true)), (Names{a_nul, "a"}));
  EXPECT_EQ(Members("bin", ByLex(kLexOpen, LexExcl(ff), true)), (Names{a_nul, "a", nul}));
}

TEST_F(ZSetTest, RankForwardAndReverse) {
  ASSERT_EQ(Put("z", {{"c", 3}, {"a", 1}, {"b", 2}, {"b2", 2}}), 4u);
  EXPECT_EQ(Rank("z", "a"), 0u);
  EXPECT_EQ(Rank("z", "b"), 1u);
  EXPECT_EQ(Rank("z", "b2"), 2u);
  EXPECT_EQ(Rank("z", "c"), 3u);
  EXPECT_EQ(Rank("z", "a", true), 3u);
  EXPECT_EQ(Rank("z", "b", true), 2u);
  EXPECT_EQ(Rank("z", "b2", true), 1u);
  EXPECT_EQ(Rank("z", "c", true), 0u);
  EXPECT_EQ(Rank("z", "nope"), std::nullopt);
  EXPECT_EQ(Rank("z", "nope", true), std::nullopt);
  EXPECT_EQ(Rank("missing", "a"), std::nullopt);
  // A rank follows its member's score.
  ASSERT_EQ(Put("z", {{"a", 4}}), 0u);
  EXPECT_EQ(Rank("z", "a"), 3u);
  EXPECT_EQ(Rank("z", "a", true), 0u);
  EXPECT_EQ(Rank("z", "c"), 2u);
  const std::vector<std::string_view> b{"b"};
  ASSERT_EQ(*store_->ZSetRemove("z", b), 1u);
  EXPECT_EQ(Rank("z", "b"), std::nullopt);
  EXPECT_EQ(Rank("z", "b2"), 0u);
  EXPECT_EQ(Rank("z", "b2", true), 2u);
}

// --- Removal and kinds of keys ---

TEST_F(ZSetTest, RemoveCountsAndRemovingTheLastMemberDeletesTheKey) {
  ASSERT_EQ(Put("z", {{"a", 1}, {"b", 2}, {"c", 3}}), 3u);
  EXPECT_EQ(Remove("z", {"a", "a", "zz"}), 1u);
  EXPECT_EQ(Size("z"), 2u);
  EXPECT_EQ(Score("z", "a"), std::nullopt);
  EXPECT_EQ(Members("z", ByScore(Incl(-kInf), Incl(kInf))), (Names{"b", "c"}));
  EXPECT_EQ(Members("z", ByLex(kLexOpen, kLexOpen)), (Names{"b", "c"}));
  EXPECT_EQ(MemberRows(), 4u);  // The removed member's score-index row went with it.
  EXPECT_EQ(Remove("z", {"nope"}), 0u);
  EXPECT_EQ(Remove("z", {"b", "c"}), 2u);
  EXPECT_EQ(*store_->Type("z"), KeyType::kNone);
  EXPECT_EQ(store_->GetTtl("z")->kind, TtlState::Kind::kMissing);
  EXPECT_TRUE(store_->Scan({})->entries.empty());
  EXPECT_EQ(Size("z"), 0u);
  EXPECT_EQ(Members("z", ByRank(0, -1)), Names{});
  EXPECT_FALSE(*store_->Delete("z"));
  EXPECT_EQ(MemberRows(), 0u);
  EXPECT_EQ(Remove("z", {"b"}), 0u);
  EXPECT_EQ(Remove("missing", {"b"}), 0u);
}

TEST_F(ZSetTest, KindsOfKeysDoNotMix) {
  ASSERT_TRUE(store_->Set("s", "v").ok());
  const HashField f{"a", "1"};
  ASSERT_TRUE(store_->HashSet("h", {&f, 1}).ok());
  const std::string_view a = "a";
  ASSERT_TRUE(store_->SetAdd("t", {&a, 1}).ok());
  ASSERT_EQ(Put("z", {{"a", 1}}), 1u);

  const ZSetEntry e{"a", 1};
  for (std::string_view key : {"s", "h", "t"}) {
    SCOPED_TRACE(key);
    EXPECT_EQ(store_->ZSetPut(key, {&e, 1}).status().code(), StatusCode::kWrongType);
    EXPECT_EQ(store_->ZSetScore(key, "a").status().code(), StatusCode::kWrongType);
    EXPECT_EQ(store_->ZSetRemove(key, {&a, 1}).status().code(), StatusCode::kWrongType);
    EXPECT_EQ(store_->ZSetSize(key).status().code(), StatusCode::kWrongType);
    EXPECT_EQ(store_->ZSetRange(key, ByRank(0, -1)).status().code(), StatusCode::kWrongType);
    EXPECT_EQ(store_->ZSetRange(key, ByScore(Incl(-kInf), Incl(kInf))).status().code(),
              StatusCode::kWrongType);
    EXPECT_EQ(store_->ZSetRange(key, ByLex(kLexOpen, kLexOpen)).status().code(),
              StatusCode::kWrongType);
    EXPECT_EQ(store_->ZSetRank(key, "a", false).status().code(), StatusCode::kWrongType);
    EXPECT_EQ(store_->ZSetScan(key, {}).status().code(), StatusCode::kWrongType);
  }
  // String, hash and set calls on the sorted set.
  EXPECT_EQ(store_->Get("z").status().code(), StatusCode::kWrongType);
  EXPECT_EQ(store_->IncrBy("z", 1).status().code(), StatusCode::kWrongType);
  EXPECT_EQ(store_->CompareAndSwap("z", "x", "y").status().code(), StatusCode::kWrongType);
  EXPECT_EQ(store_->CompareAndDelete("z", "x").status().code(), StatusCode::kWrongType);
  EXPECT_EQ(store_->Set("z", "v", {.return_old = true}).status().code(), StatusCode::kWrongType);
  EXPECT_EQ(store_->HashGet("z", "a").status().code(), StatusCode::kWrongType);
  EXPECT_EQ(store_->HashSet("z", {&f, 1}).status().code(), StatusCode::kWrongType);
  EXPECT_EQ(store_->HashLength("z").status().code(), StatusCode::kWrongType);
  EXPECT_EQ(store_->SetAdd("z", {&a, 1}).status().code(), StatusCode::kWrongType);
  EXPECT_EQ(store_->SetContains("z", "a").status().code(), StatusCode::kWrongType);
  EXPECT_EQ(store_->SetSize("z").status().code(), StatusCode::kWrongType);
  // None of that changed anything.
  EXPECT_EQ(*store_->Get("s"), "v");
  EXPECT_EQ(*store_->Type("h"), KeyType::kHash);
  EXPECT_EQ(*store_->Type("t"), KeyType::kSet);
  EXPECT_EQ(Range("z", ByRank(0, -1)), (Scored{{"a", 1}}));

  // An unconditional Set replaces a sorted set; its members are gone with it.
  ASSERT_TRUE(store_->Set("z", "now a string").ok());
  EXPECT_EQ(*store_->Get("z"), "now a string");
  EXPECT_EQ(store_->ZSetSize("z").status().code(), StatusCode::kWrongType);
  ASSERT_TRUE(*store_->Delete("z"));
  EXPECT_EQ(Put("z", {{"b", 2}}), 1u);
  EXPECT_EQ(Score("z", "a"), std::nullopt);
  EXPECT_EQ(Range("z", ByRank(0, -1)), (Scored{{"b", 2}}));
}

TEST_F(ZSetTest, KeyspaceScanReportsSortedSets) {
  ASSERT_TRUE(store_->Set("a", "v").ok());
  ASSERT_EQ(Put("b", {{"m", 1}}), 1u);
  auto page = store_->Scan({});
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->entries.size(), 2u);
  EXPECT_EQ(page->entries[0].type, KeyType::kString);
  EXPECT_EQ(page->entries[1].key, "b");
  EXPECT_EQ(page->entries[1].type, KeyType::kZSet);
  EXPECT_EQ(page->entries[1].value, "");
}

// --- Scans ---

TEST_F(ZSetTest, ScanPagesThroughEveryMemberOnceInByteOrder) {
  std::map<std::string, double> expected;
  std::vector<std::string> names;
  for (int i = 0; i < 250; ++i) {
    names.push_back("m" + std::to_string(i));
    expected[names.back()] = (i * 7919) % 1000 - 500.25;
  }
  // Members that are prefixes of one another, with the bytes the cursor appends.
  for (std::string name : {std::string("a"), std::string("a\0", 2), std::string("a\0\0", 3),
                           std::string("a\xff", 2), std::string("\xff\xff", 2), std::string()}) {
    names.push_back(name);
    expected[name] = -1;
  }
  std::vector<ZSetEntry> entries;
  for (const std::string& name : names) entries.push_back({name, expected[name]});
  ASSERT_EQ(Put("z", entries), expected.size());

  const Scored want(expected.begin(), expected.end());  // std::map: byte order.
  for (std::size_t count : {1u, 7u, 100u, 1000u}) {
    SCOPED_TRACE(count);
    EXPECT_EQ(All("z", count), want);
  }
  EXPECT_EQ(store_->ZSetScan("z", {.count = 0}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->ZSetScan("z", {.count = kMaxScanCount + 1}).status().code(),
            StatusCode::kInvalidArgument);
  auto missing = store_->ZSetScan("missing", {});
  ASSERT_TRUE(missing.ok());
  EXPECT_TRUE(missing->entries.empty());
  EXPECT_TRUE(missing->cursor.empty());
}

// --- Expiry ---

TEST_F(ZSetTest, ExpiryIsTheKeysAndAnExpiredSortedSetIsGoneForEveryCall) {
  ASSERT_EQ(Put("z", {{"a", 1}, {"b", 2}}), 2u);
  ASSERT_TRUE(*store_->Expire("z", 1000));
  EXPECT_EQ(Put("z", {{"c", 3}, {"a", 0}}), 1u);  // Writes keep the expiry.
  EXPECT_EQ(store_->GetTtl("z")->remaining_ms, 1000);
  clock_->Advance(999);
  EXPECT_EQ(Score("z", "c"), 3.0);
  EXPECT_EQ(Size("z"), 3u);
  clock_->Advance(1);

  EXPECT_EQ(Score("z", "a"), std::nullopt);
  EXPECT_EQ(Size("z"), 0u);
  EXPECT_EQ(Range("z", ByRank(0, -1)), Scored{});
  EXPECT_EQ(Range("z", ByRank(0, -1, true)), Scored{});
  EXPECT_EQ(Range("z", ByScore(Incl(-kInf), Incl(kInf))), Scored{});
  EXPECT_EQ(Range("z", ByScore(Incl(-kInf), Incl(kInf), true)), Scored{});
  EXPECT_EQ(Range("z", ByLex(kLexOpen, kLexOpen)), Scored{});
  EXPECT_EQ(Rank("z", "a"), std::nullopt);
  EXPECT_EQ(Rank("z", "c", true), std::nullopt);
  EXPECT_EQ(All("z"), Scored{});
  EXPECT_EQ(*store_->Type("z"), KeyType::kNone);
  EXPECT_EQ(store_->GetTtl("z")->kind, TtlState::Kind::kMissing);
  EXPECT_TRUE(store_->Scan({})->entries.empty());
  EXPECT_EQ(Remove("z", {"a", "b"}), 0u);
  EXPECT_FALSE(*store_->Expire("z", 1000));
  EXPECT_FALSE(*store_->Persist("z"));
  EXPECT_FALSE(*store_->Delete("z"));
  EXPECT_EQ(*store_->Rename("z", "elsewhere", false), RenameOutcome::kNoSuchKey);
  // Other kinds may take the key now.
  ASSERT_TRUE(store_->Set("other", "x").ok());

  // A new sorted set under the same key starts empty, without the old expiry.
  EXPECT_EQ(Put("z", {{"d", 4}, {"a", 5}}), 2u);
  EXPECT_EQ(Range("z", ByRank(0, -1)), (Scored{{"d", 4}, {"a", 5}}));
  EXPECT_EQ(Range("z", ByScore(Incl(-kInf), Incl(kInf))), (Scored{{"d", 4}, {"a", 5}}));
  EXPECT_EQ(All("z"), (Scored{{"a", 5}, {"d", 4}}));
  EXPECT_EQ(Score("z", "b"), std::nullopt);
  EXPECT_EQ(Rank("z", "c"), std::nullopt);
  EXPECT_EQ(Size("z"), 2u);
  EXPECT_EQ(store_->GetTtl("z")->kind, TtlState::Kind::kNoExpiry);

  // ExpireAt at or before now deletes at once; Persist keeps the set.
  ASSERT_TRUE(*store_->Expire("z", 50));
  ASSERT_TRUE(*store_->Persist("z"));
  clock_->Advance(100);
  EXPECT_EQ(Size("z"), 2u);
  ASSERT_TRUE(*store_->ExpireAt("z", clock_->NowMs()));
  EXPECT_EQ(*store_->Type("z"), KeyType::kNone);
  EXPECT_EQ(Members("z", ByRank(0, -1)), Names{});

  // Compaction removes the rows of the expired and of the deleted incarnations.
  ASSERT_TRUE(store_->Compact().ok());
  EXPECT_EQ(MemberRows(), 0u);
}

// --- Transactions, rename, reopen ---

TEST_F(ZSetTest, TransactionsSeeTheirOwnWritesAndCommitAllOrNothing) {
  ASSERT_EQ(Put("z", {{"a", 1}, {"b", 2}}), 2u);
  {
    auto txn = store_->BeginTransaction();
    ASSERT_TRUE(txn.ok());
    Transaction& t = **txn;
    EXPECT_EQ(Put(t, "z", {{"c", 0}, {"a", 3}}), 1u);
    EXPECT_EQ(Put(t, "new", {{"x", 2}, {"y", 1}}), 2u);
    // Its own writes, through every kind of range.
    EXPECT_EQ(Range(t, "z", ByRank(0, -1)), (Scored{{"c", 0}, {"b", 2}, {"a", 3}}));
    EXPECT_EQ(Members(t, "z", ByRank(0, -1, true)), (Names{"a", "b", "c"}));
    EXPECT_EQ(Members(t, "z", ByScore(Incl(1), Incl(3))), (Names{"b", "a"}));
    EXPECT_EQ(Members(t, "z", ByScore(Incl(-kInf), Incl(2), true)), (Names{"b", "c"}));
    EXPECT_EQ(Members(t, "z", ByLex(LexExcl("a"), kLexOpen)), (Names{"b", "c"}));
    EXPECT_EQ(Members(t, "new", ByRank(0, -1)), (Names{"y", "x"}));
    EXPECT_EQ(Members(t, "new", ByRank(0, 0, true)), Names{"x"});
    EXPECT_EQ(Members(t, "new", ByScore(Incl(-kInf), Incl(kInf), true)), (Names{"x", "y"}));
    EXPECT_EQ(Score(t, "z", "a"), 3.0);
    EXPECT_EQ(Size(t, "z"), 3u);
    EXPECT_EQ(Rank(t, "z", "a"), 2u);
    auto page = t.ZSetScan("z", {});
    ASSERT_TRUE(page.ok());
    EXPECT_EQ(page->entries.size(), 3u);
    // Not yet anyone else's.
    EXPECT_EQ(Range("z", ByRank(0, -1)), (Scored{{"a", 1}, {"b", 2}}));
    EXPECT_EQ(*store_->Type("new"), KeyType::kNone);
    (*txn)->Rollback();
  }
  EXPECT_EQ(Range("z", ByRank(0, -1)), (Scored{{"a", 1}, {"b", 2}}));
  EXPECT_EQ(*store_->Type("new"), KeyType::kNone);
  EXPECT_EQ(MemberRows(), 4u);

  Names seen;
  Status s = store_->RunTransaction([&](Transaction& txn) -> Status {
    const std::vector<ZSetEntry> entries{{"c", 0}, {"a", 3}};
    auto added = txn.ZSetPut("z", entries);
    if (!added.ok()) return added.status();
    const std::vector<std::string_view> gone{"b"};
    auto removed = txn.ZSetRemove("z", gone);
    if (!removed.ok()) return removed.status();
    auto range = txn.ZSetRange("z", ByRank(0, -1));
    if (!range.ok()) return range.status();
    seen.clear();
    for (const ScoredMember& m : *range) seen.push_back(m.member);
    return Status::Ok();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(seen, (Names{"c", "a"}));
  EXPECT_EQ(Range("z", ByRank(0, -1)), (Scored{{"c", 0}, {"a", 3}}));
  EXPECT_EQ(Size("z"), 2u);
  EXPECT_EQ(MemberRows(), 4u);
}

TEST_F(ZSetTest, RenameMovesMembersScoresAndExpiry) {
  ASSERT_EQ(Put("src", {{"a", 3}, {"b", 1}, {"c", 2}}), 3u);
  ASSERT_TRUE(*store_->Expire("src", 5000));
  ASSERT_EQ(Put("dst", {{"old", 0}}), 1u);
  EXPECT_EQ(*store_->Rename("src", "dst", /*only_if_absent=*/true), RenameOutcome::kTargetExists);
  EXPECT_EQ(*store_->Rename("src", "dst", false), RenameOutcome::kRenamed);
  EXPECT_EQ(*store_->Type("src"), KeyType::kNone);
  EXPECT_EQ(Range("dst", ByRank(0, -1)), (Scored{{"b", 1}, {"c", 2}, {"a", 3}}));
  EXPECT_EQ(Members("dst", ByScore(Incl(2), Incl(kInf), true)), (Names{"a", "c"}));
  EXPECT_EQ(Members("dst", ByLex(LexIncl("b"), kLexOpen)), (Names{"b", "c"}));
  EXPECT_EQ(Rank("dst", "c"), 1u);
  EXPECT_EQ(Score("dst", "old"), std::nullopt);
  EXPECT_EQ(Size("dst"), 3u);
  EXPECT_EQ(store_->GetTtl("dst")->remaining_ms, 5000);
  // Compaction keeps the moved rows and removes those left under the old names.
  ASSERT_TRUE(store_->Compact().ok());
  EXPECT_EQ(MemberRows(), 6u);
  EXPECT_EQ(All("dst"), (Scored{{"a", 3}, {"b", 1}, {"c", 2}}));
}

TEST_F(ZSetTest, MembersAndScoresSurviveReopen) {
  const std::string bin("\0\xff", 2);
  ASSERT_EQ(Put("z", {{"a", 1.5}, {bin, -kInf}, {"b", kInf}, {"c", -2e-300}, {"d", 1.5}}), 5u);
  const Scored before = Range("z", ByRank(0, -1));
  ASSERT_EQ(before.size(), 5u);
  ASSERT_TRUE(store_->Close().ok());
  store_ = OpenOrDie(TestOptions(dir_.path(), clock_));
  EXPECT_EQ(Range("z", ByRank(0, -1)), before);
  EXPECT_EQ(Range("z", ByRank(0, -1)),
            (Scored{{bin, -kInf}, {"c", -2e-300}, {"a", 1.5}, {"d", 1.5}, {"b", kInf}}));
  EXPECT_EQ(Score("z", "c"), -2e-300);
  EXPECT_EQ(Score("z", bin), -kInf);
  EXPECT_EQ(Rank("z", "d"), 3u);
  EXPECT_EQ(Members("z", ByScore(Incl(1.5), Incl(1.5), true)), (Names{"d", "a"}));
  EXPECT_EQ(Size("z"), 5u);
  EXPECT_EQ(*store_->Type("z"), KeyType::kZSet);
  // Versions keep increasing across the restart: a new sorted set cannot meet old rows.
  ASSERT_TRUE(*store_->Delete("z"));
  EXPECT_EQ(Put("z", {{"e", 0}}), 1u);
  EXPECT_EQ(Range("z", ByRank(0, -1)), (Scored{{"e", 0}}));
  EXPECT_EQ(Range("z", ByScore(Incl(-kInf), Incl(kInf), true)), (Scored{{"e", 0}}));
  EXPECT_EQ(All("z").size(), 1u);
}

// --- Concurrency ---

// A call on a Store is atomic on its own: a read that runs while writers change the sorted set
// answers from one state of it — before a write or after it, never from a mix. Here a writer
// adds and removes a low member ("x") and moves the top member ("top") between two high
// scores; in every state "top" is last, so rank -1 is "top", its reverse rank is 0 and its
// rank is the size less one.
TEST_F(ZSetTest, ReadsDuringWritesSeeOneStateOfTheSortedSet) {
  Fill("z", 1'000);
  ASSERT_EQ(Put("z", {{"top", 1e9}}), 1u);
  std::atomic<bool> done{false};
  std::atomic<int> writes{0};
  std::atomic<bool> write_failed{false};
  std::thread writer([&] {
    const std::vector<std::string_view> x{"x"};
    for (int i = 0; !done.load(); ++i) {
      const std::vector<ZSetEntry> entries{{"x", -1}, {"top", i % 2 == 0 ? 2e9 : 1e9}};
      if (!store_->ZSetPut("z", entries).ok() || !store_->ZSetRemove("z", x).ok()) {
        write_failed.store(true);
        break;
      }
      writes.fetch_add(1);
    }
  });
  while (writes.load() == 0 && !write_failed.load()) std::this_thread::yield();  // Overlap.
  int bad = 0;
  for (int i = 0; i < 500 && bad < 5; ++i) {
    auto rank = store_->ZSetRank("z", "top", false);
    auto reverse = store_->ZSetRank("z", "top", true);
    auto last = store_->ZSetRange("z", ByRank(-1, -1));
    auto first_reverse = store_->ZSetRange("z", ByRank(0, 0, true));
    const bool ok = rank.ok() && rank->has_value() && (**rank == 1'000 || **rank == 1'001) &&
                    reverse.ok() && *reverse == std::optional<std::uint64_t>(0) && last.ok() &&
                    last->size() == 1 && (*last)[0].member == "top" && first_reverse.ok() &&
                    first_reverse->size() == 1 && (*first_reverse)[0].member == "top";
    if (!ok) {
      ++bad;
      ADD_FAILURE() << "read " << i << ": rank " << rank.status().ToString() << " "
                    << (rank.ok() && rank->has_value() ? std::to_string(**rank) : "-")
                    << ", reverse rank " << reverse.status().ToString() << " "
                    << (reverse.ok() && reverse->has_value() ? std::to_string(**reverse) : "-")
                    << ", rank -1 "
                    << (last.ok() && !last->empty() ? (*last)[0].member : last.status().ToString())
                    << ", reverse rank 0 "
                    << (first_reverse.ok() && !first_reverse->empty()
                            ? (*first_reverse)[0].member
                            : first_reverse.status().ToString());
    }
  }
  done.store(true);
  writer.join();
  EXPECT_FALSE(write_failed.load());
  EXPECT_GT(writes.load(), 0);
  EXPECT_EQ(Size("z"), 1'001u);
}

// --- Size ---

// A million members (kHugeValueMembers). Deleting is one row whatever the size; compaction then
// removes every member row and score-index row of the deleted and of the expired sorted set, and
// none of the live one's.
TEST_F(ZSetTest, DeletingAMillionMembersIsOneRowAndCompactionReclaimsBothKindsOfRows) {
  constexpr std::size_t n = kHugeValueMembers;
  Fill("big", n);
  Fill("expiring", 1'000);
  Fill("live", 1'000);
  ASSERT_TRUE(*store_->Expire("expiring", 10));
  EXPECT_EQ(MemberRows(), 2 * (n + 2'000));  // A member row and a score-index row each.
  EXPECT_EQ(Size("big"), n);
  EXPECT_EQ(Range("big", ByRank(0, 1)), (Scored{{Name(n - 1), 0}, {Name(n - 2), 1}}));
  EXPECT_EQ(Range("big", ByRank(0, 0, true)), (Scored{{"m0000000", n - 1.0}}));

  auto before = testing::KeyspaceMemtableEntries(*store_);
  ASSERT_TRUE(before.ok());
  EXPECT_TRUE(*store_->Delete("big"));
  auto after = testing::KeyspaceMemtableEntries(*store_);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after - *before, 1u);  // One keyspace row written, no member row touched.
  EXPECT_EQ(MemberRows(), 2 * (n + 2'000));
  EXPECT_EQ(Size("big"), 0u);
  EXPECT_EQ(Members("big", ByRank(0, -1)), Names{});
  EXPECT_EQ(Score("big", "m0000000"), std::nullopt);
  clock_->Advance(10);
  EXPECT_EQ(Size("expiring"), 0u);

  ASSERT_TRUE(store_->Compact().ok());
  EXPECT_EQ(MemberRows(), 2 * 1'000u);
  EXPECT_EQ(Size("live"), 1'000u);
  const Scored live = Range("live", ByRank(0, -1));
  ASSERT_EQ(live.size(), 1'000u);
  for (std::size_t i = 0; i < live.size(); ++i) {
    ASSERT_EQ(live[i].second, static_cast<double>(i));
  }
  EXPECT_EQ(Members("live", ByScore(Incl(10), Excl(12), true)), (Names{"m0000988", "m0000989"}));
  EXPECT_EQ(Rank("live", "m0000000"), 999u);
  EXPECT_EQ(All("live", 333).size(), 1'000u);
  // A new sorted set under the deleted key starts empty.
  EXPECT_EQ(Put("big", {{"n", 1}}), 1u);
  EXPECT_EQ(Range("big", ByRank(0, -1)), (Scored{{"n", 1}}));
}

}  // namespace
}  // namespace cairn
