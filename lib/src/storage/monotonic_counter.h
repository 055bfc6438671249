// A persisted counter whose every value is greater than every value it ever returned, in this
// process or any earlier one — across restarts and crashes. Used for fencing tokens, which
// must never go backwards (the wall clock of an edge device can).
//
// Values are reserved in blocks: the high-water mark of a block is written to `meta` with an
// fsync before any value of the block is handed out, so after a crash the counter resumes
// above everything that may have been seen. A restart skips the rest of a block; values are
// increasing, not dense. Thread-safe.
#pragma once

#include <rocksdb/db.h>

#include <cstdint>
#include <mutex>
#include <string>

#include "cairn/result.h"

namespace cairn::internal {

class MonotonicCounter {
 public:
  static constexpr std::uint64_t kDefaultBlock = 1024;

  MonotonicCounter(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* meta, std::string name,
                   std::uint64_t block = kDefaultBlock);

  // The next value (the first is 1).
  Result<std::uint64_t> Next();

 private:
  Status Reserve();

  rocksdb::DB* const db_;
  rocksdb::ColumnFamilyHandle* const meta_;
  const std::string row_key_;
  const std::uint64_t block_;
  std::mutex mu_;
  bool loaded_ = false;
  std::uint64_t last_ = 0;   // Last value handed out.
  std::uint64_t limit_ = 0;  // Persisted high-water mark: values up to it may be handed out.
};

}  // namespace cairn::internal
