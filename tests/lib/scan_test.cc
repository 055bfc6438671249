// Prefix scans: order, prefixes, resumable cursors, count hints and expired records.
#include <gtest/gtest.h>

#include <set>

#include "cairn/limits.h"
#include "cairn/store.h"
#include "support/temp_dir.h"

namespace cairn {
namespace {

using test::OpenOrDie;
using test::TempDir;
using test::TestOptions;

class ScanTest : public ::testing::Test {
 protected:
  ScanTest() : clock_(std::make_shared<ManualClock>()) {
    store_ = OpenOrDie(TestOptions(dir_.path(), clock_));
  }

  // Every key a full scan of prefix returns, page by page of `count`.
  std::vector<std::string> ScanAll(std::string_view prefix, std::size_t count, int* pages) {
    std::vector<std::string> keys;
    std::string cursor;
    *pages = 0;
    do {
      auto page = store_->Scan({.prefix = prefix, .cursor = cursor, .count = count});
      EXPECT_TRUE(page.ok()) << page.status().ToString();
      if (!page.ok()) break;
      EXPECT_LE(page->entries.size(), count);
      for (const ScanEntry& e : page->entries) keys.push_back(e.key);
      cursor = page->cursor;
      ++*pages;
    } while (!cursor.empty() && *pages < 10'000);
    return keys;
  }

  TempDir dir_;
  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<Store> store_;
};

TEST_F(ScanTest, ReturnsPrefixInKeyOrderAcrossPages) {
  for (int i = 0; i < 250; ++i) {
    char key[32];
    std::snprintf(key, sizeof(key), "user:%04d", i);
    ASSERT_TRUE(store_->Set(key, std::to_string(i)).ok());
  }
  ASSERT_TRUE(store_->Set("user", "no colon: outside the prefix").ok());
  ASSERT_TRUE(store_->Set("users:9", "outside").ok());
  ASSERT_TRUE(store_->Set("order:1", "outside").ok());

  int pages = 0;
  std::vector<std::string> keys = ScanAll("user:", 100, &pages);
  ASSERT_EQ(keys.size(), 250u);
  EXPECT_EQ(pages, 3);
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(), 250u) << "no duplicates";
  EXPECT_EQ(keys.front(), "user:0000");
  EXPECT_EQ(keys.back(), "user:0249");
}

TEST_F(ScanTest, EntriesCarryValuesAndExpiry) {
  ASSERT_TRUE(store_->Set("a", "1").ok());
  ASSERT_TRUE(store_->Set("b", "2", {.expiry = Expiry::After(1000)}).ok());
  auto page = store_->Scan({});
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->entries.size(), 2u);
  EXPECT_EQ(page->entries[0].value, "1");
  EXPECT_EQ(page->entries[0].expires_at_ms, 0);
  EXPECT_EQ(page->entries[1].value, "2");
  EXPECT_EQ(page->entries[1].expires_at_ms, clock_->NowMs() + 1000);
  EXPECT_TRUE(page->cursor.empty());
}

TEST_F(ScanTest, SkipsExpiredRecordsAndBoundsWork) {
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(
        store_->Set("e:" + std::to_string(1000 + i), "x", {.expiry = Expiry::After(10)}).ok());
  }
  ASSERT_TRUE(store_->Set("e:9999", "alive").ok());
  clock_->Advance(10);
  // count 1 visits at most kScanVisitFactor rows per call, so the 100 expired rows take
  // several calls; the live one is still found exactly once.
  int pages = 0;
  std::vector<std::string> keys = ScanAll("e:", 1, &pages);
  EXPECT_EQ(keys, std::vector<std::string>{"e:9999"});
  EXPECT_GE(pages, static_cast<int>(100 / kScanVisitFactor));
}

TEST_F(ScanTest, RecordsWrittenBetweenPagesBeyondTheCursorAreSeen) {
  ASSERT_TRUE(store_->Set("p:1", "x").ok());
  ASSERT_TRUE(store_->Set("p:2", "x").ok());
  ASSERT_TRUE(store_->Set("p:5", "x").ok());
  auto first = store_->Scan({.prefix = "p:", .count = 2});
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->entries.size(), 2u);
  EXPECT_EQ(first->cursor, std::string("p:2\0", 4)) << "the smallest key after p:2";
  ASSERT_TRUE(store_->Set("p:3", "x").ok());
  ASSERT_TRUE(store_->Delete("p:1").ok());
  auto second = store_->Scan({.prefix = "p:", .cursor = first->cursor, .count = 2});
  ASSERT_TRUE(second.ok());
  ASSERT_EQ(second->entries.size(), 2u);
  EXPECT_EQ(second->entries[0].key, "p:3");
  EXPECT_EQ(second->entries[1].key, "p:5");
  EXPECT_TRUE(second->cursor.empty());
}

TEST_F(ScanTest, AnEmptyKeyDoesNotEndTheScanEarly) {
  ASSERT_TRUE(store_->Set("", "empty").ok());
  ASSERT_TRUE(store_->Set("a", "1").ok());
  ASSERT_TRUE(store_->Set(std::string("a\0", 2), "2").ok());
  int pages = 0;
  std::vector<std::string> keys = ScanAll("", 1, &pages);
  EXPECT_EQ(keys, (std::vector<std::string>{"", "a", std::string("a\0", 2)}));
}

TEST_F(ScanTest, RejectsBadRequests) {
  auto zero = store_->Scan({.count = 0});
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("count"), std::string::npos);
  EXPECT_FALSE(store_->Scan({.count = kMaxScanCount + 1}).ok());
  auto foreign = store_->Scan({.prefix = "a:", .cursor = "b:1"});
  ASSERT_FALSE(foreign.ok());
  EXPECT_EQ(foreign.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(foreign.status().message().find("does not belong"), std::string::npos);
}

}  // namespace
}  // namespace cairn
