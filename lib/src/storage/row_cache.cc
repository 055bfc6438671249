#include "storage/row_cache.h"

#include <xxhash.h>

#include <cstring>
#include <new>

namespace cairn::internal {

RowCache::RowCache(std::size_t capacity_bytes, KeyFilter caches)
    : shard_capacity_(capacity_bytes / kShards), caches_(caches) {}

RowCache::~RowCache() {
  for (Shard& shard : shards_) {
    while (shard.newest != nullptr) {
      Entry* entry = shard.newest;
      shard.newest = entry->older;
      entry->~Entry();
      ::operator delete(entry);
    }
  }
}

RowCache::Place RowCache::PlaceOf(std::string_view key) {
  const std::uint64_t hash = XXH3_64bits(key.data(), key.size());
  return {hash % kShards, (hash / kShards) % kSlotsPerShard, hash};
}

RowCache::Found RowCache::Lookup(std::string_view key, std::string* row, Miss* miss) {
  if (!Caches(key)) {
    *miss = Miss{};  // Not fillable.
    return Found::kMiss;
  }
  const Place place = PlaceOf(key);
  Shard& shard = shards_[place.shard];
  std::lock_guard<std::mutex> lock(shard.mu);
  if (std::optional<Entry*> found = shard.index.Find(place.hash, key); found && !(*found)->stale) {
    Entry* entry = *found;
    entry->used = true;
    if (!entry->has_row) return Found::kAbsent;
    row->assign(entry->row_data(), entry->row_size);
    return Found::kRow;
  }
  *miss = Miss{place.shard, place.slot, shard.generation[place.slot], place.hash,
               shard.open_writes[place.slot] == 0};
  return Found::kMiss;
}

void RowCache::Fill(const Miss& miss, std::string_view key, std::optional<std::string_view> row) {
  if (!miss.fillable || !Keepable(key, row)) return;
  Shard& shard = shards_[miss.shard];
  std::lock_guard<std::mutex> lock(shard.mu);
  if (shard.generation[miss.slot] != miss.generation || shard.open_writes[miss.slot] != 0) {
    return;
  }
  InsertLocked(shard, miss.hash, key, row);  // Replacing another reader's fill, if any.
}

void RowCache::Publish(std::string_view key, std::optional<std::string_view> row) {
  // No generation step: while the caller's write is open no fill lands in the slot, and the
  // EndWrite that closes it moves the generation on (or no other thread is let in at all).
  if (!Caches(key)) return;
  const Place place = PlaceOf(key);
  Shard& shard = shards_[place.shard];
  std::lock_guard<std::mutex> lock(shard.mu);
  if (Keepable(key, row)) return InsertLocked(shard, place.hash, key, row);
  // Its entry, if any, holds an older row (when no BeginWrite made it stale).
  if (std::optional<Entry*> found = shard.index.Find(place.hash, key)) EraseLocked(shard, *found);
}

std::size_t RowCache::BeginWrite(std::string_view key) {
  if (!Caches(key)) return kNoWrite;
  const Place place = PlaceOf(key);
  Shard& shard = shards_[place.shard];
  std::lock_guard<std::mutex> lock(shard.mu);
  ++shard.open_writes[place.slot];
  ++shard.generation[place.slot];
  if (std::optional<Entry*> found = shard.index.Find(place.hash, key)) (*found)->stale = true;
  return place.shard * kSlotsPerShard + place.slot;
}

void RowCache::EndWrite(std::size_t write) {
  if (write == kNoWrite) return;
  const std::size_t slot = write % kSlotsPerShard;
  Shard& shard = shards_[write / kSlotsPerShard];
  std::lock_guard<std::mutex> lock(shard.mu);
  --shard.open_writes[slot];
  ++shard.generation[slot];
}

bool RowCache::Keepable(std::string_view key, std::optional<std::string_view> row) const {
  const std::size_t row_size = row ? row->size() : 0;
  return key.size() + CapacityFor(row_size) + kEntryOverhead <= shard_capacity_ &&
         row_size <= kMaxRowBytes;
}

void RowCache::InsertLocked(Shard& shard, std::uint64_t hash, std::string_view key,
                            std::optional<std::string_view> row) {
  const std::size_t row_size = row ? row->size() : 0;
  Entry* entry = nullptr;
  if (std::optional<Entry*> found = shard.index.Find(hash, key)) {
    if ((*found)->capacity >= row_size) {
      entry = *found;  // The row goes where the key's last one was.
      Unlink(shard, entry);
    } else {
      EraseLocked(shard, *found);
    }
  }
  if (entry == nullptr) {
    const std::size_t capacity = CapacityFor(row_size);
    void* block = ::operator new(sizeof(Entry) + key.size() + capacity);
    entry = new (block) Entry();
    char* key_data = reinterpret_cast<char*>(entry + 1);
    std::memcpy(key_data, key.data(), key.size());
    entry->key = std::string_view(key_data, key.size());
    entry->hash = hash;
    entry->capacity = static_cast<std::uint32_t>(capacity);
    shard.index.Insert(hash, entry);
    shard.bytes += entry->Bytes();
  }
  entry->has_row = row.has_value();
  entry->row_size = static_cast<std::uint32_t>(row_size);
  if (row_size > 0) std::memcpy(entry->row_data(), row->data(), row_size);
  entry->stale = false;
  PushNewest(shard, entry);
  // Ends: every entry passed over loses its mark, so at worst the second round drops one.
  while (shard.bytes > shard_capacity_) {
    Entry* oldest = shard.oldest;
    if (oldest->used && oldest != entry) {
      oldest->used = false;
      Unlink(shard, oldest);
      PushNewest(shard, oldest);
    } else {
      EraseLocked(shard, oldest);
    }
  }
}

void RowCache::EraseLocked(Shard& shard, Entry* entry) {
  shard.bytes -= entry->Bytes();
  shard.index.Erase(entry->hash, entry->key);
  Unlink(shard, entry);
  entry->~Entry();
  ::operator delete(entry);
}

void RowCache::Unlink(Shard& shard, Entry* entry) {
  (entry->newer != nullptr ? entry->newer->older : shard.newest) = entry->older;
  (entry->older != nullptr ? entry->older->newer : shard.oldest) = entry->newer;
  entry->newer = entry->older = nullptr;
}

void RowCache::PushNewest(Shard& shard, Entry* entry) {
  entry->older = shard.newest;
  entry->newer = nullptr;
  (shard.newest != nullptr ? shard.newest->newer : shard.oldest) = entry;
  shard.newest = entry;
}

}  // namespace cairn::internal
