// The server's scripts, by name (the SHA-1 hex of the body): what EVAL and SCRIPT LOAD add and
// EVALSHA finds. Each thread that runs scripts compiles them into its own Lua state
// (script_vm.h); this cache is the one list they all follow. SCRIPT FLUSH empties it and moves
// its epoch on, which tells every Lua state to drop what it compiled. Kept in memory only, as
// Redis keeps its script cache: clients load scripts again after a restart (NOSCRIPT tells
// them to).
//
// Bounded, as Redis 7.4 bounds it: scripts that came by EVAL are evicted, oldest first, once
// there are more than kEvalScripts of them or their bodies pass kEvalScriptBytes — a client
// that sends a new script body with every call (a script with a value pasted in) would
// otherwise grow the cache, and every io thread's Lua state, without end. SCRIPT LOAD'ed
// scripts are never evicted. Eviction is by age of addition, not of last use: finding a
// script costs its runs no bookkeeping, and under normal use (a library's few dozen scripts)
// nothing is evicted at all. A client whose EVALSHA meets an evicted script gets NOSCRIPT and
// sends it again, as after a restart. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace cairn::server::scripting {

class ScriptCache {
 public:
  static constexpr std::size_t kEvalScripts = 500;
  static constexpr std::size_t kEvalScriptBytes = 16 * 1024 * 1024;

  ScriptCache();

  // Adds (or keeps) the body under its name. `loaded`: it came by SCRIPT LOAD, and is kept
  // until SCRIPT FLUSH (also when EVAL had added it before). REQUIRES: sha is Sha1Hex(body).
  void Add(const std::string& sha, std::string_view body, bool loaded);
  // The body named sha (lower-case hex), or nullptr.
  std::shared_ptr<const std::string> Find(std::string_view sha) const;
  bool Contains(std::string_view sha) const;
  void Flush();

  // Changes on every Flush, and differs between caches (of different servers in one process).
  std::uint64_t epoch() const { return epoch_.load(std::memory_order_acquire); }
  // Scripts evicted since the server started (INFO's evicted_scripts); a Lua state that saw
  // a smaller number drops what it compiled of the evicted ones.
  std::uint64_t evictions() const { return evictions_.load(std::memory_order_acquire); }
  std::size_t size() const;
  std::size_t body_bytes() const;

 private:
  // REQUIRES: mu_ held.
  void EvictOldEvalScripts();

  struct Entry {
    std::shared_ptr<const std::string> body;
    bool loaded = false;
  };
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> bodies_;
  std::deque<std::string> eval_order_;  // EVAL-added names, oldest first (some since loaded).
  std::size_t eval_count_ = 0;          // Of them, those not loaded since.
  std::size_t eval_bytes_ = 0;
  std::size_t body_bytes_ = 0;
  std::atomic<std::uint64_t> epoch_;
  std::atomic<std::uint64_t> evictions_{0};
};

// Lower-cases a script name given by a client (EVALSHA, SCRIPT EXISTS accept either case).
std::string NormalizeSha(std::string_view sha);

}  // namespace cairn::server::scripting
