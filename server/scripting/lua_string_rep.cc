// string.rep(s, n): s repeated n times, as in Lua 5.1 (n read as an int; n <= 0 gives ""; no
// separator argument). Stock Lua 5.1 appends s n times one by one: string.rep('', 2^31 - 1)
// loops two billion times in C, out of reach of the time limit, and a result that cannot fit
// fails only after it has filled the memory. Here the size is computed first, with overflow
// checks, and a result that cannot fit is refused before anything is allocated; the copy
// doubles what it has written, so it takes a few dozen memcpy calls.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>

#include "scripting/lua_core_lib.h"
#include "scripting/vm_state.h"

namespace cairn::server::scripting {
namespace {

// Results up to this size are built on the C stack; larger ones in a scratch userdata, which
// counts against the script's memory like the string made from it.
constexpr std::size_t kStackBytes = 1024;
constexpr std::size_t kMaxBytes = std::size_t{1} << 48;

// Fills out[0, total) with copies of s[0, length), doubling what is written each time.
void FillRepeated(char* out, std::size_t total, const char* s, std::size_t length) {
  std::memcpy(out, s, length);
  std::size_t written = length;
  while (written < total) {
    const std::size_t chunk = std::min(written, total - written);
    std::memcpy(out + written, out, chunk);
    written += chunk;
  }
}

int Rep(lua_State* L) {
  std::size_t length = 0;
  const char* s = luaL_checklstring(L, 1, &length);
  const int n = static_cast<int>(luaL_checkinteger(L, 2));  // Lua 5.1's luaL_checkint.
  if (n <= 0 || length == 0) {
    lua_pushliteral(L, "");
    return 1;
  }
  std::size_t total = 0;
  // A Lua string also needs a header and a '\0': stay well below SIZE_MAX.
  if (__builtin_mul_overflow(length, static_cast<std::size_t>(n), &total) || total > kMaxBytes) {
    const std::string what = std::to_string(n) + " copies of " + std::to_string(length) + " bytes";
    return luaL_error(L, "string.rep: the result (%s) is too large", what.c_str());
  }
  const VmState* vm = StateOf(L);
  if (vm->limit != 0 && total > MemoryHeadroom(*vm)) {
    lua_gc(L, LUA_GCCOLLECT, 0);  // It cannot fit now: collect the garbage once, then see.
    if (total > MemoryHeadroom(*vm)) {
      const std::string bytes = std::to_string(total);
      return luaL_error(L,
                        "string.rep: the result (%s bytes) does not fit in the memory left to "
                        "the script (lua-memory-limit)",
                        bytes.c_str());
    }
  }
  if (total <= kStackBytes) {
    char out[kStackBytes];
    FillRepeated(out, total, s, length);
    lua_pushlstring(L, out, total);
    return 1;
  }
  auto* out = static_cast<char*>(lua_newuserdata(L, total));
  FillRepeated(out, total, s, length);
  lua_pushlstring(L, out, total);
  return 1;
}

}  // namespace

void InstallStringRep(lua_State* L, int string_table) {
  lua_pushcfunction(L, Rep);
  lua_setfield(L, string_table, "rep");
}

}  // namespace cairn::server::scripting
