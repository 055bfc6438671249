// Whether a script is running on the calling io thread. While one runs, the thread keeps
// serving its other clients' I/O from the script's hook (Session::serve_others), so that a
// SCRIPT KILL or SHUTDOWN NOSAVE can reach the script even when there is one io thread. Their
// commands wait meanwhile, as they would wait for a script in Redis, and run once the script
// has ended — or, once it has run past busy-reply-threshold, are answered -BUSY
// (WhileScriptRuns).
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>
#include <vector>

#include "args/ascii.h"

namespace cairn::server {

class ScriptRunsHere {
 public:
  // Marks the calling thread for the scope's lifetime.
  ScriptRunsHere() {
    if (depth()++ == 0) started() = std::chrono::steady_clock::now();
  }
  ~ScriptRunsHere() { --depth(); }
  ScriptRunsHere(const ScriptRunsHere&) = delete;
  ScriptRunsHere& operator=(const ScriptRunsHere&) = delete;

  static bool Now() { return depth() > 0; }
  // How long the outermost script running on this thread has run. REQUIRES: Now().
  static std::int64_t RunningForMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                 started())
        .count();
  }

 private:
  static int& depth() {
    thread_local int d = 0;
    return d;
  }
  static std::chrono::steady_clock::time_point& started() {
    thread_local std::chrono::steady_clock::time_point t;
    return t;
  }
};

inline constexpr std::string_view kBusyScriptError =
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";

// What a client's command does while a script runs on its io thread.
enum class DuringScript {
  kRun,     // SCRIPT KILL, SHUTDOWN NOSAVE: run now, from inside the script's hook.
  kWait,    // Wait for the script to end, as every command waits for one in Redis.
  kRefuse,  // The script has run past busy-reply-threshold: answer kBusyScriptError.
};

// `past_threshold`: the script has run longer than busy-reply-threshold. Then, as in Redis,
// only the commands that change no data and that Redis lets through a busy script (AUTH,
// HELLO, QUIT, RESET, MULTI, DISCARD, WATCH, UNWATCH) still wait; the rest are refused.
inline DuringScript WhileScriptRuns(const std::vector<std::string_view>& args,
                                    bool past_threshold) {
  if (args.size() == 2 && EqualsIgnoreCase(args[0], "script") &&
      EqualsIgnoreCase(args[1], "kill")) {
    return DuringScript::kRun;
  }
  if (EqualsIgnoreCase(args[0], "shutdown")) {
    for (std::size_t i = 1; i < args.size(); ++i) {
      if (EqualsIgnoreCase(args[i], "nosave")) return DuringScript::kRun;
    }
  }
  if (!past_threshold) return DuringScript::kWait;
  for (std::string_view allowed :
       {"auth", "hello", "quit", "reset", "multi", "discard", "watch", "unwatch"}) {
    if (EqualsIgnoreCase(args[0], allowed)) return DuringScript::kWait;
  }
  return DuringScript::kRefuse;
}

}  // namespace cairn::server
