// The per-Lua-state record the library functions of a script (redis.*, the sandbox's
// guards, the time-limit hook) reach from their lua_State: it is the state's allocator
// argument, so finding it costs no table lookup. Internal to server/scripting.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "scripting/cjson.h"
#include "scripting/lua.h"
#include "scripting/lua_heap.h"
#include "scripting/script_host.h"

namespace cairn::server::scripting {

struct VmState {
  // The allocator's books and memory: Lua asks for more only through it.
  LuaHeap heap;
  std::size_t used = 0;
  std::size_t limit = 0;  // 0: no limit (outside the script's own code).
  bool over_limit = false;

  // Set for the duration of one Run.
  ScriptHost* host = nullptr;
  std::string sha;
  int resp = 2;  // redis.setresp.
  bool has_deadline = false;
  std::chrono::steady_clock::time_point deadline;
  const std::atomic<bool>* kill = nullptr;
  const std::function<void()>* on_tick = nullptr;
  enum class Stop { kNone, kKilled, kTimedOut, kHostLimit };
  Stop stop = Stop::kNone;
  std::string stop_reason;  // kHostLimit: the host's error text (ScriptHost::StopReason).

  // Registry references (luaL_ref), set once: a run reaches these by array index instead of
  // hashing a name into the registry (and interning it) several times per script.
  int globals_ref = 0;    // The real global table (kGlobalsKey).
  int keys_name_ref = 0;  // The strings "KEYS" and "ARGV".
  int argv_name_ref = 0;
  int handler_ref = 0;  // The error handler of every run.

  // redis.call's buffers, kept from call to call so that a call allocates none of them (a
  // BullMQ job makes a few dozen calls). No call runs inside another.
  std::vector<std::string_view> call_args;
  std::vector<std::string> call_numbers;  // Number arguments as text; call_args views them.
  std::string call_reply;

  // The settings of the state's cjson table; restored to the defaults after a run that
  // changed them.
  CjsonSettings cjson;
};

inline VmState* StateOf(lua_State* L) {
  void* ud = nullptr;
  lua_getallocf(L, &ud);
  return static_cast<VmState*>(ud);
}

// What the state may still allocate under its memory limit (when it has one).
inline std::size_t MemoryHeadroom(const VmState& vm) {
  return vm.used < vm.limit ? vm.limit - vm.used : 0;
}

// For a library that builds a string outside the Lua heap (cmsgpack.pack, struct.pack): the
// allocator never sees that buffer, and a small table can make it huge (the same string many
// times over). Once it holds more than the heap could take as a string, raises the error an
// allocation past the memory limit raises.
inline void CheckFitsInHeap(lua_State* L, std::size_t bytes) {
  VmState* vm = StateOf(L);
  if (vm->limit == 0 || bytes <= MemoryHeadroom(*vm)) return;
  vm->over_limit = true;
  lua_pushliteral(L, "not enough memory");
  lua_error(L);
}

// Registry keys.
inline constexpr const char* kGlobalsKey = "cairn.globals";      // the real global table
inline constexpr const char* kProtectedKey = "cairn.protected";  // read-only tables → true

// Builds the sandbox: libraries, the redis table, read-only globals (lua_sandbox.cc).
void OpenSandbox(lua_State* L);
// Set the globals `redis` (redis_lib.cc), `cjson` (lua_cjson.cc), `bit` (lua_bit.cc),
// `cmsgpack` (lua_cmsgpack.cc) and `struct` (lua_struct.cc).
void OpenRedisLib(lua_State* L);
void OpenCjson(lua_State* L);
void OpenBit(lua_State* L);
void OpenCmsgpack(lua_State* L);
void OpenStruct(lua_State* L);

}  // namespace cairn::server::scripting
