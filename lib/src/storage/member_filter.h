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
// But a verdict to drop must be durable before a row goes: the compaction's output is fsynced,
// while the write that made the key look gone (a DEL, a type change, a trim) may still be only
// in an unsynced log under `everysec` or `none`. A power cut would then bring the metadata back
// without the rows it needs. So a filter about to drop rows first makes sure the log is
// durable up to the point its lookup saw (DurableUpTo, which syncs it if need be), and keeps
// the rows when it cannot be (a later compaction takes them).
//
// One filter per compaction (the factory makes them), each remembering the verdict for the
// last key it looked up: the members of a key are adjacent, so a big key costs one lookup.
#pragma once

#include <rocksdb/compaction_filter.h>
#include <rocksdb/db.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "cairn/clock.h"

namespace cairn::internal {

class MemberFilterFactory final : public rocksdb::CompactionFilterFactory {
 public:
  // True once everything the database published up to `sequence` is on disk (syncing the log
  // if need be); false if it could not be made so now.
  using DurableUpTo = std::function<bool(std::uint64_t sequence)>;

  explicit MemberFilterFactory(std::shared_ptr<Clock> clock) : clock_(std::move(clock)) {}

  // Where metadata is read from. Until called (and after Detach), the filters keep every row.
  // Called once, before any compaction can use it.
  void Attach(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* records, DurableUpTo durable_up_to) {
    durable_up_to_ = std::move(durable_up_to);
    records_.store(records);
    db_.store(db);
  }
  void Detach() { db_.store(nullptr); }

  std::unique_ptr<rocksdb::CompactionFilter> CreateCompactionFilter(
      const rocksdb::CompactionFilter::Context& context) override;
  const char* Name() const override { return "cairn.MemberFilterFactory"; }

 private:
  std::shared_ptr<Clock> clock_;
  DurableUpTo durable_up_to_;
  std::atomic<rocksdb::DB*> db_{nullptr};
  std::atomic<rocksdb::ColumnFamilyHandle*> records_{nullptr};
};

}  // namespace cairn::internal
