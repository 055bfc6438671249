// cmsgpack, the MessagePack library Redis gives scripts: pack(...) encodes each argument and
// concatenates them; unpack(s) decodes every object in s; unpack_one(s [, offset]) and
// unpack_limit(s, limit [, offset]) decode one or `limit` objects from a byte offset and first
// return the offset of the next object (-1 at the end). Encoding follows Redis's library:
// whole numbers (that fit int64) take the smallest integer format, other numbers float32
// when that is exact and float64 otherwise; a table whose keys are exactly 1..n is an array,
// any other table a map; tables nested 16 deep, and functions, encode as nil.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "scripting/lua.h"
#include "scripting/lua_values.h"
#include "scripting/vm_state.h"

namespace cairn::server::scripting {
namespace {

constexpr int kMaxNesting = 16;

void PutBig(std::string& out, std::uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void PutHeader(std::string& out, std::size_t n, unsigned char fix, int fix_limit,
               unsigned char tag16, unsigned char tag32) {
  if (n < static_cast<std::size_t>(fix_limit)) {
    out.push_back(static_cast<char>(fix | n));
  } else if (n <= 0xffff) {
    out.push_back(static_cast<char>(tag16));
    PutBig(out, n, 2);
  } else {
    out.push_back(static_cast<char>(tag32));
    PutBig(out, n, 4);
  }
}

void PackString(lua_State* L, std::string& out, const char* s, std::size_t len) {
  CheckFitsInHeap(L, out.size() + len);
  if (len < 32) {
    out.push_back(static_cast<char>(0xa0 | len));
  } else if (len <= 0xff) {
    out.push_back(static_cast<char>(0xd9));
    PutBig(out, len, 1);
  } else if (len <= 0xffff) {
    out.push_back(static_cast<char>(0xda));
    PutBig(out, len, 2);
  } else {
    out.push_back(static_cast<char>(0xdb));
    PutBig(out, len, 4);
  }
  out.append(s, len);
}

void PackInteger(std::string& out, std::int64_t v) {
  if (v >= 0) {
    const auto u = static_cast<std::uint64_t>(v);
    if (u <= 0x7f) return out.push_back(static_cast<char>(u));
    const unsigned char tag = u <= 0xff ? 0xcc : u <= 0xffff ? 0xcd : u <= 0xffffffff ? 0xce : 0xcf;
    out.push_back(static_cast<char>(tag));
    return PutBig(out, u, 1 << (tag - 0xcc));
  }
  if (v >= -32) return out.push_back(static_cast<char>(v));
  const unsigned char tag = v >= -128 ? 0xd0 : v >= -32768 ? 0xd1 : v >= INT32_MIN ? 0xd2 : 0xd3;
  out.push_back(static_cast<char>(tag));
  PutBig(out, static_cast<std::uint64_t>(v), 1 << (tag - 0xd0));
}

void PackNumber(std::string& out, double n) {
  // A whole number that int64 holds exactly (2^63 does not: it is 1 past the top).
  if (std::isfinite(n) && n >= -9223372036854775808.0 && n < 9223372036854775808.0 &&
      static_cast<double>(static_cast<std::int64_t>(n)) == n) {
    return PackInteger(out, static_cast<std::int64_t>(n));
  }
  const float f = static_cast<float>(n);
  if (static_cast<double>(f) == n) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &f, 4);
    out.push_back(static_cast<char>(0xca));
    return PutBig(out, bits, 4);
  }
  std::uint64_t bits = 0;
  std::memcpy(&bits, &n, 8);
  out.push_back(static_cast<char>(0xcb));
  PutBig(out, bits, 8);
}

void Pack(lua_State* L, int index, std::string& out, int level);

// Keys exactly 1..n (n may be 0): an array.
bool IsArray(lua_State* L, int index, std::size_t* n) {
  std::size_t count = 0;
  double max = 0;
  lua_pushnil(L);
  while (lua_next(L, index) != 0) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TNUMBER) {
      lua_pop(L, 1);
      return false;
    }
    const double k = lua_tonumber(L, -1);
    if (k < 1 || std::floor(k) != k) {
      lua_pop(L, 1);
      return false;
    }
    max = std::max(max, k);
    ++count;
  }
  *n = count;
  return max == static_cast<double>(count);
}

void PackTable(lua_State* L, int index, std::string& out, int level) {
  luaL_checkstack(L, 4, "table too deeply nested");
  std::size_t n = 0;
  if (IsArray(L, index, &n)) {
    PutHeader(out, n, 0x90, 16, 0xdc, 0xdd);
    for (std::size_t i = 1; i <= n; ++i) {
      lua_rawgeti(L, index, static_cast<int>(i));
      Pack(L, lua_gettop(L), out, level + 1);
      lua_pop(L, 1);
    }
    return;
  }
  n = 0;
  lua_pushnil(L);
  while (lua_next(L, index) != 0) {
    lua_pop(L, 1);
    ++n;
  }
  PutHeader(out, n, 0x80, 16, 0xde, 0xdf);
  lua_pushnil(L);
  while (lua_next(L, index) != 0) {
    const int top = lua_gettop(L);
    Pack(L, top - 1, out, level + 1);
    Pack(L, top, out, level + 1);
    lua_pop(L, 1);
  }
}

void Pack(lua_State* L, int index, std::string& out, int level) {
  CheckFitsInHeap(L, out.size());  // Every value adds a byte at least: this bounds the time too.
  switch (lua_type(L, index)) {
    case LUA_TSTRING: {
      std::size_t len = 0;
      const char* s = lua_tolstring(L, index, &len);
      return PackString(L, out, s, len);
    }
    case LUA_TNUMBER:
      return PackNumber(out, lua_tonumber(L, index));
    case LUA_TBOOLEAN:
      return out.push_back(static_cast<char>(lua_toboolean(L, index) ? 0xc3 : 0xc2));
    case LUA_TTABLE:
      if (level < kMaxNesting) return PackTable(L, index, out, level);
      [[fallthrough]];
    default:
      out.push_back(static_cast<char>(0xc0));
  }
}

int LuaPack(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
  std::string out;
  for (int i = 1; i <= argc; ++i) Pack(L, i, out, 0);
  lua_pushlstring(L, out.data(), out.size());
  return 1;
}

// Decoding: one object from s[*pos, len), pushed; raises on short or malformed input.
struct Input {
  const unsigned char* s;
  std::size_t len;
  std::size_t pos;
};

std::uint64_t TakeBig(lua_State* L, Input& in, int bytes) {
  if (in.len - in.pos < static_cast<std::size_t>(bytes)) luaL_error(L, "Missing bytes in input.");
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | in.s[in.pos++];
  return v;
}

void Unpack(lua_State* L, Input& in);

void UnpackString(lua_State* L, Input& in, std::size_t n) {
  if (in.len - in.pos < n) luaL_error(L, "Missing bytes in input.");
  lua_pushlstring(L, reinterpret_cast<const char*>(in.s + in.pos), n);
  in.pos += n;
}

void UnpackArray(lua_State* L, Input& in, std::uint64_t n) {
  luaL_checkstack(L, 4, "data too deeply nested");
  lua_newtable(L);
  for (std::uint64_t i = 1; i <= n; ++i) {
    Unpack(L, in);
    lua_rawseti(L, -2, static_cast<int>(i));
  }
}

void UnpackMap(lua_State* L, Input& in, std::uint64_t n) {
  luaL_checkstack(L, 4, "data too deeply nested");
  lua_newtable(L);
  for (std::uint64_t i = 0; i < n; ++i) {
    Unpack(L, in);
    Unpack(L, in);
    lua_settable(L, -3);
  }
}

void Unpack(lua_State* L, Input& in) {
  if (in.pos >= in.len) luaL_error(L, "Missing bytes in input.");
  const unsigned char tag = in.s[in.pos++];
  if (tag <= 0x7f) return lua_pushnumber(L, tag);
  if (tag >= 0xe0) return lua_pushnumber(L, static_cast<std::int8_t>(tag));
  if ((tag & 0xe0) == 0xa0) return UnpackString(L, in, tag & 0x1f);
  if ((tag & 0xf0) == 0x90) return UnpackArray(L, in, tag & 0x0f);
  if ((tag & 0xf0) == 0x80) return UnpackMap(L, in, tag & 0x0f);
  switch (tag) {
    case 0xc0:
      return lua_pushnil(L);
    case 0xc2:
    case 0xc3:
      return lua_pushboolean(L, tag == 0xc3);
    case 0xc4:  // bin 8/16/32: strings in Lua.
    case 0xc5:
    case 0xc6:
      return UnpackString(L, in, TakeBig(L, in, 1 << (tag - 0xc4)));
    case 0xca: {
      const auto bits = static_cast<std::uint32_t>(TakeBig(L, in, 4));
      float f = 0;
      std::memcpy(&f, &bits, 4);
      return lua_pushnumber(L, f);
    }
    case 0xcb: {
      const std::uint64_t bits = TakeBig(L, in, 8);
      double d = 0;
      std::memcpy(&d, &bits, 8);
      return lua_pushnumber(L, d);
    }
    case 0xcc:
    case 0xcd:
    case 0xce:
    case 0xcf:
      return lua_pushnumber(L, static_cast<double>(TakeBig(L, in, 1 << (tag - 0xcc))));
    case 0xd0:
      return lua_pushnumber(L, static_cast<std::int8_t>(TakeBig(L, in, 1)));
    case 0xd1:
      return lua_pushnumber(L, static_cast<std::int16_t>(TakeBig(L, in, 2)));
    case 0xd2:
      return lua_pushnumber(L, static_cast<std::int32_t>(TakeBig(L, in, 4)));
    case 0xd3:
      return lua_pushnumber(L, static_cast<double>(static_cast<std::int64_t>(TakeBig(L, in, 8))));
    case 0xd9:
    case 0xda:
    case 0xdb:
      return UnpackString(L, in, TakeBig(L, in, 1 << (tag - 0xd9)));
    case 0xdc:
    case 0xdd:
      return UnpackArray(L, in, TakeBig(L, in, tag == 0xdc ? 2 : 4));
    case 0xde:
    case 0xdf:
      return UnpackMap(L, in, TakeBig(L, in, tag == 0xde ? 2 : 4));
    default:
      luaL_error(L, "Bad data format in input.");
  }
}

// Decodes up to `limit` objects from `offset` — every object when both are 0 — and returns
// how many values it pushed; with `with_offset`, first the offset of the next object (-1 when
// none is left).
int UnpackFrom(lua_State* L, lua_Number limit, lua_Number offset, bool with_offset) {
  std::size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  // The numbers print as Redis's C casts to int print them, without their undefined behaviour
  // for NaN and huge values.
  auto as_int = [](lua_Number n) { return static_cast<int>(TruncateToInt64(n)); };
  if (!(limit >= 0) || !(offset >= 0)) {  // NaN too.
    // (Redis's library reports the input length as the limit here; so does this one.)
    return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.",
                      as_int(offset), static_cast<int>(len));
  }
  if (offset > static_cast<lua_Number>(len)) {
    return luaL_error(L, "Start offset %d greater than input length %d.", as_int(offset),
                      static_cast<int>(len));
  }
  const bool all = limit == 0 && offset == 0;
  Input in{reinterpret_cast<const unsigned char*>(s), len, static_cast<std::size_t>(offset)};
  const int base = lua_gettop(L);
  if (with_offset) lua_pushnil(L);  // The next offset's place.
  for (int count = 0; in.pos < in.len && (all || count < limit); ++count) {
    luaL_checkstack(L, 2, "too many objects to unpack");
    Unpack(L, in);
  }
  if (with_offset) {
    lua_pushnumber(L, in.pos < in.len ? static_cast<lua_Number>(in.pos) : -1);
    lua_replace(L, base + 1);
  }
  return lua_gettop(L) - base;
}

int LuaUnpack(lua_State* L) {
  lua_settop(L, 1);
  return UnpackFrom(L, 0, 0, false);
}

int LuaUnpackOne(lua_State* L) {
  const lua_Number offset = luaL_optnumber(L, 2, 0);
  lua_settop(L, 1);
  return UnpackFrom(L, 1, offset, true);
}

int LuaUnpackLimit(lua_State* L) {
  const lua_Number limit = luaL_checknumber(L, 2);
  const lua_Number offset = luaL_optnumber(L, 3, 0);
  lua_settop(L, 1);
  return UnpackFrom(L, limit, offset, true);
}

}  // namespace

void OpenCmsgpack(lua_State* L) {
  lua_newtable(L);
  const luaL_Reg functions[] = {{"pack", LuaPack},
                                {"unpack", LuaUnpack},
                                {"unpack_one", LuaUnpackOne},
                                {"unpack_limit", LuaUnpackLimit},
                                {nullptr, nullptr}};
  for (const luaL_Reg* f = functions; f->name != nullptr; ++f) {
    lua_pushcfunction(L, f->func);
    lua_setfield(L, -2, f->name);
  }
  lua_pushstring(L, "lua-cmsgpack");
  lua_setfield(L, -2, "_NAME");
  lua_setglobal(L, "cmsgpack");
}

}  // namespace cairn::server::scripting
