// Our own cjson and bit (server/scripting/lua_cjson.cc, lua_bit.cc) in a script VM: every
// function, the inputs that crash the C libraries Redis bundles (each must be a clean Lua error
// that leaves the VM usable), the depth cap, settings that do not outlast the script that made
// them, and output that counts against the memory limit. Their replies, errors included, are
// compared with a real Redis in tests/server/corpus/scripting.txt.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scripting/script_vm.h"
#include "scripting/sha1.h"
#include "server/support/script_run.h"

namespace cairn::server::scripting {
namespace {

using testing::Ran;

Ran RunScript(ScriptVm& vm, const std::string& body,
              const std::vector<std::string_view>& argv = {}) {
  testing::FakeHost host;
  host.next_reply = "-ERR no commands here\r\n";
  testing::RunOptions options;
  options.argv = argv;
  return testing::RunOnVm(vm, host, body, options);
}

std::string Bulk(const std::string& s) {
  return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n";
}
std::string Int(long long n) { return ":" + std::to_string(n) + "\r\n"; }

// The error reply a script failing with `message` on its line 1 gets.
std::string ErrorOf(const std::string& body, const std::string& message) {
  return "-ERR user_script:1: " + message + " script: " + Sha1Hex(body) +
         ", on @user_script:1.\r\n";
}

class LuaLibsTest : public ::testing::Test {
 protected:
  std::string Eval(const std::string& body, const std::vector<std::string_view>& argv = {}) {
    return RunScript(vm_, body, argv).reply;
  }
  // Expects the script to fail with `message`, and the VM to go on running scripts.
  void ExpectError(const std::string& body, const std::string& message,
                   const std::vector<std::string_view>& argv = {}) {
    const Ran ran = RunScript(vm_, body, argv);
    EXPECT_EQ(ran.outcome, ScriptOutcome::kFailed) << body;
    EXPECT_EQ(ran.reply, ErrorOf(body, message)) << body;
    EXPECT_EQ(Eval("return cjson.encode({1, bit.tohex(255, 2)})"), Bulk("[1,\"ff\"]"));
  }

  ScriptVm vm_{0};
};

TEST_F(LuaLibsTest, BitFunctionsGiveLuaBitOpsResults) {
  struct Case {
    const char* expr;
    long long result;
  };
  const std::vector<Case> cases = {
      {"bit.tobit(0xffffffff)", -1},
      {"bit.tobit(0xffffffff + 1)", 0},
      {"bit.tobit(2^40 + 1234)", 1234},
      {"bit.tobit(2.5)", 2},  // Fractions round to the nearest, ties to even.
      {"bit.tobit(3.5)", 4},
      {"bit.tobit(-2.5)", -2},
      {"bit.tobit('12')", 12},
      {"bit.tobit(0/0)", 0},
      {"bit.tobit(1/0)", 0},
      {"bit.bnot(0)", -1},
      {"bit.bnot(-1)", 0},
      {"bit.bor(1, 2, 4, 8)", 15},
      {"bit.band(0x12345678, 0xff)", 0x78},
      {"bit.band(7)", 7},
      {"bit.bxor(0xa5a5f0f0, 0xaa55ff00)", 0x0ff00ff0},
      {"bit.lshift(1, 0)", 1},
      {"bit.lshift(1, 8)", 256},
      {"bit.lshift(1, 40)", 256},  // Counts modulo 32.
      {"bit.lshift(0x87654321, 12)", 1412567040},
      {"bit.rshift(256, 8)", 1},
      {"bit.rshift(-256, 8)", 16777215},
      {"bit.rshift(0x87654321, 12)", 0x87654},
      {"bit.arshift(256, 8)", 1},
      {"bit.arshift(-256, 8)", -1},
      {"bit.arshift(0x87654321, 12)", -493996},
      {"bit.rol(0x12345678, 12)", 0x45678123},
      {"bit.rol(0x12345678, 0)", 0x12345678},
      {"bit.rol(0x12345678, 32)", 0x12345678},
      {"bit.rol(0x80000001, 1)", 3},
      {"bit.ror(0x12345678, 12)", 0x67812345},
      {"bit.ror(0x12345678, 0)", 0x12345678},
      {"bit.ror(3, 1)", -2147483647},
      {"bit.bswap(0x12345678)", 0x78563412},
      {"bit.bswap(0x78563412)", 0x12345678},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Eval(std::string("return ") + c.expr), Int(c.result)) << c.expr;
  }
}

TEST_F(LuaLibsTest, ToHexClampsItsCountEvenAtInt32Min) {
  struct Case {
    const char* expr;
    const char* result;
  };
  const std::vector<Case> cases = {
      {"bit.tohex(1)", "00000001"},
      {"bit.tohex(-1)", "ffffffff"},
      {"bit.tohex(0xffffffff)", "ffffffff"},
      {"bit.tohex(-1, -8)", "FFFFFFFF"},
      {"bit.tohex(0x21, 4)", "0021"},
      {"bit.tohex(0x87654321, 4)", "4321"},
      {"bit.tohex(0xabc, -3)", "ABC"},
      {"bit.tohex(255, 0)", ""},
      {"bit.tohex(255, 100)", "000000ff"},
      {"bit.tohex(255, -100)", "000000FF"},
      // The count is a 32-bit number too: INT32_MIN, whose negation overflows, crashed
      // Redis (CVE-2024-31449) and the Debian library cairn-server linked before.
      {"bit.tohex(65535, -2147483648)", "0000FFFF"},
      {"bit.tohex(65535, 2^31)", "0000FFFF"},
      {"bit.tohex(65535, -2147483647)", "0000FFFF"},
      {"bit.tohex(65535, 2^32 - 2)", "FF"},
      {"bit.tohex(65535, 2^32 + 2)", "ff"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Eval(std::string("return ") + c.expr), Bulk(c.result)) << c.expr;
  }
  EXPECT_EQ(Eval("return #bit.tohex(1, 1e300) <= 8 and #bit.tohex(1, -1e300) <= 8"), Int(1));
}

TEST_F(LuaLibsTest, BitArgumentsThatAreNotNumbersAreErrors) {
  ExpectError("return bit.band()", "bad argument #1 to 'band' (number expected, got no value)");
  ExpectError("return bit.bor(1, 'x')", "bad argument #2 to 'bor' (number expected, got string)");
  ExpectError("return bit.bxor(1, {}, 'x')",
              "bad argument #3 to 'bxor' (number expected, got string)");  // Last first.
  ExpectError("return bit.tohex(1, nil)", "bad argument #2 to 'tohex' (number expected, got nil)");
  ExpectError("return bit.lshift(1)",
              "bad argument #2 to 'lshift' (number expected, got no value)");
}

TEST_F(LuaLibsTest, CjsonEncodesAsRedis) {
  struct Case {
    const char* value;
    const char* json;
  };
  const std::vector<Case> cases = {
      {"'a/b\"\\\\\\n\\1\\127\\r\\t\\b\\f\\255'",
       "\"a\\/b\\\"\\\\\\n\\u0001\\u007f\\r\\t\\b\\f\xff\""},
      {"0.1", "0.1"},
      {"1/3", "0.33333333333333"},
      {"1e20", "1e+20"},
      {"-0", "-0"},
      {"2^53", "9.007199254741e+15"},
      {"true", "true"},
      {"nil", "null"},
      {"cjson.null", "null"},
      {"{}", "{}"},
      {"{1, 2, nil, 4}", "[1,2,null,4]"},
      {"{[1] = 1, [10] = 10}", "[1,null,null,null,null,null,null,null,null,10]"},
      {"{[3] = 'x'}", "[null,null,\"x\"]"},
      {"{[0] = 'x'}", "{\"0\":\"x\"}"},
      {"{[1.5] = 'x'}", "{\"1.5\":\"x\"}"},
      {"{[2^31] = 'x'}", "{\"2147483648\":\"x\"}"},
      {"{[2^31] = 'x', 'y'}", "{\"1\":\"y\",\"2147483648\":\"x\"}"},
      {"{a = {b = {}}}", "{\"a\":{\"b\":{}}}"},
      {"{['a/b'] = false}", "{\"a\\/b\":false}"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Eval(std::string("return cjson.encode(") + c.value + ")"), Bulk(c.json)) << c.value;
  }
  ExpectError("return cjson.encode({[1] = 1, [20] = 1})",
              "Cannot serialise table: excessively sparse array");
  ExpectError("return cjson.encode({[true] = 1})",
              "Cannot serialise boolean: table key must be a number or string");
  ExpectError("return cjson.encode(type)", "Cannot serialise function: type not supported");
  ExpectError("return cjson.encode({1/0})", "Cannot serialise number: must not be NaN or Inf");
  ExpectError("return cjson.encode()", "bad argument #1 to 'encode' (expected 1 argument)");
  ExpectError("return cjson.encode(1, 2)", "bad argument #1 to 'encode' (expected 1 argument)");
}

TEST_F(LuaLibsTest, CjsonDecodesAsRedis) {
  // The text comes in ARGV[1]; the value goes back through encode, which shows every type (and
  // null) as JSON.
  const std::string round_trip = "return cjson.encode(cjson.decode(ARGV[1]))";
  static constexpr char kZeroInside[] = "[1]\0 the text ends at its first zero byte";
  struct Case {
    std::string_view json;
    std::string_view encoded;
  };
  const std::vector<Case> cases = {
      {R"([1,2.5,"x",null,true,{"k":[]}])", R"([1,2.5,"x",null,true,{"k":{}}])"},
      {R"("\u00e9")", "\"\xc3\xa9\""},
      {R"("\ud83d\ude00")", "\"\xf0\x9f\x98\x80\""},  // A surrogate pair: one code point.
      {R"("\u0041\u07ff\uffff")", "\"A\xdf\xbf\xef\xbf\xbf\""},
      {R"("\"\\\/\b\f\n\r\t")", R"("\"\\\/\b\f\n\r\t")"},
      {" \t\r\n[ 1 , 2 ] ", "[1,2]"},
      {"[0x10, +1, 01, 1e2, -0]", "[16,1,1,100,-0]"},  // strtod's numbers, as in Redis.
      {R"({"a":1,"a":2})", R"({"a":2})"},
      {std::string_view(kZeroInside, sizeof kZeroInside - 1), "[1]"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Eval(round_trip, {c.json}), Bulk(std::string(c.encoded))) << c.json;
  }
  EXPECT_EQ(Eval("return tostring(cjson.decode('inf')) .. tostring(cjson.decode('-Infinity'))"),
            Bulk("inf-inf"));
  EXPECT_EQ(Eval("return cjson.decode('null') == cjson.null"), Int(1));
  EXPECT_EQ(Eval("return cjson.decode(42)"), Int(42));  // A number is taken as its text.

  const std::string decode = "return cjson.decode(ARGV[1])";
  struct Bad {
    std::string_view json;
    std::string_view error;
  };
  const std::vector<Bad> bad = {
      {"not json", "Expected value but found invalid token at character 1"},
      {"", "Expected value but found T_END at character 1"},
      {"[1,]", "Expected value but found T_ARR_END at character 4"},
      {R"({"a":1,})", "Expected object key string but found T_OBJ_END at character 8"},
      {R"({"a" 1})", "Expected colon but found T_NUMBER at character 6"},
      {"[1 2]", "Expected comma or array end but found T_NUMBER at character 4"},
      {R"({"a":1 2})", "Expected comma or object end but found T_NUMBER at character 8"},
      {"[1] 2", "Expected the end but found T_NUMBER at character 5"},
      {R"("abc)", "Expected value but found unexpected end of string at character 5"},
      {R"("a\x")", "Expected value but found invalid escape code at character 3"},
      {R"("\ude00")", "Expected value but found invalid unicode escape code at character 2"},
      {R"("\ud83d\u0041")", "Expected value but found invalid unicode escape code at character 2"},
      {R"("\ud83d")", "Expected value but found invalid unicode escape code at character 2"},
      {R"("\u12")", "Expected value but found invalid unicode escape code at character 2"},
      {"-", "Expected value but found invalid number at character 1"},
      {".5", "Expected value but found invalid token at character 1"},
      {"tru", "Expected value but found invalid token at character 1"},
      {std::string_view("[1,\0", 4), "Expected value but found T_END at character 4"},
      {std::string_view("a\0", 2), "JSON parser does not support UTF-16 or UTF-32"},
  };
  for (const Bad& b : bad) ExpectError(decode, std::string(b.error), {b.json});
  ExpectError("return cjson.decode({})",
              "bad argument #1 to 'decode' (string expected, got table)");
  ExpectError("return cjson.decode('1', 2)", "bad argument #1 to 'decode' (expected 1 argument)");
}

TEST_F(LuaLibsTest, StrictNumbersRefuseWhatJsonDoesNot) {
  for (const char* json : {"0x10", "-0x10", "01", "-01", "-inf", "-nan"}) {
    const std::string body =
        std::string("cjson.decode_invalid_numbers(false) return cjson.decode('") + json + "')";
    ExpectError(body, "Expected value but found invalid number at character 1");
  }
  for (const char* json : {"+1", "inf", "NaN", "Infinity"}) {
    const std::string body =
        std::string("cjson.decode_invalid_numbers(false) return cjson.decode('") + json + "')";
    ExpectError(body, "Expected value but found invalid token at character 1");
  }
  EXPECT_EQ(Eval("cjson.decode_invalid_numbers(false) return cjson.decode('[-0.5e1, 0, 10]')[1]"),
            Int(-5));
}

TEST_F(LuaLibsTest, InvalidNumbersAndPrecisionSettings) {
  EXPECT_EQ(Eval("cjson.encode_invalid_numbers(true) return cjson.encode({1/0, -1/0, 0/0})"),
            Bulk("[inf,-inf,nan]"));
  EXPECT_EQ(Eval("cjson.encode_invalid_numbers('null') return cjson.encode({1/0, 0/0, 1})"),
            Bulk("[null,null,1]"));
  EXPECT_EQ(Eval("cjson.encode_number_precision(3) return cjson.encode({1/3, 12345, [5] = 1})"),
            Bulk("[0.333,1.23e+04,null,null,1]"));
  EXPECT_EQ(
      Eval("return {cjson.encode_invalid_numbers('null'), cjson.encode_invalid_numbers('on'), "
           "tostring(cjson.encode_invalid_numbers(false))}"),
      "*3\r\n$4\r\nnull\r\n:1\r\n$5\r\nfalse\r\n");
  ExpectError("return cjson.encode_number_precision(15)",
              "bad argument #1 to 'encode_number_precision' (expected integer between 1 and 14)");
  ExpectError("return cjson.encode_invalid_numbers('maybe')",
              "bad argument #1 to 'encode_invalid_numbers' (invalid option 'maybe')");
  ExpectError("return cjson.encode_max_depth(1, 2)",
              "bad argument #2 to 'encode_max_depth' (found too many arguments)");
  ExpectError("return cjson.encode_sparse_array(true, 1, -1)",  // Argument 1, as Redis says.
              "bad argument #1 to 'encode_sparse_array' (expected integer between 0 and "
              "2147483647)");
}

TEST_F(LuaLibsTest, SparseArraySettings) {
  EXPECT_EQ(Eval("return {cjson.encode_sparse_array()}"), "*3\r\n$-1\r\n:2\r\n:10\r\n");
  EXPECT_EQ(Eval("cjson.encode_sparse_array(true) return cjson.encode({[1] = 1, [20] = 2})"),
            Bulk("{\"1\":1,\"20\":2}"));
  EXPECT_EQ(Eval("cjson.encode_sparse_array(false, 0) return #cjson.encode({[1] = 1, [20] = 2})"),
            Int(95));  // "[1," + 18 × "null," + "2]"
  EXPECT_EQ(Eval("cjson.encode_sparse_array(false, 1, 0) return cjson.encode({[1] = 1, [2] = 2})"),
            Bulk("[1,2]"));
  ExpectError("cjson.encode_sparse_array(false, 1, 0) return cjson.encode({[1] = 1, [3] = 3})",
              "Cannot serialise table: excessively sparse array");
}

TEST_F(LuaLibsTest, CrashInputsAreCleanErrors) {
  ExpectError("return cjson.decode(string.rep('[', 100000))",
              "Found too many nested data structures (1001) at character 1001");
  ExpectError("return cjson.decode(string.rep('{\"a\":', 100000))",
              "Found too many nested data structures (1001) at character 5001");
  ExpectError(
      "local t = {} local c = t for i = 1, 10000 do c[1] = {} c = c[1] end return cjson.encode(t)",
      "Cannot serialise, excessive nesting (1001)");
  ExpectError("local t = {} t.self = t return cjson.encode(t)",
              "Cannot serialise, excessive nesting (1001)");
  // Caught by pcall, the script goes on.
  EXPECT_EQ(Eval("local ok, e = pcall(cjson.decode, string.rep('[', 100000)) return e"),
            Bulk("Found too many nested data structures (1001) at character 1001"));
  // The deepest allowed nesting works both ways.
  EXPECT_EQ(Eval("local s = string.rep('[', 1000) .. '1' .. string.rep(']', 1000) "
                 "return cjson.encode(cjson.decode(s)) == s"),
            Int(1));
}

TEST_F(LuaLibsTest, DepthSettersLowerTheLimitButNeverRaiseIt) {
  // Redis takes 1e9 and then recurses as deep as the input goes.
  EXPECT_EQ(Eval("return {cjson.encode_max_depth(1e9), cjson.decode_max_depth(2^31 - 1)}"),
            "*2\r\n:1000\r\n:1000\r\n");
  ExpectError(
      "cjson.encode_max_depth(1e9) local t = {} local c = t "
      "for i = 1, 10000 do c[1] = {} c = c[1] end return cjson.encode(t)",
      "Cannot serialise, excessive nesting (1001)");
  ExpectError("cjson.decode_max_depth(1e9) return cjson.decode(string.rep('[', 100000))",
              "Found too many nested data structures (1001) at character 1001");
  EXPECT_EQ(Eval("cjson.encode_max_depth(3) return cjson.encode({{{1}}})"), Bulk("[[[1]]]"));
  ExpectError("cjson.encode_max_depth(3) return cjson.encode({{{{1}}}})",
              "Cannot serialise, excessive nesting (4)");
  EXPECT_EQ(Eval("cjson.decode_max_depth(2) return cjson.encode(cjson.decode('[[1]]'))"),
            Bulk("[[1]]"));
  ExpectError("cjson.decode_max_depth(2) return cjson.decode('[[[1]]]')",
              "Found too many nested data structures (3) at character 3");
  ExpectError("return cjson.encode_max_depth(0)",
              "bad argument #1 to 'encode_max_depth' (expected integer between 1 and 2147483647)");
}

TEST_F(LuaLibsTest, SettingsDoNotOutlastTheScriptThatChangedThem) {
  const std::string defaults =
      "return {cjson.encode_number_precision(), cjson.encode_max_depth(), "
      "cjson.decode_max_depth(), tostring(cjson.encode_keep_buffer()), "
      "tostring(cjson.encode_invalid_numbers()), tostring(cjson.decode_invalid_numbers()), "
      "tostring(select(1, cjson.encode_sparse_array())), select(2, cjson.encode_sparse_array()), "
      "select(3, cjson.encode_sparse_array()), cjson.encode(1/3)}";
  const std::string expected = Eval(defaults);
  ASSERT_EQ(expected,
            "*10\r\n:14\r\n:1000\r\n:1000\r\n$4\r\ntrue\r\n$5\r\nfalse\r\n$4\r\ntrue\r\n"
            "$5\r\nfalse\r\n:2\r\n:10\r\n$16\r\n0.33333333333333\r\n");
  const std::string change_all =
      "cjson.encode_number_precision(3) cjson.encode_max_depth(5) cjson.decode_max_depth(5) "
      "cjson.encode_keep_buffer(false) cjson.encode_invalid_numbers('null') "
      "cjson.decode_invalid_numbers(false) cjson.encode_sparse_array(true, 7, 3) ";
  EXPECT_EQ(Eval(change_all + "return cjson.encode(1/3)"), Bulk("0.333"));
  EXPECT_EQ(Eval(defaults), expected);
  // Also after a script that fails.
  EXPECT_EQ(RunScript(vm_, change_all + "error('late')").outcome, ScriptOutcome::kFailed);
  EXPECT_EQ(Eval(defaults), expected);
  // One setter alone, and one that fails part-way (the first option is set, as in Redis).
  Eval("cjson.encode_number_precision(2) return 1");
  EXPECT_EQ(Eval(defaults), expected);
  EXPECT_EQ(Eval("pcall(cjson.encode_sparse_array, true, -1) "
                 "return cjson.encode({[1] = 1, [20] = 2})"),
            Bulk("{\"1\":1,\"20\":2}"));
  EXPECT_EQ(Eval(defaults), expected);
}

TEST_F(LuaLibsTest, NewGivesATableWithItsOwnSettings) {
  EXPECT_EQ(Eval("cjson.encode_number_precision(5) local j = cjson.new() "
                 "j.encode_number_precision(3) "
                 "return {j.encode(1/3), cjson.encode(1/3), cjson.new().encode(1/3)}"),
            "*3\r\n$5\r\n0.333\r\n$7\r\n0.33333\r\n$16\r\n0.33333333333333\r\n");
  EXPECT_EQ(Eval("local j = cjson.new() return {j._NAME, j._VERSION, j.decode('[1]')[1], "
                 "tostring(j.null == cjson.null)}"),
            "*4\r\n$5\r\ncjson\r\n$5\r\n2.1.0\r\n:1\r\n$4\r\ntrue\r\n");
  EXPECT_EQ(Eval("return cjson.new().encode_max_depth(1e9)"), Int(1000));
}

TEST(LuaLibsMemoryTest, EncodeBuildsItsTextInTheLuaHeap) {
  // 300,000 control bytes take six bytes each as JSON: 1.8 MB of text, built in a buffer that
  // grows to 2 MiB before it becomes the result string. A limit with room for the input and
  // the result, but not also for the buffer, fails the script: the buffer is counted (Redis's
  // cjson builds its text in malloc's memory, which no limit sees).
  const std::string big(300000, '\1');
  const std::string half(150000, '\1');
  const std::string body = "return #cjson.encode(ARGV[1])";
  ScriptVm unlimited(0);
  EXPECT_EQ(RunScript(unlimited, body, {big}).reply, Int(1800002));

  ScriptVm vm(0);
  ASSERT_EQ(RunScript(vm, body, {"x"}).reply, Int(3));
  vm.set_memory_limit(vm.memory_used() + (3 << 20));
  const Ran ran = RunScript(vm, body, {big});
  EXPECT_EQ(ran.outcome, ScriptOutcome::kFailed);
  EXPECT_EQ(ran.reply.rfind("-ERR Script used more memory than lua-memory-limit", 0), 0u)
      << ran.reply;
  // Half as much fits under the same limit, and the VM goes on.
  EXPECT_EQ(RunScript(vm, body, {half}).reply, Int(900002));
}

}  // namespace
}  // namespace cairn::server::scripting
