// The table functions of Lua 5.1 that loop in C over a range a script chooses: unpack,
// table.concat, table.insert, table.remove, table.sort and table.foreachi. Each gives the
// results and errors Lua 5.1's does, with two differences that only a hostile script sees:
// - ranges are computed in 64 bits: stock unpack({}, -2, 2147483647) overflows an int and
//   pushes values until the process crashes (CVE-2025-46817); here it is "too many results to
//   unpack";
// - every loop counts its steps on a StepCounter, so that lua-time-limit and SCRIPT KILL stop
//   it. A border of a sparse table (#t) can be near 2^30 with a handful of keys, which makes
//   table.insert(t, 1, v) move a billion slots; table.insert(t, -2^31, v) moves two billion;
//   table.sort's quicksort runs in C when no comparator (or a C function) is given.
// The rest of the library (foreach, getn, maxn, setn) is Lua's: it loops only over keys that
// exist, which the memory limit bounds.
#include <climits>
#include <cstdint>

#include "scripting/lua_core_lib.h"
#include "scripting/stop_check.h"

namespace cairn::server::scripting {
namespace {

// #t as Lua 5.1's table library reads it (luaL_getn: an int).
int Length(lua_State* L, int index) {
  luaL_checktype(L, index, LUA_TTABLE);
  return static_cast<int>(lua_objlen(L, index));
}

// An optional int argument as Lua 5.1 reads it (luaL_optint: larger numbers wrap).
int OptInt(lua_State* L, int arg, int fallback) {
  return static_cast<int>(luaL_optinteger(L, arg, fallback));
}

// unpack(t [, i [, j]]): t[i], …, t[j]; i defaults to 1, j to #t.
int Unpack(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  const int first = OptInt(L, 2, 1);
  const int last = lua_isnoneornil(L, 3) ? Length(L, 1) : static_cast<int>(luaL_checkinteger(L, 3));
  if (first > last) return 0;
  const std::int64_t count = std::int64_t{last} - first + 1;
  if (count >= INT_MAX || !lua_checkstack(L, static_cast<int>(count))) {
    return luaL_error(L, "too many results to unpack");
  }
  for (std::int64_t i = first; i <= last; ++i) lua_rawgeti(L, 1, static_cast<int>(i));
  return static_cast<int>(count);
}

// table.concat(t [, sep [, i [, j]]]): the strings (or numbers) t[i] … t[j] joined by sep.
int Concat(lua_State* L) {
  std::size_t sep_length = 0;
  const char* sep = luaL_optlstring(L, 2, "", &sep_length);
  luaL_checktype(L, 1, LUA_TTABLE);
  const int first = OptInt(L, 3, 1);
  const int last = lua_isnoneornil(L, 4) ? Length(L, 1) : static_cast<int>(luaL_checkinteger(L, 4));
  StepCounter steps(L);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (std::int64_t i = first; i <= last; ++i) {
    lua_rawgeti(L, 1, static_cast<int>(i));
    if (!lua_isstring(L, -1)) {
      return luaL_error(L, "invalid value (%s) at index %d in table for 'concat'",
                        luaL_typename(L, -1), static_cast<int>(i));
    }
    luaL_addvalue(&b);
    if (i != last) luaL_addlstring(&b, sep, sep_length);
    steps.Add(1 + sep_length / 16);
  }
  luaL_pushresult(&b);
  return 1;
}

// table.insert(t, v) appends v; table.insert(t, pos, v) moves t[pos], t[pos+1], … up by one
// (up to #t, or from pos itself when pos is past #t + 1) and stores v at t[pos].
int Insert(lua_State* L) {
  std::int64_t end = std::int64_t{Length(L, 1)} + 1;  // The first empty slot.
  std::int64_t pos = end;
  switch (lua_gettop(L)) {
    case 2:
      break;
    case 3: {
      pos = static_cast<int>(luaL_checkinteger(L, 2));
      if (pos > end) end = pos;
      StepCounter steps(L);
      for (std::int64_t i = end; i > pos; --i) {
        lua_rawgeti(L, 1, static_cast<int>(i - 1));
        lua_rawseti(L, 1, static_cast<int>(i));
        steps.Add();
      }
      break;
    }
    default:
      return luaL_error(L, "wrong number of arguments to 'insert'");
  }
  lua_rawseti(L, 1, static_cast<int>(pos));  // The value is on top.
  return 0;
}

// table.remove(t [, pos]): removes and returns t[pos] (default #t), moving the elements
// after it down by one; nothing when pos is not in 1..#t.
int Remove(lua_State* L) {
  const int end = Length(L, 1);
  int pos = OptInt(L, 2, end);
  if (pos < 1 || pos > end) return 0;
  lua_rawgeti(L, 1, pos);
  StepCounter steps(L);
  for (; pos < end; ++pos) {
    lua_rawgeti(L, 1, pos + 1);
    lua_rawseti(L, 1, pos);
    steps.Add();
  }
  lua_pushnil(L);
  lua_rawseti(L, 1, end);
  return 1;
}

// table.foreachi(t, f): f(i, t[i]) for i = 1 … #t, until f returns something other than nil.
int Foreachi(lua_State* L) {
  const int n = Length(L, 1);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  StepCounter steps(L);
  for (std::int64_t i = 1; i <= n; ++i) {
    lua_pushvalue(L, 2);
    lua_pushinteger(L, static_cast<lua_Integer>(i));
    lua_rawgeti(L, 1, static_cast<int>(i));
    lua_call(L, 2, 1);
    if (!lua_isnil(L, -1)) return 1;
    lua_pop(L, 1);
    steps.Add();
  }
  return 0;
}

// table.sort: Lua 5.1's quicksort, step for step: the same comparisons in the same order,
// hence the same order of equal elements and the same "invalid order function for sorting"
// errors for a comparator that contradicts itself, which scripts written for Redis see.
// Elements are held on the Lua stack while they are compared, as there.
class Sorter {
 public:
  explicit Sorter(lua_State* L) : L_(L), comparator_(!lua_isnil(L, 2)), steps_(L) {}

  // Sorts t[lo..hi]: one part of each split recursively (the smaller, so the depth stays
  // logarithmic), the other in the loop.
  void Sort(int lo, int hi) {
    while (lo < hi) {
      if (OrderEnds(lo, hi)) return;
      const int pivot_at = Partition(lo, hi);
      int small_lo = 0;
      int small_hi = 0;
      if (pivot_at - lo < hi - pivot_at) {
        small_lo = lo;
        small_hi = pivot_at - 1;
        lo = pivot_at + 1;
      } else {
        small_lo = pivot_at + 1;
        small_hi = hi;
        hi = pivot_at - 1;
      }
      Sort(small_lo, small_hi);
    }
  }

 private:
  void Push(int i) { lua_rawgeti(L_, 1, i); }

  // Pops the top value into t[top_to] and the one below it into t[below_to].
  void PopInto(int top_to, int below_to) {
    lua_rawseti(L_, 1, top_to);
    lua_rawseti(L_, 1, below_to);
  }

  // Whether the value at stack index a (negative) goes before the one at b.
  bool Before(int a, int b) {
    steps_.Add();
    if (!comparator_) return lua_lessthan(L_, a, b) != 0;
    lua_pushvalue(L_, 2);
    lua_pushvalue(L_, a - 1);  // One slot further down past the function…
    lua_pushvalue(L_, b - 2);  // …and two past the function and a.
    lua_call(L_, 2, 1);
    const bool before = lua_toboolean(L_, -1) != 0;
    lua_pop(L_, 1);
    return before;
  }

  // Puts t[lo], t[mid], t[hi] in order (mid the middle); true when that sorts the range
  // (it has at most three elements).
  bool OrderEnds(int lo, int hi) {
    Push(lo);
    Push(hi);
    if (Before(-1, -2)) {
      PopInto(lo, hi);
    } else {
      lua_pop(L_, 2);
    }
    if (hi - lo == 1) return true;
    const int mid = static_cast<int>((std::int64_t{lo} + hi) / 2);
    Push(mid);
    Push(lo);
    if (Before(-2, -1)) {
      PopInto(mid, lo);
    } else {
      lua_pop(L_, 1);
      Push(hi);
      if (Before(-1, -2)) {
        PopInto(mid, hi);
      } else {
        lua_pop(L_, 2);
      }
    }
    return hi - lo == 2;
  }

  // With t[lo] <= t[mid] <= t[hi] (OrderEnds), moves the pivot t[mid] to hi - 1, splits
  // lo+1 .. hi-2 around it and returns where the pivot ends.
  int Partition(int lo, int hi) {
    const int mid = static_cast<int>((std::int64_t{lo} + hi) / 2);
    Push(mid);  // The pivot, kept on the stack below everything else.
    lua_pushvalue(L_, -1);
    Push(hi - 1);
    PopInto(mid, hi - 1);
    int i = lo;
    int j = hi - 1;
    while (true) {
      // Up from lo to the first element not before the pivot…
      while (Push(++i), Before(-1, -2)) {
        if (i > hi) luaL_error(L_, "invalid order function for sorting");
        lua_pop(L_, 1);
      }
      // …and down from hi - 1 to the first one the pivot is not before.
      while (Push(--j), Before(-3, -1)) {
        if (j < lo) luaL_error(L_, "invalid order function for sorting");
        lua_pop(L_, 1);
      }
      if (j < i) {
        lua_pop(L_, 3);  // The pivot, t[i], t[j].
        break;
      }
      PopInto(i, j);  // Swap them.
    }
    Push(hi - 1);
    Push(i);
    PopInto(hi - 1, i);
    return i;
  }

  lua_State* L_;
  bool comparator_;
  StepCounter steps_;
};

int Sort(lua_State* L) {
  const int n = Length(L, 1);
  luaL_checkstack(L, 40, "");
  if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_settop(L, 2);
  Sorter(L).Sort(1, n);
  return 0;
}

}  // namespace

void InstallTableFunctions(lua_State* L, int table_table, int globals) {
  const luaL_Reg functions[] = {{"concat", Concat},     {"insert", Insert}, {"remove", Remove},
                                {"foreachi", Foreachi}, {"sort", Sort},     {nullptr, nullptr}};
  for (const luaL_Reg* f = functions; f->name != nullptr; ++f) {
    lua_pushcfunction(L, f->func);
    lua_setfield(L, table_table, f->name);
  }
  lua_pushcfunction(L, Unpack);
  lua_setfield(L, globals, "unpack");
}

}  // namespace cairn::server::scripting
