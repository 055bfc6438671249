// RowIndex: the row cache's index from a key to its entry — open addressing with linear
// probing over slots of (64-bit hash, handle).
//
// Why not std::unordered_map: in a cache of a few hundred thousand rows every probe of a node
// table is a chain of cache misses (the bucket, the node before the one wanted, the node, its
// key), and under BullMQ those finds were the largest single cost of cairn-server's own code.
// Here a probe reads one slot, nearly always in the line it starts in, and follows the handle
// to compare keys only when the full hashes match.
//
// `Handle` is what the slots point at (the cache's list iterators): `handle->key` is the
// entry's key. The hash is the caller's (the cache already computes one per key); 0 marks an
// empty slot, so a key whose hash is 0 is stored as 1. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace cairn::internal {

template <typename Handle>
class RowIndex {
 public:
  std::optional<Handle> Find(std::uint64_t hash, std::string_view key) const {
    const std::optional<std::size_t> at = SlotOf(Stored(hash), key);
    if (!at) return std::nullopt;
    return slots_[*at].handle;
  }

  // REQUIRES: no entry with this key is in the index.
  void Insert(std::uint64_t hash, Handle handle) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    Place(Slot{Stored(hash), std::move(handle)});
    ++size_;
  }

  // Removes the entry of `key`, if present.
  void Erase(std::uint64_t hash, std::string_view key) {
    const std::optional<std::size_t> at = SlotOf(Stored(hash), key);
    if (at) EraseAt(*at);
  }

  std::size_t size() const { return size_; }

 private:
  struct Slot {
    std::uint64_t hash = 0;  // 0: empty.
    Handle handle{};
  };

  static std::uint64_t Stored(std::uint64_t hash) { return hash == 0 ? 1 : hash; }

  // The cache picks shards and write slots from the hash's low bits, so all the keys of one
  // shard share them: the home slot comes from higher bits.
  std::size_t Home(std::uint64_t hash) const { return (hash >> 16) & (slots_.size() - 1); }
  std::size_t Next(std::size_t i) const { return (i + 1) & (slots_.size() - 1); }

  std::optional<std::size_t> SlotOf(std::uint64_t hash, std::string_view key) const {
    if (slots_.empty()) return std::nullopt;
    for (std::size_t i = Home(hash);; i = Next(i)) {
      const Slot& slot = slots_[i];
      if (slot.hash == 0) return std::nullopt;
      if (slot.hash == hash && slot.handle->key == key) return i;
    }
  }

  void Place(Slot slot) {
    std::size_t i = Home(slot.hash);
    while (slots_[i].hash != 0) i = Next(i);
    slots_[i] = std::move(slot);
  }

  // Backward-shift deletion: entries after the hole move into it when their home slot does
  // not lie between the hole and where they are, so every probe still meets no gap before
  // its key.
  void EraseAt(std::size_t hole) {
    for (std::size_t i = Next(hole); slots_[i].hash != 0; i = Next(i)) {
      const std::size_t home = Home(slots_[i].hash);
      const bool stays = hole < i ? (hole < home && home <= i) : (hole < home || home <= i);
      if (!stays) {
        slots_[hole] = std::move(slots_[i]);
        hole = i;
      }
    }
    slots_[hole] = Slot{};
    --size_;
  }

  // Doubles the slots (at most half are used: a probe for an absent key stays short).
  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? kMinSlots : old.size() * 2, Slot{});
    for (Slot& slot : old) {
      if (slot.hash != 0) Place(std::move(slot));
    }
  }

  static constexpr std::size_t kMinSlots = 64;

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

}  // namespace cairn::internal
