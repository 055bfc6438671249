#include "scripting/lua_values.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace cairn::server::scripting {
namespace {

// The line after a type byte: its text and where the next element starts.
std::string_view Line(std::string_view reply, std::size_t* next) {
  const std::size_t end = reply.find("\r\n", 1);
  *next = end + 2;
  return reply.substr(1, end - 1);
}

std::int64_t ParseInt(std::string_view s) {
  std::int64_t n = 0;
  std::from_chars(s.data(), s.data() + s.size(), n);
  return n;
}

std::size_t Push(lua_State* L, std::string_view reply, int depth);

// count elements (pairs twice) into a fresh table as t[i] = value (array), t[key] = value
// (map) or t[member] = true (set).
std::size_t PushAggregate(lua_State* L, std::string_view reply, char type, std::int64_t count,
                          std::size_t at, int depth) {
  lua_newtable(L);
  for (std::int64_t i = 0; i < count; ++i) {
    at += Push(L, reply.substr(at), depth + 1);
    if (type == '%') {
      at += Push(L, reply.substr(at), depth + 1);
      lua_settable(L, -3);
    } else if (type == '~') {
      lua_pushboolean(L, 1);
      lua_settable(L, -3);
    } else {
      lua_rawseti(L, -2, static_cast<int>(i + 1));
    }
  }
  return at;
}

std::size_t Push(lua_State* L, std::string_view reply, int depth) {
  if (depth > kMaxNesting) luaL_error(L, "reply nested deeper than %d levels", kMaxNesting);
  luaL_checkstack(L, 4, "reply too deeply nested");
  std::size_t next = 0;
  const std::string_view line = Line(reply, &next);
  switch (reply[0]) {
    case '+':
      PushStatusTable(L, line);
      return next;
    case '-':
      PushErrorTable(L, line);
      return next;
    case ':':
      lua_pushnumber(L, static_cast<lua_Number>(ParseInt(line)));
      return next;
    case '$': {
      const std::int64_t len = ParseInt(line);
      if (len < 0) {
        lua_pushboolean(L, 0);
        return next;
      }
      lua_pushlstring(L, reply.data() + next, static_cast<std::size_t>(len));
      return next + static_cast<std::size_t>(len) + 2;
    }
    case '=': {  // Verbatim: "fmt:text".
      const auto len = static_cast<std::size_t>(ParseInt(line));
      const std::string_view body = reply.substr(next, len);
      lua_newtable(L);
      lua_newtable(L);
      lua_pushlstring(L, body.data(), std::min<std::size_t>(3, body.size()));
      lua_setfield(L, -2, "format");
      const std::string_view text = body.size() > 4 ? body.substr(4) : std::string_view();
      lua_pushlstring(L, text.data(), text.size());
      lua_setfield(L, -2, "string");
      lua_setfield(L, -2, "verbatim_string");
      return next + len + 2;
    }
    case '*':
    case '>': {
      const std::int64_t count = ParseInt(line);
      if (count < 0) {
        lua_pushboolean(L, 0);
        return next;
      }
      return PushAggregate(L, reply, '*', count, next, depth);
    }
    case '%':
    case '~': {
      lua_newtable(L);  // {map = {...}} or {set = {...}}
      const std::size_t end = PushAggregate(L, reply, reply[0], ParseInt(line), next, depth);
      lua_setfield(L, -2, reply[0] == '%' ? "map" : "set");
      return end;
    }
    case '_':
      lua_pushnil(L);
      return next;
    case '#':
      lua_pushboolean(L, line == "t" ? 1 : 0);
      return next;
    case ',': {
      lua_newtable(L);
      lua_pushnumber(L, std::strtod(std::string(line).c_str(), nullptr));
      lua_setfield(L, -2, "double");
      return next;
    }
    case '(':
      lua_newtable(L);
      lua_pushlstring(L, line.data(), line.size());
      lua_setfield(L, -2, "big_number");
      return next;
    default:
      return luaL_error(L, "unexpected reply type '%c'", reply[0]);
  }
}

// The string field `name` of the table at `index`, if it has one.
bool StringField(lua_State* L, int index, const char* name, std::string_view* out) {
  lua_pushstring(L, name);
  lua_rawget(L, index);
  const bool found = lua_type(L, -1) == LUA_TSTRING;
  if (found) {
    std::size_t len = 0;
    const char* s = lua_tolstring(L, -1, &len);
    *out = std::string_view(s, len);  // Stays valid: the table keeps the string.
  }
  lua_pop(L, 1);
  return found;
}

// What every level of one WriteLuaValue shares.
struct WriteContext {
  int script_resp;
  std::size_t start;  // Where the reply starts in the output buffer.
  ReplyBounds bounds;
  std::size_t values = 0;
  bool too_large = false;
};

bool Write(lua_State* L, int index, resp::ReplyWriter& out, WriteContext& ctx, int depth);

// Writes the pairs (map) or keys (set) of the table at `index`.
bool WritePairs(lua_State* L, int index, resp::ReplyWriter& out, WriteContext& ctx, int depth,
                bool map) {
  std::size_t n = 0;
  lua_pushnil(L);
  while (lua_next(L, index) != 0) {
    ++n;
    lua_pop(L, 1);
  }
  if (map) {
    out.MapHeader(n);
  } else {
    out.SetHeader(n);
  }
  lua_pushnil(L);
  while (lua_next(L, index) != 0) {
    const int top = lua_gettop(L);
    // The key is at top - 1: write a copy (lua_tolstring would change a number key in place
    // and break lua_next).
    lua_pushvalue(L, top - 1);
    const bool ok = Write(L, lua_gettop(L), out, ctx, depth + 1) &&
                    (!map || Write(L, top, out, ctx, depth + 1));
    lua_settop(L, top - 1);
    if (!ok) {
      lua_pop(L, 1);
      return false;
    }
  }
  return true;
}

bool WriteTable(lua_State* L, int index, resp::ReplyWriter& out, WriteContext& ctx, int depth) {
  std::string_view text;
  if (StringField(L, index, "err", &text)) {
    out.Error(text);
    return true;
  }
  if (StringField(L, index, "ok", &text)) {
    std::string status(text);  // A status reply is one line: Redis turns \r and \n into spaces.
    for (char& c : status) {
      if (c == '\r' || c == '\n') c = ' ';
    }
    out.SimpleString(status);
    return true;
  }
  lua_pushstring(L, "double");
  lua_rawget(L, index);
  if (lua_type(L, -1) == LUA_TNUMBER) {
    out.Double(lua_tonumber(L, -1));
    lua_pop(L, 1);
    return true;
  }
  lua_pop(L, 1);
  if (StringField(L, index, "big_number", &text)) {
    if (out.protocol() == 3) {
      // One line, as a status reply: a \r or \n in it would end the reply early and let the
      // script write replies of its own into the client's stream.
      std::string number(text);
      for (char& c : number) {
        if (c == '\r' || c == '\n') c = ' ';
      }
      out.buffer()->append("(").append(number).append("\r\n");
    } else {
      out.Bulk(text);
    }
    return true;
  }
  for (const char* kind : {"map", "set"}) {
    lua_pushstring(L, kind);
    lua_rawget(L, index);
    if (lua_type(L, -1) == LUA_TTABLE) {
      const bool ok = WritePairs(L, lua_gettop(L), out, ctx, depth, kind[0] == 'm');
      lua_pop(L, 1);
      return ok;
    }
    lua_pop(L, 1);
  }
  // An array: t[1], t[2], … up to the first nil.
  std::size_t n = 0;
  while (true) {
    lua_rawgeti(L, index, static_cast<int>(n + 1));
    const bool nil = lua_isnil(L, -1);
    lua_pop(L, 1);
    if (nil) break;
    ++n;
  }
  out.ArrayHeader(n);
  for (std::size_t i = 1; i <= n; ++i) {
    lua_rawgeti(L, index, static_cast<int>(i));
    const bool ok = Write(L, lua_gettop(L), out, ctx, depth + 1);
    lua_pop(L, 1);
    if (!ok) return false;
  }
  return true;
}

bool Write(lua_State* L, int index, resp::ReplyWriter& out, WriteContext& ctx, int depth) {
  if (depth > kMaxNesting || !lua_checkstack(L, 8)) return false;
  ++ctx.values;
  if ((ctx.bounds.max_values != 0 && ctx.values > ctx.bounds.max_values) ||
      (ctx.bounds.max_bytes != 0 && out.buffer()->size() - ctx.start > ctx.bounds.max_bytes)) {
    ctx.too_large = true;
    return false;
  }
  switch (lua_type(L, index)) {
    case LUA_TSTRING: {
      std::size_t len = 0;
      const char* s = lua_tolstring(L, index, &len);
      out.Bulk(std::string_view(s, len));
      return true;
    }
    case LUA_TNUMBER:
      out.Integer(TruncateToInt64(lua_tonumber(L, index)));
      return true;
    case LUA_TBOOLEAN: {
      const bool value = lua_toboolean(L, index) != 0;
      if (ctx.script_resp == 3) {
        out.Boolean(value);
      } else if (value) {
        out.Integer(1);
      } else {
        out.Null();
      }
      return true;
    }
    case LUA_TTABLE:
      return WriteTable(L, index, out, ctx, depth);
    default:
      out.Null();
      return true;
  }
}

}  // namespace

std::size_t PushReply(lua_State* L, std::string_view reply) { return Push(L, reply, 0); }

void PushErrorTable(lua_State* L, std::string_view text) {
  lua_newtable(L);
  lua_pushlstring(L, text.data(), text.size());
  lua_setfield(L, -2, "err");
}

void PushStatusTable(lua_State* L, std::string_view text) {
  lua_newtable(L);
  lua_pushlstring(L, text.data(), text.size());
  lua_setfield(L, -2, "ok");
}

WriteOutcome WriteLuaValue(lua_State* L, int index, resp::ReplyWriter& out, int script_resp,
                           ReplyBounds bounds) {
  const int absolute = index > 0 || index <= LUA_REGISTRYINDEX ? index : lua_gettop(L) + index + 1;
  WriteContext ctx{script_resp, out.buffer()->size(), bounds};
  if (Write(L, absolute, out, ctx, 0)) return WriteOutcome::kWritten;
  out.buffer()->resize(ctx.start);  // Drop what was written so far.
  return ctx.too_large ? WriteOutcome::kTooLarge : WriteOutcome::kTooDeep;
}

std::string FormatArgNumber(double n) {
  // Most numbers a script passes are whole (timestamps, counts, scores): below 2^53 "%.17g"
  // prints them as their plain digits, which to_chars writes without parsing a format. (-0
  // keeps its sign under "%.17g", so it takes the general path.)
  constexpr double kExactIntegers = 9007199254740992.0;  // 2^53
  if (n > -kExactIntegers && n < kExactIntegers && n == std::trunc(n) &&
      !(n == 0 && std::signbit(n))) {
    char digits[24];
    const std::to_chars_result end =
        std::to_chars(digits, digits + sizeof digits, static_cast<std::int64_t>(n));
    return std::string(digits, end.ptr);
  }
  char buf[32];
  const int len = std::snprintf(buf, sizeof buf, "%.17g", n);
  return std::string(buf, static_cast<std::size_t>(len));
}

std::int64_t TruncateToInt64(double n) {
  // 2^63 is exactly representable; anything at or past it (or NaN) has no int64 value.
  constexpr double kLimit = 9223372036854775808.0;
  if (std::isnan(n) || n >= kLimit || n < -kLimit) {
    return std::numeric_limits<std::int64_t>::min();
  }
  return static_cast<std::int64_t>(n);
}

}  // namespace cairn::server::scripting
