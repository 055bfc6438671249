// Runs a script on a ScriptVm with a stand-in host instead of the server, for the tests of the
// Lua side alone (script_vm_test, lua_core_test, lua_libs_test): compiles it on first use
// (a compile error is the run's failure), then runs it with KEYS, ARGV, the protocol and the
// limits asked for.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "resp/reply_writer.h"
#include "scripting/script_vm.h"
#include "scripting/sha1.h"

namespace cairn::server::scripting::testing {

// Answers every command with `next_reply` and records the calls and logs it was given.
class FakeHost final : public ScriptHost {
 public:
  void Call(const std::vector<std::string_view>& args, int protocol, std::string* reply) override {
    std::string line;
    for (std::string_view a : args) line += std::string(a) + " ";
    calls.push_back(line + "(resp" + std::to_string(protocol) + ")");
    *reply += next_reply;
  }
  void Log(int level, std::string_view message) override {
    logs.push_back(std::to_string(level) + ":" + std::string(message));
  }
  std::string next_reply = "+OK\r\n";
  std::vector<std::string> calls;
  std::vector<std::string> logs;
};

struct RunOptions {
  int protocol = 2;
  std::vector<std::string_view> keys;
  std::vector<std::string_view> argv;
  const std::atomic<bool>* kill = nullptr;
  std::int64_t time_limit_ms = 0;
};

struct Ran {
  ScriptOutcome outcome;
  std::string reply;  // In the protocol asked for; a compile error's text.
};

inline Ran RunOnVm(ScriptVm& vm, ScriptHost& host, const std::string& body,
                   const RunOptions& options = {}) {
  const std::string sha = Sha1Hex(body);
  if (vm.Find(sha) == nullptr) {
    if (std::optional<std::string> error = vm.Compile(sha, body)) {
      return {ScriptOutcome::kFailed, *error};
    }
  }
  ScriptRequest request;
  request.sha = sha;
  request.keys = &options.keys;
  request.argv = &options.argv;
  request.kill = options.kill;
  request.time_limit_ms = options.time_limit_ms;
  std::string out;
  resp::ReplyWriter writer(&out, options.protocol);
  const ScriptOutcome outcome = vm.Run(request, host, writer);
  return {outcome, out};
}

}  // namespace cairn::server::scripting::testing
