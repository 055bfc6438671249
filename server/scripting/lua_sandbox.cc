// The sandbox a script runs in, as Redis 7 builds it:
// - the base, table, string, math and coroutine libraries, cjson, bit, cmsgpack and struct
//   (our own, in place of the C libraries Redis bundles), and the redis table; no io, os, debug,
//   package, dofile, loadfile, getfenv, setfenv, print or newproxy;
// - loadstring and load refuse precompiled chunks (Lua 5.1 does not verify bytecode, so a
//   crafted chunk could escape the sandbox);
// - the functions of Lua's libraries that a script could crash or hang the server with
//   (unpack, string.rep, the pattern functions, the table functions that loop) are our own
//   versions (lua_core_lib.h);
// - globals are read-only: reading an unknown global is an error, and so is any assignment
//   to a global or to a library table, so that no script can leave state (or a trap) behind
//   for the next one. Stock Lua 5.1 has no read-only tables, so scripts see proxies: the
//   environment is an empty table whose reads fall through to the real globals, each library
//   table is an empty table whose reads fall through to the library, and writes to any of them
//   raise "Attempt to modify a readonly table" (rawset is guarded too).
#include <cstring>

#include "scripting/lua_core_lib.h"
#include "scripting/stop_check.h"
#include "scripting/vm_state.h"

namespace cairn::server::scripting {
namespace {

// Raises msg with the position of the Lua code that caused it (level 1: the code that
// triggered the metamethod), as Redis's in-VM checks do.
int RaiseAtCaller(lua_State* L, const char* msg) {
  luaL_where(L, 1);
  lua_pushstring(L, msg);
  lua_concat(L, 2);
  return lua_error(L);
}

int ReadonlyNewIndex(lua_State* L) {
  return RaiseAtCaller(L, "Attempt to modify a readonly table");
}

int MissingGlobal(lua_State* L) {
  const char* name = lua_tostring(L, 2);
  luaL_where(L, 1);
  lua_pushfstring(L, "Script attempted to access nonexistent global variable '%s'",
                  name != nullptr ? name : "?");
  lua_concat(L, 2);
  return lua_error(L);
}

bool IsProtected(lua_State* L, int index) {
  lua_getfield(L, LUA_REGISTRYINDEX, kProtectedKey);
  lua_pushvalue(L, index);
  lua_rawget(L, -2);
  const bool prot = lua_toboolean(L, -1) != 0;
  lua_pop(L, 2);
  return prot;
}

void MarkProtected(lua_State* L, int index) {
  const int abs = index > 0 ? index : lua_gettop(L) + index + 1;
  lua_getfield(L, LUA_REGISTRYINDEX, kProtectedKey);
  lua_pushvalue(L, abs);
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

int ReadonlyError(lua_State* L) {
  lua_pushstring(L, "Attempt to modify a readonly table");  // No position, as in Redis.
  return lua_error(L);
}

int GuardedRawset(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  if (IsProtected(L, 1)) return ReadonlyError(L);
  lua_settop(L, 3);
  lua_rawset(L, 1);
  return 1;
}

int GuardedSetmetatable(lua_State* L) {
  if (lua_istable(L, 1) && IsProtected(L, 1)) return ReadonlyError(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// pcall as Redis 7 gives it to scripts: an error table ({err = …}, as redis.call raises) is
// caught as its message string. What stops the whole script is not caught: SCRIPT KILL, the
// time limit and the host's limits.
int ScriptPcall(lua_State* L) {
  luaL_checkany(L, 1);
  const int status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
  if (status != 0) {
    if (StateOf(L)->stop != VmState::Stop::kNone) return lua_error(L);
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      if (lua_isstring(L, -1)) {
        lua_replace(L, -2);
      } else {
        lua_pop(L, 1);
      }
    }
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
  }
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  return lua_gettop(L);
}

bool IsBinaryChunk(const char* s, std::size_t len) { return len > 0 && s[0] == LUA_SIGNATURE[0]; }

int GuardedLoadstring(lua_State* L) {
  std::size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  const char* name = luaL_optstring(L, 2, s);
  if (IsBinaryChunk(s, len)) {
    lua_pushnil(L);
    lua_pushstring(L, "loading precompiled chunks is not allowed");
    return 2;
  }
  // The parser makes the chunk name a Lua string and holds it unanchored while it runs, so a
  // collection step could free it (CVE-2025-49844). The same text pushed here is the same
  // interned string, which the stack keeps alive. (The name is read up to its first '\0',
  // so it is not always argument 1 or 2 itself.)
  lua_pushstring(L, name);
  const int status = luaL_loadbuffer(L, s, len, name);
  lua_remove(L, -2);  // The name.
  if (status == 0) return 1;
  lua_pushnil(L);
  lua_insert(L, -2);  // nil, message
  return 2;
}

// load(f [, name]): gathers the pieces f returns, then loads them as loadstring does. A C
// function that returns "" forever (load(string.char)) would keep this loop in C for good:
// it counts its steps like our other loops (stop_check.h).
int GuardedLoad(lua_State* L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  const char* name = luaL_optstring(L, 2, "=(load)");
  StepCounter steps(L);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  while (true) {
    steps.Add();
    lua_pushvalue(L, 1);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      break;
    }
    if (!lua_isstring(L, -1)) return luaL_error(L, "reader function must return a string");
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
  lua_pushcfunction(L, GuardedLoadstring);
  lua_insert(L, -2);
  lua_pushstring(L, name);
  lua_call(L, 2, 2);
  return 2;
}

// Pushes a protected, empty table whose reads fall through to the table at `target` and
// whose writes fail.
void PushReadonlyProxy(lua_State* L, int target) {
  lua_newtable(L);  // the proxy
  lua_newtable(L);  // its metatable
  lua_pushvalue(L, target);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, ReadonlyNewIndex);
  lua_setfield(L, -2, "__newindex");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  MarkProtected(L, -1);
}

// Replaces the table at globals[name] by a read-only proxy of it.
void ProtectLibrary(lua_State* L, int globals, const char* name) {
  lua_getfield(L, globals, name);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  PushReadonlyProxy(L, lua_gettop(L));
  lua_setfield(L, globals, name);
  lua_pop(L, 1);  // the real table
}

// Our versions of Lua's functions that a script could crash or hang (lua_core_lib.h).
void InstallCoreReplacements(lua_State* L, int globals) {
  lua_getfield(L, globals, LUA_STRLIBNAME);
  InstallPatternFunctions(L, lua_gettop(L));
  InstallStringRep(L, lua_gettop(L));
  lua_getfield(L, globals, LUA_TABLIBNAME);
  InstallTableFunctions(L, lua_gettop(L), globals);
  lua_pop(L, 2);
}

void OpenLibrary(lua_State* L, lua_CFunction open, const char* name) {
  lua_pushcfunction(L, open);
  lua_pushstring(L, name);
  lua_call(L, 1, 0);
}

}  // namespace

void OpenSandbox(lua_State* L) {
  OpenLibrary(L, luaopen_base, "");  // Also opens coroutine.
  OpenLibrary(L, luaopen_table, LUA_TABLIBNAME);
  OpenLibrary(L, luaopen_string, LUA_STRLIBNAME);
  OpenLibrary(L, luaopen_math, LUA_MATHLIBNAME);

  lua_pushvalue(L, LUA_GLOBALSINDEX);
  const int globals = lua_gettop(L);
  InstallCoreReplacements(L, globals);
  for (const char* name :
       {"dofile", "loadfile", "getfenv", "setfenv", "print", "newproxy", "module", "require"}) {
    lua_pushnil(L);
    lua_setfield(L, globals, name);
  }
  lua_pushcfunction(L, GuardedLoadstring);
  lua_setfield(L, globals, "loadstring");
  lua_pushcfunction(L, GuardedLoad);
  lua_setfield(L, globals, "load");
  lua_pushcfunction(L, GuardedRawset);
  lua_setfield(L, globals, "rawset");
  lua_pushcfunction(L, ScriptPcall);
  lua_setfield(L, globals, "pcall");
  lua_getfield(L, globals, "setmetatable");  // The original, as the guard's upvalue.
  lua_pushcclosure(L, GuardedSetmetatable, 1);
  lua_setfield(L, globals, "setmetatable");
  OpenRedisLib(L);
  OpenCjson(L);
  OpenBit(L);
  OpenCmsgpack(L);
  OpenStruct(L);

  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kProtectedKey);
  for (const char* name :
       {"string", "table", "math", "coroutine", "cjson", "bit", "redis", "cmsgpack", "struct"}) {
    ProtectLibrary(L, globals, name);
  }
  // Strings' metatable leads to the real string table: hide it behind the proxy.
  lua_pushstring(L, "");
  lua_getmetatable(L, -1);
  lua_getfield(L, globals, "string");
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 2);

  // Unknown globals are an error, not nil.
  lua_newtable(L);
  lua_pushcfunction(L, MissingGlobal);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, globals);

  // The environment scripts see: empty, reads fall through to the globals, writes fail.
  PushReadonlyProxy(L, globals);
  const int env = lua_gettop(L);
  lua_pushvalue(L, env);
  lua_setfield(L, globals, "_G");

  lua_pushvalue(L, globals);
  lua_setfield(L, LUA_REGISTRYINDEX, kGlobalsKey);
  // From here on, code compiled in this state (scripts, loadstring) sees the environment.
  lua_pushvalue(L, env);
  lua_replace(L, LUA_GLOBALSINDEX);
  lua_settop(L, globals - 1);
}

}  // namespace cairn::server::scripting
