#include "storage/indexed_memtable.h"

#include <xxhash.h>

#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "storage/memtable_entry.h"

namespace cairn::internal {
namespace {

using memtable_entry::DecodeEntry;
using memtable_entry::DecodeInternalKey;
using memtable_entry::EntryKey;
using memtable_entry::InternalKeyOf;

// User key -> its newest entry, and the skiplist insert hint of the key: an open-addressing
// table of (hash, entry, hint) slots, half empty at most, probed linearly. A probe compares
// hashes, and reads an entry only on a match: one cache miss for the slot and one for the
// entry, where a node-based map paid about four. Written by the memtable's one writer, read
// by any thread (Find takes the lock; the writer reads without it, since only it changes
// the table, and readers never look at the hints it writes).
class NewestEntries {
 public:
  NewestEntries() : slots_(kInitialSlots) {}

  // The writer's insert of `entry`: insert(hint) puts it in the skiplist — with the hint of
  // its key's last insert when the key has entries already (a rewrite that could not be made
  // in place: a longer value, a deletion), so that the skiplist searches from there; with
  // nullptr for a new key, which gets no hint (a hint costs the skiplist a splice of ~200
  // bytes, wasted on the many keys written once). If insert returns true the entry becomes
  // its key's newest.
  template <typename Insert>
  bool Add(const char* entry, Insert&& insert) {
    const EntryKey key = DecodeEntry(entry);
    const std::uint64_t hash = Hash(key.user_key);
    const std::size_t at = Probe(hash, key.user_key);
    if (!insert(slots_[at].entry != nullptr ? &slots_[at].hint : nullptr)) return false;
    std::unique_lock<std::shared_mutex> lock(mu_);
    Slot& slot = slots_[at];
    if (slot.entry == nullptr) {
      slot = Slot{hash, entry, nullptr};
      if (++used_ * 2 > slots_.size()) Grow();
    } else if (DecodeEntry(slot.entry).sequence < key.sequence) {
      slot.entry = entry;
    }
    return true;
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
    void* hint = nullptr;         // The skiplist's insert hint for the key (a splice).
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
// entry — it walks the skiplist like the plain iterator.
class OneKeyIterator final : public rocksdb::MemTableRep::Iterator {
 public:
  OneKeyIterator(const NewestEntries& index, rocksdb::MemTableRep& skiplist)
      : index_(index), skiplist_(skiplist) {}

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
    walk_.reset(skiplist_.GetIterator());
    return walk_.get();
  }
  // The skiplist iterator, placed at the entry Seek found if it has not walked yet.
  rocksdb::MemTableRep::Iterator* Walk() {
    if (walk_) return walk_.get();
    const char* at = entry_;
    Fresh();
    if (at != nullptr) walk_->Seek(InternalKeyOf(at), at);
    return walk_.get();
  }

  const NewestEntries& index_;
  rocksdb::MemTableRep& skiplist_;
  const char* entry_ = nullptr;
  std::unique_ptr<rocksdb::MemTableRep::Iterator> walk_;
};

class IndexedSkipListRep final : public rocksdb::MemTableRep {
 public:
  IndexedSkipListRep(std::unique_ptr<rocksdb::MemTableRep> skiplist, rocksdb::Allocator* allocator)
      : MemTableRep(allocator), skiplist_(std::move(skiplist)) {}

  // The skiplist allocates its node and the entry together.
  rocksdb::KeyHandle Allocate(const size_t len, char** buf) override {
    return skiplist_->Allocate(len, buf);
  }
  // Inserts with the key's own hint (NewestEntries::Add); RocksDB's hints (a column family
  // with memtable_insert_with_hint_prefix_extractor) are used instead when it passes them.
  void Insert(rocksdb::KeyHandle handle) override { (void)InsertKey(handle); }
  bool InsertKey(rocksdb::KeyHandle handle) override {
    return index_.Add(static_cast<const char*>(handle), [&](void** hint) {
      return hint != nullptr ? skiplist_->InsertKeyWithHint(handle, hint)
                             : skiplist_->InsertKey(handle);
    });
  }
  void InsertWithHint(rocksdb::KeyHandle handle, void** hint) override {
    (void)InsertKeyWithHint(handle, hint);
  }
  bool InsertKeyWithHint(rocksdb::KeyHandle handle, void** hint) override {
    return index_.Add(static_cast<const char*>(handle),
                      [&](void**) { return skiplist_->InsertKeyWithHint(handle, hint); });
  }
  bool Contains(const char* key) const override { return skiplist_->Contains(key); }
  void MarkReadOnly() override { skiplist_->MarkReadOnly(); }
  void MarkFlushed() override { skiplist_->MarkFlushed(); }
  std::uint64_t ApproximateNumEntries(const rocksdb::Slice& start_ikey,
                                      const rocksdb::Slice& end_ikey) override {
    return skiplist_->ApproximateNumEntries(start_ikey, end_ikey);
  }
  void UniqueRandomSample(const std::uint64_t num_entries, const std::uint64_t target_sample_size,
                          std::unordered_set<const char*>* entries) override {
    skiplist_->UniqueRandomSample(num_entries, target_sample_size, entries);
  }
  size_t ApproximateMemoryUsage() override {
    return skiplist_->ApproximateMemoryUsage() + index_.MemoryUsage();
  }
  // Point reads search the skiplist: RocksDB hands them the key in a type it does not
  // export (its default Get, through the iterator below, would also leak the iterator). In
  // the store they are few: the row cache answers most reads of hot keys.
  void Get(const rocksdb::LookupKey& key, void* callback_args,
           bool (*callback_func)(void* arg, const char* entry)) override {
    skiplist_->Get(key, callback_args, callback_func);
  }
  Iterator* GetIterator(rocksdb::Arena* arena) override { return skiplist_->GetIterator(arena); }
  Iterator* GetDynamicPrefixIterator(rocksdb::Arena* arena) override {
    // An arena iterator must be built in the arena, whose interface is not public.
    if (arena != nullptr) return skiplist_->GetDynamicPrefixIterator(arena);
    return new OneKeyIterator(index_, *skiplist_);
  }

 private:
  std::unique_ptr<rocksdb::MemTableRep> skiplist_;
  NewestEntries index_;
};

class IndexedSkipListFactory final : public rocksdb::MemTableRepFactory {
 public:
  const char* Name() const override { return "cairn.IndexedSkipList"; }
  using MemTableRepFactory::CreateMemTableRep;
  rocksdb::MemTableRep* CreateMemTableRep(const rocksdb::MemTableRep::KeyComparator& compare,
                                          rocksdb::Allocator* allocator,
                                          const rocksdb::SliceTransform* transform,
                                          rocksdb::Logger* logger) override {
    std::unique_ptr<rocksdb::MemTableRep> skiplist(
        skiplists_.CreateMemTableRep(compare, allocator, transform, logger));
    return new IndexedSkipListRep(std::move(skiplist), allocator);
  }
  bool IsInsertConcurrentlySupported() const override { return false; }
  bool CanHandleDuplicatedKey() const override { return skiplists_.CanHandleDuplicatedKey(); }

 private:
  rocksdb::SkipListFactory skiplists_;
};

}  // namespace

std::shared_ptr<rocksdb::MemTableRepFactory> NewIndexedSkipListFactory() {
  return std::make_shared<IndexedSkipListFactory>();
}

}  // namespace cairn::internal
