// Lua values ↔ replies (scripting/lua_values.h): the conversion of whatever a script returns
// into a reply, and of a reply into what redis.call returns. The input is a small program that
// builds one Lua value — numbers of any bit pattern (NaN, infinities, -0), strings of any
// bytes, the special tables ({err}, {ok}, {double}, {map}, {set}, {big_number},
// {verbatim_string}), nesting past the limit, the same table many times and tables that
// contain themselves. For each protocol the value is written as a reply under bounds; beyond
// ASan and UBSan the target checks that a value that cannot be written writes nothing, that
// what is written is one well-formed reply that reads back (under RESP3: or fails with a Lua
// error), and that under RESP2 a reply read back and written again is the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "resp/reply_writer.h"
#include "scripting/lua.h"
#include "scripting/lua_values.h"

namespace {

using cairn::server::resp::ReplyWriter;
using cairn::server::scripting::PushReply;
using cairn::server::scripting::ReplyBounds;
using cairn::server::scripting::WriteLuaValue;
using cairn::server::scripting::WriteOutcome;

constexpr ReplyBounds kBounds{1 << 20, 1 << 16};
constexpr int kMaxBuildDepth = 1100;  // Past kMaxNesting, which the writer must refuse.

class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  std::uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::string_view Bytes(std::size_t n) {
    n = std::min(n, size_ - pos_);
    std::string_view s(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return s;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

constexpr const char* kFields[] = {"err", "ok",     "double",          "big_number", "map",
                                   "set", "format", "verbatim_string", "string",     "x"};

// Pushes one value built from the input. Tables built so far are kept in the table at
// `shelf`, so that a later value can be one of them again (shared or cyclic).
void Build(lua_State* L, Input& in, int shelf, int depth) {
  lua_checkstack(L, 8);
  if (in.empty() || depth > kMaxBuildDepth) {
    lua_pushinteger(L, depth);
    return;
  }
  switch (in.Byte() % 10) {
    case 0: {  // Any double, by its bits.
      std::uint64_t bits = 0;
      const std::string_view b = in.Bytes(8);
      std::memcpy(&bits, b.data(), b.size());
      double d = 0;
      std::memcpy(&d, &bits, sizeof d);
      lua_pushnumber(L, d);
      return;
    }
    case 1:
      lua_pushinteger(L, static_cast<std::int8_t>(in.Byte()));
      return;
    case 2: {
      const std::string_view s = in.Bytes(in.Byte());
      lua_pushlstring(L, s.data(), s.size());
      return;
    }
    case 3:
      lua_pushboolean(L, in.Byte() & 1);
      return;
    case 4:
      lua_pushnil(L);
      return;
    case 5: {  // An array.
      const int n = in.Byte() % 6;
      lua_createtable(L, n, 0);
      lua_pushvalue(L, -1);
      lua_rawseti(L, shelf, static_cast<int>(lua_objlen(L, shelf)) + 1);
      for (int i = 1; i <= n; ++i) {
        Build(L, in, shelf, depth + 1);
        lua_rawseti(L, -2, i);
      }
      return;
    }
    case 6: {  // A table with named fields: the special ones, or anything.
      const int n = 1 + in.Byte() % 3;
      lua_createtable(L, 0, n);
      lua_pushvalue(L, -1);
      lua_rawseti(L, shelf, static_cast<int>(lua_objlen(L, shelf)) + 1);
      for (int i = 0; i < n; ++i) {
        lua_pushstring(L, kFields[in.Byte() % std::size(kFields)]);
        Build(L, in, shelf, depth + 1);
        lua_rawset(L, -3);
      }
      return;
    }
    case 7: {  // A table keyed by values (a map's or a set's inside).
      const int n = in.Byte() % 4;
      lua_createtable(L, 0, n);
      for (int i = 0; i < n; ++i) {
        Build(L, in, shelf, depth + 1);
        Build(L, in, shelf, depth + 1);
        if (lua_isnil(L, -2) ||
            (lua_isnumber(L, -2) && lua_tonumber(L, -2) != lua_tonumber(L, -2))) {
          lua_pop(L, 2);  // Lua refuses nil and NaN keys.
        } else {
          lua_rawset(L, -3);
        }
      }
      return;
    }
    case 8: {  // A table built earlier: shared, or (while it is being built) a cycle.
      const int count = static_cast<int>(lua_objlen(L, shelf));
      if (count == 0) {
        lua_pushboolean(L, 0);
      } else {
        lua_rawgeti(L, shelf, 1 + in.Byte() % count);
      }
      return;
    }
    default: {  // A chain of one-element arrays, to reach the nesting limit quickly.
      const int levels = 1 + in.Byte() * 8;
      int built = 0;
      lua_createtable(L, 1, 0);
      for (; built < levels && depth + built < kMaxBuildDepth; ++built) {
        lua_createtable(L, 1, 0);
        lua_insert(L, -2);
        lua_rawseti(L, -2, 1);
      }
      return;
    }
  }
}

struct Conversion {
  const std::uint8_t* data;
  std::size_t size;
};

// Reads `reply` back into a Lua value and writes it again in RESP2; under lua_pcall, because
// PushReply raises Lua errors.
struct ReadBack {
  std::string_view reply;
  std::size_t consumed = 0;
  std::string rewritten;
  WriteOutcome outcome = WriteOutcome::kWritten;
};

int ReadBackInLua(lua_State* L) {
  auto* rb = static_cast<ReadBack*>(lua_touserdata(L, 1));
  rb->consumed = PushReply(L, rb->reply);
  ReplyWriter writer(&rb->rewritten, 2);
  rb->outcome = WriteLuaValue(L, -1, writer, 2, kBounds);
  return 0;
}

bool ReadBackAndWrite(lua_State* L, ReadBack* rb) {
  if (lua_cpcall(L, ReadBackInLua, rb) == 0) return true;
  std::fprintf(stderr, "reading back %zu bytes of reply failed: %s\n", rb->reply.size(),
               lua_tostring(L, -1));
  for (char c : rb->reply.substr(0, 400)) {
    std::fprintf(stderr, (c >= 32 && c < 127) ? "%c" : "\\x%02x", static_cast<unsigned char>(c));
  }
  std::fprintf(stderr, "\n");
  return false;
}

int Convert(lua_State* L) {
  auto* c = static_cast<Conversion*>(lua_touserdata(L, 1));
  Input in(c->data, c->size);
  lua_newtable(L);
  const int shelf = lua_gettop(L);
  Build(L, in, shelf, 0);
  const int value = lua_gettop(L);

  for (int protocol = 2; protocol <= 3; ++protocol) {
    for (int script_resp = 2; script_resp <= 3; ++script_resp) {
      std::string out;
      ReplyWriter writer(&out, protocol);
      const WriteOutcome outcome = WriteLuaValue(L, value, writer, script_resp, kBounds);
      if (outcome != WriteOutcome::kWritten) {
        FUZZ_CHECK(out.empty());
        continue;
      }
      FUZZ_CHECK(!out.empty());
      FUZZ_CHECK(out.size() <= kBounds.max_bytes);
      ReadBack first{out};
      if (protocol == 3) {
        // RESP3 replies only a script can write (a set or map holding a null: {set =
        // {[false] = true}}) need not read back: redis.call never returns them, and reading
        // one raises a Lua error, as in Redis. It must not crash.
        if (lua_cpcall(L, ReadBackInLua, &first) == 0) {
          FUZZ_CHECK(first.consumed == out.size());
        }
        continue;
      }
      FUZZ_CHECK(ReadBackAndWrite(L, &first));
      FUZZ_CHECK(first.consumed == out.size());  // One reply, all of it.
      if (first.outcome != WriteOutcome::kWritten) continue;
      ReadBack second{first.rewritten};
      FUZZ_CHECK(ReadBackAndWrite(L, &second));
      FUZZ_CHECK(second.consumed == first.rewritten.size());
      FUZZ_CHECK(second.outcome == WriteOutcome::kWritten);
      FUZZ_CHECK(second.rewritten == first.rewritten);
    }
  }
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static lua_State* L = luaL_newstate();
  Conversion c{data, size};
  // An error here (the Lua stack running out while building) is the builder's, not a finding.
  (void)lua_cpcall(L, Convert, &c);
  lua_settop(L, 0);
  lua_gc(L, LUA_GCCOLLECT, 0);
  return 0;
}
