#include "storage/buffered_iterator.h"

#include <string>
#include <string_view>
#include <utility>

namespace cairn::internal {
namespace {

std::string_view View(const rocksdb::Slice& s) { return {s.data(), s.size()}; }
rocksdb::Slice AsSlice(const std::pmr::string& s) { return {s.data(), s.size()}; }

}  // namespace

BufferedIterator::BufferedIterator(std::unique_ptr<rocksdb::Iterator> base,
                                   const WriteBuffer::Writes& writes,
                                   const rocksdb::Slice* upper_bound)
    : base_(std::move(base)), writes_(writes), upper_bound_(upper_bound), write_(writes.end()) {}

bool BufferedIterator::WriteInRange() const {
  if (write_ == writes_.end()) return false;
  return upper_bound_ == nullptr || std::string_view(write_->first) < View(*upper_bound_);
}

void BufferedIterator::StepWrite() {
  if (forward_) {
    ++write_;
  } else {
    write_ = write_ == writes_.begin() ? writes_.end() : std::prev(write_);
  }
}

void BufferedIterator::Settle() {
  for (;;) {
    const bool write = WriteInRange();
    if (write && write_->second.state == WriteBuffer::State::kUnwritten) {
      StepWrite();
      continue;
    }
    const bool base = base_->Valid();
    if (!write) {
      at_ = base ? At::kBase : At::kNone;
      return;
    }
    // Below 0: the database's row comes first in the walk's direction.
    int order = 1;
    if (base) {
      order = base_->key().compare(AsSlice(write_->first));
      if (!forward_) order = -order;
    }
    if (order < 0) {
      at_ = At::kBase;
      return;
    }
    if (write_->second.state == WriteBuffer::State::kPut) {
      at_ = At::kWrite;
      shadows_base_ = order == 0;
      return;
    }
    if (order == 0) StepBase();  // A deleted key: its row is hidden.
    StepWrite();
  }
}

void BufferedIterator::Step(bool forward) {
  if (forward != forward_) {
    // Turning around: both sides go to the current key, then past it.
    const std::string current = key().ToString();
    forward ? Seek(current) : SeekForPrev(current);
    if (!Valid() || key() != rocksdb::Slice(current)) return;
  }
  if (at_ == At::kWrite) {
    if (shadows_base_) StepBase();
    StepWrite();
  } else {
    StepBase();
  }
  Settle();
}

void BufferedIterator::SeekToFirst() {
  forward_ = true;
  base_->SeekToFirst();
  write_ = writes_.begin();
  Settle();
}

void BufferedIterator::SeekToLast() {
  forward_ = false;
  base_->SeekToLast();
  write_ = upper_bound_ == nullptr ? writes_.end() : writes_.lower_bound(View(*upper_bound_));
  StepWrite();
  Settle();
}

void BufferedIterator::Seek(const rocksdb::Slice& target) {
  forward_ = true;
  base_->Seek(target);
  write_ = writes_.lower_bound(View(target));
  Settle();
}

void BufferedIterator::SeekForPrev(const rocksdb::Slice& target) {
  forward_ = false;
  base_->SeekForPrev(target);
  // The last write at or before the target, and below the bound.
  write_ = writes_.upper_bound(View(target));
  if (upper_bound_ != nullptr) {
    Entry bound = writes_.lower_bound(View(*upper_bound_));
    if (bound != writes_.end() && (write_ == writes_.end() || bound->first < write_->first)) {
      write_ = bound;
    }
  }
  StepWrite();
  Settle();
}

rocksdb::Slice BufferedIterator::key() const {
  return at_ == At::kWrite ? AsSlice(write_->first) : base_->key();
}

rocksdb::Slice BufferedIterator::value() const {
  return at_ == At::kWrite ? AsSlice(write_->second.value) : base_->value();
}

}  // namespace cairn::internal
