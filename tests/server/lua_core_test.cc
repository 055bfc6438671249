// Our versions of Lua 5.1's library functions that a hostile script could crash or hang the
// server with (server/scripting/lua_core_lib.h), run in the script VM with a stand-in host:
// - every input that crashed or hung stock Lua 5.1 now gives an error or a result, and the VM
//   runs the next script;
// - loops in C (the pattern matcher, table.sort, table.insert, …) stop for the kill flag and
//   the time limit, which the instruction hook alone never reaches;
// - results and error messages are Lua 5.1's: the expected values of PatternAndTableFunctions
//   were produced by running the same expressions in the lua5.1 interpreter (whose library
//   the server no longer uses for them);
// - precompiled chunks are refused as Redis refuses them; outputs built outside the Lua heap
//   (replies, cmsgpack.pack, struct.pack) are bounded by the memory limit.
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "scripting/script_vm.h"
#include "scripting/sha1.h"
#include "server/support/script_run.h"

namespace cairn::server::scripting {
namespace {

using testing::Ran;

struct Limits {
  const std::atomic<bool>* kill = nullptr;
  std::int64_t time_limit_ms = 0;
};

Ran RunScript(ScriptVm& vm, const std::string& body, Limits limits = {},
              const std::string& command_reply = "+OK\r\n") {
  testing::FakeHost host;
  host.next_reply = command_reply;
  testing::RunOptions options;
  options.kill = limits.kill;
  options.time_limit_ms = limits.time_limit_ms;
  return testing::RunOnVm(vm, host, body, options);
}

bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// The text of a bulk reply, or the reply itself when it is not one.
std::string BulkText(const std::string& reply) {
  if (reply.empty() || reply[0] != '$') return reply;
  const std::size_t body = reply.find("\r\n") + 2;
  return reply.substr(body, reply.size() - body - 2);
}

void ExpectUsable(ScriptVm& vm) { EXPECT_EQ(RunScript(vm, "return 1 + 1").reply, ":2\r\n"); }

TEST(LuaCoreTest, InputsThatCrashedStockLuaFailCleanly) {
  ScriptVm vm(64 << 20);
  struct Case {
    std::string script;
    std::string reply;  // What the reply starts with.
  };
  const std::vector<Case> cases = {
      {"return select('#', unpack({}, -2, 2147483647))",
       "-ERR user_script:1: too many results to unpack"},
      {"return unpack({}, 0, 2147483647)", "-ERR user_script:1: too many results to unpack"},
      {"return string.match(string.rep('a', 100000), string.rep('a?', 100000))",
       "-ERR user_script:1: pattern too complex"},
      {"return string.gsub(string.rep('a', 100000), string.rep('.-', 50000), 'b')",
       "-ERR user_script:1: pattern too complex"},
      {"return string.find('x', string.rep('(', 2000))", "-ERR user_script:1: too many captures"},
      {"return string.find(string.rep('x', 1001), string.rep('x?', 1001))",
       "-ERR user_script:1: pattern too complex"},
      // These two never nest deeply (the matcher loops over them): plain results.
      {"return string.match(string.rep('a', 300000), string.rep('(a)', 30))", "$1\r\na\r\n"},
      {"return string.find(string.rep('a', 10), string.rep('%f[a]', 200000))", ":1\r\n"},
      {"return #string.rep('', 2^31 - 1)", ":0\r\n"},
      {"return string.rep('ab', 2^31 - 1)",
       "-ERR user_script:1: string.rep: the result (4294967294 bytes) does not fit"},
      {"return table.concat({}, ',', -2147483648, 2147483647)",
       "-ERR user_script:1: invalid value (nil) at index -2147483648"},
  };
  for (const Case& c : cases) {
    const Ran ran = RunScript(vm, c.script);
    EXPECT_TRUE(StartsWith(ran.reply, c.reply)) << c.script << "\n→ " << ran.reply;
    ExpectUsable(vm);
  }
  // The deepest pattern allowed still matches.
  EXPECT_EQ(
      RunScript(vm, "return #string.match(string.rep('a', 999), string.rep('a?', 999))").reply,
      ":999\r\n");
}

// Scripts that spend seconds to hours (the last one for ever) in C without a single Lua
// instruction; each starts with a few dozen instructions, far from the hook's 100,000, so
// only the step counters of our functions can see the kill flag or the deadline. Without
// them each would end with a value or an error other than the stop (or never).
const std::vector<std::string>& LoopsInC() {
  static const std::string kSparse = "local t = {} for k = 29, 0, -1 do t[2^k] = true end ";
  static const std::vector<std::string> scripts = {
      "return string.find(string.rep('a', 2000), '.-.-.-.-b')",
      "return string.match(string.rep('a', 2000), '.-.-.-.-b')",
      "return string.gsub(string.rep('a', 2000), '.-.-.-.-b', '')",
      "for m in string.gmatch(string.rep('a', 2000), '.-.-.-.-b') do end return 1",
      "return string.find(string.rep('(', 300000), '%b()')",
      "return string.find(string.rep('a', 300000), '(a*)%1%1b')",
      "return string.find(string.rep('a', 1000000), string.rep('a', 500000) .. 'b', 1, true)",
      "return string.find(string.rep('a', 1000000), '[' .. string.rep('b', 100000) .. ']')",
      // #t is 2^29 for these keys inserted in this order: a border in a sparse hash.
      kSparse + "table.insert(t, 1, 'x') return #t", kSparse + "table.remove(t, 1) return #t",
      kSparse + "table.foreachi(t, redis.debug) return 1",  // A C function that returns nil.
      kSparse + "table.sort(t, redis.debug) return 1", "table.insert({}, -2^31 + 2, 'x') return 1",
      "return load(string.char)",  // string.char() is "": the reader never ends.
  };
  return scripts;
}

TEST(LuaCoreTest, TheKillFlagStopsLoopsInC) {
  ScriptVm vm(64 << 20);
  std::atomic<bool> kill{true};
  for (const std::string& script : LoopsInC()) {
    const Ran ran = RunScript(vm, script, {&kill});
    EXPECT_EQ(ran.outcome, ScriptOutcome::kFailed) << script;
    EXPECT_TRUE(StartsWith(ran.reply, "-ERR Script killed by user with SCRIPT KILL"))
        << script << "\n→ " << ran.reply;
    ExpectUsable(vm);
  }
}

TEST(LuaCoreTest, TheTimeLimitStopsLoopsInC) {
  ScriptVm vm(64 << 20);
  for (const std::string& script : LoopsInC()) {
    const Ran ran = RunScript(vm, script, {nullptr, 1});
    EXPECT_EQ(ran.outcome, ScriptOutcome::kFailed) << script;
    EXPECT_TRUE(StartsWith(ran.reply, "-ERR Script ran longer than lua-time-limit (1 ms)"))
        << script << "\n→ " << ran.reply;
  }
  ExpectUsable(vm);
}

TEST(LuaCoreTest, AStoppedMatchCannotBeCaught) {
  ScriptVm vm(64 << 20);
  std::atomic<bool> kill{true};
  const std::string slow = "string.find(string.rep('a', 2000), '.-.-.-.-b')";
  for (const std::string& script : {
           "pcall(function() return " + slow + " end) return 'escaped'",
           "xpcall(function() return " + slow +
               " end, function(e) return e end) "
               "return 'escaped'",
           "coroutine.resume(coroutine.create(function() return " + slow +
               " end)) return 'escaped'",
           "pcall(function() return " + slow + " end) while true do end",
       }) {
    const Ran ran = RunScript(vm, script, {&kill});
    EXPECT_TRUE(StartsWith(ran.reply, "-ERR Script killed by user with SCRIPT KILL"))
        << script << "\n→ " << ran.reply;
  }
  // A sort with a Lua comparator is stopped too (by the hook, inside the comparator).
  const Ran sorted = RunScript(vm,
                               "local t = {} for i = 1, 50 do t[i] = i end "
                               "table.sort(t, function(a, b) while true do end end)",
                               {&kill});
  EXPECT_TRUE(StartsWith(sorted.reply, "-ERR Script killed")) << sorted.reply;
  ExpectUsable(vm);
}

TEST(LuaCoreTest, BytecodeIsRefusedAsRedisRefusesIt) {
  ScriptVm vm(0);
  const std::string chunk = "\x1bLuaQ\x00\x01\x04\x08\x04\x08\x00return";
  std::optional<std::string> error = vm.Compile("bytecode", chunk);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(*error,
            "ERR Error compiling script (new function): user_script:1: unexpected symbol near "
            "'char(27)'");
  EXPECT_EQ(vm.Find("bytecode"), nullptr);
  error = vm.Compile("bytecode2", "#!lua\n" + chunk);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(*error,
            "ERR Error compiling script (new function): user_script:2: unexpected symbol near "
            "'char(27)'");
  // A real dump of a function, as a script could make it, is refused the same way.
  const Ran dumped = RunScript(vm, "return string.dump(function() return 'escaped' end)");
  ASSERT_TRUE(StartsWith(dumped.reply, "$")) << dumped.reply;
  error = vm.Compile("dumped", BulkText(dumped.reply));
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("unexpected symbol near 'char(27)'"), std::string::npos) << *error;
  // Source text still compiles, and loadstring still refuses dumps.
  EXPECT_FALSE(vm.Compile("source", "return 1").has_value());
  EXPECT_EQ(RunScript(vm, "return tostring(loadstring(string.dump(function() end)))").reply,
            "$3\r\nnil\r\n");
  EXPECT_EQ(RunScript(vm, "return loadstring('return 7', 'name\\0with a nul')()").reply, ":7\r\n");
}

TEST(LuaCoreTest, OutputsBuiltOutsideTheHeapAreBounded) {
  ScriptVm vm(4 << 20);
  // The same table twice at each of 100 levels: a reply of 2^100 elements.
  const Ran doubled = RunScript(vm, "local t = {} for i = 1, 100 do t = {t, t} end return t");
  EXPECT_EQ(doubled.outcome, ScriptOutcome::kFailed);
  EXPECT_TRUE(StartsWith(doubled.reply, "-ERR Script reply larger than its memory could hold"))
      << doubled.reply;
  const std::string repeated =
      "local s = string.rep('x', 2^20) local t = {} for i = 1, 100 do t[i] = s end ";
  EXPECT_TRUE(StartsWith(RunScript(vm, repeated + "return t").reply,
                         "-ERR Script reply larger than its memory could hold"));
  for (const char* pack : {"return cmsgpack.pack(t)", "return cmsgpack.pack(unpack(t))",
                           "return struct.pack(string.rep('c0', 100), unpack(t))"}) {
    const Ran ran = RunScript(vm, repeated + pack);
    EXPECT_EQ(ran.outcome, ScriptOutcome::kFailed) << pack;
    EXPECT_TRUE(StartsWith(ran.reply, "-ERR Script used more memory than lua-memory-limit"))
        << pack << "\n→ " << ran.reply;
  }
  // Within the bounds all of them still work.
  EXPECT_EQ(RunScript(vm, "local t = {} for i = 1, 3 do t = {t, t} end return #t").reply, ":2\r\n");
  EXPECT_EQ(RunScript(vm,
                      "local s = string.rep('x', 1000) local t = {} for i = 1, 100 do t[i] = s end "
                      "return {#cmsgpack.pack(t), #struct.pack(string.rep('c0', 100), unpack(t))}")
                .reply,
            "*2\r\n:100303\r\n:100000\r\n");
  ExpectUsable(vm);
}

TEST(LuaCoreTest, DeepNestingIsAnErrorNotACrash) {
  ScriptVm vm(64 << 20);
  // A command reply nested past kMaxNesting (1000), and one just inside it.
  auto nested = [](int depth) {
    std::string r;
    for (int i = 0; i < depth; ++i) r += "*1\r\n";
    return r + ":7\r\n";
  };
  const Ran deep = RunScript(vm, "return redis.pcall('x')", {}, nested(5000));
  EXPECT_TRUE(StartsWith(deep.reply, "-ERR user_script:1: reply nested deeper than 1000 levels"))
      << deep.reply;
  EXPECT_EQ(RunScript(vm,
                      "local r = redis.call('x') local d = 0 "
                      "while type(r) == 'table' do r = r[1] d = d + 1 end return {d, r}",
                      {}, nested(1000))
                .reply,
            "*2\r\n:1000\r\n:7\r\n");
  // cmsgpack.unpack of arrays nested as deep as Lua's stack allows, and deeper.
  EXPECT_EQ(RunScript(vm,
                      "local t = cmsgpack.unpack(string.rep('\\145', 7900) .. '\\1') "
                      "local d = 0 while type(t) == 'table' do t = t[1] d = d + 1 end return d")
                .reply,
            ":7900\r\n");
  const Ran unpacked = RunScript(vm, "return cmsgpack.unpack(string.rep('\\145', 100000))");
  EXPECT_TRUE(StartsWith(unpacked.reply, "-ERR user_script:1: stack overflow")) << unpacked.reply;
  // Source nested past the parser's limit, and a table nested 2000 deep as a reply.
  const Ran parsed =
      RunScript(vm, "return select(2, loadstring('return ' .. string.rep('(', 10000) .. '1'))");
  EXPECT_NE(parsed.reply.find("chunk has too many syntax levels"), std::string::npos)
      << parsed.reply;
  ExpectUsable(vm);
}

TEST(LuaCoreTest, CollectorSettingsDoNotOutliveTheScript) {
  ScriptVm vm(0);
  RunScript(vm, "collectgarbage('setpause', 1e9) collectgarbage('setstepmul', 1) return 1");
  EXPECT_EQ(
      RunScript(vm, "return {collectgarbage('setpause', 200), collectgarbage('setstepmul', 200)}")
          .reply,
      "*2\r\n:200\r\n:200\r\n");
}

// Expressions and what Lua 5.1 (the lua5.1 interpreter) gives for them, rendered by the
// prelude's show(pcall(...)): strings quoted with bytes outside 32..126 (and '"', '\') as
// \<decimal>, captures and results separated by spaces.
constexpr const char* kPrelude =
    "local function quote(s) local out = {} for i = 1, #s do local b = s:byte(i) if b < 32 or "
    "b > 126 or b == 34 or b == 92 then out[#out + 1] = '\\\\' .. b else out[#out + 1] = "
    "string.char(b) end end return '\"' .. table.concat(out) .. '\"' end local function "
    "show(...) local out = {} for i = 1, select('#', ...) do local v = select(i, ...) if "
    "type(v) == 'string' then out[#out + 1] = quote(v) else out[#out + 1] = tostring(v) end "
    "end return table.concat(out, ' ') end local function list(t) local out = {} for i = -3, "
    "0 do if t[i] ~= nil then out[#out + 1] = i .. '=' .. tostring(t[i]) end end for i = 1, "
    "table.maxn(t) do out[#out + 1] = tostring(t[i]) end return '{' .. table.concat(out, ',') "
    ".. '}' end local function collect(it) local out = {} for i = 1, 100 do local r = {it()} "
    "if r[1] == nil then break end out[#out + 1] = '[' .. show(unpack(r)) .. ']' end return "
    "table.concat(out) end local function tins(t, ...) table.insert(t, ...) return list(t) "
    "end local function trem(t, ...) local r = {table.remove(t, ...)} return show(unpack(r)) "
    ".. ' ' .. list(t) end local function tsort(t, f) table.sort(t, f) return list(t) end "
    "local function sortrecs() local r = {} for i = 1, 30 do r[i] = {id = i, k = (i * 7) % 4} "
    "end table.sort(r, function(a, b) return a.k < b.k end) local ids = {} for i = 1, 30 do "
    "ids[i] = r[i].id end return table.concat(ids, ',') end";

struct Expected {
  const char* expression;
  const char* result;
};

const Expected kCases[] = {
    {R"lua(string.find('hello world', 'o w'))lua", R"lua(true 5 7)lua"},
    {R"lua(string.find('hello world', 'l'))lua", R"lua(true 3 3)lua"},
    {R"lua(string.find('hello world', 'l', 5))lua", R"lua(true 10 10)lua"},
    {R"lua(string.find('hello world', 'l', -3))lua", R"lua(true 10 10)lua"},
    {R"lua(string.find('hello world', 'l', -100))lua", R"lua(true 3 3)lua"},
    {R"lua(string.find('hello world', 'l', 0))lua", R"lua(true 3 3)lua"},
    {R"lua(string.find('hello world', '', 100))lua", R"lua(true 12 11)lua"},
    {R"lua(string.find('hello world', '', 12))lua", R"lua(true 12 11)lua"},
    {R"lua(string.find('hello', 'xyz'))lua", R"lua(true nil)lua"},
    {R"lua(string.find('a.b', '.', 1, true))lua", R"lua(true 2 2)lua"},
    {R"lua(string.find('a.b', '%.'))lua", R"lua(true 2 2)lua"},
    {R"lua(string.find('a+b', '+', 1, true))lua", R"lua(true 2 2)lua"},
    {R"lua(string.find('a+b', 'a+b'))lua", R"lua(true nil)lua"},
    {R"lua(string.find('aaa', 'a-', 2))lua", R"lua(true 2 1)lua"},
    {R"lua(string.find('', ''))lua", R"lua(true 1 0)lua"},
    {R"lua(string.find('', 'a'))lua", R"lua(true nil)lua"},
    {R"lua(string.find('abc', '^b'))lua", R"lua(true nil)lua"},
    {R"lua(string.find('abc', '^a'))lua", R"lua(true 1 1)lua"},
    {R"lua(string.find('abc', 'c$'))lua", R"lua(true 3 3)lua"},
    {R"lua(string.find('abc', 'b$'))lua", R"lua(true nil)lua"},
    {R"lua(string.find('a$c', '$c'))lua", R"lua(true 2 3)lua"},
    {R"lua(string.find('a^c', 'a^'))lua", R"lua(true 1 2)lua"},
    {R"lua(string.find('key:123:name', ':(%d+):'))lua", R"lua(true 4 8 "123")lua"},
    {R"lua(string.find('key:123:name', '()%d+()'))lua", R"lua(true 5 7 5 8)lua"},
    {R"lua(string.find(12345, 34))lua", R"lua(true 3 4)lua"},
    {R"lua(string.find('x', 'x', '1'))lua", R"lua(true 1 1)lua"},
    {R"lua(string.find('a\0b', '\0'))lua", R"lua(true 2 2)lua"},
    {R"lua(string.find('a\0b', '%z'))lua", R"lua(true 2 2)lua"},
    {R"lua(string.find('a\0b.', 'b\0.'))lua", R"lua(true nil)lua"},
    {R"lua(string.find('ab.', 'b\0.'))lua", R"lua(true nil)lua"},
    {R"lua(string.find('aXb', '%u'))lua", R"lua(true 2 2)lua"},
    {R"lua(string.find('  x', '%S'))lua", R"lua(true 3 3)lua"},
    {R"lua(string.find('abc', '[%a]+'))lua", R"lua(true 1 3)lua"},
    {R"lua(string.match('hello world', '%a+'))lua", R"lua(true "hello")lua"},
    {R"lua(string.match('hello world', '(%a+) (%a+)'))lua", R"lua(true "hello" "world")lua"},
    {R"lua(string.match('  trim me  ', '^%s*(.-)%s*$'))lua", R"lua(true "trim me")lua"},
    {R"lua(string.match('2024-01-15', '(%d+)-(%d+)-(%d+)'))lua", R"lua(true "2024" "01" "15")lua"},
    {R"lua(string.match('abc', '()'))lua", R"lua(true 1)lua"},
    {R"lua(string.match('abc', '()a()'))lua", R"lua(true 1 2)lua"},
    {R"lua(string.match('abc', '(a)(b)(c)'))lua", R"lua(true "a" "b" "c")lua"},
    {R"lua(string.match('abc', 'b', 3))lua", R"lua(true nil)lua"},
    {R"lua(string.match('abc', 'c', -1))lua", R"lua(true "c")lua"},
    {R"lua(string.match('abc', '.-b'))lua", R"lua(true "ab")lua"},
    {R"lua(string.match('abc', 'a*'))lua", R"lua(true "a")lua"},
    {R"lua(string.match('aaab', 'a-b'))lua", R"lua(true "aaab")lua"},
    {R"lua(string.match('aaab', 'a+'))lua", R"lua(true "aaa")lua"},
    {R"lua(string.match('b', 'a+'))lua", R"lua(true nil)lua"},
    {R"lua(string.match('ab', 'a?b'))lua", R"lua(true "ab")lua"},
    {R"lua(string.match('b', 'a?b'))lua", R"lua(true "b")lua"},
    {R"lua(string.match('caab', 'ca?a?a?b'))lua", R"lua(true "caab")lua"},
    {R"lua(string.match('f(a(b)c)d', '%b()'))lua", R"lua(true "(a(b)c)")lua"},
    {R"lua(string.match('f(a(b)c', '%b()'))lua", R"lua(true "(b)")lua"},
    {R"lua(string.match('"quoted"', '%b""'))lua", R"lua(true "\34quoted\34")lua"},
    {R"lua(string.match('[[x]]', '%b[]'))lua", R"lua(true "[[x]]")lua"},
    {R"lua(string.match('THE (quick) fox', '%f[%a]%a+'))lua", R"lua(true "THE")lua"},
    {R"lua(string.match('THE (quick) fox', '%f[%l]%a+'))lua", R"lua(true "quick")lua"},
    {R"lua(string.match('hello', '%f[%a]'))lua", R"lua(true "")lua"},
    {R"lua(string.match('abcabc', '(abc)%1'))lua", R"lua(true "abc")lua"},
    {R"lua(string.match('abcab', '(abc)%1'))lua", R"lua(true nil)lua"},
    {R"lua(string.match('xyx', '(x)y%1'))lua", R"lua(true "x")lua"},
    {R"lua(string.match('aa', '()a%1'))lua", R"lua(true nil)lua"},
    {R"lua(string.match('hello', '[aeiou]'))lua", R"lua(true "e")lua"},
    {R"lua(string.match('hello', '[^aeiou]+'))lua", R"lua(true "h")lua"},
    {R"lua(string.match('a-b', '[a-]+'))lua", R"lua(true "a-")lua"},
    {R"lua(string.match('a-b', '[-a]+'))lua", R"lua(true "a-")lua"},
    {R"lua(string.match('x]y', '[]]'))lua", R"lua(true "]")lua"},
    {R"lua(string.match('x]y', '[^]]+'))lua", R"lua(true "x")lua"},
    {R"lua(string.match('a^b', '[%^]'))lua", R"lua(true "^")lua"},
    {R"lua(string.match('a^b', '[b^]+'))lua", R"lua(true "^b")lua"},
    {R"lua(string.match('abc123', '[%d]+'))lua", R"lua(true "123")lua"},
    {R"lua(string.match('abc123', '[^%d]+'))lua", R"lua(true "abc")lua"},
    {R"lua(string.match('ABCdef', '[A-Z]+'))lua", R"lua(true "ABC")lua"},
    {R"lua(string.match('09af', '%x+'))lua", R"lua(true "09af")lua"},
    {R"lua(string.match('a,b;c', '%p'))lua", R"lua(true ",")lua"},
    {R"lua(string.match('a\tb', '%c'))lua", R"lua(true "\9")lua"},
    {R"lua(string.match('a\tb', '%C+'))lua", R"lua(true "a")lua"},
    {R"lua(string.match('under_score', '[%w_]+'))lua", R"lua(true "under_score")lua"},
    {R"lua(string.match('\206\177\206\178', '%a'))lua", R"lua(true nil)lua"},
    {R"lua(string.match('\200\201', '[\200-\210]+'))lua", R"lua(true "\200\201")lua"},
    {R"lua(string.match('abc', '%'))lua",
     R"lua(false "user_script:1: malformed pattern (ends with '%')")lua"},
    {R"lua(string.match('abc', '[a'))lua",
     R"lua(false "user_script:1: malformed pattern (missing ']')")lua"},
    {R"lua(string.match('abc', '[a%'))lua",
     R"lua(false "user_script:1: malformed pattern (missing ']')")lua"},
    {R"lua(string.match('abc', '(a'))lua", R"lua(false "user_script:1: unfinished capture")lua"},
    {R"lua(string.match('abc', 'a)'))lua",
     R"lua(false "user_script:1: invalid pattern capture")lua"},
    {R"lua(string.match('abc', '%1'))lua", R"lua(false "user_script:1: invalid capture index")lua"},
    {R"lua(string.match('abc', '(a)%2'))lua",
     R"lua(false "user_script:1: invalid capture index")lua"},
    {R"lua(string.match('abc', '(a%1)'))lua",
     R"lua(false "user_script:1: invalid capture index")lua"},
    {R"lua(string.match('abc', '%0'))lua", R"lua(false "user_script:1: invalid capture index")lua"},
    {R"lua(string.match('abc', '%b'))lua", R"lua(false "user_script:1: unbalanced pattern")lua"},
    {R"lua(string.match('abc', '%ba'))lua", R"lua(false "user_script:1: unbalanced pattern")lua"},
    {R"lua(string.match('abc', '%f'))lua",
     R"lua(false "user_script:1: missing '[' after '%f' in pattern")lua"},
    {R"lua(string.match('abc', '%fa'))lua",
     R"lua(false "user_script:1: missing '[' after '%f' in pattern")lua"},
    {R"lua(string.match('zzz', 'x['))lua", R"lua(true nil)lua"},
    {R"lua(string.match('abc', '(()'))lua", R"lua(false "user_script:1: unfinished capture")lua"},
    {R"lua(select('#', string.match(string.rep('a', 40), string.rep('(a)', 32))))lua",
     R"lua(true 32)lua"},
    {R"lua(string.match(string.rep('a', 40), string.rep('(a)', 33)))lua",
     R"lua(false "user_script:1: too many captures")lua"},
    {R"lua(string.match('abc', '%g'))lua", R"lua(true nil)lua"},
    {R"lua(string.match('a.b', '%.'))lua", R"lua(true ".")lua"},
    {R"lua(string.match('a%b', '%%'))lua", R"lua(true "%")lua"},
    {R"lua(string.match(nil, 'a'))lua",
     R"lua(false "user_script:1: bad argument #1 to 'match' (string expected, got nil)")lua"},
    {R"lua(string.match('a', nil))lua",
     R"lua(false "user_script:1: bad argument #2 to 'match' (string expected, got nil)")lua"},
    {R"lua(string.match('a', 'a', 'x'))lua",
     R"lua(false "user_script:1: bad argument #3 to 'match' (number expected, got string)")lua"},
    {R"lua(('hello'):match('l+'))lua", R"lua(true "ll")lua"},
    {R"lua(('hello'):find('l', 1, true))lua", R"lua(true 3 3)lua"},
    {R"lua(string.gsub('hello world', 'o', '0'))lua", R"lua(true "hell0 w0rld" 2)lua"},
    {R"lua(string.gsub('hello world', 'o', '0', 1))lua", R"lua(true "hell0 world" 1)lua"},
    {R"lua(string.gsub('hello world', 'o', '0', 0))lua", R"lua(true "hello world" 0)lua"},
    {R"lua(string.gsub('hello world', 'o', '0', -1))lua", R"lua(true "hello world" 0)lua"},
    {R"lua(string.gsub('hello world', 'o', '0', 2^32 + 1))lua", R"lua(true "hell0 world" 1)lua"},
    {R"lua(string.gsub('hello world', '(%w+)', '<%1>'))lua", R"lua(true "<hello> <world>" 2)lua"},
    {R"lua(string.gsub('hello world', '%w+', '%0 %0'))lua",
     R"lua(true "hello hello world world" 2)lua"},
    {R"lua(string.gsub('hello world', '(%w+) (%w+)', '%2 %1'))lua",
     R"lua(true "world hello" 1)lua"},
    {R"lua(string.gsub('abc', '', '-'))lua", R"lua(true "-a-b-c-" 4)lua"},
    {R"lua(string.gsub('abc', '.-', '-'))lua", R"lua(true "-a-b-c-" 4)lua"},
    {R"lua(string.gsub('abc', 'x*', '-'))lua", R"lua(true "-a-b-c-" 4)lua"},
    {R"lua(string.gsub('abc', '^', '>'))lua", R"lua(true ">abc" 1)lua"},
    {R"lua(string.gsub('abc', '$', '<'))lua", R"lua(true "abc<" 1)lua"},
    {R"lua(string.gsub('abc', '^a', 'A'))lua", R"lua(true "Abc" 1)lua"},
    {R"lua(string.gsub('aaa', '^a', 'A'))lua", R"lua(true "Aaa" 1)lua"},
    {R"lua(string.gsub('abc', 'b', '%%'))lua", R"lua(true "a%c" 1)lua"},
    {R"lua(string.gsub('abc', 'b', '%x'))lua", R"lua(true "axc" 1)lua"},
    {R"lua(string.gsub('abc', 'b', 'x%'))lua", R"lua(true "ax\0c" 1)lua"},
    {R"lua(string.gsub('abc', 'b', '%2'))lua",
     R"lua(false "user_script:1: invalid capture index")lua"},
    {R"lua(string.gsub('abc', '(b)', '%2'))lua",
     R"lua(false "user_script:1: invalid capture index")lua"},
    {R"lua(string.gsub('abc', 'b', 5))lua", R"lua(true "a5c" 1)lua"},
    {R"lua(string.gsub('abc', '()b', '%1'))lua", R"lua(true "a2c" 1)lua"},
    {R"lua(string.gsub('abc', 'b', {b = 'B'}))lua", R"lua(true "aBc" 1)lua"},
    {R"lua(string.gsub('abc', '%w', {a = 1, b = true}))lua",
     R"lua(false "user_script:1: invalid replacement value (a boolean)")lua"},
    {R"lua(string.gsub('abc', '%w', {a = false}))lua", R"lua(true "abc" 3)lua"},
    {R"lua(string.gsub('abc', '%w', {a = {}}))lua",
     R"lua(false "user_script:1: invalid replacement value (a table)")lua"},
    {R"lua(string.gsub('abc', '(%w)(%w)', {a = 'X'}))lua", R"lua(true "Xc" 1)lua"},
    {R"lua(string.gsub('abc', '%w', function(c) return c:upper() end))lua",
     R"lua(true "ABC" 3)lua"},
    {R"lua(string.gsub('abc', '%w', function(c) if c ~= 'b' then return c .. c end end))lua",
     R"lua(true "aabcc" 3)lua"},
    {R"lua(string.gsub('abc', '(%w)', function(c) return false end))lua", R"lua(true "abc" 3)lua"},
    {R"lua(string.gsub('a=1, b=2', '(%w+)=(%w+)', function(k, v) return v .. '=' .. k end))lua",
     R"lua(true "1=a, 2=b" 2)lua"},
    {R"lua(string.gsub('abc', '()', function(p) return p end))lua", R"lua(true "1a2b3c4" 4)lua"},
    {R"lua(string.gsub('abc', 'b', function() return {} end))lua",
     R"lua(false "user_script:1: invalid replacement value (a table)")lua"},
    {R"lua(string.gsub('abc', 'b'))lua",
     R"lua(false "user_script:1: bad argument #3 to 'gsub' (string/function/table expected)")lua"},
    {R"lua(string.gsub('abc', 'b', true))lua",
     R"lua(false "user_script:1: bad argument #3 to 'gsub' (string/function/table expected)")lua"},
    {R"lua(string.gsub('abc', 'b', 'x', 'y'))lua",
     R"lua(false "user_script:1: bad argument #4 to 'gsub' (number expected, got string)")lua"},
    {R"lua(string.gsub('abc', '[', 'x'))lua",
     R"lua(false "user_script:1: malformed pattern (missing ']')")lua"},
    {R"lua(string.gsub('', '', 'x'))lua", R"lua(true "x" 1)lua"},
    {R"lua(string.gsub('hello', 'l+', function(s) return #s end))lua", R"lua(true "he2o" 1)lua"},
    {R"lua(string.gsub('a\0b', '%z', '0'))lua", R"lua(true "a0b" 1)lua"},
    {R"lua(string.gsub(123, 2, 'x'))lua", R"lua(true "1x3" 1)lua"},
    {R"lua(string.gsub('x  y   z', '%s+', ' '))lua", R"lua(true "x y z" 2)lua"},
    {R"lua(string.gsub('$1,000', '[$,]', ''))lua", R"lua(true "1000" 2)lua"},
    {R"lua(collect(string.gmatch('hello world from lua', '%a+')))lua",
     R"lua(true "[\34hello\34][\34world\34][\34from\34][\34lua\34]")lua"},
    {R"lua(collect(string.gmatch('k1=v1, k2=v2', '(%w+)=(%w+)')))lua",
     R"lua(true "[\34k1\34 \34v1\34][\34k2\34 \34v2\34]")lua"},
    {R"lua(collect(string.gmatch('abc', '')))lua",
     R"lua(true "[\34\34][\34\34][\34\34][\34\34]")lua"},
    {R"lua(collect(string.gmatch('abc', '.-')))lua",
     R"lua(true "[\34\34][\34\34][\34\34][\34\34]")lua"},
    {R"lua(collect(string.gmatch('abc', 'x*')))lua",
     R"lua(true "[\34\34][\34\34][\34\34][\34\34]")lua"},
    {R"lua(collect(string.gmatch('aaa', 'a*')))lua", R"lua(true "[\34aaa\34][\34\34]")lua"},
    {R"lua(collect(string.gmatch('^a^a', '^a')))lua", R"lua(true "[\34^a\34][\34^a\34]")lua"},
    {R"lua(collect(string.gmatch('abc', '()')))lua", R"lua(true "[1][2][3][4]")lua"},
    {R"lua(collect(string.gmatch('a,b,,c', '([^,]*)')))lua",
     R"lua(true "[\34a\34][\34\34][\34b\34][\34\34][\34\34][\34c\34][\34\34]")lua"},
    {R"lua(collect(string.gmatch('one two', '%f[%w]%w+')))lua",
     R"lua(true "[\34one\34][\34two\34]")lua"},
    {R"lua(collect(string.gmatch('(a)(b(c))', '%b()')))lua",
     R"lua(true "[\34(a)\34][\34(b(c))\34]")lua"},
    {R"lua(collect(string.gmatch('abc', '(')))lua",
     R"lua(false "user_script:1: unfinished capture")lua"},
    {R"lua(collect(string.gmatch('abc', '%')))lua",
     R"lua(false "user_script:1: malformed pattern (ends with '%')")lua"},
    {R"lua(collect(string.gmatch(12321, 2)))lua", R"lua(true "[\342\34][\342\34]")lua"},
    {R"lua(collect(('x y z'):gmatch('%S')))lua", R"lua(true "[\34x\34][\34y\34][\34z\34]")lua"},
    {R"lua(unpack({1, 2, 3}))lua", R"lua(true 1 2 3)lua"},
    {R"lua(unpack({1, 2, 3}, 2))lua", R"lua(true 2 3)lua"},
    {R"lua(unpack({1, 2, 3}, 2, 5))lua", R"lua(true 2 3 nil nil)lua"},
    {R"lua(unpack({1, 2, 3}, -1, 1))lua", R"lua(true nil nil 1)lua"},
    {R"lua(unpack({1, 2, 3}, 3, 1))lua", R"lua(true)lua"},
    {R"lua(unpack({}, 1, 0))lua", R"lua(true)lua"},
    {R"lua(unpack({1, 2}, 2^32 + 1, 2))lua", R"lua(true 1 2)lua"},
    {R"lua(select('#', unpack({}, 1, 7000)))lua", R"lua(true 7000)lua"},
    {R"lua(unpack({}, 1, 1e6))lua", R"lua(false "user_script:1: too many results to unpack")lua"},
    {R"lua(unpack(nil))lua",
     R"lua(false "user_script:1: bad argument #1 to 'unpack' (table expected, got nil)")lua"},
    {R"lua(unpack({}, 'x'))lua",
     R"lua(false "user_script:1: bad argument #2 to 'unpack' (number expected, got string)")lua"},
    {R"lua(string.rep('ab', 3))lua", R"lua(true "ababab")lua"},
    {R"lua(string.rep('ab', 0))lua", R"lua(true "")lua"},
    {R"lua(string.rep('ab', -5))lua", R"lua(true "")lua"},
    {R"lua(string.rep('ab', 2.9))lua", R"lua(true "abab")lua"},
    {R"lua(string.rep('ab', 3, ', '))lua", R"lua(true "ababab")lua"},
    {R"lua(string.rep(7, 3))lua", R"lua(true "777")lua"},
    {R"lua(#string.rep('xyz', 1000))lua", R"lua(true 3000)lua"},
    {R"lua(string.rep('ab', 2^32 + 2))lua", R"lua(true "abab")lua"},
    {R"lua(string.rep())lua",
     R"lua(false "user_script:1: bad argument #1 to 'rep' (string expected, got no value)")lua"},
    {R"lua(string.rep('ab'))lua",
     R"lua(false "user_script:1: bad argument #2 to 'rep' (number expected, got no value)")lua"},
    {R"lua(string.rep('ab', 'x'))lua",
     R"lua(false "user_script:1: bad argument #2 to 'rep' (number expected, got string)")lua"},
    {R"lua(table.concat({1, 2, 3}))lua", R"lua(true "123")lua"},
    {R"lua(table.concat({1, 2, 3}, ', '))lua", R"lua(true "1, 2, 3")lua"},
    {R"lua(table.concat({1, 2, 3}, ', ', 2))lua", R"lua(true "2, 3")lua"},
    {R"lua(table.concat({1, 2, 3}, ', ', 2, 3))lua", R"lua(true "2, 3")lua"},
    {R"lua(table.concat({1, 2, 3}, ', ', 3, 2))lua", R"lua(true "")lua"},
    {R"lua(table.concat({'a', 1.5, 'c'}, '-'))lua", R"lua(true "a-1.5-c")lua"},
    {R"lua(table.concat({1, {}, 3}))lua",
     R"lua(false "user_script:1: invalid value (table) at index 2 in table for 'concat'")lua"},
    {R"lua(table.concat({1, nil, 3}, ',', 1, 3))lua",
     R"lua(false "user_script:1: invalid value (nil) at index 2 in table for 'concat'")lua"},
    {R"lua(table.concat({}, ',', 1, 0))lua", R"lua(true "")lua"},
    {R"lua(table.concat({1, 2}, {}))lua",
     R"lua(false "user_script:1: bad argument #2 to 'concat' (string expected, got table)")lua"},
    {R"lua(table.concat(nil))lua",
     R"lua(false "user_script:1: bad argument #1 to 'concat' (table expected, got nil)")lua"},
    {R"lua(table.concat({[-1] = 'a', [0] = 'b', 'c'}, '', -1, 1))lua", R"lua(true "abc")lua"},
    {R"lua(tins({1, 2, 3}, 'x'))lua", R"lua(true "{1,2,3,x}")lua"},
    {R"lua(tins({1, 2, 3}, 1, 'x'))lua", R"lua(true "{x,1,2,3}")lua"},
    {R"lua(tins({1, 2, 3}, 2, 'x'))lua", R"lua(true "{1,x,2,3}")lua"},
    {R"lua(tins({1, 2, 3}, 4, 'x'))lua", R"lua(true "{1,2,3,x}")lua"},
    {R"lua(tins({1, 2, 3}, 6, 'x'))lua", R"lua(true "{1,2,3,nil,nil,x}")lua"},
    {R"lua(tins({1, 2, 3}, 0, 'x'))lua", R"lua(true "{0=x,nil,1,2,3}")lua"},
    {R"lua(tins({1, 2, 3}, -2, 'x'))lua", R"lua(true "{-2=x,nil,1,2,3}")lua"},
    {R"lua(tins({1, 2, 3}, 1, 2, 3))lua",
     R"lua(false "user_script:1: wrong number of arguments to 'insert'")lua"},
    {R"lua(tins({1, 2, 3}))lua",
     R"lua(false "user_script:1: wrong number of arguments to 'insert'")lua"},
    {R"lua(trem({1, 2, 3}))lua", R"lua(true "3 {1,2}")lua"},
    {R"lua(trem({1, 2, 3}, 1))lua", R"lua(true "1 {2,3}")lua"},
    {R"lua(trem({1, 2, 3}, 3))lua", R"lua(true "3 {1,2}")lua"},
    {R"lua(trem({1, 2, 3}, 4))lua", R"lua(true " {1,2,3}")lua"},
    {R"lua(trem({1, 2, 3}, 0))lua", R"lua(true " {1,2,3}")lua"},
    {R"lua(trem({}))lua", R"lua(true " {}")lua"},
    {R"lua(tsort({5, 2, 8, 1, 9, 3}))lua", R"lua(true "{1,2,3,5,8,9}")lua"},
    {R"lua(tsort({5, 2, 8, 1, 9, 3}, function(a, b) return a > b end))lua",
     R"lua(true "{9,8,5,3,2,1}")lua"},
    {R"lua(tsort({'b', 'a', 'C', 'c'}))lua", R"lua(true "{C,a,b,c}")lua"},
    {R"lua(tsort({3, 1, 2}, function(a, b) return true end))lua", R"lua(true "{1,2,3}")lua"},
    {R"lua(tsort({5, 2, 8, 1, 9, 3, 7, 4, 6, 0}, function(a, b) return true end))lua",
     R"lua(false "user_script:1: invalid order function for sorting")lua"},
    {R"lua(tsort({5, 2, 8, 1, 9, 3, 7, 4, 6, 0}, function(a, b) return a <= b end))lua",
     R"lua(true "{0,1,4,2,3,5,6,7,9,8}")lua"},
    {R"lua(tsort({1, 'x', 2}))lua", R"lua(false "attempt to compare string with number")lua"},
    {R"lua(tsort({3, 2, 1}, 'notafunction'))lua",
     R"lua(false "user_script:1: bad argument #2 to 'sort' (function expected, got string)")lua"},
    {R"lua(sortrecs())lua",
     R"lua(true "24,12,8,16,20,28,4,19,11,23,15,27,3,7,26,22,18,30,10,6,2,14,29,5,25,9,13,17,21,1")lua"},
    {R"lua(select('#', table.foreachi({1, 2, 3}, function(i, v) end)))lua", R"lua(true 0)lua"},
    {R"lua(table.foreachi({1, 2, 3}, function(i, v) if v == 2 then return i * 10 end end))lua",
     R"lua(true 20)lua"},
    {R"lua(unpack({}, 2147483647, 2147483647))lua", R"lua(true nil)lua"},
    {R"lua(unpack({}, -2147483648, -2147483648))lua", R"lua(true nil)lua"},
    {R"lua(table.concat({}, ',', 2147483647, 2147483647))lua",
     R"lua(false "user_script:1: invalid value (nil) at index 2147483647 in table for 'concat'")lua"},
    {R"lua(table.concat({}, ',', -2147483648, 2147483647))lua",
     R"lua(false "user_script:1: invalid value (nil) at index -2147483648 in table for 'concat'")lua"},
    {R"lua(string.rep('', 2^31 - 1))lua", R"lua(true "")lua"},
    // Stock Lua 5.1 overflows an int on these and crashes (CVE-2025-46817); Redis's fix, like
    // ours, gives this error.
    {R"lua(unpack({}, -2, 2147483647))lua",
     R"lua(false "user_script:1: too many results to unpack")lua"},
    {R"lua(unpack({}, 0, 2147483647))lua",
     R"lua(false "user_script:1: too many results to unpack")lua"},
    {R"lua(unpack({}, -2147483648, 2147483647))lua",
     R"lua(false "user_script:1: too many results to unpack")lua"},
};

TEST(LuaCoreTest, PatternAndTableFunctionsGiveLua51Results) {
  ScriptVm vm(64 << 20);
  for (const Expected& c : kCases) {
    const std::string script =
        std::string(kPrelude) + " return show(pcall(function() return " + c.expression + " end))";
    const Ran ran = RunScript(vm, script);
    ASSERT_EQ(ran.outcome, ScriptOutcome::kDone) << c.expression << "\n→ " << ran.reply;
    EXPECT_EQ(BulkText(ran.reply), c.result) << c.expression;
  }
}

}  // namespace
}  // namespace cairn::server::scripting
