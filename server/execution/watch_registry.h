// Write versions of the keys some client WATCHes, so that EXEC can tell whether a watched key
// was written since. Only watched keys are tracked; a write to an unwatched key costs one
// relaxed atomic load.
//
// Ordering: a writer touches its keys *before* it writes them, and EXEC locks the watched keys
// in its transaction *before* it compares versions. A write that EXEC's comparison does not
// see therefore waits for EXEC's locks and lands after it, which is what Redis promises. A
// write that is attempted but changes nothing (SETNX on a present key) still counts as one:
// EXEC may abort where Redis would not, never the reverse. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace cairn::server {

class WatchRegistry {
 public:
  // Starts following key (once per WATCH); returns its current version.
  std::uint64_t Watch(std::string_view key);
  // Stops one following of key (UNWATCH, EXEC, DISCARD, disconnect).
  void Unwatch(std::string_view key);
  std::uint64_t Version(std::string_view key);

  // A command is about to write key.
  void Touch(std::string_view key) {
    if (followed_.load(std::memory_order_acquire) == 0) return;
    TouchSlow(key);
  }
  // Every key is about to change (FLUSHDB, FLUSHALL).
  void TouchAll();

 private:
  struct Entry {
    std::uint32_t watchers = 0;
    std::uint64_t version = 0;
  };
  void TouchSlow(std::string_view key);

  std::atomic<std::size_t> followed_{0};
  std::mutex mu_;
  std::unordered_map<std::string, Entry> keys_;
};

}  // namespace cairn::server
