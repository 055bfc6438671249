// cjson, the JSON library Redis gives scripts (Lua CJSON 2.1.0 as Redis bundles it): its
// settings, and the two conversions. lua_cjson.cc builds the library table and its setters;
// cjson_encode.cc and cjson_decode.cc convert. Internal to server/scripting.
#pragma once

#include "scripting/lua.h"

namespace cairn::server::scripting {

// The deepest nesting encode and decode accept, and their default. Redis lets a script raise
// either limit up to INT_MAX, and both recurse in C once per level: a deep enough value then
// overflows the server's stack. Here the setters may lower a limit, and a larger value is
// clamped to this one (the setter returns the limit in force).
inline constexpr int kJsonMaxDepth = 1000;

// What encode does with NaN and ±Inf; in the order of the option names "off", "on", "null".
enum class InvalidNumbers { kRefuse, kWrite, kWriteNull };

// The settings a script may change with cjson.encode_sparse_array and the like; the defaults
// are Redis's.
struct CjsonSettings {
  // A table whose largest index is over `sparse_ratio` times its count of items and over
  // `sparse_safe` is "excessively sparse": an error, or with `sparse_convert` an object.
  // A ratio of 0 allows any sparse array.
  bool sparse_convert = false;
  int sparse_ratio = 2;
  int sparse_safe = 10;
  int encode_max_depth = kJsonMaxDepth;
  int decode_max_depth = kJsonMaxDepth;
  int number_precision = 14;  // Significant digits, 1 to 14.
  // Reported, not used: Redis's cjson keeps its output buffer between calls (in malloc's
  // memory, which no limit counts); here each encode builds its text in the Lua heap.
  bool keep_buffer = true;
  InvalidNumbers encode_invalid_numbers = InvalidNumbers::kRefuse;
  bool decode_invalid_numbers = true;  // Accept NaN, Inf, hexadecimal numbers, a leading +.

  // Set by every setter that changes something. Redis keeps one set of settings for the whole
  // process, so one script's choice changes the JSON of every later script; here the server
  // restores the defaults after a run that changed them (ScriptVm::Run): a flag to test is
  // all a run pays.
  bool changed = false;
};

// cjson.encode(value) and cjson.decode(text), under `settings`: push the result, or raise.
int JsonEncode(lua_State* L, const CjsonSettings& settings);
int JsonDecode(lua_State* L, const CjsonSettings& settings);

}  // namespace cairn::server::scripting
