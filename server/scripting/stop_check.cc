#include "scripting/stop_check.h"

#include <chrono>

#include "scripting/vm_state.h"

namespace cairn::server::scripting {

bool StopRequested(lua_State* L) {
  VmState* vm = StateOf(L);
  if (vm->stop != VmState::Stop::kNone) return true;
  if (vm->on_tick != nullptr) (*vm->on_tick)();
  if (vm->kill != nullptr && vm->kill->load(std::memory_order_relaxed)) {
    vm->stop = VmState::Stop::kKilled;
  } else if (vm->has_deadline && std::chrono::steady_clock::now() >= vm->deadline) {
    vm->stop = VmState::Stop::kTimedOut;
  } else {
    return false;
  }
  return true;
}

void CheckStop(lua_State* L) {
  if (!StopRequested(L)) return;
  // From now on raise at every instruction of this thread (a coroutine's errors end at its
  // resume: the thread that resumed it raises at its own next hook).
  lua_sethook(L, StopHook, LUA_MASKCOUNT, 1);
  luaL_error(L, "script stopped");
}

void StopHook(lua_State* L, lua_Debug*) { CheckStop(L); }

}  // namespace cairn::server::scripting
