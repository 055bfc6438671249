// Records over an executor of one's own: a wrapper sees every call with its access kind and
// its outcome, and a failure of the executor itself (a finished transaction) reaches the
// caller as the call's result.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cairn/store.h"
#include "support/temp_dir.h"

namespace cairn {
namespace {

using test::OpenOrDie;
using test::TempDir;
using test::TestOptions;

// Passes every call on and notes what it was and how it ended.
class NotingExecutor final : public RecordsExecutor {
 public:
  explicit NotingExecutor(RecordsExecutor& inner) : inner_(inner) {}
  Status Run(RecordAccess access, Operation op) override {
    accesses.push_back(access);
    Status s = inner_.Run(access, op);
    codes.push_back(s.code());
    return s;
  }
  std::vector<RecordAccess> accesses;
  std::vector<StatusCode> codes;

 private:
  RecordsExecutor& inner_;
};

TEST(RecordsExecutorTest, AWrapperSeesEveryCallWithItsAccess) {
  TempDir dir;
  std::unique_ptr<Store> store = OpenOrDie(TestOptions(dir.path()));
  NotingExecutor noting(store->executor());
  Records records(noting);

  ASSERT_TRUE(records.Set("k", "v").ok());                        // A blind write.
  ASSERT_TRUE(records.Set("k", "w", {.return_old = true}).ok());  // Reads first.
  EXPECT_EQ(*records.Get("k"), std::optional<std::string>("w"));  // A read.
  ASSERT_TRUE(
      records.ListPush("l", std::vector<std::string_view>{"a", "b"}, ListEnd::kTail, false).ok());
  EXPECT_EQ(*records.ListRange("l", 0, -1), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(records.ListPush("k", std::vector<std::string_view>{"x"}, ListEnd::kTail, false)
                .status()
                .code(),
            StatusCode::kWrongType);

  EXPECT_EQ(noting.accesses,
            (std::vector<RecordAccess>{RecordAccess::kBlindWrite, RecordAccess::kWrite,
                                       RecordAccess::kRead, RecordAccess::kWrite,
                                       RecordAccess::kSnapshotRead, RecordAccess::kWrite}));
  // The operation's own failure is what the executor returns, and the caller gets it.
  EXPECT_EQ(noting.codes.back(), StatusCode::kWrongType);
  // The calls went to the store: a read straight on it sees them.
  EXPECT_EQ(*store->Get("k"), std::optional<std::string>("w"));
}

TEST(RecordsExecutorTest, TheExecutorsOwnFailureIsTheCallsResult) {
  TempDir dir;
  std::unique_ptr<Store> store = OpenOrDie(TestOptions(dir.path()));
  auto txn = store->BeginTransaction();
  ASSERT_TRUE(txn.ok());
  NotingExecutor noting((*txn)->executor());
  Records records(noting);
  ASSERT_TRUE(records.Set("k", "v").ok());
  EXPECT_EQ(*store->Get("k"), std::nullopt);  // Inside the transaction until it commits.
  ASSERT_TRUE((*txn)->Commit().ok());
  EXPECT_EQ(*store->Get("k"), std::optional<std::string>("v"));

  // The operation does not run: the transaction refuses before it.
  Result<std::optional<std::string>> got = records.Get("k");
  EXPECT_EQ(got.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(noting.codes.back(), StatusCode::kFailedPrecondition);
}

TEST(RecordsExecutorTest, AClosedStoreFailsEveryCall) {
  TempDir dir;
  std::unique_ptr<Store> store = OpenOrDie(TestOptions(dir.path()));
  ASSERT_TRUE(store->Close().ok());
  EXPECT_EQ(store->Get("k").status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(store->Set("k", "v").status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(store->ZSetRange("z", {}).status().code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace cairn
