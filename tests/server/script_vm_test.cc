// The Lua side of scripting alone, with a scripted host in place of the server: SHA-1 names,
// the "#!lua" header, reply conversions both ways (including RESP3 types the differential
// corpus cannot reach through redis-cli's rendering), the kill flag, the host's request to run
// the script again, and compiled scripts dropped when the cache's epoch moves on.
#include "scripting/script_vm.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

#include "scripting/lua_values.h"
#include "scripting/script_cache.h"
#include "scripting/sha1.h"
#include "server/support/script_run.h"

namespace cairn::server::scripting {
namespace {

using testing::FakeHost;
using testing::Ran;

Ran RunScript(ScriptVm& vm, ScriptHost& host, const std::string& body, int protocol = 2,
              const std::atomic<bool>* kill = nullptr) {
  testing::RunOptions options;
  options.protocol = protocol;
  options.keys = {"k1"};
  options.argv = {"a1", "a2"};
  options.kill = kill;
  return testing::RunOnVm(vm, host, body, options);
}

TEST(Sha1Test, MatchesTheStandardVectors) {
  // FIPS 180-2 appendix A, and the empty string; lengths around the 56-byte padding edge.
  EXPECT_EQ(Sha1Hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(Sha1Hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(Sha1Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(Sha1Hex(std::string(1000000, 'a')), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
  EXPECT_EQ(Sha1Hex(std::string(55, 'x')), "cef734ba81a024479e09eb5a75b6ddae62e6abf1")
      << "(55 bytes: the length fits the first block)";
}

TEST(ScriptHeaderTest, ReadsFlagsAndKeepsLineNumbers) {
  ScriptHeader h = ReadScriptHeader("#!lua flags=no-writes,allow-oom\nreturn 1");
  EXPECT_TRUE(h.error.empty()) << h.error;
  EXPECT_TRUE(h.no_writes);
  EXPECT_EQ(h.body, "\nreturn 1");  // Line 2 stays line 2.
  EXPECT_FALSE(ReadScriptHeader("#!lua\nreturn 1").no_writes);
  EXPECT_FALSE(ReadScriptHeader("return 1").no_writes);
  EXPECT_EQ(ReadScriptHeader("return 1").body, "return 1");
  EXPECT_FALSE(ReadScriptHeader("#!python\nreturn 1").error.empty());
  EXPECT_FALSE(ReadScriptHeader("#!lua flags=no-such-flag\nreturn 1").error.empty());
  EXPECT_FALSE(ReadScriptHeader("#!lua name=x\nreturn 1").error.empty());
}

TEST(LuaValuesTest, NumbersConvertAsRedisConvertsThem) {
  EXPECT_EQ(FormatArgNumber(3), "3");
  EXPECT_EQ(FormatArgNumber(-2.5), "-2.5");
  EXPECT_EQ(FormatArgNumber(0.1), "0.10000000000000001");
  EXPECT_EQ(FormatArgNumber(1e20), "1e+20");
  // Whole numbers take a shortcut that must print exactly what "%.17g" prints.
  EXPECT_EQ(FormatArgNumber(0), "0");
  EXPECT_EQ(FormatArgNumber(-0.0), "-0");
  EXPECT_EQ(FormatArgNumber(-7), "-7");
  EXPECT_EQ(FormatArgNumber(1796117644659), "1796117644659");
  EXPECT_EQ(FormatArgNumber(9007199254740991), "9007199254740991");
  EXPECT_EQ(FormatArgNumber(-9007199254740991), "-9007199254740991");
  EXPECT_EQ(FormatArgNumber(9007199254740992), "9007199254740992");
  EXPECT_EQ(FormatArgNumber(1e17), "1e+17");
  for (double n : {1.0, 12345.0, 1e15, 4503599627370497.0, -999999999999.0}) {
    char expected[32];
    std::snprintf(expected, sizeof expected, "%.17g", n);
    EXPECT_EQ(FormatArgNumber(n), expected) << n;
  }
  EXPECT_EQ(TruncateToInt64(3.99), 3);
  EXPECT_EQ(TruncateToInt64(-3.99), -3);
  EXPECT_EQ(TruncateToInt64(1e30), INT64_MIN);
  EXPECT_EQ(TruncateToInt64(-1e30), INT64_MIN);
  EXPECT_EQ(TruncateToInt64(0.0 / 0.0), INT64_MIN);
  EXPECT_EQ(TruncateToInt64(-9223372036854775808.0), INT64_MIN);
}

TEST(ScriptVmTest, CommandRepliesBecomeLuaValuesAndBack) {
  ScriptVm vm(0);
  FakeHost host;
  struct Case {
    std::string reply;  // What the command answers.
    std::string seen;   // What the script makes of it (returned through tostring/cjson).
  };
  const std::vector<Case> cases = {
      {":42\r\n", "number 42"},
      {"$3\r\nabc\r\n", "string abc"},
      {"$-1\r\n", "boolean false"},
      {"*-1\r\n", "boolean false"},
      {"_\r\n", "nil nil"},
      {"#t\r\n", "boolean true"},
      {"+PONG\r\n", "table ok=PONG"},
      {"-ERR bad\r\n", "table err=ERR bad"},
      {",1.5\r\n", "table double=1.5"},
      {"(123456789012345678901\r\n", "table big_number=123456789012345678901"},
      {"=7\r\ntxt:abc\r\n", "table verbatim_string"},
      {"*2\r\n:1\r\n$1\r\nx\r\n", "table 1,x"},
      {"%1\r\n$1\r\nk\r\n:2\r\n", "table map"},
      {"~1\r\n$1\r\nm\r\n", "table set"},
  };
  const std::string script =
      "local r = redis.pcall('x') "
      "if type(r) ~= 'table' then return type(r) .. ' ' .. tostring(r) end "
      "if r.ok then return 'table ok=' .. r.ok end "
      "if r.err then return 'table err=' .. r.err end "
      "if r.double then return 'table double=' .. r.double end "
      "if r.big_number then return 'table big_number=' .. r.big_number end "
      "if r.verbatim_string then return r.verbatim_string.format == 'txt' and "
      "  r.verbatim_string.string == 'abc' and 'table verbatim_string' or 'bad' end "
      "if r.map then return r.map.k == 2 and 'table map' or 'bad' end "
      "if r.set then return r.set.m == true and 'table set' or 'bad' end "
      "return 'table ' .. table.concat(r, ',')";
  for (const Case& c : cases) {
    host.next_reply = c.reply;
    const Ran ran = RunScript(vm, host, script);
    ASSERT_EQ(ran.outcome, ScriptOutcome::kDone) << c.reply << " " << ran.reply;
    EXPECT_EQ(ran.reply, "$" + std::to_string(c.seen.size()) + "\r\n" + c.seen + "\r\n")
        << "reply " << c.reply;
  }
  // The script's protocol is what the host is asked for.
  host.calls.clear();
  RunScript(vm, host, "redis.setresp(3) return redis.call('ping')");
  ASSERT_EQ(host.calls.size(), 1u);
  EXPECT_EQ(host.calls[0], "ping (resp3)");
}

TEST(ScriptVmTest, ResultsConvertToTheCallersProtocol) {
  ScriptVm vm(0);
  FakeHost host;
  EXPECT_EQ(RunScript(vm, host, "return {map = {a = 1}}", 3).reply, "%1\r\n$1\r\na\r\n:1\r\n");
  EXPECT_EQ(RunScript(vm, host, "return {map = {a = 1}}", 2).reply, "*2\r\n$1\r\na\r\n:1\r\n");
  EXPECT_EQ(RunScript(vm, host, "return {set = {a = true}}", 3).reply, "~1\r\n$1\r\na\r\n");
  EXPECT_EQ(RunScript(vm, host, "return {double = 2.5}", 3).reply, ",2.5\r\n");
  EXPECT_EQ(RunScript(vm, host, "return {double = 2.5}", 2).reply, "$3\r\n2.5\r\n");
  EXPECT_EQ(RunScript(vm, host, "return {big_number = '1234'}", 3).reply, "(1234\r\n");
  EXPECT_EQ(RunScript(vm, host, "return nil", 3).reply, "_\r\n");
  EXPECT_EQ(RunScript(vm, host, "return false", 2).reply, "$-1\r\n");
  EXPECT_EQ(RunScript(vm, host, "redis.setresp(3) return false", 3).reply, "#f\r\n");
  EXPECT_EQ(RunScript(vm, host, "redis.setresp(3) return true", 2).reply, ":1\r\n");
  EXPECT_EQ(RunScript(vm, host, "return {ok = 'two\\r\\nlines'}", 2).reply, "+two  lines\r\n");
  // Nesting past the limit is an error, not a crash.
  const Ran deep = RunScript(
      vm, host, "local t = {} local c = t for i = 1, 2000 do c[1] = {} c = c[1] end return t");
  EXPECT_EQ(deep.outcome, ScriptOutcome::kFailed);
  EXPECT_EQ(deep.reply.rfind("-ERR reached lua stack limit", 0), 0u) << deep.reply;
}

TEST(ScriptVmTest, TheKillFlagStopsARunningLoop) {
  ScriptVm vm(0);
  FakeHost host;
  std::atomic<bool> kill{true};  // Already set: the first look at it stops the loop.
  const Ran ran = RunScript(vm, host, "while true do pcall(function() end) end", 2, &kill);
  EXPECT_EQ(ran.outcome, ScriptOutcome::kFailed);
  EXPECT_EQ(ran.reply.rfind("-ERR Script killed by user with SCRIPT KILL", 0), 0u) << ran.reply;
  // The state is usable afterwards.
  EXPECT_EQ(RunScript(vm, host, "return 5").reply, ":5\r\n");
}

// Inputs the fuzzers found (tests/fuzz/corpus): numbers our struct and cmsgpack converted with
// undefined casts and shifts, and a big number that could end a RESP3 reply early.
TEST(ScriptVmTest, LibraryEdgeNumbersAndBigNumbersAreDefined) {
  ScriptVm vm(0);
  FakeHost host;
  // NaN and out-of-range numbers pack as the x86 conversion gives them: INT64_MIN's bytes.
  EXPECT_EQ(RunScript(vm, host, "return struct.pack('<i8', 0/0)").reply,
            std::string("$8\r\n\0\0\0\0\0\0\0\x80\r\n", 14));
  EXPECT_EQ(RunScript(vm, host, "return struct.pack('<L', 2^64)").reply,
            std::string("$8\r\n\0\0\0\0\0\0\0\x80\r\n", 14));
  EXPECT_EQ(RunScript(vm, host, "return struct.pack('<L', 2^64 - 2048)").reply,
            std::string("$8\r\n\0\xf8\xff\xff\xff\xff\xff\xff\r\n", 14));
  // A zero-byte integer is 0 (and the position after it).
  EXPECT_EQ(RunScript(vm, host, "return {struct.unpack('i0', 'abc')}").reply, "*2\r\n:0\r\n:1\r\n");
  for (const std::string offset : {"1e300", "0/0", "-1e300"}) {
    const Ran ran = RunScript(vm, host, "return cmsgpack.unpack_one('a', " + offset + ")");
    EXPECT_EQ(ran.outcome, ScriptOutcome::kFailed) << offset;
    // As Redis prints them: the number through a 64-bit integer, then an int.
    EXPECT_NE(ran.reply.find(" offset 0 greater") == std::string::npos
                  ? ran.reply.find("offset of 0 and")
                  : 0,
              std::string::npos)
        << offset << ": " << ran.reply;
  }
  // A big number is one line: a CR or LF in it cannot end the reply and start another.
  EXPECT_EQ(RunScript(vm, host, "return {big_number = '1\\r\\n:2'}", 3).reply, "(1  :2\r\n");
  EXPECT_EQ(RunScript(vm, host, "return {big_number = '12345678901234567890'}", 3).reply,
            "(12345678901234567890\r\n");
}

TEST(ScriptVmTest, AFlushedCacheDropsCompiledScripts) {
  ScriptVm vm(0);
  const auto all = [](std::string_view) { return true; };
  vm.Follow(1, 0, all);
  ASSERT_FALSE(vm.Compile("abc", "return 1").has_value());
  EXPECT_NE(vm.Find("abc"), nullptr);
  vm.Follow(1, 0, all);
  EXPECT_NE(vm.Find("abc"), nullptr);
  vm.Follow(2, 0, all);
  EXPECT_EQ(vm.Find("abc"), nullptr);
}

TEST(ScriptVmTest, ScriptsTheCacheEvictedAreDroppedAndTheOthersKept) {
  ScriptVm vm(0);
  vm.Follow(1, 0, [](std::string_view) { return true; });
  ASSERT_FALSE(vm.Compile("old", "return 1").has_value());
  ASSERT_FALSE(vm.Compile("kept", "return 2").has_value());
  const auto only_kept = [](std::string_view sha) { return sha == "kept"; };
  vm.Follow(1, 0, only_kept);  // No eviction since: nothing is looked up or dropped.
  EXPECT_NE(vm.Find("old"), nullptr);
  vm.Follow(1, 1, only_kept);
  EXPECT_EQ(vm.Find("old"), nullptr);
  EXPECT_NE(vm.Find("kept"), nullptr);
}

// Lua 5.1 does not collect when an allocation fails: a script that ran out of memory left its
// garbage filling the heap, and the next script failed to compile (found by lua_script_fuzz).
TEST(ScriptVmTest, AScriptThatRanOutOfMemoryLeavesRoomForTheNext) {
  ScriptVm vm(4 << 20);
  FakeHost host;
  const Ran greedy = testing::RunOnVm(
      vm, host, "local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 1000) .. i end");
  ASSERT_EQ(greedy.outcome, ScriptOutcome::kFailed);
  EXPECT_NE(greedy.reply.find("lua-memory-limit"), std::string::npos) << greedy.reply;
  const Ran next =
      testing::RunOnVm(vm, host, "local t = {} for i = 1, 20000 do t[i] = i .. 'y' end return #t");
  EXPECT_EQ(next.outcome, ScriptOutcome::kDone) << next.reply;
  EXPECT_EQ(next.reply, ":20000\r\n");
}

TEST(ScriptCacheTest, EvalScriptsAreEvictedOldestFirstAndLoadedOnesStay) {
  ScriptCache cache;
  const auto name = [](std::size_t i) { return Sha1Hex("return " + std::to_string(i)); };
  const auto body = [](std::size_t i) { return "return " + std::to_string(i); };
  cache.Add(Sha1Hex("loaded"), "loaded", /*loaded=*/true);
  cache.Add(name(0), body(0), /*loaded=*/false);
  cache.Add(name(0), body(0), /*loaded=*/true);  // SCRIPT LOAD of an EVAL'ed one keeps it.
  for (std::size_t i = 1; i <= ScriptCache::kEvalScripts + 10; ++i) {
    cache.Add(name(i), body(i), /*loaded=*/false);
  }
  EXPECT_EQ(cache.evictions(), 10u);
  EXPECT_EQ(cache.size(), ScriptCache::kEvalScripts + 2);
  EXPECT_TRUE(cache.Contains(Sha1Hex("loaded")));
  EXPECT_TRUE(cache.Contains(name(0)));
  for (std::size_t i = 1; i <= 10; ++i) EXPECT_FALSE(cache.Contains(name(i))) << i;
  EXPECT_TRUE(cache.Contains(name(11)));
  EXPECT_TRUE(cache.Contains(name(ScriptCache::kEvalScripts + 10)));
}

TEST(ScriptCacheTest, EvalScriptBytesAreBoundedButTheNewestStays) {
  ScriptCache cache;
  const std::string big(ScriptCache::kEvalScriptBytes / 2 + 1, 'x');
  const std::string a = "--a" + big;
  const std::string b = "--b" + big;
  cache.Add(Sha1Hex(a), a, false);
  cache.Add(Sha1Hex(b), b, false);
  EXPECT_FALSE(cache.Contains(Sha1Hex(a)));
  EXPECT_TRUE(cache.Contains(Sha1Hex(b)));
  EXPECT_LE(cache.body_bytes(), ScriptCache::kEvalScriptBytes);
  const std::string huge(ScriptCache::kEvalScriptBytes * 2, 'y');
  cache.Add(Sha1Hex(huge), huge, false);
  EXPECT_TRUE(cache.Contains(Sha1Hex(huge)));  // About to run: never evicted by itself.
  EXPECT_FALSE(cache.Contains(Sha1Hex(b)));
  cache.Flush();
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.body_bytes(), 0u);
}

TEST(ScriptVmTest, RedisLogReachesTheHost) {
  ScriptVm vm(0);
  FakeHost host;
  RunScript(vm, host, "redis.log(redis.LOG_WARNING, 'disk', 'low', 42) return 1");
  ASSERT_EQ(host.logs.size(), 1u);
  EXPECT_EQ(host.logs[0], "3:disk low 42");
}

// Found by lua_script_fuzz: redis.setresp(1e3083) cast infinity to an int (undefined behaviour).
// NaN and numbers outside int are errors, as Redis's cast makes them on x86-64; 3.9 truncates.
TEST(ScriptVmTest, SetRespAndLogTakeAnyNumber) {
  ScriptVm vm(0);
  FakeHost host;
  for (const std::string n : {"1e3083", "-1e3083", "0/0", "2^32 + 2", "2^31 + 2"}) {
    const Ran setresp = RunScript(vm, host, "redis.setresp(" + n + ") return 1");
    EXPECT_EQ(setresp.outcome, ScriptOutcome::kFailed) << n;
    EXPECT_NE(setresp.reply.find("RESP version must be 2 or 3."), std::string::npos)
        << n << ": " << setresp.reply;
    const Ran log = RunScript(vm, host, "redis.log(" + n + ", 'x') return 1");
    EXPECT_EQ(log.outcome, ScriptOutcome::kFailed) << n;
    EXPECT_NE(log.reply.find("Invalid debug level."), std::string::npos) << n << ": " << log.reply;
  }
  EXPECT_EQ(RunScript(vm, host, "redis.setresp(3.9) return true", 3).reply, "#t\r\n");
  EXPECT_TRUE(host.logs.empty());
}

}  // namespace
}  // namespace cairn::server::scripting
