// The compaction filter of `members`: removes the rows no live key can reach.
//
// A member row belongs to (key, version). It is kept while the key's metadata row in `records`
// is live, of the member's type, and carries that version; otherwise the key was deleted,
// expired, overwritten by another type or recreated (a new version), and the row goes. So do
// a stream's entries that a trim left below its first entry (stream_entries.h). Rows
// whose key or metadata does not decode are kept: corrupt data is for a person to look at.
//
// No grace period is needed: a member and its metadata are written in one atomic batch, so a
// member that a compaction sees has its metadata visible too.
//
// One filter per compaction (the factory makes them), each remembering the verdict for the
// last key it looked up: the members of a key are adjacent, so a big key costs one lookup.
#pragma once

#include <rocksdb/compaction_filter.h>
#include <rocksdb/db.h>

#include <atomic>
#include <memory>

#include "cairn/clock.h"

namespace cairn::internal {

class MemberFilterFactory final : public rocksdb::CompactionFilterFactory {
 public:
  explicit MemberFilterFactory(std::shared_ptr<Clock> clock) : clock_(std::move(clock)) {}

  // Where metadata is read from. Until called (and after Detach), the filters keep every row.
  void Attach(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* records) {
    records_.store(records);
    db_.store(db);
  }
  void Detach() { db_.store(nullptr); }

  std::unique_ptr<rocksdb::CompactionFilter> CreateCompactionFilter(
      const rocksdb::CompactionFilter::Context& context) override;
  const char* Name() const override { return "cairn.MemberFilterFactory"; }

 private:
  std::shared_ptr<Clock> clock_;
  std::atomic<rocksdb::DB*> db_{nullptr};
  std::atomic<rocksdb::ColumnFamilyHandle*> records_{nullptr};
};

}  // namespace cairn::internal
