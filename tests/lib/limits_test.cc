// Every documented limit is enforced with kInvalidArgument and a message that names it, and a
// rejected call writes nothing. Store options are validated on Open.
#include "cairn/limits.h"

#include <gtest/gtest.h>

#include "cairn/store.h"
#include "support/temp_dir.h"

namespace cairn {
namespace {

using test::OpenOrDie;
using test::TempDir;
using test::TestOptions;

void ExpectInvalid(const Status& status, const std::string& fragment) {
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.ToString();
  EXPECT_NE(status.message().find(fragment), std::string::npos)
      << "message '" << status.message() << "' should mention '" << fragment << "'";
}

class LimitsTest : public ::testing::Test {
 protected:
  LimitsTest() : clock_(std::make_shared<ManualClock>()) {
    store_ = OpenOrDie(TestOptions(dir_.path(), clock_));
  }

  TempDir dir_;
  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<Store> store_;
};

TEST_F(LimitsTest, KeySize) {
  const std::string largest(kMaxKeyBytes, 'k');
  EXPECT_TRUE(store_->Set(largest, "v").ok());
  EXPECT_EQ(*store_->Get(largest), "v");
  const std::string too_long(kMaxKeyBytes + 1, 'k');
  ExpectInvalid(store_->Set(too_long, "v").status(), "kMaxKeyBytes");
  ExpectInvalid(store_->Get(too_long).status(), "limit is 65536");
  ExpectInvalid(store_->Delete(too_long).status(), "kMaxKeyBytes");
  ExpectInvalid(store_->IncrBy(too_long, 1).status(), "kMaxKeyBytes");
  ExpectInvalid(store_->CompareAndSwap(too_long, "a", "b").status(), "kMaxKeyBytes");
  ExpectInvalid(store_->Expire(too_long, 10).status(), "kMaxKeyBytes");
  ExpectInvalid(store_->GetTtl(too_long).status(), "kMaxKeyBytes");
}

TEST_F(LimitsTest, ValueSize) {
  const std::string largest(kMaxValueBytes, 'v');
  EXPECT_TRUE(store_->Set("big", largest).ok());
  EXPECT_EQ(store_->Get("big")->value().size(), kMaxValueBytes);
  const std::string too_big(kMaxValueBytes + 1, 'v');
  ExpectInvalid(store_->Set("k", too_big).status(), "kMaxValueBytes");
  ExpectInvalid(store_->CompareAndSwap("big", largest, too_big).status(), "new value");
  EXPECT_EQ(store_->Get("big")->value().size(), kMaxValueBytes) << "nothing was written";
  EXPECT_EQ(*store_->Get("k"), std::nullopt);
}

TEST_F(LimitsTest, TtlRange) {
  ASSERT_TRUE(store_->Set("k", "v").ok());
  ExpectInvalid(store_->Set("k", "v", {.expiry = Expiry::After(0)}).status(), "positive");
  ExpectInvalid(store_->Set("k", "v", {.expiry = Expiry::After(-5)}).status(), "got -5");
  ExpectInvalid(store_->Set("k", "v", {.expiry = Expiry::After(kMaxTtlMs + 1)}).status(),
                "kMaxTtlMs");
  ExpectInvalid(store_->Set("k", "v", {.expiry = Expiry::After(INT64_MAX)}).status(), "kMaxTtlMs");
  ExpectInvalid(store_->Expire("k", 0).status(), "positive");
  ExpectInvalid(store_->Expire("k", -1).status(), "positive");
  ExpectInvalid(store_->Expire("k", kMaxTtlMs + 1).status(), "kMaxTtlMs");
  ExpectInvalid(store_->ExpireAt("k", 0).status(), "positive");
  ExpectInvalid(store_->ExpireAt("k", INT64_MAX).status(), "100 years");
  ExpectInvalid(store_->CompareAndSwap("k", "v", "w", Expiry::After(0)).status(), "positive");
  EXPECT_TRUE(store_->Set("k", "v", {.expiry = Expiry::After(kMaxTtlMs)}).ok());
  EXPECT_EQ(store_->GetTtl("k")->remaining_ms, kMaxTtlMs);
  EXPECT_EQ(*store_->Get("k"), "v") << "rejected calls wrote nothing";
}

TEST_F(LimitsTest, TtlOverflowingTheClock) {
  clock_->Set(INT64_MAX - 10);
  ExpectInvalid(store_->Set("k", "v", {.expiry = Expiry::After(100)}).status(), "overflows");
}

TEST(OptionsTest, OpenValidatesOptions) {
  TempDir dir;
  Options options = TestOptions(dir.path());
  options.data_dir.clear();
  ExpectInvalid(Store::Open(options).status(), "data_dir");
  options = TestOptions(dir.path());
  options.block_cache_bytes = 0;
  ExpectInvalid(Store::Open(options).status(), "block_cache_bytes");
  options = TestOptions(dir.path());
  options.lock_timeout_ms = 0;
  ExpectInvalid(Store::Open(options).status(), "lock_timeout_ms");
  options.lock_timeout_ms = 60'001;
  ExpectInvalid(Store::Open(options).status(), "lock_timeout_ms");
  options = TestOptions(dir.path());
  options.max_open_files = 19;
  ExpectInvalid(Store::Open(options).status(), "max_open_files");
  options.max_open_files = 20;  // RocksDB's least; a store opens with it.
  EXPECT_TRUE(Store::Open(options).ok());
}

}  // namespace
}  // namespace cairn
