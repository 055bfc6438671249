// cjson.encode: a Lua value as JSON text, as Redis's cjson writes it.
// - strings: bytes as they are, except '"', '\\', '/' (written "\/"), control characters and
//   DEL, which are escaped; no UTF-8 check;
// - numbers: "%.14g" (the precision setting); NaN and ±Inf by the invalid-numbers setting;
// - nil and cjson.null: null; booleans: true, false;
// - tables: an array when every key is a positive whole number and the array is not
//   excessively sparse (cjson.h), its holes written as null; otherwise an object, its number
//   keys written as strings; an empty table is {}. Any other key type is an error.
// Tables are read raw (no metamethods) in lua_next's order, as Redis reads them.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "scripting/cjson.h"
#include "scripting/lua_buffer.h"

namespace cairn::server::scripting {
namespace {

// The bytes Redis's cjson escapes: those JSON requires it for (quote, backslash, control
// characters), and '/' and DEL.
constexpr bool NeedsEscape(unsigned char c) {
  return c < 0x20 || c == '"' || c == '\\' || c == '/' || c == 0x7f;
}

struct EscapeTable {
  bool needs[256];
  constexpr EscapeTable() : needs() {
    for (int c = 0; c < 256; ++c) needs[c] = NeedsEscape(static_cast<unsigned char>(c));
  }
};
constexpr EscapeTable kEscape;

class Encoder {
 public:
  Encoder(lua_State* L, const CjsonSettings& settings) : L_(L), settings_(settings), out_(L) {}

  // Appends the value at stack index `index` (absolute), `depth` tables deep.
  void Value(int index, int depth) {
    switch (lua_type(L_, index)) {
      case LUA_TSTRING:
        return String(index);
      case LUA_TNUMBER:
        return Number(index);
      case LUA_TBOOLEAN:
        return out_.Append(lua_toboolean(L_, index) ? "true" : "false");
      case LUA_TTABLE:
        return Table(index, depth + 1);
      case LUA_TNIL:
        return out_.Append("null");
      case LUA_TLIGHTUSERDATA:
        if (lua_touserdata(L_, index) == nullptr) return out_.Append("null");  // cjson.null
        [[fallthrough]];
      default:
        Refuse(index, "type not supported");
    }
  }

  const LuaBuffer& text() const { return out_; }

 private:
  // Raises "Cannot serialise <type of the value at index>: <reason>".
  void Refuse(int index, const char* reason) {
    luaL_error(L_, "Cannot serialise %s: %s", luaL_typename(L_, index), reason);
  }

  void String(int index) {
    std::size_t len = 0;
    const char* s = lua_tolstring(L_, index, &len);
    out_.Push('"');
    std::size_t plain = 0;  // Start of the run of bytes that need no escape.
    for (std::size_t i = 0; i < len; ++i) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (!kEscape.needs[c]) continue;
      out_.Append(s + plain, i - plain);
      plain = i + 1;
      Escape(c);
    }
    out_.Append(s + plain, len - plain);
    out_.Push('"');
  }

  void Escape(unsigned char c) {
    switch (c) {
      case '"':
        return out_.Append("\\\"");
      case '\\':
        return out_.Append("\\\\");
      case '/':
        return out_.Append("\\/");
      case '\b':
        return out_.Append("\\b");
      case '\t':
        return out_.Append("\\t");
      case '\n':
        return out_.Append("\\n");
      case '\f':
        return out_.Append("\\f");
      case '\r':
        return out_.Append("\\r");
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        const char escaped[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        out_.Append(escaped, sizeof escaped);
      }
    }
  }

  void Number(int index) {
    const double n = lua_tonumber(L_, index);
    if (std::isnan(n) || std::isinf(n)) {
      switch (settings_.encode_invalid_numbers) {
        case InvalidNumbers::kRefuse:
          return Refuse(index, "must not be NaN or Inf");
        case InvalidNumbers::kWriteNull:
          return out_.Append("null");
        case InvalidNumbers::kWrite:
          if (std::isnan(n)) return out_.Append("nan");  // printf may write "-nan".
          break;                                         // "inf", "-inf"
      }
    }
    char text[32];  // The longest, "-1.2345678901234e-308", takes 21.
    const int len = std::snprintf(text, sizeof text, "%.*g", settings_.number_precision, n);
    out_.Append(text, static_cast<std::size_t>(len));
  }

  void Table(int index, int depth) {
    // Three slots: a key and a value while walking the table, and an error message.
    if (depth > settings_.encode_max_depth || !lua_checkstack(L_, 3)) {
      luaL_error(L_, "Cannot serialise, excessive nesting (%d)", depth);
    }
    const std::int64_t length = ArrayLength(index);
    if (length > 0) {
      Array(index, length, depth);
    } else {
      Object(index, depth);
    }
  }

  // The length to write the table at `index` as an array, or -1 to write it as an object (0:
  // empty, also an object). Raises for an excessively sparse array unless the settings
  // convert it.
  std::int64_t ArrayLength(int index) {
    std::int64_t max = 0;
    std::int64_t items = 0;
    lua_pushnil(L_);
    while (lua_next(L_, index) != 0) {
      lua_pop(L_, 1);  // The value.
      // Redis keeps the largest index in an int, and a larger one lands there as garbage;
      // here it makes the table an object (what Redis writes when it is the only key).
      const double k = lua_type(L_, -1) == LUA_TNUMBER ? lua_tonumber(L_, -1) : 0;
      if (!(k >= 1 && k <= INT32_MAX && std::floor(k) == k)) {
        lua_pop(L_, 1);  // The key.
        return -1;
      }
      max = std::max(max, static_cast<std::int64_t>(k));
      ++items;
    }
    const CjsonSettings& s = settings_;
    if (s.sparse_ratio > 0 && max > items * s.sparse_ratio && max > s.sparse_safe) {
      if (!s.sparse_convert) Refuse(index, "excessively sparse array");
      return -1;
    }
    return max;
  }

  void Array(int index, std::int64_t length, int depth) {
    out_.Push('[');
    for (std::int64_t i = 1; i <= length; ++i) {
      if (i > 1) out_.Push(',');
      lua_rawgeti(L_, index, static_cast<int>(i));
      Value(lua_gettop(L_), depth);
      lua_pop(L_, 1);
    }
    out_.Push(']');
  }

  void Object(int index, int depth) {
    out_.Push('{');
    bool first = true;
    lua_pushnil(L_);
    while (lua_next(L_, index) != 0) {
      if (!first) out_.Push(',');
      first = false;
      const int key = lua_gettop(L_) - 1;
      switch (lua_type(L_, key)) {
        case LUA_TNUMBER:
          out_.Push('"');
          Number(key);
          out_.Append("\":");
          break;
        case LUA_TSTRING:
          String(key);
          out_.Push(':');
          break;
        default:
          Refuse(key, "table key must be a number or string");
      }
      Value(key + 1, depth);
      lua_pop(L_, 1);  // The value; the key stays for lua_next.
    }
    out_.Push('}');
  }

  lua_State* L_;
  const CjsonSettings& settings_;
  LuaBuffer out_;
};

}  // namespace

int JsonEncode(lua_State* L, const CjsonSettings& settings) {
  luaL_argcheck(L, lua_gettop(L) == 1, 1, "expected 1 argument");
  Encoder encoder(L, settings);
  encoder.Value(1, 0);
  encoder.text().PushString();
  return 1;
}

}  // namespace cairn::server::scripting
