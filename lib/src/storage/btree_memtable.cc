#include "storage/btree_memtable.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <string_view>
#include <vector>

#include "storage/big_endian.h"
#include "storage/memtable_entry.h"

namespace cairn::internal {
namespace {

using memtable_entry::InternalKeyOf;
using memtable_entry::MemtableKeyOf;
using memtable_entry::TrailerOf;
using memtable_entry::UserKeyOf;

// Keys a node holds: 32 make a leaf of ~9 cache lines, whose partial keys a binary search
// reads in ~3 of them.
constexpr int kSlots = 32;
// Deep enough for 32^15 entries; a memtable holds a few million at most.
constexpr int kMaxDepth = 16;

// The 8 bytes of `user_key` from `at` on, as a big-endian number (zeros past its end).
std::uint64_t PartialKey(std::string_view user_key, std::uint32_t at) {
  std::uint64_t value = 0;
  if (at + 8 <= user_key.size()) return ReadBigEndian64(user_key.data() + at);
  for (std::uint32_t i = at; i < at + 8; ++i) {
    value = (value << 8) | (i < user_key.size() ? static_cast<unsigned char>(user_key[i]) : 0u);
  }
  return value;
}

// The length of the common prefix of `a` and `b`, at most `limit`.
std::uint32_t CommonPrefix(std::string_view a, std::string_view b, std::uint32_t limit) {
  const std::size_t n = std::min<std::size_t>({limit, a.size(), b.size()});
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t x = 0, y = 0;
    std::memcpy(&x, a.data() + i, 8);
    std::memcpy(&y, b.data() + i, 8);
    if (x != y) break;
  }
  while (i < n && a[i] == b[i]) ++i;
  return static_cast<std::uint32_t>(i);
}

// A node's keys, sorted: a leaf's entries, or an inner node's separators (separator i is the
// first entry under child i + 1). Every key's user key starts with the same `lcp` bytes, and
// partial[i] is PartialKey(user key of key[i], lcp). Since the user keys are ordered bytewise,
// a partial key below (above) another means its key is below (above) the other; equal ones
// decide nothing.
struct Node {
  std::uint16_t count = 0;
  bool leaf = true;
  std::uint32_t lcp = 0;
  std::uint64_t partial[kSlots];
  const char* key[kSlots];
};

struct Leaf : Node {
  Leaf* prev = nullptr;
  Leaf* next = nullptr;
};

struct Inner : Node {
  Inner() { leaf = false; }
  Node* child[kSlots + 1];
};

// A key looked for: an internal key, and its user key.
struct Target {
  explicit Target(const rocksdb::Slice& key)
      : internal_key(key), user_key(key.data(), key.size() - 8) {}
  rocksdb::Slice internal_key;
  std::string_view user_key;
};

// The order of an entry and a target that agree on their user keys' first `equal` bytes (as far
// as both reach): bytewise over the rest of the user keys, then the newer (greater sequence and
// type) first. That is the memtable's order, RocksDB's internal key order over bytewise user
// keys, which the partial keys assume too, without its comparator's calls and decoding.
int CompareTied(const char* entry, const Target& t, std::uint32_t equal) {
  const rocksdb::Slice key = InternalKeyOf(entry);
  const std::string_view user_key(key.data(), key.size() - 8);
  const std::size_t from = std::min<std::size_t>({equal, user_key.size(), t.user_key.size()});
  const int c = user_key.substr(from).compare(t.user_key.substr(from));
  if (c != 0) return c;
  const std::uint64_t mine = TrailerOf(key.data(), key.size());
  const std::uint64_t theirs = TrailerOf(t.internal_key.data(), t.internal_key.size());
  return mine > theirs ? -1 : (mine < theirs ? 1 : 0);
}

// Recomputes a node's shared prefix and partial keys from its keys (after it was built from
// part of another, or took a key that shares less).
void Repartition(Node& node, std::uint32_t lcp) {
  node.lcp = lcp;
  for (int i = 0; i < node.count; ++i) node.partial[i] = PartialKey(UserKeyOf(node.key[i]), lcp);
}

// Sets a node built from sorted keys: its shared prefix is that of its first and last keys.
// Partial keys computed at `old_lcp` stay right if that is still the shared prefix.
void Settle(Node& node, std::uint32_t old_lcp) {
  const std::string_view first = UserKeyOf(node.key[0]);
  const std::uint32_t lcp = CommonPrefix(first, UserKeyOf(node.key[node.count - 1]), ~0u);
  if (lcp != old_lcp) Repartition(node, lcp);
}

class BTreeRep;

// Iterator storage reused by the thread that frees it: RocksDB builds the memtable iterators
// of its own iterators "in an arena" and then only runs their destructors, and the arena's
// interface is not public. Each thread keeps the storage its destructors gave back, and takes
// from it first.
class IteratorStorage {
 public:
  static void* Take();
  static void Give(void* storage);

 private:
  ~IteratorStorage() {
    for (void* block : free_) ::operator delete(block);
  }
  static IteratorStorage& Mine() {
    thread_local IteratorStorage storage;
    return storage;
  }
  static constexpr std::size_t kMaxFree = 64;
  std::vector<void*> free_;
};

class BTreeIterator final : public rocksdb::MemTableRep::Iterator {
 public:
  // `locking`: whether each call takes the tree's read lock (not when the caller holds it).
  BTreeIterator(const BTreeRep& tree, bool pooled, bool locking = true)
      : tree_(tree), pooled_(pooled), locking_(locking) {}
  ~BTreeIterator() override {
    if (pooled_) IteratorStorage::Give(this);
  }

  bool Valid() const override { return entry_ != nullptr; }
  const char* key() const override { return entry_; }
  void Next() override;
  void Prev() override;
  void Seek(const rocksdb::Slice& internal_key, const char* memtable_key) override;
  void SeekForPrev(const rocksdb::Slice& internal_key, const char* memtable_key) override;
  void SeekToFirst() override;
  void SeekToLast() override;

  // The same, by a caller that holds the tree's read lock.
  void NextLocked();
  void PrevLocked();
  void SeekLocked(const rocksdb::Slice& internal_key);

 private:
  std::shared_lock<std::shared_mutex> Reading() const;
  void At(const Leaf* leaf, int index);
  // At the last entry of `leaf`; not valid when there is none (no leaf, or the empty root).
  void AtLastOf(const Leaf* leaf);
  void Relocate();

  const BTreeRep& tree_;
  const bool pooled_;
  const bool locking_;
  const Leaf* leaf_ = nullptr;
  int index_ = 0;
  std::uint64_t epoch_ = 0;  // The tree's epoch when leaf_/index_ were found.
  const char* entry_ = nullptr;
};

void* IteratorStorage::Take() {
  IteratorStorage& mine = Mine();
  if (mine.free_.empty()) return ::operator new(sizeof(BTreeIterator));
  void* block = mine.free_.back();
  mine.free_.pop_back();
  return block;
}

void IteratorStorage::Give(void* storage) {
  // Bounded, in case one thread keeps freeing iterators that others made.
  std::vector<void*>& free = Mine().free_;
  if (free.size() >= kMaxFree) {
    ::operator delete(storage);
  } else {
    free.push_back(storage);
  }
}

class BTreeRep final : public rocksdb::MemTableRep {
 public:
  BTreeRep(const KeyComparator& compare, rocksdb::Allocator* allocator, bool concurrent_readers)
      : MemTableRep(allocator), compare_(compare), concurrent_readers_(concurrent_readers) {
    head_ = tail_ = NewNode<Leaf>();
    root_ = head_;
  }

  void Insert(rocksdb::KeyHandle handle) override;
  bool Contains(const char* key) const override {
    std::shared_lock<std::shared_mutex> lock = Reading();
    BTreeIterator it(*this, /*pooled=*/false, /*locking=*/false);
    it.SeekLocked(InternalKeyOf(key));
    return it.Valid() && compare_(it.key(), key) == 0;
  }
  size_t ApproximateMemoryUsage() override { return 0; }  // All of it is in the arena.

  void Get(const rocksdb::LookupKey& key, void* callback_args,
           bool (*callback_func)(void* arg, const char* entry)) override {
    const char* memtable_key = MemtableKeyOf(key);
    std::shared_lock<std::shared_mutex> lock = Reading();
    BTreeIterator it(*this, /*pooled=*/false, /*locking=*/false);
    for (it.SeekLocked(InternalKeyOf(memtable_key));
         it.Valid() && callback_func(callback_args, it.key()); it.NextLocked()) {
    }
  }

  Iterator* GetIterator(rocksdb::Arena* arena) override {
    if (arena == nullptr) return new BTreeIterator(*this, /*pooled=*/false);
    return new (IteratorStorage::Take()) BTreeIterator(*this, true);
  }

  // Held by every read when readers may come from other threads than the writer's.
  std::shared_lock<std::shared_mutex> Reading() const {
    return concurrent_readers_ ? std::shared_lock<std::shared_mutex>(mutex_)
                               : std::shared_lock<std::shared_mutex>();
  }

  // For the iterator.
  const Leaf* head() const { return head_; }
  const Leaf* tail() const { return tail_; }
  std::uint64_t epoch() const { return epoch_; }
  // The first entry at or after `t` (upper: after), as a leaf and index (index == count: past
  // the leaf's end).
  std::pair<const Leaf*, int> Find(const Target& t, bool upper) const {
    const Node* node = root_;
    while (!node->leaf) {
      const auto* inner = static_cast<const Inner*>(node);
      node = inner->child[Bound(*inner, t, /*upper=*/true).index];
    }
    return {static_cast<const Leaf*>(node), Bound(*node, t, upper).index};
  }

 private:
  struct Found {
    int index;            // Where the target goes among the node's keys.
    std::uint32_t share;  // How much of the node's shared prefix the target shares.
  };

  template <typename T>
  T* NewNode() {
    char* memory = nullptr;
    (void)MemTableRep::Allocate(sizeof(T) + alignof(T), &memory);
    const auto address = reinterpret_cast<std::uintptr_t>(memory);
    const std::uintptr_t aligned = (address + alignof(T) - 1) & ~(std::uintptr_t{alignof(T)} - 1);
    return new (reinterpret_cast<void*>(aligned)) T();
  }

  // The first of the node's keys at or after `t` (upper: after).
  Found Bound(const Node& node, const Target& t, bool upper) const {
    if (node.count == 0) return {0, static_cast<std::uint32_t>(t.user_key.size())};
    const std::string_view first = UserKeyOf(node.key[0]);
    const std::uint32_t share = CommonPrefix(t.user_key, first, node.lcp);
    if (share < node.lcp) {
      // The target leaves the prefix every key shares: it is before all of them or after.
      const bool before =
          share == t.user_key.size() ||
          static_cast<unsigned char>(t.user_key[share]) < static_cast<unsigned char>(first[share]);
      return {before ? 0 : node.count, share};
    }
    const std::uint64_t partial = PartialKey(t.user_key, node.lcp);
    const std::uint64_t* begin = node.partial;
    const std::uint64_t* end = node.partial + node.count;
    int low = static_cast<int>(std::lower_bound(begin, end, partial) - begin);
    int high = static_cast<int>(std::upper_bound(begin + low, end, partial) - begin);
    while (low < high) {  // Keys whose partial key ties with the target's: compare the rest.
      const int mid = (low + high) / 2;
      const int c = CompareTied(node.key[mid], t, node.lcp + 8);
      if (c < 0 || (upper && c == 0)) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return {low, share};
  }

  // Puts `key` at `index` of a node with room; `share` is from Bound.
  static void Place(Node& node, int index, const char* key, std::uint32_t share) {
    const std::string_view user_key = UserKeyOf(key);
    if (node.count == 0) {
      node.lcp = static_cast<std::uint32_t>(user_key.size());
    } else if (share < node.lcp) {
      Repartition(node, share);
    }
    const int tail = node.count - index;
    std::memmove(node.key + index + 1, node.key + index, tail * sizeof(node.key[0]));
    std::memmove(node.partial + index + 1, node.partial + index, tail * sizeof(node.partial[0]));
    node.key[index] = key;
    node.partial[index] = PartialKey(user_key, node.lcp);
    ++node.count;
  }

  Leaf* SplitLeaf(Leaf& left, int index, const char* entry, std::uint32_t share);
  Inner* SplitInner(Inner& left, int index, const char* separator, Node* right_child,
                    const char** up);

  const KeyComparator& compare_;
  const bool concurrent_readers_;
  mutable std::shared_mutex mutex_;
  Node* root_ = nullptr;
  Leaf* head_ = nullptr;
  Leaf* tail_ = nullptr;
  std::uint64_t epoch_ = 0;
};

void BTreeRep::Insert(rocksdb::KeyHandle handle) {
  const char* entry = static_cast<const char*>(handle);
  const Target t(InternalKeyOf(entry));
  std::unique_lock<std::shared_mutex> lock(mutex_, std::defer_lock);
  if (concurrent_readers_) lock.lock();
  ++epoch_;
  Inner* path[kMaxDepth];
  int slot[kMaxDepth];
  int depth = 0;
  Node* node = root_;
  while (!node->leaf) {
    auto* inner = static_cast<Inner*>(node);
    path[depth] = inner;
    slot[depth] = Bound(*inner, t, /*upper=*/true).index;
    node = inner->child[slot[depth++]];
  }
  auto* leaf = static_cast<Leaf*>(node);
  const Found found = Bound(*leaf, t, /*upper=*/false);
  if (leaf->count < kSlots) {
    Place(*leaf, found.index, entry, found.share);
    return;
  }
  // Split, and hand the first key of the new right node up, splitting as far as needed.
  Node* right = SplitLeaf(*leaf, found.index, entry, found.share);
  const char* separator = right->key[0];
  while (depth > 0) {
    Inner& parent = *path[--depth];
    const int index = slot[depth];
    if (parent.count < kSlots) {
      const std::uint32_t share =
          CommonPrefix(UserKeyOf(separator), UserKeyOf(parent.key[0]), parent.lcp);
      Place(parent, index, separator, share);
      std::memmove(parent.child + index + 2, parent.child + index + 1,
                   (parent.count - 1 - index) * sizeof(parent.child[0]));
      parent.child[index + 1] = right;
      return;
    }
    right = SplitInner(parent, index, separator, right, &separator);
  }
  auto* root = NewNode<Inner>();
  root->child[0] = root_;
  root->child[1] = right;
  root->count = 1;
  root->key[0] = separator;
  Repartition(*root, static_cast<std::uint32_t>(UserKeyOf(separator).size()));
  root_ = root;
}

Leaf* BTreeRep::SplitLeaf(Leaf& left, int index, const char* entry, std::uint32_t share) {
  // The node's keys with the new one, and their partial keys at a prefix all of them share.
  const std::uint32_t old_lcp = std::min(left.lcp, share);
  if (old_lcp != left.lcp) Repartition(left, old_lcp);
  const char* keys[kSlots + 1];
  std::uint64_t partials[kSlots + 1];
  std::copy(left.key, left.key + index, keys);
  std::copy(left.key + index, left.key + kSlots, keys + index + 1);
  std::copy(left.partial, left.partial + index, partials);
  std::copy(left.partial + index, left.partial + kSlots, partials + index + 1);
  keys[index] = entry;
  partials[index] = PartialKey(UserKeyOf(entry), old_lcp);
  // Appends at the end of the last leaf (list items, stream entries, growing ids) fill leaves.
  const int keep = (&left == tail_ && index == kSlots) ? kSlots : (kSlots + 1) / 2;
  auto* right = NewNode<Leaf>();
  left.count = static_cast<std::uint16_t>(keep);
  right->count = static_cast<std::uint16_t>(kSlots + 1 - keep);
  std::copy(keys, keys + keep, left.key);
  std::copy(partials, partials + keep, left.partial);
  std::copy(keys + keep, keys + kSlots + 1, right->key);
  std::copy(partials + keep, partials + kSlots + 1, right->partial);
  right->lcp = old_lcp;
  Settle(left, old_lcp);
  Settle(*right, old_lcp);
  right->prev = &left;
  right->next = left.next;
  if (left.next != nullptr) left.next->prev = right;
  left.next = right;
  if (tail_ == &left) tail_ = right;
  return right;
}

Inner* BTreeRep::SplitInner(Inner& left, int index, const char* separator, Node* right_child,
                            const char** up) {
  const char* keys[kSlots + 1];
  Node* children[kSlots + 2];
  std::copy(left.key, left.key + index, keys);
  std::copy(left.key + index, left.key + kSlots, keys + index + 1);
  keys[index] = separator;
  std::copy(left.child, left.child + index + 1, children);
  std::copy(left.child + index + 1, left.child + kSlots + 1, children + index + 2);
  children[index + 1] = right_child;
  // Left keeps separators [0, half) and children [0, half]; separator `half` goes up.
  constexpr int kHalf = (kSlots + 1) / 2;
  auto* right = NewNode<Inner>();
  left.count = kHalf;
  std::copy(keys, keys + kHalf, left.key);
  std::copy(children, children + kHalf + 1, left.child);
  *up = keys[kHalf];
  right->count = kSlots - kHalf;
  std::copy(keys + kHalf + 1, keys + kSlots + 1, right->key);
  std::copy(children + kHalf + 1, children + kSlots + 2, right->child);
  Settle(left, ~0u);
  Settle(*right, ~0u);
  return right;
}

void BTreeIterator::At(const Leaf* leaf, int index) {
  while (leaf != nullptr && index >= leaf->count) {
    leaf = leaf->next;
    index = 0;
  }
  leaf_ = leaf;
  index_ = index;
  epoch_ = tree_.epoch();
  entry_ = leaf != nullptr ? leaf->key[index] : nullptr;
}

// Finds the current entry again after the tree changed under the iterator (an insert may
// have moved it within its leaf, or to a new one). Entries never move in memory, and no two
// are equal, so it is the first entry at or after itself.
void BTreeIterator::Relocate() {
  if (epoch_ == tree_.epoch()) return;
  const auto [leaf, index] = tree_.Find(Target(InternalKeyOf(entry_)), /*upper=*/false);
  At(leaf, index);
}

std::shared_lock<std::shared_mutex> BTreeIterator::Reading() const {
  return locking_ ? tree_.Reading() : std::shared_lock<std::shared_mutex>();
}

void BTreeIterator::Next() {
  std::shared_lock<std::shared_mutex> lock = Reading();
  NextLocked();
}

void BTreeIterator::NextLocked() {
  Relocate();
  At(leaf_, index_ + 1);
}

void BTreeIterator::Prev() {
  std::shared_lock<std::shared_mutex> lock = Reading();
  PrevLocked();
}

void BTreeIterator::PrevLocked() {
  Relocate();
  index_ > 0 ? At(leaf_, index_ - 1) : AtLastOf(leaf_->prev);
}

void BTreeIterator::Seek(const rocksdb::Slice& internal_key, const char*) {
  std::shared_lock<std::shared_mutex> lock = Reading();
  SeekLocked(internal_key);
}

void BTreeIterator::SeekLocked(const rocksdb::Slice& internal_key) {
  const auto [leaf, index] = tree_.Find(Target(internal_key), /*upper=*/false);
  At(leaf, index);
}

void BTreeIterator::SeekForPrev(const rocksdb::Slice& internal_key, const char*) {
  std::shared_lock<std::shared_mutex> lock = Reading();
  // The last entry at or before the key: the one before the first entry after it.
  const auto [leaf, index] = tree_.Find(Target(internal_key), /*upper=*/true);
  index > 0 ? At(leaf, index - 1) : AtLastOf(leaf->prev);
}

void BTreeIterator::SeekToFirst() {
  std::shared_lock<std::shared_mutex> lock = Reading();
  At(tree_.head(), 0);
}

void BTreeIterator::SeekToLast() {
  std::shared_lock<std::shared_mutex> lock = Reading();
  AtLastOf(tree_.tail());
}

void BTreeIterator::AtLastOf(const Leaf* leaf) {
  if (leaf == nullptr || leaf->count == 0) {
    leaf_ = nullptr;
    entry_ = nullptr;
    return;
  }
  At(leaf, leaf->count - 1);
}

class BTreeFactory final : public rocksdb::MemTableRepFactory {
 public:
  explicit BTreeFactory(bool concurrent_readers) : concurrent_readers_(concurrent_readers) {}
  const char* Name() const override { return "cairn.BTree"; }
  using MemTableRepFactory::CreateMemTableRep;
  rocksdb::MemTableRep* CreateMemTableRep(const rocksdb::MemTableRep::KeyComparator& compare,
                                          rocksdb::Allocator* allocator,
                                          const rocksdb::SliceTransform*,
                                          rocksdb::Logger*) override {
    return new BTreeRep(compare, allocator, concurrent_readers_);
  }
  bool IsInsertConcurrentlySupported() const override { return false; }
  bool CanHandleDuplicatedKey() const override { return false; }

 private:
  const bool concurrent_readers_;
};

}  // namespace

std::shared_ptr<rocksdb::MemTableRepFactory> NewBTreeMemTableFactory(bool concurrent_readers) {
  return std::make_shared<BTreeFactory>(concurrent_readers);
}

}  // namespace cairn::internal
