// The lease deadlines of each group's in-flight jobs, in memory, so that a waiting claimer
// can set its timer to the next deadline without scanning the lease index: that index's
// future part holds the tombstones of every lease acked within the visibility timeout, and
// walking them on every empty claim made claims cost O(recent acks).
//
// The stored lease index stays the truth (recovery scans it); this copy only times wakeups.
// It is filled for a group by one scan of its lease index the first time the group is used
// after open, and kept current by the commits that add or remove entries. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>

#include "cairn/status.h"

namespace cairn::internal {

class LeaseDeadlines {
 public:
  using Entry = std::pair<std::int64_t, std::uint64_t>;  // (deadline ms, seq)

  // Fills the group's set by calling load(add) once, unless it is filled already. Holds the
  // lock while loading, so a commit's update can not slip between the scan and the fill: an
  // update applied before the fill is of a commit the scan sees.
  Status EnsureLoaded(const std::string& scope,
                      const std::function<Status(const std::function<void(Entry)>&)>& load);

  // A committed write added (or removed) a lease entry. Updates of a group not yet loaded
  // are dropped: its load will read them from the store. Add returns true when the entry is
  // now the group's earliest.
  bool Add(const std::string& scope, Entry entry);
  void Remove(const std::string& scope, Entry entry);

  // A recovery pass settled every lease of the group due at or before now_ms; drops any
  // entry left there (an add and a remove of one entry applied out of order).
  void SettledThrough(const std::string& scope, std::int64_t now_ms);

  // The group's earliest lease deadline; nullopt if it holds none or is not loaded.
  std::optional<std::int64_t> Earliest(const std::string& scope);

 private:
  std::mutex mu_;
  std::unordered_map<std::string, std::set<Entry>> groups_;  // Present once loaded.
};

}  // namespace cairn::internal
