#include "scripting/script_vm.h"

#include <cstdlib>
#include <cstring>

#include "scripting/lua_values.h"
#include "scripting/stop_check.h"
#include "scripting/vm_state.h"

namespace cairn::server::scripting {
namespace {

// Instructions between two looks at the clock and the kill flag: about a millisecond of a
// busy loop, and no measurable cost to a short script.
constexpr int kHookEvery = kStepsPerCheck;

// The largest reply a script may return, for its memory limit. A reply of distinct values is
// no larger than the heap that holds them: a string takes more heap than reply, and every value
// in a table a slot of 16 bytes at least. A larger reply repeats the same strings or tables.
constexpr std::size_t kReplyBytesPerHeapByte = 2;
constexpr std::size_t kHeapBytesPerReplyValue = 16;

// Lua 5.1's defaults for the collector's pause and step multiplier (LUAI_GCPAUSE, LUAI_GCMUL),
// which collectgarbage('setpause'/'setstepmul') changes for the whole state.
constexpr int kGcPause = 200;
constexpr int kGcStepMultiplier = 200;

void* Allocate(void* ud, void* ptr, std::size_t osize, std::size_t nsize) {
  auto* vm = static_cast<VmState*>(ud);
  if (nsize == 0) {
    vm->heap.Free(ptr, osize);
    vm->used -= osize;
    return nullptr;
  }
  // Lua 5.1 passes osize 0 with a null ptr. Only growth can be refused: Lua assumes a
  // shrinking realloc succeeds.
  if (vm->limit != 0 && nsize > osize && vm->used + (nsize - osize) > vm->limit) {
    vm->over_limit = true;
    return nullptr;
  }
  void* out = ptr == nullptr ? vm->heap.Allocate(nsize) : vm->heap.Resize(ptr, osize, nsize);
  if (out == nullptr) return nullptr;
  vm->used = vm->used - osize + nsize;
  return out;
}

// The error handler of a run: turns the error into the reply text Redis gives,
// "<error> script: <sha>, on <source>:<line>.", where <error> is the err field of an error
// table (redis.call's errors) or "ERR " and the message of any other error.
int HandleError(lua_State* L) {
  VmState* vm = StateOf(L);
  std::string text;
  if (lua_istable(L, 1)) {
    lua_getfield(L, 1, "err");
    std::size_t len = 0;
    const char* s = lua_tolstring(L, -1, &len);
    text = s != nullptr ? std::string(s, len) : "ERR unknown error";
    lua_pop(L, 1);
  } else {
    std::size_t len = 0;
    const char* s = lua_tolstring(L, 1, &len);
    text = "ERR " +
           (s != nullptr ? std::string(s, len) : std::string("(error object is not a string)"));
  }
  text += " script: " + vm->sha;
  lua_Debug ar;
  for (int level = 1; lua_getstack(L, level, &ar) != 0; ++level) {
    lua_getinfo(L, "Sl", &ar);
    if (ar.currentline > 0) {
      text += ", on " + std::string(ar.source) + ":" + std::to_string(ar.currentline);
      break;
    }
  }
  text += ".";
  lua_pushlstring(L, text.data(), text.size());
  return 1;
}

void PushStrings(lua_State* L, const std::vector<std::string_view>* items) {
  lua_createtable(L, items != nullptr ? static_cast<int>(items->size()) : 0, 0);
  if (items == nullptr) return;
  int i = 0;
  for (std::string_view s : *items) {
    lua_pushlstring(L, s.data(), s.size());
    lua_rawseti(L, -2, ++i);
  }
}

// Sets the real global (the environment's reads fall through to them; scripts cannot write
// them) whose name the registry holds at name_ref to the value on top, which it pops. The
// real globals have no __newindex: a raw set is what lua_setfield would do.
void SetGlobal(lua_State* L, int name_ref) {
  const VmState* vm = StateOf(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, vm->globals_ref);  // value, globals
  lua_rawgeti(L, LUA_REGISTRYINDEX, name_ref);         // value, globals, name
  lua_pushvalue(L, -3);                                // value, globals, name, value
  lua_rawset(L, -3);                                   // value, globals
  lua_pop(L, 2);
}

int Ref(lua_State* L) { return luaL_ref(L, LUA_REGISTRYINDEX); }

}  // namespace

ScriptVm::ScriptVm(std::size_t memory_limit)
    : state_(std::make_unique<VmState>()), memory_limit_(memory_limit) {
  L_ = lua_newstate(Allocate, state_.get());
  if (L_ == nullptr) std::abort();  // Out of memory before the first script.
  OpenSandbox(L_);
  lua_getfield(L_, LUA_REGISTRYINDEX, kGlobalsKey);
  state_->globals_ref = Ref(L_);
  lua_pushliteral(L_, "KEYS");
  state_->keys_name_ref = Ref(L_);
  lua_pushliteral(L_, "ARGV");
  state_->argv_name_ref = Ref(L_);
  lua_pushcfunction(L_, HandleError);
  state_->handler_ref = Ref(L_);
}

ScriptVm::~ScriptVm() { lua_close(L_); }

void ScriptVm::Follow(std::uint64_t cache_epoch, std::uint64_t cache_evictions,
                      const std::function<bool(std::string_view sha)>& cached) {
  if (cache_epoch != epoch_) {
    epoch_ = cache_epoch;
    evictions_ = cache_evictions;
    for (const auto& [sha, compiled] : compiled_) {
      luaL_unref(L_, LUA_REGISTRYINDEX, compiled.function);
    }
    compiled_.clear();
    lua_gc(L_, LUA_GCCOLLECT, 0);
    return;
  }
  if (cache_evictions == evictions_) return;
  evictions_ = cache_evictions;
  std::erase_if(compiled_, [&](const auto& entry) {
    if (cached(entry.first)) return false;
    luaL_unref(L_, LUA_REGISTRYINDEX, entry.second.function);
    return true;
  });
  lua_gc(L_, LUA_GCCOLLECT, 0);
}

const ScriptVm::Compiled* ScriptVm::Find(std::string_view sha) const {
  auto it = compiled_.find(sha);
  return it == compiled_.end() ? nullptr : &it->second;
}

std::optional<std::string> ScriptVm::Compile(std::string_view sha, std::string_view script) {
  const ScriptHeader header = ReadScriptHeader(script);
  if (!header.error.empty()) return header.error;
  // luaL_loadbuffer would load a precompiled chunk, which Lua 5.1 runs unverified: a crafted
  // one escapes the sandbox. Redis compiles every body as source text, where ESC is a
  // syntax error; this is the error it gives. (After a "#!lua" line the body starts with
  // '\n', and the parser gives the same error for line 2 itself.)
  if (!header.body.empty() && header.body[0] == LUA_SIGNATURE[0]) {
    return "ERR Error compiling script (new function): user_script:1: unexpected symbol near "
           "'char(27)'";
  }
  // The chunk name stays on the stack while the parser runs: the parser interns it without
  // anchoring it, and a collection step could free it under it (CVE-2025-49844).
  static constexpr char kChunkName[] = "@user_script";
  lua_pushstring(L_, kChunkName);
  state_->limit = memory_limit_;
  int status = luaL_loadbuffer(L_, header.body.data(), header.body.size(), kChunkName);
  if (status == LUA_ERRMEM) {
    // Lua 5.1 does not collect when an allocation fails: the heap may be full of an earlier
    // script's garbage. Collect it and try once more.
    lua_pop(L_, 1);
    state_->limit = 0;
    lua_gc(L_, LUA_GCCOLLECT, 0);
    state_->limit = memory_limit_;
    status = luaL_loadbuffer(L_, header.body.data(), header.body.size(), kChunkName);
  }
  state_->limit = 0;
  lua_remove(L_, -2);  // The chunk name.
  if (status != 0) {
    std::string error = "ERR Error compiling script (new function): ";
    if (status == LUA_ERRMEM) {
      error += "not enough memory (lua-memory-limit)";
    } else {
      std::size_t len = 0;
      const char* s = lua_tolstring(L_, -1, &len);
      error.append(s != nullptr ? s : "?", s != nullptr ? len : 1);
    }
    lua_pop(L_, 1);
    return error;
  }
  compiled_[std::string(sha)] = Compiled{header.no_writes, Ref(L_)};  // Pops the function.
  return std::nullopt;
}

ScriptOutcome ScriptVm::Run(const ScriptRequest& request, ScriptHost& host,
                            resp::ReplyWriter& reply) {
  VmState& vm = *state_;
  lua_State* L = L_;
  const int base = lua_gettop(L);
  vm.host = &host;
  vm.sha.assign(request.sha);
  vm.resp = 2;
  vm.stop = VmState::Stop::kNone;
  vm.over_limit = false;
  vm.kill = request.kill;
  vm.on_tick = request.on_tick;
  vm.has_deadline = request.time_limit_ms > 0;
  if (vm.has_deadline) {
    vm.deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(request.time_limit_ms);
  }
  if (vm.has_deadline || vm.kill != nullptr || vm.on_tick != nullptr) {
    lua_sethook(L, StopHook, LUA_MASKCOUNT, kHookEvery);
  }

  // The memory limit holds while the script's own code runs (protected calls, whose memory
  // errors become its failure), and not for the bookkeeping around it, where an allocation
  // error would have no protected call to return to.
  lua_rawgeti(L, LUA_REGISTRYINDEX, vm.handler_ref);
  lua_rawgeti(L, LUA_REGISTRYINDEX, Find(request.sha)->function);  // handler, function
  struct Setup {
    static int Run(lua_State* L) {
      auto* req = static_cast<const ScriptRequest*>(lua_touserdata(L, 1));
      const VmState* vm = StateOf(L);
      PushStrings(L, req->keys);
      SetGlobal(L, vm->keys_name_ref);
      PushStrings(L, req->argv);
      SetGlobal(L, vm->argv_name_ref);
      return 0;
    }
  };
  vm.limit = memory_limit_;
  int status = lua_cpcall(L, Setup::Run, const_cast<ScriptRequest*>(&request));
  if (status != 0) {
    lua_pop(L, 1);  // The message; the outcome is decided below.
  } else {
    status = lua_pcall(L, 0, 1, base + 1);
  }
  vm.limit = 0;
  lua_sethook(L, nullptr, 0, 0);

  ScriptOutcome outcome = ScriptOutcome::kDone;
  if (vm.stop == VmState::Stop::kKilled) {
    reply.Error("ERR Script killed by user with SCRIPT KILL; its writes were rolled back");
    outcome = ScriptOutcome::kFailed;
  } else if (vm.stop == VmState::Stop::kHostLimit) {
    reply.Error(vm.stop_reason);
    outcome = ScriptOutcome::kFailed;
  } else if (vm.stop == VmState::Stop::kTimedOut) {
    reply.Error("ERR Script ran longer than lua-time-limit (" +
                std::to_string(request.time_limit_ms) +
                " ms) and was stopped; its writes were rolled back");
    outcome = ScriptOutcome::kFailed;
  } else if (vm.over_limit || status == LUA_ERRMEM) {
    reply.Error("ERR Script used more memory than lua-memory-limit (" +
                std::to_string(memory_limit_) + " bytes); its writes were rolled back");
    outcome = ScriptOutcome::kFailed;
  } else if (status != 0) {
    std::size_t len = 0;
    const char* s = lua_tolstring(L, -1, &len);
    reply.Error(s != nullptr ? std::string_view(s, len) : std::string_view("ERR script failed"));
    outcome = ScriptOutcome::kFailed;
  } else {
    const ReplyBounds bounds{memory_limit_ * kReplyBytesPerHeapByte,
                             memory_limit_ / kHeapBytesPerReplyValue};
    switch (WriteLuaValue(L, -1, reply, vm.resp, bounds)) {
      case WriteOutcome::kWritten:
        break;
      case WriteOutcome::kTooDeep:
        reply.Error("ERR reached lua stack limit");
        outcome = ScriptOutcome::kFailed;
        break;
      case WriteOutcome::kTooLarge:
        reply.Error("ERR Script reply larger than its memory could hold (lua-memory-limit " +
                    std::to_string(memory_limit_) +
                    " bytes): it repeats the same tables or strings; its writes were rolled back");
        outcome = ScriptOutcome::kFailed;
        break;
    }
  }
  lua_settop(L, base);
  vm.host = nullptr;
  vm.kill = nullptr;
  vm.on_tick = nullptr;
  // KEYS and ARGV go, and the collector may not stay stopped by a script. (No collection
  // step here: Lua collects as it allocates, and a step per run cost a fifth of a short
  // script's time.)
  lua_pushnil(L);
  SetGlobal(L, vm.keys_name_ref);
  lua_pushnil(L);
  SetGlobal(L, vm.argv_name_ref);
  lua_gc(L, LUA_GCRESTART, 0);
  // Nor tuned: a script's collectgarbage('setpause', 1e9) would leave the collector idle for
  // every later script, which would then run out of memory on garbage.
  lua_gc(L, LUA_GCSETPAUSE, kGcPause);
  lua_gc(L, LUA_GCSETSTEPMUL, kGcStepMultiplier);
  // Nor may its cjson settings outlast it (most runs changed none).
  if (vm.cjson.changed) vm.cjson = CjsonSettings{};
  // Nor its garbage: Lua 5.1 does not collect when an allocation fails, so a script that
  // failed with the heap crowded (typically for running out of memory) would leave the next
  // script too little room. Failures are rare; collecting after them costs nothing otherwise.
  if (outcome == ScriptOutcome::kFailed && memory_limit_ > 0 && vm.used > memory_limit_ / 2) {
    lua_gc(L, LUA_GCCOLLECT, 0);
  }
  return outcome;
}

std::size_t ScriptVm::memory_used() const { return state_->used; }
void ScriptVm::set_memory_limit(std::size_t bytes) { memory_limit_ = bytes; }

ScriptVm& ThreadScriptVm(std::size_t memory_limit) {
  thread_local std::unique_ptr<ScriptVm> vm;
  if (vm == nullptr) {
    vm = std::make_unique<ScriptVm>(memory_limit);
  } else {
    vm->set_memory_limit(memory_limit);
  }
  return *vm;
}

ScriptHeader ReadScriptHeader(std::string_view script) {
  ScriptHeader header;
  header.body = script;
  if (script.substr(0, 2) != "#!") return header;
  const std::size_t eol = script.find('\n');
  const std::string_view line = script.substr(2, eol == std::string_view::npos ? eol : eol - 2);
  header.body = eol == std::string_view::npos ? std::string_view() : script.substr(eol);
  std::size_t pos = 0;
  auto next_word = [&]() {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\r')) ++pos;
    const std::size_t start = pos;
    while (pos < line.size() && line[pos] != ' ' && line[pos] != '\r') ++pos;
    return line.substr(start, pos - start);
  };
  const std::string_view engine = next_word();
  if (engine != "lua") {
    header.error = "ERR Unknown scripting engine in the script's first line: '" +
                   std::string(engine) + "' (only #!lua is supported)";
    return header;
  }
  for (std::string_view word = next_word(); !word.empty(); word = next_word()) {
    if (word.substr(0, 6) != "flags=") {
      header.error = "ERR Unknown lua shebang option: " + std::string(word);
      return header;
    }
    std::string_view flags = word.substr(6);
    while (!flags.empty()) {
      const std::size_t comma = flags.find(',');
      const std::string_view flag = flags.substr(0, comma);
      flags = comma == std::string_view::npos ? std::string_view() : flags.substr(comma + 1);
      if (flag == "no-writes") {
        header.no_writes = true;
      } else if (flag != "allow-oom" && flag != "allow-stale" && flag != "no-cluster" &&
                 flag != "allow-cross-slot-keys") {
        header.error = "ERR Unexpected flag in script shebang: " + std::string(flag);
        return header;
      }
    }
  }
  return header;
}

}  // namespace cairn::server::scripting
