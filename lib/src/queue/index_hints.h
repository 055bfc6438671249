// Where the live part of an index starts, per group: an in-memory hint that lets scans skip
// the deleted entries at the front of the index.
//
// Why: a claim takes the first entries of its group's ready index and deletes them, and a
// recovery pass does the same to lapsed entries of the lease index, so the front of both
// fills with tombstones until compaction. Seeking from the prefix every time would step over
// all of them. Instead each group remembers a position before which it holds no live entry.
// Scans raise it to where they stopped; every write that adds an entry lowers it after its
// commit. A scan that raced with such a write keeps the lower of the two (the epoch tells),
// so an entry is never hidden. Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace cairn::internal {

class IndexHints {
 public:
  struct Snapshot {
    std::string start;  // Index position (queue_keys.h) to seek to; "" = the beginning.
    std::uint64_t epoch = 0;
  };
  // Greater than every index position.
  static const std::string& End();

  Snapshot Begin(const std::string& scope);
  // A scan that began at `snapshot` found nothing live before `position`.
  void Raise(const std::string& scope, const Snapshot& snapshot, const std::string& position);
  // A committed write added an entry at `position`.
  void Lower(const std::string& scope, const std::string& position);

 private:
  struct Hint {
    std::string start;
    std::uint64_t epoch = 0;
  };
  std::mutex mu_;
  std::unordered_map<std::string, Hint> hints_;
};

}  // namespace cairn::internal
