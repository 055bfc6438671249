// The `redis` table scripts call: call, pcall, error_reply, status_reply, sha1hex, log,
// setresp, and the no-ops Redis keeps for old scripts (replicate_commands, set_repl,
// breakpoint, debug).
#include <climits>
#include <string>
#include <vector>

#include "scripting/lua_values.h"
#include "scripting/sha1.h"
#include "scripting/stop_check.h"
#include "scripting/vm_state.h"
#include "server_version.h"

namespace cairn::server::scripting {
namespace {

// Raises msg as Redis's library functions do: without the position luaL_error would add (the
// error handler adds "ERR " and where in the script it happened).
int Raise(lua_State* L, const char* msg) {
  lua_pushstring(L, msg);
  return lua_error(L);
}

constexpr std::size_t kKeptReplyBytes = 64 * 1024;

// redis.call (raise = true) and redis.pcall (raise = false).
int CallCommand(lua_State* L, bool raise) {
  VmState* vm = StateOf(L);
  const int argc = lua_gettop(L);
  auto fail = [&](std::string_view text) {
    PushErrorTable(L, text);
    return raise ? lua_error(L) : 1;
  };
  if (vm->host == nullptr) return luaL_error(L, "redis.call is only available while a script runs");
  if (argc == 0) return fail("ERR Please specify at least one argument for this redis lib call");
  std::vector<std::string_view>& args = vm->call_args;
  args.clear();
  // Numbers as text; room for every argument, so the views stay valid.
  std::vector<std::string>& formatted = vm->call_numbers;
  formatted.clear();
  formatted.reserve(static_cast<std::size_t>(argc));
  for (int i = 1; i <= argc; ++i) {
    const int type = lua_type(L, i);
    if (type == LUA_TSTRING) {
      std::size_t len = 0;
      const char* s = lua_tolstring(L, i, &len);
      args.emplace_back(s, len);
    } else if (type == LUA_TNUMBER) {
      formatted.push_back(FormatArgNumber(lua_tonumber(L, i)));
      args.emplace_back(formatted.back());
    } else {
      return fail("ERR Lua redis lib command arguments must be strings or integers");
    }
  }
  std::string& reply = vm->call_reply;
  reply.clear();
  vm->host->Call(args, vm->resp, &reply);
  if (std::string why = vm->host->StopReason(); !why.empty()) {
    // Stopped as SCRIPT KILL stops it: no pcall in the script can catch it.
    vm->stop = VmState::Stop::kHostLimit;
    vm->stop_reason = std::move(why);
    CheckStop(L);
  }
  PushReply(L, reply);
  const bool failed = !reply.empty() && reply[0] == '-';
  // A large reply's buffer is not kept for the small ones that follow.
  if (reply.capacity() > kKeptReplyBytes) std::string().swap(reply);
  if (raise && failed) return lua_error(L);
  return 1;
}

int Call(lua_State* L) { return CallCommand(L, true); }
int PCall(lua_State* L) { return CallCommand(L, false); }

// redis.error_reply(text): {err = text}, given an error code ("ERR") when the text has none,
// as Redis does: "-CODE message" and "CODE message" keep their code, a single word gets "ERR".
int ErrorReply(lua_State* L) {
  std::size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  std::string text(s, len);
  if (!text.empty() && text[0] == '-') text.erase(0, 1);
  while (!text.empty() && (text.back() == '\r' || text.back() == '\n')) text.pop_back();
  if (text.find(' ') == std::string::npos) text = "ERR " + text;
  PushErrorTable(L, text);
  return 1;
}

int StatusReply(lua_State* L) {
  std::size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  PushStatusTable(L, std::string_view(s, len));
  return 1;
}

int Sha1hex(lua_State* L) {
  if (lua_gettop(L) != 1) return Raise(L, "wrong number of arguments");
  std::size_t len = 0;
  const char* s = lua_tolstring(L, 1, &len);
  const std::string hex = Sha1Hex(std::string_view(s != nullptr ? s : "", s != nullptr ? len : 0));
  lua_pushlstring(L, hex.data(), hex.size());
  return 1;
}

// A number as Redis's (int) cast gives it on x86-64: truncated toward zero, and INT_MIN for NaN
// and for anything outside int, where the cast itself is undefined behaviour in C++
// (redis.setresp(1e308) and redis.log(0/0, …) reach here from any script).
int IntAsRedisCastsIt(lua_Number n) {
  return n > -2147483649.0 && n < 2147483648.0 ? static_cast<int>(n) : INT_MIN;
}

int Log(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc < 2) return Raise(L, "redis.log() requires two arguments or more.");
  if (!lua_isnumber(L, 1)) return Raise(L, "First argument must be a number (log level).");
  const int level = IntAsRedisCastsIt(lua_tonumber(L, 1));
  if (level < kLogDebug || level > kLogWarning) return Raise(L, "Invalid debug level.");
  std::string message;
  for (int i = 2; i <= argc; ++i) {
    std::size_t len = 0;
    const char* s = lua_tolstring(L, i, &len);
    if (s == nullptr) continue;  // Redis skips what is neither string nor number.
    if (!message.empty()) message += ' ';
    message.append(s, len);
  }
  VmState* vm = StateOf(L);
  if (vm->host != nullptr) vm->host->Log(level, message);
  return 0;
}

int SetResp(lua_State* L) {
  if (lua_gettop(L) != 1) return Raise(L, "redis.setresp() requires one argument.");
  const int resp = IntAsRedisCastsIt(lua_tonumber(L, 1));
  if (resp != 2 && resp != 3) return Raise(L, "RESP version must be 2 or 3.");
  StateOf(L)->resp = resp;
  return 0;
}

int ReturnTrue(lua_State* L) {
  lua_pushboolean(L, 1);
  return 1;
}
int ReturnFalse(lua_State* L) {
  lua_pushboolean(L, 0);
  return 1;
}
int Nothing(lua_State*) { return 0; }

}  // namespace

void OpenRedisLib(lua_State* L) {
  lua_newtable(L);
  const luaL_Reg functions[] = {
      {"call", Call},
      {"pcall", PCall},
      {"error_reply", ErrorReply},
      {"status_reply", StatusReply},
      {"sha1hex", Sha1hex},
      {"log", Log},
      {"setresp", SetResp},
      {"replicate_commands", ReturnTrue},  // Always on since Redis 7.
      {"set_repl", Nothing},               // One node: nothing to replicate.
      {"breakpoint", ReturnFalse},         // No debugger.
      {"debug", Nothing},
      {nullptr, nullptr},
  };
  for (const luaL_Reg* f = functions; f->name != nullptr; ++f) {
    lua_pushcfunction(L, f->func);
    lua_setfield(L, -2, f->name);
  }
  const std::pair<const char*, int> constants[] = {
      {"LOG_DEBUG", kLogDebug},
      {"LOG_VERBOSE", kLogVerbose},
      {"LOG_NOTICE", kLogNotice},
      {"LOG_WARNING", kLogWarning},
      {"REPL_NONE", 0},
      {"REPL_AOF", 1},
      {"REPL_SLAVE", 2},
      {"REPL_REPLICA", 2},
      {"REPL_ALL", 3},
  };
  for (const auto& [name, value] : constants) {
    lua_pushnumber(L, value);
    lua_setfield(L, -2, name);
  }
  lua_pushlstring(L, kRedisVersion.data(), kRedisVersion.size());
  lua_setfield(L, -2, "REDIS_VERSION");
  // 7.2.4 → 0x070204, as Redis encodes it.
  int num = 0;
  int part = 0;
  for (char c : kRedisVersion) {
    if (c == '.') {
      num = num * 256 + part;
      part = 0;
    } else {
      part = part * 10 + (c - '0');
    }
  }
  lua_pushnumber(L, num * 256 + part);
  lua_setfield(L, -2, "REDIS_VERSION_NUM");
  lua_setglobal(L, "redis");
}

}  // namespace cairn::server::scripting
