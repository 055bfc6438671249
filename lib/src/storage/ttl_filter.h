// A compaction filter that removes rows whose header says they expired, by the store's Clock.
//
// It never removes a row whose header does not decode: corrupt data is kept for a person to
// look at, never silently dropped. Removal is plain removal (RocksDB turns it into a deletion
// marker above the bottom level, so an older version of the key cannot resurface).
// Thread-safe: one instance serves every compaction thread.
#pragma once

#include <rocksdb/compaction_filter.h>

#include <memory>

#include "cairn/clock.h"

namespace cairn::internal {

class TtlCompactionFilter final : public rocksdb::CompactionFilter {
 public:
  explicit TtlCompactionFilter(std::shared_ptr<Clock> clock) : clock_(std::move(clock)) {}

  bool Filter(int level, const rocksdb::Slice& key, const rocksdb::Slice& existing_value,
              std::string* new_value, bool* value_changed) const override;

  const char* Name() const override { return "cairn.TtlCompactionFilter"; }

 private:
  std::shared_ptr<Clock> clock_;
};

}  // namespace cairn::internal
