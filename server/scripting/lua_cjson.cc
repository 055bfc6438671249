// cjson, the JSON library Redis gives scripts: encode, decode, null, new (a table of its own
// with its own settings), _NAME and _VERSION, and the setters, each of which returns the
// setting in force and changes it when given a value (nil leaves it):
//   encode_sparse_array([convert [, ratio [, safe]]])   (false, 2, 10)
//   encode_max_depth([n]), decode_max_depth([n])        (1000; at most 1000, see cjson.h)
//   encode_number_precision([n])                        (14; 1 to 14)
//   encode_keep_buffer([on])                            (true; reported only)
//   encode_invalid_numbers([on | "null"])               (false)
//   decode_invalid_numbers([on])                        (true)
// Booleans also take "on" and "off". The settings of the cjson table live in the state's
// VmState, and the server restores them after a run that changed them (cjson.h).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <new>

#include "scripting/cjson.h"
#include "scripting/vm_state.h"

namespace cairn::server::scripting {
namespace {

// Every function of a cjson table has its settings as upvalue: a light userdata for the
// state's own table, a full one for a table from cjson.new.
CjsonSettings& SettingsOf(lua_State* L) {
  return *static_cast<CjsonSettings*>(lua_touserdata(L, lua_upvalueindex(1)));
}

// The setters' arguments, as Redis takes them: more than `count` is an error, fewer are nil.
CjsonSettings& SetterArguments(lua_State* L, int count) {
  luaL_argcheck(L, lua_gettop(L) <= count, count + 1, "found too many arguments");
  lua_settop(L, count);
  return SettingsOf(L);
}

// The number at `index` as Redis's luaL_checkinteger hands it to an int on x86-64: truncated
// to 64 bits (a value outside them, and NaN, become INT64_MIN, as the processor's conversion
// gives them), then its low 32 bits. So 2^32 + 5 reads as 5, as in Redis.
int IntegerArgument(lua_State* L, int index) {
  const lua_Number n = luaL_checknumber(L, index);
  const std::int64_t wide = n >= -9223372036854775808.0 && n < 9223372036854775808.0
                                ? static_cast<std::int64_t>(n)
                                : INT64_MIN;
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(wide));
}

// Sets *setting from the number at `index`, if any, which must be in [min, max]; values over
// `cap` are taken as `cap`. Pushes the setting.
void IntegerOption(lua_State* L, int index, int min, int max, int cap, int* setting) {
  if (!lua_isnil(L, index)) {
    const int value = IntegerArgument(L, index);
    if (value < min || value > max) {
      char message[64];
      std::snprintf(message, sizeof message, "expected integer between %d and %d", min, max);
      luaL_argerror(L, 1, message);  // Argument 1 whichever it is, as in Redis.
    }
    *setting = std::min(value, cap);
    SettingsOf(L).changed = true;
  }
  lua_pushinteger(L, *setting);
}

// Sets *choice from the option at `index`, if any: a boolean (0 or 1) or one of `names`
// (its index). Pushes the setting: a boolean for 0 and 1, else its name.
void ChoiceOption(lua_State* L, int index, const char* const names[], int* choice) {
  if (!lua_isnil(L, index)) {
    *choice = lua_isboolean(L, index) ? lua_toboolean(L, index)
                                      : luaL_checkoption(L, index, nullptr, names);
    SettingsOf(L).changed = true;
  }
  if (*choice <= 1) {
    lua_pushboolean(L, *choice);
  } else {
    lua_pushstring(L, names[*choice]);
  }
}

constexpr const char* kOnOff[] = {"off", "on", nullptr};

void BoolOption(lua_State* L, int index, bool* setting) {
  int choice = *setting ? 1 : 0;
  ChoiceOption(L, index, kOnOff, &choice);
  *setting = choice != 0;
}

int EncodeSparseArray(lua_State* L) {
  CjsonSettings& s = SetterArguments(L, 3);
  BoolOption(L, 1, &s.sparse_convert);
  IntegerOption(L, 2, 0, INT_MAX, INT_MAX, &s.sparse_ratio);
  IntegerOption(L, 3, 0, INT_MAX, INT_MAX, &s.sparse_safe);
  return 3;
}

int EncodeMaxDepth(lua_State* L) {
  CjsonSettings& s = SetterArguments(L, 1);
  IntegerOption(L, 1, 1, INT_MAX, kJsonMaxDepth, &s.encode_max_depth);
  return 1;
}

int DecodeMaxDepth(lua_State* L) {
  CjsonSettings& s = SetterArguments(L, 1);
  IntegerOption(L, 1, 1, INT_MAX, kJsonMaxDepth, &s.decode_max_depth);
  return 1;
}

int EncodeNumberPrecision(lua_State* L) {
  CjsonSettings& s = SetterArguments(L, 1);
  IntegerOption(L, 1, 1, 14, 14, &s.number_precision);
  return 1;
}

int EncodeKeepBuffer(lua_State* L) {
  BoolOption(L, 1, &SetterArguments(L, 1).keep_buffer);
  return 1;
}

int EncodeInvalidNumbers(lua_State* L) {
  static constexpr const char* kNames[] = {"off", "on", "null", nullptr};
  CjsonSettings& s = SetterArguments(L, 1);
  int choice = static_cast<int>(s.encode_invalid_numbers);
  ChoiceOption(L, 1, kNames, &choice);
  s.encode_invalid_numbers = static_cast<InvalidNumbers>(choice);
  return 1;
}

int DecodeInvalidNumbers(lua_State* L) {
  BoolOption(L, 1, &SetterArguments(L, 1).decode_invalid_numbers);
  return 1;
}

int Encode(lua_State* L) { return JsonEncode(L, SettingsOf(L)); }
int Decode(lua_State* L) { return JsonDecode(L, SettingsOf(L)); }

int NewCjsonTable(lua_State* L);

// Pops the settings userdata on top and pushes a cjson table whose functions use it.
void PushCjsonTable(lua_State* L) {
  static constexpr luaL_Reg kFunctions[] = {
      {"encode", Encode},
      {"decode", Decode},
      {"encode_sparse_array", EncodeSparseArray},
      {"encode_max_depth", EncodeMaxDepth},
      {"decode_max_depth", DecodeMaxDepth},
      {"encode_number_precision", EncodeNumberPrecision},
      {"encode_keep_buffer", EncodeKeepBuffer},
      {"encode_invalid_numbers", EncodeInvalidNumbers},
      {"decode_invalid_numbers", DecodeInvalidNumbers},
  };
  lua_newtable(L);
  lua_insert(L, -2);  // table, settings
  for (const luaL_Reg& f : kFunctions) {
    lua_pushvalue(L, -1);
    lua_pushcclosure(L, f.func, 1);
    lua_setfield(L, -3, f.name);
  }
  lua_pop(L, 1);
  lua_pushcfunction(L, NewCjsonTable);
  lua_setfield(L, -2, "new");
  lua_pushlightuserdata(L, nullptr);
  lua_setfield(L, -2, "null");
  lua_pushliteral(L, "cjson");
  lua_setfield(L, -2, "_NAME");
  lua_pushliteral(L, "2.1.0");
  lua_setfield(L, -2, "_VERSION");
}

// cjson.new(): a table of its own, with the default settings; the collector frees it with the
// table. (It lives in the script's locals: no script can keep it for the next.)
int NewCjsonTable(lua_State* L) {
  new (lua_newuserdata(L, sizeof(CjsonSettings))) CjsonSettings();
  PushCjsonTable(L);
  return 1;
}

}  // namespace

void OpenCjson(lua_State* L) {
  lua_pushlightuserdata(L, &StateOf(L)->cjson);
  PushCjsonTable(L);
  lua_setglobal(L, "cjson");
}

}  // namespace cairn::server::scripting
