// Redis's conversion rules between replies and Lua values, both ways.
//
// A command's reply, as redis.call returns it (PushReply): integer → number; bulk → string;
// null bulk and null array → false; array → table; status → {ok = text}; error →
// {err = text}. In RESP3 (after redis.setresp(3)) also: null → nil, boolean → true/false,
// double → {double = n}, map → {map = {k = v}}, set → {set = {member = true}}, big number →
// {big_number = text}, verbatim → {verbatim_string = {format = f, string = s}}.
//
// A script's result, as the client gets it (WriteLuaValue): number → integer (truncated);
// string → bulk; true → 1 (a boolean under RESP3 scripts); false and nil → null; a table
// with `err` → error, with `ok` → status, with `double`, `big_number`, `map`, `set` → those
// replies; any other table → array of t[1], t[2], … up to the first nil.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "resp/reply_writer.h"
#include "scripting/lua.h"

namespace cairn::server::scripting {

// Pushes the Lua value of the one RESP reply at the front of `reply` (written by our own
// ReplyWriter, so well-formed) and returns the bytes it took. Raises a Lua error when nesting
// goes deeper than kMaxNesting.
std::size_t PushReply(lua_State* L, std::string_view reply);

// {err = text} and {ok = text}: how error and status replies look in Lua.
void PushErrorTable(lua_State* L, std::string_view text);
void PushStatusTable(lua_State* L, std::string_view text);

// Writes the Lua value at `index` as a reply. `script_resp` is the script's protocol
// (redis.setresp), which decides how booleans convert, as in Redis. Writes nothing when the
// value cannot be written: tables nested deeper than kMaxNesting, or a reply past `bounds`. A
// table may hold the same string or table many times, and each level of such a table can
// multiply the reply: a few kilobytes of Lua can make a reply that would fill the memory and
// take for ever to write; the bounds stop it.
struct ReplyBounds {
  std::size_t max_bytes = 0;   // 0: no bound.
  std::size_t max_values = 0;  // Strings, numbers, tables, … at any depth. 0: no bound.
};
enum class WriteOutcome { kWritten, kTooDeep, kTooLarge };
WriteOutcome WriteLuaValue(lua_State* L, int index, resp::ReplyWriter& out, int script_resp,
                           ReplyBounds bounds = {});

// Formats a Lua number given to redis.call as Redis does ("%.17g": 3 → "3", 0.1 →
// "0.10000000000000001", 1e20 → "1e+20").
std::string FormatArgNumber(double n);

// A Lua number as the int64 Redis's C casts give on x86-64 (cvttsd2si), without their undefined
// behaviour: truncated toward zero; NaN and anything outside int64's range give INT64_MIN.
// Integer replies, struct's and cmsgpack's integers use it.
std::int64_t TruncateToInt64(double n);

inline constexpr int kMaxNesting = 1000;

}  // namespace cairn::server::scripting
