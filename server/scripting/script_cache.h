// The server's scripts, by name (the SHA-1 hex of the body): what EVAL and SCRIPT LOAD add and
// EVALSHA finds. Each thread that runs scripts compiles them into its own Lua state
// (script_vm.h); this cache is the one list they all follow. SCRIPT FLUSH empties it and moves
// its epoch on, which tells every Lua state to drop what it compiled. Kept in memory only, as
// Redis keeps its script cache: clients load scripts again after a restart (NOSCRIPT tells
// them to). Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace cairn::server::scripting {

class ScriptCache {
 public:
  ScriptCache();

  // Adds (or keeps) the body under its name. REQUIRES: sha is Sha1Hex(body).
  void Add(const std::string& sha, std::string_view body);
  // The body named sha (lower-case hex), or nullptr.
  std::shared_ptr<const std::string> Find(std::string_view sha) const;
  bool Contains(std::string_view sha) const;
  void Flush();

  // Changes on every Flush, and differs between caches (of different servers in one process).
  std::uint64_t epoch() const { return epoch_.load(std::memory_order_acquire); }
  std::size_t size() const;
  std::size_t body_bytes() const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const std::string>> bodies_;
  std::size_t body_bytes_ = 0;
  std::atomic<std::uint64_t> epoch_;
};

// Lower-cases a script name given by a client (EVALSHA, SCRIPT EXISTS accept either case).
std::string NormalizeSha(std::string_view sha);

}  // namespace cairn::server::scripting
