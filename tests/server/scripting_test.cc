// Scripts end to end, over real sockets, each test with its own cairn-server: atomicity (a
// script that fails part-way leaves nothing written), the time limit and SCRIPT KILL (also
// inside a slow pattern match), scripts that crashed stock Lua 5.1, the memory bound,
// sandbox escapes, scripts inside MULTI, and the script cache across EVAL, EVALSHA and a
// restart. Reply conversions and error texts are compared with Redis in differential_test
// (corpus/scripting.txt).
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/support/resp_client.h"
#include "server/support/server_fixture.h"

namespace cairn::test {
namespace {

class ScriptingTest : public ServerFixture {};

TEST_F(ScriptingTest, AScriptThatFailsPartWayLeavesNothingWritten) {
  Start();
  ASSERT_EQ(Do({"SET", "text", "abc"}), "OK");
  // redis.call raises on the INCR of a non-number, after two writes.
  const Reply failed = Call({"EVAL",
                             "redis.call('set', KEYS[1], 'one') "
                             "redis.call('incr', KEYS[2]) "
                             "redis.call('incr', 'text') "
                             "return 'unreachable'",
                             "2", "a", "b"});
  ASSERT_EQ(failed.type, Reply::Type::kError) << failed.ToString();
  EXPECT_EQ(failed.str.rfind("ERR value is not an integer or out of range script: ", 0), 0u)
      << failed.str;
  EXPECT_EQ(Do({"EXISTS", "a", "b"}), "(integer) 0");
  EXPECT_EQ(Do({"GET", "text"}), "\"abc\"");

  // A Lua error after a write: the same.
  EXPECT_EQ(Call({"EVAL", "redis.call('set', 'a', 'x') local t = nil return t.field", "0"}).type,
            Reply::Type::kError);
  EXPECT_EQ(Do({"EXISTS", "a"}), "(integer) 0");

  // An error caught by redis.pcall does not fail the script: its writes stand.
  EXPECT_EQ(Do({"EVAL",
                "redis.call('set', 'a', 'kept') "
                "local r = redis.pcall('incr', 'text') "
                "return r.err",
                "0"}),
            "\"ERR value is not an integer or out of range\"");
  EXPECT_EQ(Do({"GET", "a"}), "\"kept\"");
  // Nor does returning an error reply.
  EXPECT_EQ(Call({"EVAL", "redis.call('set', 'b', 'kept') return redis.error_reply('NOPE')", "0"})
                .ToString(),
            "(error) ERR NOPE");
  EXPECT_EQ(Do({"GET", "b"}), "\"kept\"");
}

TEST_F(ScriptingTest, PipelinedScriptsShareACommitAndAFailedOneUndoesOnlyItself) {
  Start();
  ASSERT_EQ(Do({"SET", "text", "abc"}), "OK");
  // One pipeline: the scripts join the io thread's write batch, one after another.
  std::unique_ptr<RespClient> c = Connect();
  std::string pipeline;
  pipeline += RespClient::Encode({"EVAL", "return redis.call('set', 'a', '1')", "0"});
  pipeline += RespClient::Encode(
      {"EVAL", "redis.call('set', 'b', '1') return redis.call('incr', 'text')", "0"});
  pipeline += RespClient::Encode({"EVAL", "return redis.call('incr', 'a')", "0"});
  pipeline += RespClient::Encode({"INCR", "a"});
  ASSERT_TRUE(c->Send(pipeline));
  std::vector<std::string> replies;
  for (int i = 0; i < 4; ++i) {
    const std::optional<Reply> r = c->Read();
    ASSERT_TRUE(r.has_value());
    replies.push_back(r->ToString());
  }
  EXPECT_EQ(replies[0], "OK");
  EXPECT_EQ(replies[1].rfind("(error) ERR value is not an integer or out of range script: ", 0), 0u)
      << replies[1];
  EXPECT_EQ(replies[2], "(integer) 2");
  EXPECT_EQ(replies[3], "(integer) 3");
  EXPECT_EQ(Do({"MGET", "a", "b"}), "[\"3\", (nil)]");
}

TEST_F(ScriptingTest, ARunawayScriptIsStoppedAndRolledBack) {
  Start({"--lua-time-limit", "200"});
  const Reply stopped = Call({"EVAL", "redis.call('set', 'x', '1') while true do end", "0"});
  ASSERT_EQ(stopped.type, Reply::Type::kError) << stopped.ToString();
  EXPECT_NE(stopped.str.find("lua-time-limit (200 ms)"), std::string::npos) << stopped.str;
  EXPECT_EQ(Do({"EXISTS", "x"}), "(integer) 0");

  // Catching errors in a loop does not keep it alive: the stop is raised again at once.
  const Reply caught = Call({"EVAL",
                             "redis.call('set', 'x', '1') "
                             "while true do pcall(function() while true do end end) end",
                             "0"});
  ASSERT_EQ(caught.type, Reply::Type::kError) << caught.ToString();
  EXPECT_NE(caught.str.find("lua-time-limit"), std::string::npos) << caught.str;
  EXPECT_EQ(Do({"EXISTS", "x"}), "(integer) 0");

  // The limit changes at run time; the server goes on serving.
  EXPECT_EQ(Do({"CONFIG", "SET", "lua-time-limit", "100"}), "OK");
  EXPECT_NE(Call({"EVAL", "while true do end", "0"}).str.find("(100 ms)"), std::string::npos);
  EXPECT_EQ(Do({"EVAL", "return 'alive'", "0"}), "\"alive\"");
}

TEST_F(ScriptingTest, ScriptKillReachesAScriptOnTheOnlyIoThread) {
  Start({"--threads", "1", "--lua-time-limit", "0"});  // No limit: only SCRIPT KILL ends it.
  std::unique_ptr<RespClient> runner = Connect();
  ASSERT_TRUE(runner->Send(
      RespClient::Encode({"EVAL", "redis.call('set', 'k', 'partial') while true do end", "0"})));
  // A reader on the same io thread: its GET waits for the script, and sees no partial write.
  std::unique_ptr<RespClient> reader = Connect();
  ASSERT_TRUE(reader->Send(RespClient::Encode({"GET", "k"})));
  std::unique_ptr<RespClient> killer = Connect();
  // The script may not have started yet: NOTBUSY until it has.
  Reply kill;
  for (int attempt = 0; attempt < 10000; ++attempt) {
    kill = killer->Call({"SCRIPT", "KILL"});
    if (kill.ToString() == "OK") break;
    ASSERT_EQ(kill.ToString(), "(error) NOTBUSY No scripts in execution right now.");
  }
  ASSERT_EQ(kill.ToString(), "OK");
  const std::optional<Reply> killed = runner->Read();
  ASSERT_TRUE(killed.has_value());
  EXPECT_EQ(killed->str.rfind("ERR Script killed by user with SCRIPT KILL", 0), 0u)
      << killed->ToString();
  const std::optional<Reply> read = reader->Read();
  ASSERT_TRUE(read.has_value());
  EXPECT_TRUE(read->IsNil()) << read->ToString();
  EXPECT_EQ(killer->Call({"SCRIPT", "KILL"}).ToString(),
            "(error) NOTBUSY No scripts in execution right now.");
  EXPECT_EQ(runner->Call({"EVAL", "return 'next'", "0"}).ToString(), "\"next\"");
}

TEST_F(ScriptingTest, ScriptKillStopsAScriptInsideTheMatcher) {
  Start({"--threads", "1", "--lua-time-limit", "0"});
  std::unique_ptr<RespClient> runner = Connect();
  // Minutes of backtracking inside one string.find: no Lua instruction for the hook to see.
  ASSERT_TRUE(runner->Send(RespClient::Encode(
      {"EVAL",
       "redis.call('set', 'k', 'partial') return string.find(string.rep('a', 2000), '.-.-.-.-b')",
       "0"})));
  std::unique_ptr<RespClient> killer = Connect();
  Reply kill;
  for (int attempt = 0; attempt < 10000; ++attempt) {
    kill = killer->Call({"SCRIPT", "KILL"});
    if (kill.ToString() == "OK") break;
    ASSERT_EQ(kill.ToString(), "(error) NOTBUSY No scripts in execution right now.");
  }
  ASSERT_EQ(kill.ToString(), "OK");
  const std::optional<Reply> killed = runner->Read();
  ASSERT_TRUE(killed.has_value());
  EXPECT_EQ(killed->str.rfind("ERR Script killed by user with SCRIPT KILL", 0), 0u)
      << killed->ToString();
  EXPECT_EQ(killer->Call({"EXISTS", "k"}).ToString(), "(integer) 0");
  EXPECT_EQ(runner->Call({"EVAL", "return 'next'", "0"}).ToString(), "\"next\"");
}

TEST_F(ScriptingTest, TheTimeLimitStopsAScriptInsideTheMatcher) {
  Start({"--lua-time-limit", "100"});
  const Reply stopped =
      Call({"EVAL", "return string.gsub(string.rep('a', 2000), '.-.-.-.-b', '')", "0"});
  ASSERT_EQ(stopped.type, Reply::Type::kError) << stopped.ToString();
  EXPECT_NE(stopped.str.find("lua-time-limit (100 ms)"), std::string::npos) << stopped.str;
  EXPECT_EQ(Do({"EVAL", "return 'alive'", "0"}), "\"alive\"");
}

TEST_F(ScriptingTest, ScriptsThatCrashedStockLuaFailAndTheServerGoesOn) {
  // A small heap: the bounds on replies and packed strings follow it, and are met sooner.
  Start({"--lua-memory-limit", "8mb"});
  const std::vector<std::pair<std::string, std::string>> scripts = {
      {"return select('#', unpack({}, -2, 2147483647))", "too many results to unpack"},
      {"return unpack({}, 0, 2147483647)", "too many results to unpack"},
      {"return string.match(string.rep('a', 100000), string.rep('a?', 100000))",
       "pattern too complex"},
      {"return string.gsub(string.rep('a', 100000), string.rep('.-', 50000), 'b')",
       "pattern too complex"},
      {"return string.rep('x', 2^31 - 1)", "does not fit"},
      {"local t = {} for i = 1, 100 do t = {t, t} end return t", "Script reply larger"},
      {"local s = string.rep('x', 2^20) local t = {} for i = 1, 1000 do t[i] = s end "
       "return cmsgpack.pack(t)",
       "lua-memory-limit"},
  };
  for (const auto& [script, error] : scripts) {
    const Reply r = Call({"EVAL", script, "0"});
    ASSERT_EQ(r.type, Reply::Type::kError) << script << " → " << r.ToString();
    EXPECT_NE(r.str.find(error), std::string::npos) << script << " → " << r.str;
    ASSERT_EQ(Do({"PING"}), "PONG") << "after " << script;
  }
  // These stayed shallow in stock Lua too: plain results.
  EXPECT_EQ(
      Do({"EVAL", "return string.match(string.rep('a', 300000), string.rep('(a)', 30))", "0"}),
      "\"a\"");
  EXPECT_EQ(
      Do({"EVAL", "return string.find(string.rep('a', 10), string.rep('%f[a]', 200000))", "0"}),
      "(integer) 1");
  // Precompiled bodies do not load, from EVAL or SCRIPT LOAD.
  const std::string bytecode = std::string("\x1bLuaQ\x00\x01\x04\x08\x04\x08\x00", 12);
  for (const Args& command : {Args{"EVAL", bytecode, "0"}, Args{"SCRIPT", "LOAD", bytecode},
                              Args{"EVAL", "#!lua\n" + bytecode, "0"}}) {
    const Reply r = Call(command);
    ASSERT_EQ(r.type, Reply::Type::kError) << r.ToString();
    EXPECT_EQ(r.str.rfind("ERR Error compiling script (new function): user_script:", 0), 0u)
        << r.str;
    EXPECT_NE(r.str.find("unexpected symbol near 'char(27)'"), std::string::npos) << r.str;
  }
  EXPECT_EQ(Do({"EVAL", "return 'alive'", "0"}), "\"alive\"");
}

TEST_F(ScriptingTest, LibraryInputsThatCrashedTheCLibrariesFailAndSettingsDoNotLeak) {
  Start();
  // CVE-2024-31449's input: our bit.tohex clamps the count.
  EXPECT_EQ(Do({"EVAL", "return bit.tohex(65535, -2147483648)", "0"}), "\"0000FFFF\"");
  // Nesting past cjson's 1000 levels, both ways, is an error and the server goes on.
  const std::vector<std::string> nested = {
      "return cjson.decode(string.rep('[', 100000))",
      "return cjson.decode(string.rep('{\"a\":', 100000))",
      "local t = {} local c = t for i = 1, 10000 do c[1] = {} c = c[1] end "
      "return cjson.encode(t)",
      "cjson.encode_max_depth(1e9) local t = {} local c = t for i = 1, 100000 do c[1] = {} "
      "c = c[1] end return cjson.encode(t)",
  };
  for (const std::string& script : nested) {
    const Reply r = Call({"EVAL", script, "0"});
    ASSERT_EQ(r.type, Reply::Type::kError) << script << " → " << r.ToString();
    EXPECT_NE(r.str.find("nest"), std::string::npos) << r.str;  // "nested", "nesting"
  }
  // A setting one script changes is back to its default for the next.
  EXPECT_EQ(Do({"EVAL", "cjson.encode_number_precision(3) return cjson.encode(1/3)", "0"}),
            "\"0.333\"");
  EXPECT_EQ(Do({"EVAL", "return cjson.encode(1/3)", "0"}), "\"0.33333333333333\"");
  // Bytecode does not load from inside a script either.
  const Reply dumped = Call({"EVAL",
                             "local f, e = loadstring(string.dump(function() return 1 end)) "
                             "return {tostring(f), e}",
                             "0"});
  EXPECT_EQ(dumped.ToString(), "[\"nil\", \"loading precompiled chunks is not allowed\"]");
  EXPECT_EQ(Do({"PING"}), "PONG");
}

TEST_F(ScriptingTest, TheMemoryOfTheLuaStateIsBounded) {
  Start({"--lua-memory-limit", "4mb"});
  const Reply big = Call({"EVAL",
                          "redis.call('set', 'x', '1') "
                          "local t = {} for i = 1, 10000000 do t[i] = i end return #t",
                          "0"});
  ASSERT_EQ(big.type, Reply::Type::kError) << big.ToString();
  EXPECT_NE(big.str.find("lua-memory-limit (4194304 bytes)"), std::string::npos) << big.str;
  EXPECT_EQ(Do({"EXISTS", "x"}), "(integer) 0");
  // Long strings count too.
  EXPECT_EQ(Call({"EVAL", "return #string.rep('x', 8 * 1024 * 1024)", "0"}).type,
            Reply::Type::kError);
  // The state recovers: what the failed scripts held is collected.
  EXPECT_EQ(Do({"EVAL", "local t = {} for i = 1, 1000 do t[i] = i end return #t", "0"}),
            "(integer) 1000");
}

TEST_F(ScriptingTest, SandboxEscapesFail) {
  Start();
  const std::vector<std::string> escapes = {
      "return os.execute('touch /tmp/cairn-escaped')",
      "return io.open('/etc/passwd')",
      "return require('os')",
      "return package.loadlib('libc.so.6', 'system')",
      "return debug.getregistry()",
      "return dofile('/etc/passwd')",
      "return loadfile('/etc/passwd')",
      "return getfenv(print)",
      "return setfenv(1, {})",
      "return newproxy(true)",
      "string.rep = function() return 'trap' end",
      "getmetatable('').__index.rep = function() return 'trap' end",
      "getmetatable('').__index = {}",
      "rawset(string, 'rep', function() return 'trap' end)",
      "rawset(_G, 'tostring', function() return 'trap' end)",
      "tostring = function() return 'trap' end",
      "_G.tostring = function() return 'trap' end",
      "setmetatable(_G, nil) tostring = function() return 'trap' end",
      "setmetatable(string, nil)",
      "trap = 1",
      "loadstring('tostring = function() return 1 end')()",
  };
  for (const std::string& script : escapes) {
    const Reply r = Call({"EVAL", script, "0"});
    EXPECT_EQ(r.type, Reply::Type::kError) << script << " → " << r.ToString();
  }
  // Precompiled chunks do not load (Lua 5.1 does not verify bytecode).
  EXPECT_EQ(Do({"EVAL", "return tostring(loadstring(string.dump(function() return 1 end)))", "0"}),
            "\"nil\"");
  // Nothing was left behind for the next script.
  EXPECT_EQ(
      Do({"EVAL", "return {string.rep('ab', 2), tostring(12), rawget(_G, 'trap') == nil}", "0"}),
      "[\"abab\", \"12\", (integer) 1]");
  EXPECT_EQ(Call({"EVAL", "return trap", "0"}).type, Reply::Type::kError);
  EXPECT_EQ(Call({"EXISTS", "/tmp/cairn-escaped"}).ToString(), "(integer) 0");
}

TEST_F(ScriptingTest, ScriptsRunInsideMultiAndAFailedOneUndoesOnlyItself) {
  Start();
  ASSERT_EQ(Do({"SET", "text", "abc"}), "OK");
  ASSERT_EQ(Do({"MULTI"}), "OK");
  ASSERT_EQ(Do({"SET", "before", "1"}), "QUEUED");
  ASSERT_EQ(Do({"EVAL", "return redis.call('incr', KEYS[1])", "1", "n"}), "QUEUED");
  ASSERT_EQ(
      Do({"EVAL", "redis.call('set', 'partial', 'x') return redis.call('incr', 'text')", "0"}),
      "QUEUED");
  ASSERT_EQ(Do({"SET", "after", "1"}), "QUEUED");
  const Reply exec = Call({"EXEC"});
  ASSERT_EQ(exec.type, Reply::Type::kArray) << exec.ToString();
  ASSERT_EQ(exec.elements.size(), 4u);
  EXPECT_EQ(exec.elements[1].ToString(), "(integer) 1");
  EXPECT_EQ(exec.elements[2].type, Reply::Type::kError);
  // As in Redis, the other commands of the transaction stand; the failed script left nothing.
  EXPECT_EQ(Do({"MGET", "before", "n", "partial", "after"}), "[\"1\", \"1\", (nil), \"1\"]");
}

TEST_F(ScriptingTest, TheScriptCacheServesEvalshaUntilFlushOrRestart) {
  Start();
  const std::string sha = Call({"SCRIPT", "LOAD", "return ARGV[1] .. '!'"}).str;
  ASSERT_EQ(sha.size(), 40u);
  EXPECT_EQ(Do({"EVALSHA", sha, "0", "hi"}), "\"hi!\"");
  // EVAL caches its script under its SHA-1 too; another connection sees it.
  ASSERT_EQ(Do({"EVAL", "return 7", "0"}), "(integer) 7");
  std::unique_ptr<RespClient> other = Connect();
  EXPECT_EQ(other->Call({"EVALSHA", "59b6ab2fbe0ee4b25733de0f62e6cda4899ef8e9", "0"}).ToString(),
            "(integer) 7");
  EXPECT_EQ(other->Call({"EVALSHA", "3ffd4fd2e0d2ee7c5a4e3c9c0d5c9b6d4b49d21f", "0"})
                .ToString()
                .rfind("(error) NOSCRIPT", 0),
            0u);
  EXPECT_EQ(other->Call({"SCRIPT", "EXISTS", sha}).ToString(), "[(integer) 1]");
  EXPECT_EQ(Do({"SCRIPT", "FLUSH"}), "OK");
  EXPECT_EQ(other->Call({"EVALSHA", sha, "0", "hi"}).ToString(),
            "(error) NOSCRIPT No matching script. Please use EVAL.");
  // Kept in memory only, as Redis keeps it: clients load scripts again after a restart.
  ASSERT_EQ(Call({"SCRIPT", "LOAD", "return 1"}).type, Reply::Type::kBulk);
  other.reset();
  Restart();
  EXPECT_EQ(Do({"SCRIPT", "EXISTS", sha}), "[(integer) 0]");
}

}  // namespace
}  // namespace cairn::test
