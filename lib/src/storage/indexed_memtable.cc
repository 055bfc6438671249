#include "storage/indexed_memtable.h"

#include <xxhash.h>

#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "storage/btree_memtable.h"
#include "storage/memtable_entry.h"

namespace cairn::internal {
namespace {

using memtable_entry::DecodeEntry;
using memtable_entry::DecodeInternalKey;
using memtable_entry::EntryKey;
using memtable_entry::InternalKeyOf;
using memtable_entry::MemtableKeyOf;

// User key -> its newest entry: an open-addressing table of (hash, entry) slots, half empty
// at most, probed linearly. A probe compares hashes, and reads an entry only on a match: one
// cache miss for the slot and one for the entry, where a node-based map paid about four.
// Written by the memtable's one writer, read by any thread (Find takes the lock; the writer
// reads without it, since only it changes the table).
class NewestEntries {
 public:
  NewestEntries() : slots_(kInitialSlots) {}

  // The writer's insert of `entry`, once the tree has it: it becomes its key's newest.
  void Add(const char* entry) {
    const EntryKey key = DecodeEntry(entry);
    const std::uint64_t hash = Hash(key.user_key);
    const std::size_t at = Probe(hash, key.user_key);
    std::unique_lock<std::shared_mutex> lock(mu_);
    Slot& slot = slots_[at];
    if (slot.entry == nullptr) {
      slot = Slot{hash, entry};
      if (++used_ * 2 > slots_.size()) Grow();
    } else if (DecodeEntry(slot.entry).sequence < key.sequence) {
      slot.entry = entry;
    }
  }

  const char* Find(std::string_view user_key) const {
    const std::uint64_t hash = Hash(user_key);
    std::shared_lock<std::shared_mutex> lock(mu_);
    return slots_[Probe(hash, user_key)].entry;
  }

  std::size_t MemoryUsage() const {
    std::shared_lock<std::shared_mutex> lock(mu_);
    return slots_.size() * sizeof(Slot);
  }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    const char* entry = nullptr;  // nullptr: empty.
  };
  static constexpr std::size_t kInitialSlots = 1024;  // A power of two.

  static std::uint64_t Hash(std::string_view key) { return XXH3_64bits(key.data(), key.size()); }

  // The index of the key's slot, or of the empty slot where it would go.
  std::size_t Probe(std::uint64_t hash, std::string_view user_key) const {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (slot.entry == nullptr) return i;
      if (slot.hash == hash && DecodeEntry(slot.entry).user_key == user_key) return i;
    }
  }

  void Grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    const std::size_t mask = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (slot.entry == nullptr) continue;
      std::size_t i = slot.hash & mask;
      while (slots_[i].entry != nullptr) i = (i + 1) & mask;
      slots_[i] = slot;
    }
  }

  mutable std::shared_mutex mu_;
  std::vector<Slot> slots_;
  std::size_t used_ = 0;
};

// The iterator RocksDB uses to find the entries of one key. Seek goes straight to the key's
// newest entry when that one is visible at the sought sequence (nearly always: a write's own
// search, a read of the latest state); otherwise — an older snapshot, or a step past the
// entry — it walks the tree like the plain iterator.
class OneKeyIterator final : public rocksdb::MemTableRep::Iterator {
 public:
  OneKeyIterator(const NewestEntries& index, rocksdb::MemTableRep& tree)
      : index_(index), tree_(tree) {}

  bool Valid() const override { return walk_ ? walk_->Valid() : entry_ != nullptr; }
  const char* key() const override { return walk_ ? walk_->key() : entry_; }
  void Next() override { Walk()->Next(); }
  void Prev() override { Walk()->Prev(); }

  void Seek(const rocksdb::Slice& internal_key, const char* memtable_key) override {
    walk_.reset();
    entry_ = nullptr;
    const EntryKey sought = DecodeInternalKey(internal_key.data(), internal_key.size());
    const char* newest = index_.Find(sought.user_key);
    // No entry of the key: its users (reads of one key, the in-place rewrite) stop here.
    if (newest == nullptr) return;
    if (DecodeEntry(newest).sequence <= sought.sequence) {
      entry_ = newest;
      return;
    }
    Fresh()->Seek(internal_key, memtable_key);
  }
  void SeekForPrev(const rocksdb::Slice& internal_key, const char* memtable_key) override {
    Fresh()->SeekForPrev(internal_key, memtable_key);
  }
  void SeekToFirst() override { Fresh()->SeekToFirst(); }
  void SeekToLast() override { Fresh()->SeekToLast(); }

 private:
  rocksdb::MemTableRep::Iterator* Fresh() {
    entry_ = nullptr;
    walk_.reset(tree_.GetIterator());
    return walk_.get();
  }
  // The tree iterator, placed at the entry Seek found if it has not walked yet.
  rocksdb::MemTableRep::Iterator* Walk() {
    if (walk_) return walk_.get();
    const char* at = entry_;
    Fresh();
    if (at != nullptr) walk_->Seek(InternalKeyOf(at), at);
    return walk_.get();
  }

  const NewestEntries& index_;
  rocksdb::MemTableRep& tree_;
  const char* entry_ = nullptr;
  std::unique_ptr<rocksdb::MemTableRep::Iterator> walk_;
};

class IndexedRep final : public rocksdb::MemTableRep {
 public:
  IndexedRep(std::unique_ptr<rocksdb::MemTableRep> tree, rocksdb::Allocator* allocator)
      : MemTableRep(allocator), tree_(std::move(tree)) {}

  void Insert(rocksdb::KeyHandle handle) override {
    tree_->Insert(handle);
    index_.Add(static_cast<const char*>(handle));
  }
  bool Contains(const char* key) const override { return tree_->Contains(key); }
  void MarkReadOnly() override { tree_->MarkReadOnly(); }
  void MarkFlushed() override { tree_->MarkFlushed(); }
  size_t ApproximateMemoryUsage() override {
    return tree_->ApproximateMemoryUsage() + index_.MemoryUsage();
  }
  // A point read of the latest state (nearly every read) takes the key's newest entry from
  // the index, or learns from it that the memtable has none; a read at an older snapshot, or
  // one that needs older entries too (a merge), walks the tree.
  void Get(const rocksdb::LookupKey& key, void* callback_args,
           bool (*callback_func)(void* arg, const char* entry)) override {
    const char* memtable_key = MemtableKeyOf(key);
    const rocksdb::Slice internal_key = InternalKeyOf(memtable_key);
    const EntryKey sought = DecodeInternalKey(internal_key.data(), internal_key.size());
    const char* newest = index_.Find(sought.user_key);
    if (newest == nullptr) return;
    if (DecodeEntry(newest).sequence > sought.sequence) {
      tree_->Get(key, callback_args, callback_func);
      return;
    }
    if (!callback_func(callback_args, newest)) return;
    std::unique_ptr<Iterator> older(tree_->GetIterator());
    older->Seek(InternalKeyOf(newest), newest);
    for (older->Next(); older->Valid() && callback_func(callback_args, older->key());
         older->Next()) {
    }
  }
  Iterator* GetIterator(rocksdb::Arena* arena) override { return tree_->GetIterator(arena); }
  Iterator* GetDynamicPrefixIterator(rocksdb::Arena* arena) override {
    // An arena iterator must be built in the arena, whose interface is not public.
    if (arena != nullptr) return tree_->GetDynamicPrefixIterator(arena);
    return new OneKeyIterator(index_, *tree_);
  }

 private:
  std::unique_ptr<rocksdb::MemTableRep> tree_;
  NewestEntries index_;
};

class IndexedFactory final : public rocksdb::MemTableRepFactory {
 public:
  const char* Name() const override { return "cairn.IndexedBTree"; }
  using MemTableRepFactory::CreateMemTableRep;
  rocksdb::MemTableRep* CreateMemTableRep(const rocksdb::MemTableRep::KeyComparator& compare,
                                          rocksdb::Allocator* allocator,
                                          const rocksdb::SliceTransform* transform,
                                          rocksdb::Logger* logger) override {
    std::unique_ptr<rocksdb::MemTableRep> tree(
        trees_->CreateMemTableRep(compare, allocator, transform, logger));
    return new IndexedRep(std::move(tree), allocator);
  }
  bool IsInsertConcurrentlySupported() const override { return false; }
  bool CanHandleDuplicatedKey() const override { return false; }

 private:
  // Point reads from other threads (the members compaction filter's) meet the tree while it
  // is written.
  std::shared_ptr<rocksdb::MemTableRepFactory> trees_ =
      NewBTreeMemTableFactory(/*concurrent_readers=*/true);
};

}  // namespace

std::shared_ptr<rocksdb::MemTableRepFactory> NewIndexedMemTableFactory() {
  return std::make_shared<IndexedFactory>();
}

}  // namespace cairn::internal
