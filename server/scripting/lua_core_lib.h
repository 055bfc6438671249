// Our own versions of the functions of Lua 5.1's base, string and table libraries that a
// hostile script could use to crash the server (an integer overflow, unbounded recursion in
// C) or to hold it in C code where the time limit and SCRIPT KILL cannot reach (a loop with no
// Lua instruction in it). OpenSandbox (lua_sandbox.cc) installs them over Lua's own; each
// behaves as Lua 5.1's does (same results, same error messages) within its bounds.
#pragma once

#include "scripting/lua.h"

namespace cairn::server::scripting {

// string.find, string.match, string.gmatch, string.gsub into the table at `string_table`
// (lua_patterns.cc).
void InstallPatternFunctions(lua_State* L, int string_table);

// string.rep (lua_string_rep.cc).
void InstallStringRep(lua_State* L, int string_table);

// table.concat, table.insert, table.remove, table.sort, table.foreachi into the table at
// `table_table`, and the global unpack into the table at `globals` (lua_table_lib.cc).
void InstallTableFunctions(lua_State* L, int table_table, int globals);

}  // namespace cairn::server::scripting
