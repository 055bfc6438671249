// One Lua 5.1 state that runs scripts: the sandbox (lua_sandbox.cc), the functions compiled
// in it by script name, and the run of one script with KEYS and ARGV, a time limit, a kill
// flag and a bounded heap. Each thread that runs scripts has its own (ThreadScriptVm); they
// all follow the server's ScriptCache. Used by one thread at a time.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "resp/reply_writer.h"
#include "scripting/script_host.h"
#include "util/string_hash.h"

struct lua_State;

namespace cairn::server::scripting {

struct VmState;

struct ScriptRequest {
  std::string_view sha;  // Compiled in this VM (Compile).
  const std::vector<std::string_view>* keys = nullptr;
  const std::vector<std::string_view>* argv = nullptr;
  std::int64_t time_limit_ms = 0;           // 0: none.
  const std::atomic<bool>* kill = nullptr;  // Set (by SCRIPT KILL) to stop the script.
  // Called about every millisecond of a long script, before the kill flag is looked at: the
  // server serves its other clients' I/O there, so that a SCRIPT KILL can arrive.
  const std::function<void()>* on_tick = nullptr;
};

enum class ScriptOutcome {
  kDone,    // The script returned; its reply is written. Its writes stand.
  kFailed,  // It raised an error, was stopped or ran out of memory; the error reply is
            // written. Its writes must be rolled back.
};

class ScriptVm {
 public:
  // memory_limit: bytes the state may hold (0: no limit).
  explicit ScriptVm(std::size_t memory_limit);
  ~ScriptVm();
  ScriptVm(const ScriptVm&) = delete;
  ScriptVm& operator=(const ScriptVm&) = delete;

  // Catches up with the server's script cache: drops every compiled function when the cache's
  // epoch has moved on (SCRIPT FLUSH), and those of scripts the cache no longer has when its
  // eviction count has (`cached` tells which it has).
  void Follow(std::uint64_t cache_epoch, std::uint64_t cache_evictions,
              const std::function<bool(std::string_view sha)>& cached);

  struct Compiled {
    bool no_writes = false;  // "#!lua flags=no-writes": runs as a read-only script.
    int function = 0;        // Registry reference of the compiled function.
  };
  // The script named sha, if this VM has compiled it.
  const Compiled* Find(std::string_view sha) const;
  // Compiles `script` (its "#!lua" header line, if any, read first) as the script named sha.
  // On failure returns the error reply's text ("ERR Error compiling script (new function):
  // user_script:1: …").
  std::optional<std::string> Compile(std::string_view sha, std::string_view script);

  // Runs a compiled script; writes its reply (or error) in the caller's protocol.
  ScriptOutcome Run(const ScriptRequest& request, ScriptHost& host, resp::ReplyWriter& reply);

  std::size_t memory_used() const;
  void set_memory_limit(std::size_t bytes);

 private:
  std::unique_ptr<VmState> state_;
  std::size_t memory_limit_;
  lua_State* L_ = nullptr;
  std::uint64_t epoch_ = 0;
  std::uint64_t evictions_ = 0;
  std::unordered_map<std::string, Compiled, StringHash, std::equal_to<>> compiled_;
};

// The calling thread's VM, created on first use with `memory_limit` (later calls adjust it).
ScriptVm& ThreadScriptVm(std::size_t memory_limit);

// What the script header "#!lua flags=…" (Redis 7) says, and the body after it.
struct ScriptHeader {
  bool no_writes = false;
  std::string_view body;  // The header line blanked out: line numbers stay as written.
  std::string error;      // Non-empty: the header is malformed (the error reply's text).
};
ScriptHeader ReadScriptHeader(std::string_view script);

}  // namespace cairn::server::scripting
