// bit, the LuaBitOp 1.0 library Redis gives scripts: 32-bit operations on Lua numbers.
//   tobit(x)                  x as a signed 32-bit number
//   bnot(x); band, bor, bxor(x, ...)
//   lshift, rshift, arshift(x, n); rol, ror(x, n)    (n taken modulo 32)
//   bswap(x)                  bytes reversed
//   tohex(x [, n])            the low |n| hex digits of x (n 8 by default, at most 8), upper
//                             case when n < 0
// Results are signed 32-bit numbers. An argument is taken modulo 2^32 the way LuaBitOp takes
// it: 2^52 + 2^51 is added to the double, and the low 32 bits of the sum's bit pattern are the
// value. So a fraction rounds to the nearest whole number, ties to even, and NaN and ±Inf read
// as 0. Strings that are numbers are numbers; anything else is an error.
#include <cstdint>
#include <cstring>

#include "scripting/lua.h"
#include "scripting/vm_state.h"

namespace cairn::server::scripting {
namespace {

std::uint32_t Bits(lua_State* L, int index) {
  const double biased = lua_tonumber(L, index) + 6755399441055744.0;  // 2^52 + 2^51
  std::uint64_t pattern = 0;
  std::memcpy(&pattern, &biased, sizeof pattern);
  const auto bits = static_cast<std::uint32_t>(pattern);
  // lua_tonumber gives 0 for a non-number; only then can the argument be one. (The error
  // names the argument as LuaBitOp's does: "number expected, got string".)
  if (bits == 0 && !lua_isnumber(L, index)) luaL_typerror(L, index, "number");
  return bits;
}

int Result(lua_State* L, std::uint32_t bits) {
  lua_pushnumber(L, static_cast<std::int32_t>(bits));
  return 1;
}

int ToBit(lua_State* L) { return Result(L, Bits(L, 1)); }
int Not(lua_State* L) { return Result(L, ~Bits(L, 1)); }

// Folds the arguments from the last to the second into the first (the order in which
// LuaBitOp reads them, which decides which bad argument is reported).
template <typename Op>
int Fold(lua_State* L, Op op) {
  std::uint32_t bits = Bits(L, 1);
  for (int i = lua_gettop(L); i > 1; --i) bits = op(bits, Bits(L, i));
  return Result(L, bits);
}

int And(lua_State* L) {
  return Fold(L, [](std::uint32_t a, std::uint32_t b) { return a & b; });
}
int Or(lua_State* L) {
  return Fold(L, [](std::uint32_t a, std::uint32_t b) { return a | b; });
}
int Xor(lua_State* L) {
  return Fold(L, [](std::uint32_t a, std::uint32_t b) { return a ^ b; });
}

// x shifted by n modulo 32.
template <typename Op>
int Shift(lua_State* L, Op op) {
  const std::uint32_t x = Bits(L, 1);
  const std::uint32_t n = Bits(L, 2) & 31;
  return Result(L, op(x, n));
}

int LeftShift(lua_State* L) {
  return Shift(L, [](std::uint32_t x, std::uint32_t n) { return x << n; });
}
int RightShift(lua_State* L) {
  return Shift(L, [](std::uint32_t x, std::uint32_t n) { return x >> n; });
}
int ArithmeticRightShift(lua_State* L) {
  // C++20 defines >> of a negative number as arithmetic.
  return Shift(L, [](std::uint32_t x, std::uint32_t n) {
    return static_cast<std::uint32_t>(static_cast<std::int32_t>(x) >> n);
  });
}
int RotateLeft(lua_State* L) {
  // x >> 32 would be undefined: a rotation by 0 is x.
  return Shift(
      L, [](std::uint32_t x, std::uint32_t n) { return n == 0 ? x : (x << n) | (x >> (32 - n)); });
}
int RotateRight(lua_State* L) {
  return Shift(
      L, [](std::uint32_t x, std::uint32_t n) { return n == 0 ? x : (x >> n) | (x << (32 - n)); });
}

int ByteSwap(lua_State* L) {
  const std::uint32_t x = Bits(L, 1);
  return Result(L, (x >> 24) | ((x >> 8) & 0xff00) | ((x & 0xff00) << 8) | (x << 24));
}

int ToHex(lua_State* L) {
  std::uint32_t x = Bits(L, 1);
  // The count is read as a signed 32-bit number, so it can be INT32_MIN, whose negation
  // overflows (CVE-2024-31449 in Redis): any count past 8 either way means 8.
  std::int32_t n = lua_isnone(L, 2) ? 8 : static_cast<std::int32_t>(Bits(L, 2));
  const char* digits = "0123456789abcdef";
  if (n < 0) {
    digits = "0123456789ABCDEF";
    n = n < -8 ? 8 : -n;
  }
  if (n > 8) n = 8;
  char text[8];
  for (int i = n - 1; i >= 0; --i) {
    text[i] = digits[x & 15];
    x >>= 4;
  }
  lua_pushlstring(L, text, static_cast<std::size_t>(n));
  return 1;
}

}  // namespace

void OpenBit(lua_State* L) {
  static constexpr luaL_Reg kFunctions[] = {
      {"tobit", ToBit},       {"bnot", Not},
      {"band", And},          {"bor", Or},
      {"bxor", Xor},          {"lshift", LeftShift},
      {"rshift", RightShift}, {"arshift", ArithmeticRightShift},
      {"rol", RotateLeft},    {"ror", RotateRight},
      {"bswap", ByteSwap},    {"tohex", ToHex},
  };
  lua_newtable(L);
  for (const luaL_Reg& f : kFunctions) {
    lua_pushcfunction(L, f.func);
    lua_setfield(L, -2, f.name);
  }
  lua_setglobal(L, "bit");
}

}  // namespace cairn::server::scripting
