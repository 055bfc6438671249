#include "scripting/lua_buffer.h"

#include <algorithm>
#include <limits>

namespace cairn::server::scripting {

void LuaBuffer::Grow(std::size_t more) {
  // Far above any memory limit, and low enough that doubling it cannot overflow.
  constexpr std::size_t kMaxBytes = std::numeric_limits<std::size_t>::max() / 4;
  if (more > kMaxBytes - size_) luaL_error(L_, "string length overflow");
  const std::size_t wanted = std::max(size_ + more, std::min(capacity_ * 2, kMaxBytes));
  char* const old = data_ == inline_ ? nullptr : data_;
  auto* grown = static_cast<char*>(alloc_(alloc_ud_, old, old == nullptr ? 0 : capacity_, wanted));
  if (grown == nullptr) {
    lua_pushliteral(L_, "not enough memory");
    lua_error(L_);
  }
  if (old == nullptr) std::memcpy(grown, inline_, size_);
  data_ = grown;
  capacity_ = wanted;
}

}  // namespace cairn::server::scripting
