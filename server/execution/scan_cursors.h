// SCAN cursors. Redis clients expect a cursor to be a decimal number ("0" starts and ends an
// iteration; node-redis 4 even parses it as one), but the store resumes a scan at a key. This
// table hands out numbers for resume keys and takes them back. It keeps the newest entries
// (at most kMaxEntries and kMaxBytes of keys); a cursor that has been dropped or was never
// handed out is refused, never silently restarted. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace cairn::server {

class ScanCursors {
 public:
  static constexpr std::size_t kMaxEntries = 65536;
  static constexpr std::size_t kMaxBytes = 64u * 1024 * 1024;

  // A new cursor number (never 0) for resuming at `resume_key`.
  std::uint64_t Put(std::string resume_key);
  // The resume key of cursor `n`; nullopt if unknown.
  std::optional<std::string> Get(std::uint64_t n);

 private:
  std::mutex mu_;
  std::uint64_t next_ = 0;
  std::size_t bytes_ = 0;
  std::deque<std::uint64_t> order_;
  std::unordered_map<std::uint64_t, std::string> keys_;
};

}  // namespace cairn::server
