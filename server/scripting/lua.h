// The Lua 5.1 C API as cairn-server uses it: Debian's C++ build of the interpreter
// (liblua5.1-c++), in which a Lua error unwinds as a C++ exception, so the destructors of the
// C++ objects in our library functions run when a script error passes through them (a plain C
// build would longjmp over them).
#pragma once

#include <lua.hpp>
