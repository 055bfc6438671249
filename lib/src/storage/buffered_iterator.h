// BufferedIterator: the rows of a column family as a transaction sees them, its buffered
// writes (write_buffer.h) merged over an iterator of the database. A put of the transaction
// shows in place of the database's row of that key; a delete hides it.
//
// It holds a reference to the buffer's map of the column family, whose entries stay put while
// the transaction runs, so the iterator may be kept across writes: after a write of the current
// key (an operation deleting what it walks over) the next step goes on from that key, and later
// seeks see every write. Until the iterator moves, value() may show the row it stands on
// as it was when it got there. (A key written between the current one and the next buffered
// one may be missed by the steps; no operation writes ahead of its own scan.)
#pragma once

#include <rocksdb/iterator.h>

#include <memory>

#include "storage/write_buffer.h"

namespace cairn::internal {

class BufferedIterator final : public rocksdb::Iterator {
 public:
  // `upper_bound` (exclusive; nullptr: none) bounds the writes as the read options given to
  // `base` bound its rows; it must outlive the iterator.
  BufferedIterator(std::unique_ptr<rocksdb::Iterator> base, const WriteBuffer::Writes& writes,
                   const rocksdb::Slice* upper_bound);

  bool Valid() const override { return at_ != At::kNone; }
  void SeekToFirst() override;
  void SeekToLast() override;
  void Seek(const rocksdb::Slice& target) override;
  void SeekForPrev(const rocksdb::Slice& target) override;
  void Next() override { Step(/*forward=*/true); }
  void Prev() override { Step(/*forward=*/false); }
  rocksdb::Slice key() const override;
  rocksdb::Slice value() const override;
  rocksdb::Status status() const override { return base_->status(); }

 private:
  enum class At { kNone, kBase, kWrite };
  using Entry = WriteBuffer::Writes::const_iterator;

  // Whether `write_` is a buffered write below the bound (end() stands for none, either way).
  bool WriteInRange() const;
  // One entry on in the walk's direction (forward_); stepping back from the first gives end().
  void StepWrite();
  void StepBase() { forward_ ? base_->Next() : base_->Prev(); }
  // From positions of both sides at or past the wanted key in the walk's direction, moves to
  // the first visible row: skips undone writes and deleted keys, and notes which side shows.
  void Settle();
  // Next or Prev.
  void Step(bool forward);

  std::unique_ptr<rocksdb::Iterator> base_;
  const WriteBuffer::Writes& writes_;
  const rocksdb::Slice* upper_bound_;
  Entry write_;
  At at_ = At::kNone;
  bool forward_ = true;
  // At::kWrite over a database row of the same key, which steps along with it.
  bool shadows_base_ = false;
};

}  // namespace cairn::internal
