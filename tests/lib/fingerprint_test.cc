// Fingerprints: byte digests are XXH3-128; structured digests ignore map key order and number
// spelling, and refuse values with no stable form.
#include "cairn/fingerprint.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace cairn {
namespace {

using V = StructuredValue;

Fingerprint Json(std::string_view text) {
  auto fp = Fingerprint::OfJson(text);
  EXPECT_TRUE(fp.ok()) << text << ": " << fp.status().ToString();
  return fp.ok() ? *fp : Fingerprint();
}

TEST(FingerprintTest, BytesDigestIsStableXxh3) {
  // XXH3-128 of the empty input, as published with xxHash: a stored fingerprint must never
  // change meaning between versions.
  EXPECT_EQ(Fingerprint::OfBytes("").ToHex(), "99aa06d3014798d86001c324468d497f");
  EXPECT_EQ(Fingerprint::OfBytes("abc"), Fingerprint::OfBytes("abc"));
  EXPECT_NE(Fingerprint::OfBytes("abc"), Fingerprint::OfBytes("abd"));
  EXPECT_EQ(Fingerprint::OfBytes("x").ToHex().size(), 32u);
}

TEST(FingerprintTest, MapKeyOrderAndWhitespaceDoNotMatter) {
  EXPECT_EQ(Json(R"({"a":1,"b":[true,null,"x"]})"),
            Json(R"({ "b" : [true, null, "x"], "a" : 1 })"));
  EXPECT_EQ(Json(R"({"outer":{"y":2,"x":1}})"), Json(R"({"outer":{"x":1,"y":2}})"));
  auto a = Fingerprint::OfValue(V::MakeMap({{"k1", V::Int(1)}, {"k2", V::String("v")}}));
  auto b = Fingerprint::OfValue(V::MakeMap({{"k2", V::String("v")}, {"k1", V::Int(1)}}));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(*a, Json(R"({"k1":1,"k2":"v"})"));
}

TEST(FingerprintTest, DifferentValuesDiffer) {
  EXPECT_NE(Json(R"({"a":1})"), Json(R"({"a":2})"));
  EXPECT_NE(Json(R"([1,2])"), Json(R"([2,1])")) << "array order matters";
  EXPECT_NE(Json(R"({"a":"1"})"), Json(R"({"a":1})")) << "string is not number";
  EXPECT_NE(Json(R"(null)"), Json(R"(false)"));
  EXPECT_NE(Json(R"({"ab":"c"})"), Json(R"({"a":"bc"})"));
  EXPECT_NE(Json(R"(["ab","c"])"), Json(R"(["a","bc"])"));
  EXPECT_NE(Json(R"([[]])"), Json(R"([])"));
  EXPECT_NE(Json(R"({})"), Json(R"([])"));
}

TEST(FingerprintTest, EqualNumbersAreEqualHoweverWritten) {
  EXPECT_EQ(Json("1"), Json("1.0"));
  EXPECT_EQ(Json("100"), Json("1e2"));
  EXPECT_EQ(Json("-0"), Json("0"));
  EXPECT_EQ(Json("0.0"), Json("-0.0"));
  EXPECT_NE(Json("1.5"), Json("1"));
  EXPECT_EQ(*Fingerprint::OfValue(V::Int(-3)), *Fingerprint::OfValue(V::Number(-3.0)));
  EXPECT_EQ(*Fingerprint::OfValue(V::Uint(7)), *Fingerprint::OfValue(V::Int(7)));
  EXPECT_NE(*Fingerprint::OfValue(V::Int(-7)), *Fingerprint::OfValue(V::Int(7)));
  const auto max = std::numeric_limits<std::uint64_t>::max();
  EXPECT_NE(*Fingerprint::OfValue(V::Uint(max)), *Fingerprint::OfValue(V::Uint(max - 1)));
  EXPECT_EQ(Json("18446744073709551615"), *Fingerprint::OfValue(V::Uint(max)));
  const auto min = std::numeric_limits<std::int64_t>::min();
  EXPECT_TRUE(Fingerprint::OfValue(V::Int(min)).ok());
}

TEST(FingerprintTest, RefusesValuesWithoutAStableForm) {
  auto nan = Fingerprint::OfValue(
      V::MakeMap({{"items", V::MakeArray({V::Int(1), V::Number(std::nan(""))})}}));
  ASSERT_FALSE(nan.ok());
  EXPECT_EQ(nan.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(nan.status().message().find("$.items[1]"), std::string::npos) << nan.status().message();
  EXPECT_FALSE(Fingerprint::OfValue(V::Number(INFINITY)).ok());
  EXPECT_FALSE(Fingerprint::OfValue(V::Number(-INFINITY)).ok());
  auto dup = Fingerprint::OfValue(V::MakeMap({{"a", V::Int(1)}, {"a", V::Int(2)}}));
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("duplicate key 'a'"), std::string::npos);
  auto dup_json = Fingerprint::OfJson(R"({"a":1,"b":{"c":1,"c":2}})");
  ASSERT_FALSE(dup_json.ok());
  EXPECT_NE(dup_json.status().message().find("duplicate key 'c'"), std::string::npos);
  EXPECT_TRUE(Fingerprint::OfJson(R"([{"c":1},{"c":2}])").ok()) << "same key, other objects";
}

TEST(FingerprintTest, InvalidJsonIsInvalidArgument) {
  for (const char* bad : {"", "{", "{'a':1}", "[1,]", "nul", "{\"a\":1} x"}) {
    auto fp = Fingerprint::OfJson(bad);
    ASSERT_FALSE(fp.ok()) << bad;
    EXPECT_EQ(fp.status().code(), StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace cairn
