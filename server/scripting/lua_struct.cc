// struct, the binary packing library Redis gives scripts: struct.pack(fmt, ...),
// struct.unpack(fmt, s [, pos]) (the values, then the position after them) and
// struct.size(fmt). Format options, as in the library Redis bundles:
//   >  <     big / little endian (little by default)
//   ![n]     align fields to n bytes (a power of 2; default 8); no alignment until given
//   x        one zero byte
//   b B      signed / unsigned char        h H   short (2 bytes)
//   l L      long (8 bytes)                T     size_t (8 bytes)
//   i[n] I[n] integer of n bytes (default 4, at most 32)
//   f d      float, double
//   c[n]     n bytes of a string; c0 (or plain c) in pack: the whole string; in unpack: as
//            many bytes as the number unpacked just before it says
//   s        zero-terminated string
// Numbers are Lua numbers (doubles): integers wider than 53 bits lose precision.
#include <cctype>
#include <cstdint>
#include <cstring>
#include <string>

#include "scripting/lua.h"
#include "scripting/lua_values.h"
#include "scripting/vm_state.h"

namespace cairn::server::scripting {
namespace {

constexpr int kMaxIntSize = 32;
constexpr int kDefaultAlign = 8;

struct Header {
  bool big_endian = false;
  int align = 1;
};

bool IsIntegerOption(char opt) { return opt != '\0' && std::strchr("bBhHlLTiI", opt) != nullptr; }

int ReadNumber(lua_State* L, const char** fmt, int fallback) {
  if (!std::isdigit(static_cast<unsigned char>(**fmt))) return fallback;
  long long n = 0;
  while (std::isdigit(static_cast<unsigned char>(**fmt))) {
    n = n * 10 + (*(*fmt)++ - '0');
    if (n > 0x7fffffff) luaL_error(L, "integral size overflow");
  }
  return static_cast<int>(n);
}

int OptionSize(lua_State* L, char opt, const char** fmt) {
  switch (opt) {
    case 'B':
    case 'b':
    case 'x':
      return 1;
    case 'H':
    case 'h':
      return 2;
    case 'L':
    case 'l':
    case 'T':
    case 'd':
      return 8;
    case 'f':
      return 4;
    case 'c':
      return ReadNumber(L, fmt, 1);
    case 'i':
    case 'I': {
      const int size = ReadNumber(L, fmt, 4);
      if (size > kMaxIntSize) {
        luaL_error(L, "integral size %d is larger than limit of %d", size, kMaxIntSize);
      }
      return size;
    }
    default:
      return 0;
  }
}

// Padding before a field of `size` at offset `len`.
int PaddingFor(std::size_t len, const Header& h, char opt, int size) {
  if (size == 0 || opt == 'c') return 0;
  if (size > h.align) size = h.align;
  return static_cast<int>((size - (len & (size - 1))) & (size - 1));
}

// The options that change the header (or do nothing); anything else is an error.
void Control(lua_State* L, char opt, const char** fmt, Header* h) {
  switch (opt) {
    case ' ':
      return;
    case '>':
      h->big_endian = true;
      return;
    case '<':
      h->big_endian = false;
      return;
    case '!': {
      const int a = ReadNumber(L, fmt, kDefaultAlign);
      if (a <= 0 || (a & (a - 1)) != 0) luaL_error(L, "alignment %d is not a power of 2", a);
      h->align = a;
      return;
    }
    default:
      luaL_argerror(L, 1, lua_pushfstring(L, "invalid format option '%c'", opt));
  }
}

void PutInteger(std::string& out, lua_Number n, bool big_endian, int size) {
  // Unsigned formats take values up to 2^64; the rest converts as a signed value would, NaN and
  // out-of-range numbers included (TruncateToInt64), never with an undefined cast.
  constexpr double kTwo64 = 18446744073709551616.0;
  std::uint64_t value = n >= 0 && n < kTwo64 ? static_cast<std::uint64_t>(n)
                                             : static_cast<std::uint64_t>(TruncateToInt64(n));
  char bytes[kMaxIntSize];
  for (int i = 0; i < size; ++i) {
    bytes[big_endian ? size - 1 - i : i] = static_cast<char>(value & 0xff);
    value = i < 7 ? value >> 8 : 0;  // Past 8 bytes: zeros.
  }
  out.append(bytes, static_cast<std::size_t>(size));
}

lua_Number GetInteger(const unsigned char* p, bool big_endian, bool is_signed, int size) {
  if (size == 0) return 0;  // "i0": no bytes, no sign to extend.
  std::uint64_t v = 0;
  for (int i = 0; i < size; ++i) v = (v << 8) | p[big_endian ? i : size - 1 - i];
  if (!is_signed) return static_cast<lua_Number>(v);
  const int top = std::min(size * 8, 64) - 1;
  const std::uint64_t mask = ~std::uint64_t{0} << top;
  if (v & mask) v |= mask;  // Sign extension.
  return static_cast<lua_Number>(static_cast<std::int64_t>(v));
}

template <typename T>
void PutFloat(std::string& out, T value, bool big_endian) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  if (big_endian) std::reverse(bytes, bytes + sizeof(T));
  out.append(bytes, sizeof(T));
}

template <typename T>
T GetFloat(const unsigned char* p, bool big_endian) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, p, sizeof(T));
  if (big_endian) std::reverse(bytes, bytes + sizeof(T));
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

int Pack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  Header h;
  std::string out;
  int arg = 2;
  while (*fmt != '\0') {
    CheckFitsInHeap(L, out.size());
    const char opt = *fmt++;
    int size = OptionSize(L, opt, &fmt);
    out.append(static_cast<std::size_t>(PaddingFor(out.size(), h, opt, size)), '\0');
    if (IsIntegerOption(opt)) {
      PutInteger(out, luaL_checknumber(L, arg++), h.big_endian, size);
      continue;
    }
    switch (opt) {
      case 'x':
        out.push_back('\0');
        break;
      case 'f':
        PutFloat(out, static_cast<float>(luaL_checknumber(L, arg++)), h.big_endian);
        break;
      case 'd':
        PutFloat(out, static_cast<double>(luaL_checknumber(L, arg++)), h.big_endian);
        break;
      case 'c':
      case 's': {
        std::size_t len = 0;
        const char* s = luaL_checklstring(L, arg++, &len);
        if (size == 0) size = static_cast<int>(len);
        // Names the argument after the string, as the library Redis bundles does.
        luaL_argcheck(L, len >= static_cast<std::size_t>(size), arg, "string too short");
        CheckFitsInHeap(L, out.size() + static_cast<std::size_t>(size));
        out.append(s, static_cast<std::size_t>(size));
        if (opt == 's') out.push_back('\0');
        break;
      }
      default:
        Control(L, opt, &fmt, &h);
    }
  }
  lua_pushlstring(L, out.data(), out.size());
  return 1;
}

int Unpack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  std::size_t len = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(luaL_checklstring(L, 2, &len));
  // A position past the data (or below 1) fails as data too short, as in Redis's library.
  const lua_Number start = luaL_optnumber(L, 3, 1);
  std::size_t pos = start >= 1 && start - 1 <= static_cast<lua_Number>(len)
                        ? static_cast<std::size_t>(start) - 1
                        : len + 1;
  Header h;
  int n = 0;
  while (*fmt != '\0') {
    const char opt = *fmt++;
    std::size_t size = static_cast<std::size_t>(OptionSize(L, opt, &fmt));
    pos += static_cast<std::size_t>(PaddingFor(pos, h, opt, static_cast<int>(size)));
    luaL_argcheck(L, pos <= len && size <= len - pos, 2, "data string too short");
    luaL_checkstack(L, 2, "too many results");
    if (IsIntegerOption(opt)) {
      lua_pushnumber(
          L, GetInteger(data + pos, h.big_endian, std::islower(opt) != 0, static_cast<int>(size)));
      ++n;
      pos += size;
      continue;
    }
    switch (opt) {
      case 'x':
        break;
      case 'f':
        lua_pushnumber(L, GetFloat<float>(data + pos, h.big_endian));
        ++n;
        break;
      case 'd':
        lua_pushnumber(L, GetFloat<double>(data + pos, h.big_endian));
        ++n;
        break;
      case 'c':
        if (size == 0) {
          if (n == 0 || !lua_isnumber(L, -1)) luaL_error(L, "format 'c0' needs a previous size");
          const lua_Number wanted = lua_tonumber(L, -1);
          lua_pop(L, 1);
          --n;
          luaL_argcheck(L, wanted >= 0 && wanted <= static_cast<lua_Number>(len - pos), 2,
                        "data string too short");
          size = static_cast<std::size_t>(wanted);
        }
        lua_pushlstring(L, reinterpret_cast<const char*>(data + pos), size);
        ++n;
        break;
      case 's': {
        const void* end = std::memchr(data + pos, '\0', len - pos);
        if (end == nullptr) luaL_error(L, "unfinished string in data");
        size = static_cast<std::size_t>(static_cast<const unsigned char*>(end) - (data + pos)) + 1;
        lua_pushlstring(L, reinterpret_cast<const char*>(data + pos), size - 1);
        ++n;
        break;
      }
      default:
        Control(L, opt, &fmt, &h);
    }
    pos += size;
  }
  lua_pushnumber(L, static_cast<lua_Number>(pos + 1));
  return n + 1;
}

int Size(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  Header h;
  std::size_t pos = 0;
  while (*fmt != '\0') {
    const char opt = *fmt++;
    const int size = OptionSize(L, opt, &fmt);
    pos += static_cast<std::size_t>(PaddingFor(pos, h, opt, size));
    if (opt == 's') {
      luaL_argerror(L, 1, "option 's' has no fixed size");
    } else if (opt == 'c' && size == 0) {
      luaL_argerror(L, 1, "option 'c0' has no fixed size");
    }
    if (!std::isalnum(static_cast<unsigned char>(opt))) Control(L, opt, &fmt, &h);
    pos += static_cast<std::size_t>(size);
  }
  lua_pushnumber(L, static_cast<lua_Number>(pos));
  return 1;
}

}  // namespace

void OpenStruct(lua_State* L) {
  lua_newtable(L);
  const luaL_Reg functions[] = {
      {"pack", Pack}, {"unpack", Unpack}, {"size", Size}, {nullptr, nullptr}};
  for (const luaL_Reg* f = functions; f->name != nullptr; ++f) {
    lua_pushcfunction(L, f->func);
    lua_setfield(L, -2, f->name);
  }
  lua_setglobal(L, "struct");
}

}  // namespace cairn::server::scripting
