#include "storage/write_buffer.h"

#include <utility>

namespace cairn::internal {
namespace {

// A batch entry's bytes beside its key and value: its type, column family and two lengths.
constexpr std::size_t kBatchEntryBytes = 1 + 5 + 5 + 5;

// The heap bytes a value string holds (none while it fits in the string itself).
std::size_t HeapBytes(const std::pmr::string& s) {
  static const std::size_t kInline = std::pmr::string().capacity();
  return s.capacity() > kInline ? s.capacity() : 0;
}

}  // namespace

WriteBuffer::WriteBuffer() = default;

WriteBuffer::Writes* WriteBuffer::Existing(rocksdb::ColumnFamilyHandle* cf) const {
  for (const Family& family : families_) {
    if (family.cf == cf) return const_cast<Writes*>(&family.writes);
  }
  return nullptr;
}

WriteBuffer::Writes& WriteBuffer::Of(rocksdb::ColumnFamilyHandle* cf) {
  if (Writes* writes = Existing(cf)) return *writes;
  return families_.emplace_back(Family{cf, Writes(&arena_)}).writes;
}

WriteBuffer::Writes::iterator WriteBuffer::Entry(rocksdb::ColumnFamilyHandle* cf,
                                                 std::string_view key, bool* created) {
  Writes& writes = Of(cf);
  auto it = writes.lower_bound(key);
  *created = it == writes.end() || std::string_view(it->first) != key;
  if (*created) it = writes.emplace_hint(it, std::pmr::string(key, &arena_), Write{});
  if (!save_points_.empty()) {
    // The old row moves into the log (its bytes with it): the caller overwrites it next.
    const std::size_t moved = HeapBytes(it->second.value);
    undo_.push_back(Undo{it, it->second.state, std::move(it->second.value)});
    value_bytes_ =
        value_bytes_ - moved + HeapBytes(undo_.back().value) + HeapBytes(it->second.value);
  }
  return it;
}

bool WriteBuffer::Put(rocksdb::ColumnFamilyHandle* cf, std::string_view key,
                      std::string_view value) {
  bool created = false;
  Write& write = Entry(cf, key, &created)->second;
  write.state = State::kPut;
  const std::size_t before = HeapBytes(write.value);
  write.value.assign(value);
  value_bytes_ = value_bytes_ - before + HeapBytes(write.value);
  if (created) batch_bytes_ += kBatchEntryBytes + key.size() + value.size();
  return created;
}

bool WriteBuffer::Delete(rocksdb::ColumnFamilyHandle* cf, std::string_view key) {
  bool created = false;
  Write& write = Entry(cf, key, &created)->second;
  write.state = State::kDeleted;
  write.value.clear();
  if (created) batch_bytes_ += kBatchEntryBytes + key.size();
  return created;
}

const WriteBuffer::Write* WriteBuffer::Find(rocksdb::ColumnFamilyHandle* cf,
                                            std::string_view key) const {
  const Writes* writes = Existing(cf);
  if (writes == nullptr) return nullptr;
  auto it = writes->find(key);
  if (it == writes->end() || it->second.state == State::kUnwritten) return nullptr;
  return &it->second;
}

const WriteBuffer::Writes& WriteBuffer::WritesOf(rocksdb::ColumnFamilyHandle* cf) { return Of(cf); }

void WriteBuffer::SetSavePoint() { save_points_.push_back(undo_.size()); }

rocksdb::Status WriteBuffer::RollbackToSavePoint() {
  if (save_points_.empty()) return rocksdb::Status::NotFound("no save point is set");
  const std::size_t mark = save_points_.back();
  save_points_.pop_back();
  while (undo_.size() > mark) {
    Undo& undo = undo_.back();
    undo.entry->second.state = undo.state;
    // The entry's value is freed; the logged one, counted already, takes its place.
    value_bytes_ -= HeapBytes(undo.entry->second.value);
    undo.entry->second.value = std::move(undo.value);
    undo_.pop_back();
  }
  return rocksdb::Status::OK();
}

rocksdb::Status WriteBuffer::PopSavePoint() {
  if (save_points_.empty()) return rocksdb::Status::NotFound("no save point is set");
  save_points_.pop_back();
  // With no save point left nothing can be rolled back to: the log can go.
  if (save_points_.empty()) {
    for (const Undo& undo : undo_) value_bytes_ -= HeapBytes(undo.value);
    undo_.clear();
  }
  return rocksdb::Status::OK();
}

std::size_t WriteBuffer::AppendTo(rocksdb::WriteBatch& batch) const {
  std::size_t appended = 0;
  ForEach([&](rocksdb::ColumnFamilyHandle* cf, std::string_view key, const Write& write) {
    // Appending to an in-memory batch without a size limit cannot fail.
    const rocksdb::Slice row_key(key.data(), key.size());
    (void)(write.state == State::kPut
               ? batch.Put(cf, row_key, rocksdb::Slice(write.value.data(), write.value.size()))
               : batch.Delete(cf, row_key));
    ++appended;
  });
  return appended;
}

void WriteBuffer::Clear() {
  families_.clear();
  // A fresh vector: clear() would keep capacity in the arena about to be released.
  std::pmr::vector<Undo>(&arena_).swap(undo_);
  save_points_.clear();
  batch_bytes_ = 0;
  value_bytes_ = 0;
  arena_.release();
}

}  // namespace cairn::internal
