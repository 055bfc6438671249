// Consumer groups of streams: their invariants, each tested — a pending entry
// belongs to exactly one consumer and every counter agrees with the pending rows (checked
// after each of many random operations against a model), delivery count and time move on
// every delivery and claim (on a manual clock), an id acknowledged twice counts once,
// entries deleted while pending are dropped and reported by auto-claim, a read that rolls
// back leaves nothing, and group state survives reopening and goes with its stream.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cairn/store.h"
#include "support/temp_dir.h"
#include "testing/store_testing.h"

namespace cairn {
namespace {

using test::OpenOrDie;
using test::TempDir;
using test::TestOptions;
using Ids = std::vector<StreamId>;

StreamGroupPosition At(StreamId id) { return StreamGroupPosition{false, id, std::nullopt}; }

StreamGroupReadRequest New(std::uint64_t count = 0) {
  StreamGroupReadRequest request;
  request.count = count;
  return request;
}

StreamGroupReadRequest History(StreamId after = {}) {
  StreamGroupReadRequest request;
  request.new_entries = false;
  request.after = after;
  return request;
}

Ids IdsOf(const std::vector<StreamEntry>& entries) {
  Ids ids;
  for (const StreamEntry& e : entries) ids.push_back(e.id);
  return ids;
}

class StreamGroupTest : public ::testing::Test {
 protected:
  StreamGroupTest() : clock_(std::make_shared<ManualClock>()) {
    clock_->Set(1'000);
    store_ = OpenOrDie(TestOptions(dir_.path(), clock_));
  }

  StreamId Add(std::string_view key, std::uint64_t ms) {
    StreamAddOptions options;
    options.id_mode = StreamAddOptions::IdMode::kExplicit;
    options.id = {ms, 0};
    const std::string value = std::to_string(ms);  // Outlives the views in fields.
    const std::vector<HashField> fields{{"n", value}};
    auto added = store_->StreamAdd(key, fields, options);
    EXPECT_TRUE(added.ok() && added->outcome == StreamAddOutcome::kAdded);
    return options.id;
  }
  void Create(std::string_view key, std::string_view group, StreamId at = {}) {
    auto created = store_->StreamGroupCreate(key, group, At(at), false);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    ASSERT_EQ(*created, StreamGroupOutcome::kDone);
  }
  StreamGroupReadResult Read(Records& data, std::string_view consumer,
                             const StreamGroupReadRequest& request, std::string_view key = "s",
                             std::string_view group = "g") {
    auto read = data.StreamReadGroup(key, group, consumer, request);
    EXPECT_TRUE(read.ok()) << read.status().ToString();
    return read.ok() ? *read : StreamGroupReadResult{};
  }
  Ids ReadIds(std::string_view consumer, const StreamGroupReadRequest& request) {
    return IdsOf(Read(*store_, consumer, request).entries);
  }
  std::vector<StreamPendingEntry> Pending(std::optional<std::string> consumer = std::nullopt,
                                          std::int64_t min_idle_ms = 0) {
    StreamPendingRequest request;
    request.count = 1'000'000;
    request.consumer = std::move(consumer);
    request.min_idle_ms = min_idle_ms;
    auto pending = store_->StreamPendingRange("s", "g", request);
    EXPECT_TRUE(pending.ok()) << pending.status().ToString();
    return pending.ok() ? pending->entries : std::vector<StreamPendingEntry>{};
  }
  StreamPendingEntry PendingOf(StreamId id) {
    for (const StreamPendingEntry& e : Pending()) {
      if (e.id == id) return e;
    }
    ADD_FAILURE() << "not pending: " << id.ms << "-" << id.seq;
    return {};
  }
  StreamGroupInfo Group(std::string_view name = "g") {
    auto groups = store_->StreamGroups("s");
    EXPECT_TRUE(groups.ok() && groups->has_value());
    for (const StreamGroupInfo& g :
         groups.ok() && *groups ? **groups : std::vector<StreamGroupInfo>{}) {
      if (g.name == name) return g;
    }
    ADD_FAILURE() << "no group " << name;
    return {};
  }
  std::uint64_t Ack(Ids ids) {
    auto acked = store_->StreamAck("s", "g", ids);
    EXPECT_TRUE(acked.ok()) << acked.status().ToString();
    return acked.ok() ? *acked : 0;
  }

  // Every pending entry is one consumer's, and every count agrees with the pending rows.
  void ExpectConsistent() {
    const std::vector<StreamPendingEntry> all = Pending();
    auto consumers = store_->StreamConsumers("s", "g");
    ASSERT_TRUE(consumers.ok());
    std::map<StreamId, std::string> owner;
    std::uint64_t sum = 0;
    for (const StreamConsumerInfo& c : consumers->consumers) {
      const std::vector<StreamPendingEntry> own = Pending(c.name);
      EXPECT_EQ(own.size(), c.pending) << c.name;
      sum += c.pending;
      for (const StreamPendingEntry& e : own) {
        EXPECT_TRUE(owner.emplace(e.id, c.name).second) << "pending for two consumers";
        EXPECT_EQ(e.consumer, c.name);
      }
    }
    EXPECT_EQ(owner.size(), all.size());
    EXPECT_EQ(sum, all.size());
    for (const StreamPendingEntry& e : all) EXPECT_EQ(owner[e.id], e.consumer);
    const StreamGroupInfo group = Group();
    EXPECT_EQ(group.pending, all.size());
    EXPECT_EQ(group.consumers, consumers->consumers.size());
    auto summary = store_->StreamPendingSummarize("s", "g");
    ASSERT_TRUE(summary.ok());
    EXPECT_EQ(summary->summary.count, all.size());
    if (!all.empty()) {
      EXPECT_EQ(summary->summary.first, all.front().id);
      EXPECT_EQ(summary->summary.last, all.back().id);
    }
  }

  TempDir dir_;
  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<Store> store_;
};

TEST_F(StreamGroupTest, MissingStreamOrGroupIsAnOutcome) {
  EXPECT_EQ(*store_->StreamGroupCreate("s", "g", At({}), false), StreamGroupOutcome::kNoStream);
  EXPECT_EQ(Read(*store_, "c", New()).outcome, StreamGroupOutcome::kNoStream);
  EXPECT_EQ(*store_->StreamGroupCreate("s", "g", At({}), true), StreamGroupOutcome::kDone);
  EXPECT_EQ(*store_->StreamGroupCreate("s", "g", At({}), true), StreamGroupOutcome::kGroupExists);
  EXPECT_EQ(Read(*store_, "c", New(), "s", "other").outcome, StreamGroupOutcome::kNoGroup);
  EXPECT_EQ(*store_->StreamAck("s", "other", Ids{{1, 0}}), 0u);
  EXPECT_EQ(store_->StreamLength("s").value(), 0u);
  EXPECT_EQ(store_->StreamDescribe("s").value()->groups, 1u);
  ASSERT_TRUE(store_->Set("str", "v").ok());
  EXPECT_EQ(store_->StreamGroupCreate("str", "g", At({}), true).status().code(),
            StatusCode::kWrongType);
}

TEST_F(StreamGroupTest, EachEntryGoesToOneConsumerOfAGroupAndToEveryGroup) {
  for (std::uint64_t ms = 1; ms <= 5; ++ms) Add("s", ms);
  Create("s", "g");
  Create("s", "h");
  EXPECT_EQ(ReadIds("a", New(2)), (Ids{{1, 0}, {2, 0}}));
  EXPECT_EQ(ReadIds("b", New()), (Ids{{3, 0}, {4, 0}, {5, 0}}));
  EXPECT_TRUE(ReadIds("a", New()).empty());
  EXPECT_EQ(IdsOf(Read(*store_, "x", New(), "s", "h").entries).size(), 5u);
  EXPECT_EQ(ReadIds("a", History()), (Ids{{1, 0}, {2, 0}}));
  EXPECT_EQ(ReadIds("b", History({3, 0})), (Ids{{4, 0}, {5, 0}}));
  const StreamGroupInfo g = Group();
  EXPECT_EQ(g.last_delivered_id, (StreamId{5, 0}));
  EXPECT_EQ(g.entries_read, 5u);
  EXPECT_EQ(g.lag, 0);
  ExpectConsistent();
}

TEST_F(StreamGroupTest, DeliveriesAndClaimsMoveCountAndTime) {
  Add("s", 1);
  Create("s", "g");
  ReadIds("a", New());
  EXPECT_EQ(PendingOf({1, 0}).deliveries, 1u);
  EXPECT_EQ(PendingOf({1, 0}).delivered_at_ms, 1'000);
  clock_->Set(1'500);
  EXPECT_EQ(PendingOf({1, 0}).idle_ms, 500);
  ReadIds("a", History());  // Delivered again.
  EXPECT_EQ(PendingOf({1, 0}).deliveries, 2u);
  EXPECT_EQ(PendingOf({1, 0}).delivered_at_ms, 1'500);

  StreamClaimRequest claim;
  claim.ids = {{1, 0}};
  claim.min_idle_ms = 100;
  EXPECT_TRUE(store_->StreamClaim("s", "g", "b", claim)->claimed.empty());  // Not idle enough.
  clock_->Set(2'000);
  EXPECT_EQ(IdsOf(store_->StreamClaim("s", "g", "b", claim)->claimed), (Ids{{1, 0}}));
  EXPECT_EQ(PendingOf({1, 0}).consumer, "b");
  EXPECT_EQ(PendingOf({1, 0}).deliveries, 3u);
  EXPECT_EQ(PendingOf({1, 0}).delivered_at_ms, 2'000);
  claim.min_idle_ms = 0;
  claim.just_ids = true;  // Leaves the count alone.
  claim.idle_ms = 700;
  ASSERT_TRUE(store_->StreamClaim("s", "g", "a", claim).ok());
  EXPECT_EQ(PendingOf({1, 0}).deliveries, 3u);
  EXPECT_EQ(PendingOf({1, 0}).delivered_at_ms, 1'300);
  EXPECT_EQ(Pending(std::nullopt, 600).size(), 1u);
  EXPECT_EQ(Pending(std::nullopt, 800).size(), 0u);

  StreamAutoClaimRequest autoclaim;
  autoclaim.min_idle_ms = 500;
  clock_->Set(2'100);
  auto claimed = store_->StreamAutoClaim("s", "g", "c", autoclaim);
  ASSERT_TRUE(claimed.ok());
  EXPECT_EQ(IdsOf(claimed->claimed), (Ids{{1, 0}}));
  EXPECT_EQ(claimed->next, (StreamId{}));
  EXPECT_EQ(PendingOf({1, 0}).consumer, "c");
  EXPECT_EQ(PendingOf({1, 0}).deliveries, 4u);
  EXPECT_EQ(PendingOf({1, 0}).delivered_at_ms, 2'100);
  ExpectConsistent();
}

TEST_F(StreamGroupTest, AckCountsEachIdOnceAndCountersNeverUnderflow) {
  for (std::uint64_t ms = 1; ms <= 3; ++ms) Add("s", ms);
  Create("s", "g");
  ReadIds("a", New());
  EXPECT_EQ(Ack({{1, 0}, {1, 0}, {2, 0}, {9, 0}}), 2u);
  EXPECT_EQ(Ack({{1, 0}, {2, 0}}), 0u);
  EXPECT_EQ(Group().pending, 1u);
  EXPECT_EQ(Ack({{3, 0}}), 1u);
  EXPECT_EQ(Ack({{3, 0}}), 0u);
  EXPECT_EQ(Group().pending, 0u);
  EXPECT_EQ(store_->StreamConsumers("s", "g")->consumers.at(0).pending, 0u);
  ExpectConsistent();
}

TEST_F(StreamGroupTest, EntriesDeletedWhilePendingAreDroppedAndReported) {
  for (std::uint64_t ms = 1; ms <= 4; ++ms) Add("s", ms);
  Create("s", "g");
  ReadIds("a", New());
  const Ids gone{{2, 0}, {3, 0}};
  ASSERT_EQ(*store_->StreamDelete("s", gone), 2u);
  // The consumer's history shows them without fields.
  const std::vector<StreamEntry> history = Read(*store_, "a", History()).entries;
  ASSERT_EQ(history.size(), 4u);
  EXPECT_FALSE(history[0].fields.empty());
  EXPECT_TRUE(history[1].fields.empty());
  StreamAutoClaimRequest autoclaim;
  autoclaim.count = 2;
  auto claimed = store_->StreamAutoClaim("s", "g", "b", autoclaim);
  ASSERT_TRUE(claimed.ok());
  EXPECT_EQ(IdsOf(claimed->claimed), (Ids{{1, 0}}));
  EXPECT_EQ(claimed->deleted, (Ids{{2, 0}}));
  EXPECT_EQ(claimed->next, (StreamId{3, 0}));
  StreamClaimRequest claim;
  claim.ids = {{3, 0}, {4, 0}};
  EXPECT_EQ(IdsOf(store_->StreamClaim("s", "g", "b", claim)->claimed), (Ids{{4, 0}}));
  EXPECT_EQ(Pending().size(), 2u);  // 1-0 and 4-0, both b's.
  ExpectConsistent();
}

TEST_F(StreamGroupTest, DeletingAConsumerReleasesItsEntries) {
  for (std::uint64_t ms = 1; ms <= 3; ++ms) Add("s", ms);
  Create("s", "g");
  ReadIds("a", New(2));
  ReadIds("b", New());
  auto deleted = store_->StreamConsumerDelete("s", "g", "a");
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(deleted->second, 2u);
  EXPECT_EQ(Pending().size(), 1u);
  EXPECT_EQ(Group().consumers, 1u);
  EXPECT_EQ(store_->StreamConsumerDelete("s", "g", "a")->second, 0u);
  ExpectConsistent();
}

TEST_F(StreamGroupTest, RandomOperationsKeepEveryInvariant) {
  std::mt19937 rng(7);
  ASSERT_EQ(*store_->StreamGroupCreate("s", "g", At({}), true), StreamGroupOutcome::kDone);
  std::uint64_t next_ms = 1;
  const std::vector<std::string> consumers{"a", "b", "c"};
  for (int step = 0; step < 400; ++step) {
    clock_->Advance(rng() % 50);
    const std::string& consumer = consumers[rng() % consumers.size()];
    const Ids all = IdsOf(store_->StreamRange("s", {}).value());
    switch (rng() % 8) {
      case 0:
      case 1:
        Add("s", next_ms++);
        break;
      case 2:
        ReadIds(consumer, New(rng() % 3));
        break;
      case 3:
        ReadIds(consumer, History());
        break;
      case 4: {
        Ids some;
        for (const StreamPendingEntry& e : Pending()) {
          if (rng() % 2 == 0) some.push_back(e.id);
        }
        Ack(some);
        break;
      }
      case 5: {
        StreamClaimRequest claim;
        for (const StreamPendingEntry& e : Pending()) {
          if (rng() % 3 == 0) claim.ids.push_back(e.id);
        }
        if (!all.empty() && rng() % 2 == 0) claim.ids.push_back(all[rng() % all.size()]);
        claim.force = rng() % 2 == 0;
        claim.min_idle_ms = rng() % 40;
        ASSERT_TRUE(store_->StreamClaim("s", "g", consumer, claim).ok());
        break;
      }
      case 6: {
        StreamAutoClaimRequest autoclaim;
        autoclaim.count = 1 + rng() % 4;
        autoclaim.min_idle_ms = rng() % 40;
        ASSERT_TRUE(store_->StreamAutoClaim("s", "g", consumer, autoclaim).ok());
        break;
      }
      case 7:
        if (!all.empty() && rng() % 2 == 0) {
          const Ids one{all[rng() % all.size()]};
          ASSERT_TRUE(store_->StreamDelete("s", one).ok());
        } else {
          ASSERT_TRUE(store_->StreamConsumerDelete("s", "g", consumer).ok());
        }
        break;
    }
    ExpectConsistent();
    if (HasFailure()) FAIL() << "at step " << step;
  }
}

TEST_F(StreamGroupTest, AReadThatRollsBackLeavesNothing) {
  Add("s", 1);
  Create("s", "g");
  {
    auto txn = store_->BeginTransaction();
    ASSERT_TRUE(txn.ok());
    EXPECT_EQ(IdsOf(Read(**txn, "a", New()).entries), (Ids{{1, 0}}));
    (*txn)->Rollback();
  }
  EXPECT_TRUE(Pending().empty());
  EXPECT_EQ(Group().last_delivered_id, (StreamId{}));
  EXPECT_EQ(Group().consumers, 0u);
}

TEST_F(StreamGroupTest, GroupsSurviveReopenRenameAndGoWithTheirStream) {
  Add("s", 1);
  Add("s", 2);
  Create("s", "g");
  ReadIds("a", New(1));
  ASSERT_TRUE(store_->Close().ok());
  store_ = OpenOrDie(TestOptions(dir_.path(), clock_));
  EXPECT_EQ(Pending().size(), 1u);
  EXPECT_EQ(Group().last_delivered_id, (StreamId{1, 0}));
  EXPECT_EQ(ReadIds("a", New()), (Ids{{2, 0}}));

  ASSERT_EQ(*store_->Rename("s", "t", false), RenameOutcome::kRenamed);
  ASSERT_EQ(*store_->Rename("t", "s", false), RenameOutcome::kRenamed);
  EXPECT_EQ(Pending().size(), 2u);
  ExpectConsistent();

  ASSERT_TRUE(store_->Delete("s").ok());
  Add("s", 5);
  EXPECT_EQ(store_->StreamGroups("s").value()->size(), 0u);
  EXPECT_EQ(Read(*store_, "a", New()).outcome, StreamGroupOutcome::kNoGroup);
}

}  // namespace
}  // namespace cairn
