// Status, Result and the small value types of the public API.
#include "cairn/status.h"

#include <gtest/gtest.h>

#include "cairn/options.h"
#include "cairn/result.h"

namespace cairn {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, CarriesCodeAndMessage) {
  Status s = Status::InvalidArgument("key is too long");
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.ToString(), "InvalidArgument: key is too long");
  EXPECT_TRUE(Status::Busy("x").IsBusy());
  EXPECT_TRUE(Status::Corruption("x").IsCorruption());
  EXPECT_TRUE(Status::NotFound("x").IsNotFound());
}

TEST(ResultTest, HoldsValueOrStatus) {
  Result<int> good(7);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 7);
  Result<int> bad(Status::OutOfRange("overflow"));
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kOutOfRange);
}

TEST(ResultTest, OkStatusWithoutValueIsInternalError) {
  Result<int> r(Status::Ok());
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
}

TEST(DurabilityTest, ParsesNamesCaseInsensitively) {
  EXPECT_EQ(*ParseDurability("always"), Durability::kAlways);
  EXPECT_EQ(*ParseDurability("EverySec"), Durability::kEverySec);
  EXPECT_EQ(*ParseDurability("none"), Durability::kNone);
  auto bad = ParseDurability("sometimes");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("always, everysec or none"), std::string::npos);
  for (Durability d : {Durability::kAlways, Durability::kEverySec, Durability::kNone}) {
    EXPECT_EQ(*ParseDurability(DurabilityName(d)), d);
  }
}

}  // namespace
}  // namespace cairn
