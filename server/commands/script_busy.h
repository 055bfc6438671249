// Whether a script is running on the calling io thread. While one runs, the thread keeps
// serving its other clients' I/O from the script's hook (Session::serve_others), so that a
// SCRIPT KILL can reach the script even when there is one io thread. Their commands wait
// meanwhile, as they would wait for a script in Redis — all but SCRIPT KILL, which the command
// runner lets through — and run once the script has ended.
#pragma once

#include <string_view>
#include <vector>

#include "commands/ascii.h"

namespace cairn::server {

class ScriptRunsHere {
 public:
  // Marks the calling thread for the scope's lifetime.
  ScriptRunsHere() { ++depth(); }
  ~ScriptRunsHere() { --depth(); }
  ScriptRunsHere(const ScriptRunsHere&) = delete;
  ScriptRunsHere& operator=(const ScriptRunsHere&) = delete;

  static bool Now() { return depth() > 0; }

 private:
  static int& depth() {
    thread_local int d = 0;
    return d;
  }
};

// The one command a client may run while a script runs on its io thread.
inline bool MayRunDuringScript(const std::vector<std::string_view>& args) {
  return args.size() == 2 && EqualsIgnoreCase(args[0], "script") &&
         EqualsIgnoreCase(args[1], "kill");
}

}  // namespace cairn::server
