// Stopping a script that runs too long (lua-time-limit) or is killed (SCRIPT KILL). Lua runs
// StopHook every so many instructions of the script's own code; a library function that loops
// in C (the pattern matcher, table.sort, …) runs no instruction, so it counts its steps with a
// StepCounter, which looks at the same flags every kStepsPerCheck steps. Both raise the same
// error, and from then on the hook raises at every instruction, so that no pcall or
// coroutine in the script can keep it running.
#pragma once

#include <cstddef>

#include "scripting/lua.h"

namespace cairn::server::scripting {

// The count hook of a running script (lua_sethook with LUA_MASKCOUNT).
void StopHook(lua_State* L, lua_Debug* ar);

// Serves the host's tick, then looks at the kill flag and the deadline; true once the script
// must stop (VmState::stop says why). Never raises: for code outside a protected call.
bool StopRequested(lua_State* L);

// Raises the error that stops the script when StopRequested says so.
void CheckStop(lua_State* L);

// A step of C work costs about as much as a Lua instruction (a character compared, an
// element moved); the hook runs every 100,000 instructions, about a millisecond.
inline constexpr int kStepsPerCheck = 100000;

class StepCounter {
 public:
  explicit StepCounter(lua_State* L) : L_(L) {}
  // `steps`: work of that many steps done (a memcmp of n bytes counts n / 16 + 1).
  void Add(std::size_t steps = 1) {
    if (steps < left_) {
      left_ -= steps;
      return;
    }
    left_ = kStepsPerCheck;
    CheckStop(L_);
  }

 private:
  lua_State* L_;
  std::size_t left_ = kStepsPerCheck;
};

}  // namespace cairn::server::scripting
