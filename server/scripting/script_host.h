// What a running script calls out to: the server side of redis.call, redis.pcall and
// redis.log. The Lua side (script_vm.h) knows nothing of the store or the command table; the
// script commands (commands/script_commands.cc) give it a host that runs commands in the
// script's transaction.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cairn::server::scripting {

class ScriptHost {
 public:
  virtual ~ScriptHost() = default;

  // Runs args (args[0] the command name) and appends its reply, in RESP `protocol`, to *reply:
  // an error reply when the command may not run from a script.
  virtual void Call(const std::vector<std::string_view>& args, int protocol,
                    std::string* reply) = 0;

  // After a call: why the script must stop at once, failed and rolled back (the error reply's
  // text), when one of the host's limits is passed — the memory the script's writes hold
  // outside Lua. Empty: it goes on.
  virtual std::string StopReason() { return {}; }

  // redis.log: level is one of kLogDebug … kLogWarning.
  virtual void Log(int level, std::string_view message) = 0;
};

inline constexpr int kLogDebug = 0;
inline constexpr int kLogVerbose = 1;
inline constexpr int kLogNotice = 2;
inline constexpr int kLogWarning = 3;

}  // namespace cairn::server::scripting
