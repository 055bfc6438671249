// Streams in the keyspace: ids from the clock that never go back, explicit and half-explicit
// ids, ranges both ways, deletes and trims (checked against a std::map model over random
// operations), the summary XINFO reports, kinds of keys meeting, expiry on a manual clock,
// transactions, rename, and the promise that deleting a stream of any size is one row, with
// compaction removing its entries afterwards.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
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
using Ids = std::vector<StreamId>;

StreamAddOptions AutoId() { return {}; }
StreamAddOptions WithId(std::uint64_t ms, std::uint64_t seq) {
  StreamAddOptions options;
  options.id_mode = StreamAddOptions::IdMode::kExplicit;
  options.id = {ms, seq};
  return options;
}
StreamAddOptions WithMs(std::uint64_t ms) {
  StreamAddOptions options;
  options.id_mode = StreamAddOptions::IdMode::kAutoSequence;
  options.id = {ms, 0};
  return options;
}
StreamTrimRule MaxLength(std::uint64_t n, std::uint64_t limit = 0) {
  StreamTrimRule rule;
  rule.by = StreamTrimRule::By::kMaxLength;
  rule.max_length = n;
  rule.limit = limit;
  return rule;
}
StreamTrimRule MinId(StreamId id, std::uint64_t limit = 0) {
  StreamTrimRule rule;
  rule.by = StreamTrimRule::By::kMinId;
  rule.min_id = id;
  rule.limit = limit;
  return rule;
}

class StreamTest : public ::testing::Test {
 protected:
  StreamTest() : clock_(std::make_shared<ManualClock>()) {
    clock_->Set(1'000);
    store_ = OpenOrDie(TestOptions(dir_.path(), clock_));
  }

  StreamAddResult Add(Records& data, std::string_view key, const StreamAddOptions& options,
                      std::string_view value = "v") {
    const std::vector<HashField> fields{{"f", value}};
    auto added = data.StreamAdd(key, fields, options);
    EXPECT_TRUE(added.ok()) << added.status().ToString();
    return added.ok() ? *added : StreamAddResult{};
  }
  StreamId Add(std::string_view key, const StreamAddOptions& options = AutoId(),
               std::string_view value = "v") {
    const StreamAddResult added = Add(*store_, key, options, value);
    EXPECT_EQ(added.outcome, StreamAddOutcome::kAdded);
    return added.id;
  }
  StreamAddOutcome Refused(std::string_view key, const StreamAddOptions& options) {
    return Add(*store_, key, options).outcome;
  }
  std::vector<StreamEntry> Range(Records& data, std::string_view key,
                                 StreamRangeRequest request = {}) {
    auto entries = data.StreamRange(key, request);
    EXPECT_TRUE(entries.ok()) << entries.status().ToString();
    return entries.ok() ? *entries : std::vector<StreamEntry>{};
  }
  Ids RangeIds(std::string_view key, StreamRangeRequest request = {}) {
    Ids ids;
    for (const StreamEntry& e : Range(*store_, key, request)) ids.push_back(e.id);
    return ids;
  }
  std::uint64_t Length(std::string_view key) {
    auto n = store_->StreamLength(key);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? *n : 0;
  }
  StreamSummary Describe(std::string_view key) {
    auto summary = store_->StreamDescribe(key);
    EXPECT_TRUE(summary.ok()) << summary.status().ToString();
    EXPECT_TRUE(summary.ok() && summary->has_value());
    return summary.ok() && *summary ? **summary : StreamSummary{};
  }
  std::size_t Delete(std::string_view key, Ids ids) {
    auto n = store_->StreamDelete(key, ids);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? *n : 0;
  }
  std::uint64_t Trim(std::string_view key, const StreamTrimRule& rule) {
    auto n = store_->StreamTrim(key, rule);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? *n : 0;
  }
  std::size_t MemberRows() {
    auto n = testing::CountRawMemberRows(*store_);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? *n : 0;
  }

  TempDir dir_;
  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<Store> store_;
};

TEST_F(StreamTest, AutoIdsFollowTheClockAndNeverGoBack) {
  EXPECT_EQ(Add("s"), (StreamId{1'000, 0}));
  EXPECT_EQ(Add("s"), (StreamId{1'000, 1}));
  clock_->Advance(5);
  EXPECT_EQ(Add("s"), (StreamId{1'005, 0}));
  // The clock steps back: ids keep growing from the last one.
  clock_->Set(10);
  EXPECT_EQ(Add("s"), (StreamId{1'005, 1}));
  EXPECT_EQ(Length("s"), 4u);
  EXPECT_EQ(RangeIds("s"), (Ids{{1'000, 0}, {1'000, 1}, {1'005, 0}, {1'005, 1}}));
  // An id whose sequence is full goes on at the next millisecond.
  EXPECT_EQ(Add("t", WithId(10'000, UINT64_MAX)), (StreamId{10'000, UINT64_MAX}));
  EXPECT_EQ(Add("t"), (StreamId{10'001, 0}));
}

TEST_F(StreamTest, ExplicitIdsMustGrow) {
  EXPECT_EQ(Refused("s", WithId(0, 0)), StreamAddOutcome::kIdZero);
  EXPECT_EQ(*store_->Type("s"), KeyType::kNone);  // Nothing written.
  EXPECT_EQ(Add("s", WithId(5, 5)), (StreamId{5, 5}));
  EXPECT_EQ(Refused("s", WithId(5, 5)), StreamAddOutcome::kIdTooSmall);
  EXPECT_EQ(Refused("s", WithId(4, 9)), StreamAddOutcome::kIdTooSmall);
  EXPECT_EQ(Refused("s", WithId(0, 0)), StreamAddOutcome::kIdZero);
  EXPECT_EQ(Add("s", WithMs(5)), (StreamId{5, 6}));
  EXPECT_EQ(Add("s", WithMs(7)), (StreamId{7, 0}));
  EXPECT_EQ(Refused("s", WithMs(6)), StreamAddOutcome::kIdTooSmall);
  EXPECT_EQ(Add("z", WithMs(0)), (StreamId{0, 1}));  // 0-0 is never an id.
  EXPECT_EQ(Length("s"), 3u);
  // The greatest id ends the stream's ids.
  EXPECT_EQ(Add("s", WithId(UINT64_MAX, UINT64_MAX)), kMaxStreamId);
  EXPECT_EQ(Refused("s", AutoId()), StreamAddOutcome::kIdsExhausted);
  EXPECT_EQ(Refused("s", WithMs(UINT64_MAX)), StreamAddOutcome::kIdsExhausted);
  EXPECT_EQ(Add("u", WithId(9, UINT64_MAX)), (StreamId{9, UINT64_MAX}));
  EXPECT_EQ(Refused("u", WithMs(9)), StreamAddOutcome::kSequenceExhausted);
  EXPECT_EQ(Length("s"), 4u);
}

TEST_F(StreamTest, RangesBothWaysWithCount) {
  for (std::uint64_t ms = 1; ms <= 5; ++ms) Add("s", WithId(ms, 0), "v" + std::to_string(ms));
  const std::vector<StreamEntry> all = Range(*store_, "s");
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[2].id, (StreamId{3, 0}));
  ASSERT_EQ(all[2].fields.size(), 1u);
  EXPECT_EQ(all[2].fields[0].field, "f");
  EXPECT_EQ(all[2].fields[0].value, "v3");
  EXPECT_EQ(RangeIds("s", {{2, 0}, {4, 0}}), (Ids{{2, 0}, {3, 0}, {4, 0}}));
  EXPECT_EQ(RangeIds("s", {{2, 1}, {4, 0}, true}), (Ids{{4, 0}, {3, 0}}));
  EXPECT_EQ(RangeIds("s", {{0, 0}, kMaxStreamId, true, 2}), (Ids{{5, 0}, {4, 0}}));
  EXPECT_EQ(RangeIds("s", {{0, 0}, kMaxStreamId, false, 2}), (Ids{{1, 0}, {2, 0}}));
  EXPECT_EQ(RangeIds("s", {{4, 0}, {2, 0}}), Ids{});
  EXPECT_EQ(RangeIds("s", {{6, 0}, kMaxStreamId}), Ids{});
  EXPECT_EQ(RangeIds("missing"), Ids{});
}

TEST_F(StreamTest, FieldsKeepTheirOrderAndRepeats) {
  const std::string binary("a\0b", 3);
  const std::vector<HashField> fields{{"z", "1"}, {"a", ""}, {"z", binary}, {"", "e"}};
  ASSERT_TRUE(store_->StreamAdd("s", fields, AutoId()).ok());
  const std::vector<StreamEntry> entries = Range(*store_, "s");
  ASSERT_EQ(entries.size(), 1u);
  ASSERT_EQ(entries[0].fields.size(), 4u);
  for (std::size_t i = 0; i < fields.size(); ++i) {
    EXPECT_EQ(entries[0].fields[i].field, fields[i].field);
    EXPECT_EQ(entries[0].fields[i].value, fields[i].value);
  }
}

TEST_F(StreamTest, DeleteKeepsTheSummaryRight) {
  for (std::uint64_t ms = 1; ms <= 4; ++ms) Add("s", WithId(ms, 0));
  EXPECT_EQ(Delete("s", {{1, 0}, {1, 0}, {3, 0}, {9, 9}}), 2u);
  StreamSummary summary = Describe("s");
  EXPECT_EQ(summary.length, 2u);
  EXPECT_EQ(summary.first_id, (StreamId{2, 0}));
  EXPECT_EQ(summary.max_deleted_id, (StreamId{3, 0}));
  EXPECT_EQ(summary.last_id, (StreamId{4, 0}));
  EXPECT_EQ(summary.entries_added, 4u);
  ASSERT_TRUE(summary.first_entry && summary.last_entry);
  EXPECT_EQ(summary.first_entry->id, (StreamId{2, 0}));
  EXPECT_EQ(summary.last_entry->id, (StreamId{4, 0}));
  // Emptied, the stream stays, with its last id: a smaller id is still refused.
  EXPECT_EQ(Delete("s", {{2, 0}, {4, 0}}), 2u);
  summary = Describe("s");
  EXPECT_EQ(summary.length, 0u);
  EXPECT_EQ(summary.first_id, (StreamId{0, 0}));
  EXPECT_EQ(summary.max_deleted_id, (StreamId{4, 0}));
  EXPECT_FALSE(summary.first_entry || summary.last_entry);
  EXPECT_EQ(*store_->Type("s"), KeyType::kStream);
  EXPECT_EQ(Refused("s", WithId(3, 0)), StreamAddOutcome::kIdTooSmall);
  EXPECT_EQ(Delete("missing", {{1, 0}}), 0u);
}

TEST_F(StreamTest, TrimsByLengthAndByIdWithinALimit) {
  for (std::uint64_t ms = 1; ms <= 10; ++ms) Add("s", WithId(ms, 0));
  EXPECT_EQ(Trim("s", MaxLength(8)), 2u);
  EXPECT_EQ(Trim("s", MaxLength(2, 3)), 3u);  // The limit stops it early.
  EXPECT_EQ(Length("s"), 5u);
  EXPECT_EQ(Describe("s").first_id, (StreamId{6, 0}));
  EXPECT_EQ(Trim("s", MinId({8, 0})), 2u);
  EXPECT_EQ(Trim("s", MinId({8, 0})), 0u);
  EXPECT_EQ(RangeIds("s"), (Ids{{8, 0}, {9, 0}, {10, 0}}));
  // Trimming does not count as deleting.
  EXPECT_EQ(Describe("s").max_deleted_id, (StreamId{0, 0}));
  // An add trims after adding: MAXLEN 0 keeps nothing, but the id was taken.
  StreamAddOptions options = WithId(11, 0);
  options.trim = MaxLength(0);
  EXPECT_EQ(Add("s", options), (StreamId{11, 0}));
  EXPECT_EQ(Length("s"), 0u);
  EXPECT_EQ(Describe("s").last_id, (StreamId{11, 0}));
  EXPECT_EQ(Describe("s").entries_added, 11u);
  EXPECT_EQ(Trim("missing", MaxLength(0)), 0u);
  // A slack lets the stream run over by that many before a trim takes it back to max_length.
  for (std::uint64_t ms = 12; ms <= 16; ++ms) Add("s", WithId(ms, 0));
  StreamTrimRule slack = MaxLength(2);
  slack.slack = 3;
  EXPECT_EQ(Trim("s", slack), 0u);  // 5 is 3 over.
  Add("s", WithId(17, 0));
  EXPECT_EQ(Trim("s", slack), 4u);  // 6 is 4 over: back to 2.
  EXPECT_EQ(RangeIds("s"), (Ids{{16, 0}, {17, 0}}));
  EXPECT_EQ(*store_->Type("missing"), KeyType::kNone);
}

// A trim writes only the metadata: the entries it drops stay as rows below the new first
// entry, never shown by any read, until compaction drops them.
TEST_F(StreamTest, TrimmedEntriesAreNeverSeenAndCompactionDropsTheirRows) {
  ASSERT_TRUE(store_
                  ->RunTransaction([&](Transaction& txn) -> Status {
                    for (std::uint64_t i = 1; i <= 5'000; ++i) Add(txn, "s", WithId(i, 0));
                    return Status::Ok();
                  })
                  .ok());
  EXPECT_EQ(Trim("s", MaxLength(1'500)), 3'500u);
  EXPECT_EQ(Describe("s").first_id, (StreamId{3'501, 0}));
  EXPECT_EQ(MemberRows(), 5'000u);
  // Ranges from the very start, and back to it, stop at the first live entry.
  StreamRangeRequest one;
  one.count = 1;
  EXPECT_EQ(RangeIds("s", one), (Ids{{3'501, 0}}));
  StreamRangeRequest back;
  back.reverse = true;
  back.last = StreamId{3'502, 0};
  EXPECT_EQ(RangeIds("s", back), (Ids{{3'502, 0}, {3'501, 0}}));
  EXPECT_EQ(Range(*store_, "s").size(), 1'500u);
  // A trimmed entry is gone for XDEL too.
  EXPECT_EQ(Delete("s", {{3'500, 0}, {10, 0}}), 0u);
  EXPECT_EQ(Length("s"), 1'500u);
  ASSERT_TRUE(store_->Compact().ok());
  EXPECT_EQ(MemberRows(), 1'500u);
  EXPECT_EQ(Trim("s", MinId({4'999, 0}, 0)), 1'498u);
  EXPECT_EQ(RangeIds("s"), (Ids{{4'999, 0}, {5'000, 0}}));
  // Trimmed to nothing: every row is dead, and an add starts the stream again after them.
  EXPECT_EQ(Trim("s", MaxLength(0)), 2u);
  EXPECT_TRUE(RangeIds("s").empty());
  back.last = kMaxStreamId;
  EXPECT_TRUE(RangeIds("s", back).empty());
  EXPECT_EQ(Describe("s").first_id, (StreamId{0, 0}));
  Add("s", WithId(6'000, 0));
  EXPECT_EQ(RangeIds("s"), (Ids{{6'000, 0}}));
  EXPECT_EQ(RangeIds("s", back), (Ids{{6'000, 0}}));
  EXPECT_EQ(MemberRows(), 1'501u);
  ASSERT_TRUE(store_->Compact().ok());
  EXPECT_EQ(MemberRows(), 1u);
  EXPECT_EQ(RangeIds("s"), (Ids{{6'000, 0}}));
}

TEST_F(StreamTest, RandomOperationsMatchAMapModel) {
  std::mt19937_64 rng(7);
  std::map<StreamId, std::string> model;
  StreamId last;
  for (int step = 0; step < 3'000; ++step) {
    const int op = static_cast<int>(rng() % 10);
    if (op < 5) {
      clock_->Advance(static_cast<std::int64_t>(rng() % 3));
      const std::string value = std::to_string(step);
      StreamAddOptions options = AutoId();
      if (rng() % 4 == 0) options.trim = MaxLength(rng() % 40, rng() % 3 == 0 ? 2 : 0);
      const StreamId id = Add("s", options, value);
      ASSERT_GT(id, last);
      last = id;
      model[id] = value;
      std::uint64_t limit = options.trim.limit;
      while (options.trim.by != StreamTrimRule::By::kNone &&
             model.size() > options.trim.max_length && (options.trim.limit == 0 || limit-- > 0)) {
        model.erase(model.begin());
      }
    } else if (op < 7 && !model.empty()) {
      auto it = model.begin();
      std::advance(it, static_cast<long>(rng() % model.size()));
      const StreamId gone = it->first;
      model.erase(it);
      ASSERT_EQ(Delete("s", {gone, {gone.ms, gone.seq + 7}}),
                model.count({gone.ms, gone.seq + 7}) + 1);
      model.erase({gone.ms, gone.seq + 7});
    } else if (op < 8 && !model.empty()) {
      auto it = model.begin();
      std::advance(it, static_cast<long>(rng() % model.size()));
      const StreamId min = it->first;
      std::uint64_t removed = 0;
      while (!model.empty() && model.begin()->first < min) {
        model.erase(model.begin());
        ++removed;
      }
      ASSERT_EQ(Trim("s", MinId(min)), removed);
    } else {
      // A range from a random id, either way, with a random count.
      StreamRangeRequest request;
      request.first = model.empty() ? StreamId{} : model.begin()->first;
      request.first.seq += rng() % 2;
      request.reverse = rng() % 2 == 0;
      request.count = rng() % 5;
      Ids expected;
      // Ids in the walk's order; a forward walk skips those below `first`, a reverse one
      // stops there.
      std::vector<StreamId> order;
      for (const auto& [id, value] : model) order.push_back(id);
      if (request.reverse) std::reverse(order.begin(), order.end());
      for (const StreamId& id : order) {
        if (id < request.first) {
          if (request.reverse) break;
          continue;
        }
        expected.push_back(id);
      }
      if (request.count != 0 && expected.size() > request.count) expected.resize(request.count);
      ASSERT_EQ(RangeIds("s", request), expected) << "step " << step;
    }
    ASSERT_EQ(Length("s"), model.size()) << "step " << step;
  }
  const StreamSummary summary = Describe("s");
  EXPECT_EQ(summary.last_id, last);
  if (!model.empty()) {
    EXPECT_EQ(summary.first_id, model.begin()->first);
    ASSERT_TRUE(summary.last_entry);
    EXPECT_EQ(summary.last_entry->fields[0].value, model.rbegin()->second);
  }
}

TEST_F(StreamTest, KindsOfKeysDoNotMix) {
  ASSERT_TRUE(store_->Set("str", "v").ok());
  const std::vector<HashField> fields{{"f", "v"}};
  const Ids ids{{1, 0}};
  auto wrong = [](const Status& s) { return s.code() == StatusCode::kWrongType; };
  EXPECT_TRUE(wrong(store_->StreamAdd("str", fields, AutoId()).status()));
  EXPECT_TRUE(wrong(store_->StreamLength("str").status()));
  EXPECT_TRUE(wrong(store_->StreamRange("str", {}).status()));
  EXPECT_TRUE(wrong(store_->StreamDelete("str", ids).status()));
  EXPECT_TRUE(wrong(store_->StreamTrim("str", MaxLength(0)).status()));
  EXPECT_TRUE(wrong(store_->StreamDescribe("str").status()));
  Add("s");
  EXPECT_TRUE(wrong(store_->Get("s").status()));
  EXPECT_TRUE(wrong(store_->ListLength("s").status()));
  EXPECT_TRUE(wrong(store_->HashLength("s").status()));
  EXPECT_EQ(*store_->Type("s"), KeyType::kStream);
  ASSERT_TRUE(store_->Set("s", "now a string").ok());
  ASSERT_TRUE(store_->Delete("s").ok());
  EXPECT_EQ(Add("s", WithId(1, 1)), (StreamId{1, 1}));  // A new stream: the old ids are gone.
  EXPECT_EQ(RangeIds("s"), (Ids{{1, 1}}));
}

TEST_F(StreamTest, NoCreateAndExpiry) {
  StreamAddOptions no_create = AutoId();
  no_create.only_if_exists = true;
  EXPECT_EQ(Refused("s", no_create), StreamAddOutcome::kNoStream);
  EXPECT_EQ(*store_->Type("s"), KeyType::kNone);
  Add("s", WithId(5, 0));
  EXPECT_EQ(Add("s", no_create), (StreamId{1'000, 0}));
  ASSERT_TRUE(*store_->Expire("s", 100));
  Add("s");
  EXPECT_EQ(store_->GetTtl("s")->remaining_ms, 100);  // Writes keep the expiry.
  clock_->Advance(100);
  EXPECT_EQ(Length("s"), 0u);
  EXPECT_EQ(*store_->Type("s"), KeyType::kNone);
  auto gone = store_->StreamDescribe("s");
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value());
  EXPECT_EQ(Refused("s", no_create), StreamAddOutcome::kNoStream);
  // A new stream after expiry starts over: ids, counts and no expiry.
  EXPECT_EQ(Add("s", WithId(1, 0)), (StreamId{1, 0}));
  EXPECT_EQ(Describe("s").entries_added, 1u);
  EXPECT_EQ(store_->GetTtl("s")->kind, TtlState::Kind::kNoExpiry);
}

TEST_F(StreamTest, TransactionWritesAreAllOrNothing) {
  Add("s", WithId(1, 0));
  {
    auto txn = store_->BeginTransaction();
    ASSERT_TRUE(txn.ok());
    Add(**txn, "s", WithId(2, 0));
    EXPECT_EQ(Range(**txn, "s").size(), 2u);  // Its own writes.
    const Ids first{{1, 0}};
    EXPECT_EQ(*(*txn)->StreamDelete("s", first), 1u);
    EXPECT_EQ(Range(**txn, "s").size(), 1u);
    (*txn)->Rollback();
  }
  EXPECT_EQ(RangeIds("s"), (Ids{{1, 0}}));
  EXPECT_EQ(Describe("s").last_id, (StreamId{1, 0}));
}

TEST_F(StreamTest, RenameMovesEntriesAndSummary) {
  Add("src", WithId(1, 0));
  Add("src", WithId(2, 0));
  EXPECT_EQ(Delete("src", {{1, 0}}), 1u);
  ASSERT_TRUE(*store_->Expire("src", 5000));
  Add("dst", WithId(9, 0));
  EXPECT_EQ(*store_->Rename("src", "dst", false), RenameOutcome::kRenamed);
  EXPECT_EQ(*store_->Type("src"), KeyType::kNone);
  EXPECT_EQ(RangeIds("dst"), (Ids{{2, 0}}));
  const StreamSummary summary = Describe("dst");
  EXPECT_EQ(summary.max_deleted_id, (StreamId{1, 0}));
  EXPECT_EQ(summary.entries_added, 2u);
  EXPECT_EQ(store_->GetTtl("dst")->remaining_ms, 5000);
  EXPECT_EQ(Refused("dst", WithId(2, 0)), StreamAddOutcome::kIdTooSmall);
}

TEST_F(StreamTest, BadInputIsRefusedBeforeAnythingIsWritten) {
  const std::string too_big(kMaxValueBytes + 1, 'v');
  const std::vector<HashField> big{{"f", too_big}};
  EXPECT_EQ(store_->StreamAdd("s", big, AutoId()).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->StreamAdd("s", {}, AutoId()).status().code(), StatusCode::kInvalidArgument);
  // Two halves that fit one by one but not together.
  const std::string half(kMaxValueBytes / 2 + 1, 'v');
  const std::vector<HashField> halves{{"a", half}, {"b", half}};
  EXPECT_EQ(store_->StreamAdd("s", halves, AutoId()).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(*store_->Type("s"), KeyType::kNone);
  const std::string long_key(kMaxKeyBytes + 1, 'k');
  EXPECT_EQ(store_->StreamLength(long_key).status().code(), StatusCode::kInvalidArgument);
}

// The size: a million entries (kHugeValueMembers). Deleting is one row whatever the
// size; compaction then removes every entry of the deleted stream and of the expired one, and
// none of the live one.
TEST_F(StreamTest, DeletingAMillionEntriesIsOneRowAndCompactionReclaimsThem) {
  constexpr std::size_t n = kHugeValueMembers;
  auto fill = [&](std::string_view key, std::size_t count) {
    for (std::size_t start = 0; start < count; start += 10'000) {
      ASSERT_TRUE(store_
                      ->RunTransaction([&](Transaction& txn) -> Status {
                        for (std::size_t i = start; i < std::min(count, start + 10'000); ++i) {
                          Add(txn, key, WithId(i + 1, 0));
                        }
                        return Status::Ok();
                      })
                      .ok());
    }
  };
  fill("big", n);
  fill("expiring", 1'000);
  fill("live", 1'000);
  ASSERT_TRUE(*store_->Expire("expiring", 10));
  EXPECT_EQ(MemberRows(), n + 2'000);
  auto before = testing::KeyspaceMemtableEntries(*store_);
  ASSERT_TRUE(before.ok());
  EXPECT_TRUE(*store_->Delete("big"));
  auto after = testing::KeyspaceMemtableEntries(*store_);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after - *before, 1u);  // One keyspace row written, no entry touched.
  clock_->Advance(10);
  EXPECT_EQ(Length("expiring"), 0u);
  ASSERT_TRUE(store_->Compact().ok());
  EXPECT_EQ(MemberRows(), 1'000u);
  EXPECT_EQ(RangeIds("live").size(), 1'000u);
}

TEST_F(StreamTest, EntriesSurviveReopen) {
  Add("s", WithId(1, 0));
  Add("s", WithId(2, 0));
  EXPECT_EQ(Delete("s", {{2, 0}}), 1u);
  ASSERT_TRUE(store_->Close().ok());
  store_ = OpenOrDie(TestOptions(dir_.path(), clock_));
  EXPECT_EQ(RangeIds("s"), (Ids{{1, 0}}));
  EXPECT_EQ(Describe("s").last_id, (StreamId{2, 0}));
  EXPECT_EQ(Refused("s", WithId(2, 0)), StreamAddOutcome::kIdTooSmall);
}

}  // namespace
}  // namespace cairn
