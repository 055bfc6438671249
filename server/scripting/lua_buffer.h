// LuaBuffer: a growable byte buffer for the output of a library function (cjson's text), whose
// memory comes from the Lua state's own allocator, so that it counts against the script memory
// limit (VmState::limit) as the state's strings do.
//
// Why not std::string: malloc's memory is not counted, so a script could make the server hold
// any amount outside lua-memory-limit (Redis's cjson keeps such a buffer between calls). Why
// not luaL_Buffer: it keeps its pieces on the Lua stack, which an encoder walking tables with
// lua_next uses at the same time.
//
// A Lua error unwinds as a C++ exception (lua.h), so the destructor gives the memory back when
// an error passes through the function that owns the buffer. Small contents stay in the buffer
// itself: most JSON a script makes or reads fits, and needs no allocation at all.
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

#include "scripting/lua.h"

namespace cairn::server::scripting {

class LuaBuffer {
 public:
  explicit LuaBuffer(lua_State* L) : L_(L) { alloc_ = lua_getallocf(L, &alloc_ud_); }
  ~LuaBuffer() {
    if (data_ != inline_) alloc_(alloc_ud_, data_, capacity_, 0);
  }
  LuaBuffer(const LuaBuffer&) = delete;
  LuaBuffer& operator=(const LuaBuffer&) = delete;

  void Push(char c) {
    if (size_ == capacity_) Grow(1);
    data_[size_++] = c;
  }
  void Append(const char* s, std::size_t n) {
    if (n > capacity_ - size_) Grow(n);
    std::memcpy(data_ + size_, s, n);
    size_ += n;
  }
  void Append(std::string_view s) { Append(s.data(), s.size()); }
  void Clear() { size_ = 0; }

  std::string_view view() const { return {data_, size_}; }
  // Pushes the contents as a Lua string.
  void PushString() const { lua_pushlstring(L_, data_, size_); }

 private:
  static constexpr std::size_t kInline = 1024;

  // Makes room for `more` bytes past size_, or raises a Lua error ("not enough memory", as Lua
  // raises it; the allocator has marked the state over its limit when that is why).
  void Grow(std::size_t more);

  lua_State* L_;
  lua_Alloc alloc_ = nullptr;
  void* alloc_ud_ = nullptr;
  char inline_[kInline];
  char* data_ = inline_;
  std::size_t size_ = 0;
  std::size_t capacity_ = kInline;
};

}  // namespace cairn::server::scripting
