// The in-process example of README.md, compiled and run, so that the README cannot drift from
// the API. Keep the two in step.
#include <gtest/gtest.h>

#include <cstdio>

#include "cairn/store.h"
#include "support/temp_dir.h"

namespace {

// --- README example begins (after its two includes: <cstdio> and "cairn/store.h") ---
int RunExample(const std::string& dir) {
  cairn::Options options;
  options.data_dir = dir;  // created if missing
  auto opened = cairn::Store::Open(options);
  if (!opened.ok()) {
    std::fprintf(stderr, "%s\n", opened.status().ToString().c_str());
    return 1;
  }
  cairn::Store& store = **opened;

  // Claim a key for 30 s, only if nobody holds it (Redis: SET key value NX PX 30000).
  cairn::SetOptions claim;
  claim.condition = cairn::SetCondition::kIfAbsent;
  claim.expiry = cairn::Expiry::After(30'000);
  auto claimed = store.Set("order:1234", "worker-7", claim);
  if (!claimed.ok()) return 1;
  std::printf("claimed: %s\n", claimed->applied ? "yes" : "no, someone else holds it");

  auto holder = store.Get("order:1234");
  if (holder.ok() && holder->has_value()) std::printf("holder: %s\n", (*holder)->c_str());
  return 0;
}
// --- README example ends ---

// --- README transaction example ---
cairn::Status Transfer(cairn::Store& store) {
  cairn::Status s = store.RunTransaction([](cairn::Transaction& txn) -> cairn::Status {
    auto from = txn.IncrBy("balance:alice", -10);  // reads lock the key until commit
    if (!from.ok()) return from.status();
    return txn.IncrBy("balance:bob", 10).status();
  });
  return s;
}

TEST(ReadmeExampleTest, TransactionExampleRuns) {
  cairn::test::TempDir dir;
  auto store = cairn::test::OpenOrDie(cairn::test::TestOptions(dir.path()));
  ASSERT_TRUE(Transfer(*store).ok());
  EXPECT_EQ(*store->Get("balance:alice"), "-10");
  EXPECT_EQ(*store->Get("balance:bob"), "10");
}

TEST(ReadmeExampleTest, Runs) {
  cairn::test::TempDir dir;
  EXPECT_EQ(RunExample(dir.Sub("data")), 0);
  auto store = cairn::test::OpenOrDie(cairn::test::TestOptions(dir.Sub("data")));
  EXPECT_EQ(*store->Get("order:1234"), "worker-7");
  EXPECT_EQ(store->GetTtl("order:1234")->kind, cairn::TtlState::Kind::kExpires);
}

}  // namespace
