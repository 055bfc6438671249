#include "storage/row_cache.h"

#include <xxhash.h>

namespace cairn::internal {

RowCache::RowCache(std::size_t capacity_bytes, KeyFilter caches)
    : shard_capacity_(capacity_bytes / kShards), caches_(caches) {}

RowCache::Place RowCache::PlaceOf(std::string_view key) {
  const std::uint64_t hash = XXH3_64bits(key.data(), key.size());
  return {hash % kShards, (hash / kShards) % kSlotsPerShard, hash};
}

std::optional<std::optional<std::string>> RowCache::Lookup(std::string_view key, Miss* miss) {
  if (!Caches(key)) {
    *miss = Miss{};  // Not fillable.
    return std::nullopt;
  }
  const Place place = PlaceOf(key);
  Shard& shard = shards_[place.shard];
  std::lock_guard<std::mutex> lock(shard.mu);
  if (std::optional<std::list<Entry>::iterator> found = shard.index.Find(place.hash, key)) {
    shard.lru.splice(shard.lru.begin(), shard.lru, *found);
    return (*found)->row;
  }
  *miss = Miss{place.shard, place.slot, shard.generation[place.slot], place.hash,
               shard.open_writes[place.slot] == 0};
  return std::nullopt;
}

void RowCache::Fill(const Miss& miss, std::string_view key, const std::optional<std::string>& row) {
  if (!miss.fillable) return;
  Entry entry{miss.hash, std::string(key), row};
  if (!Keepable(entry)) return;
  Shard& shard = shards_[miss.shard];
  std::lock_guard<std::mutex> lock(shard.mu);
  if (shard.generation[miss.slot] != miss.generation || shard.open_writes[miss.slot] != 0) {
    return;
  }
  InsertLocked(shard, std::move(entry));  // Replacing another reader's fill, if any.
}

void RowCache::Publish(std::string_view key, const std::optional<std::string>& row) {
  // No generation step: while the caller's write is open no fill lands in the slot, and the
  // EndWrite that closes it moves the generation on. A row too large to keep is simply not
  // kept: the caller's BeginWrite already dropped the key.
  if (!Caches(key)) return;
  const Place place = PlaceOf(key);
  Entry entry{place.hash, std::string(key), row};
  if (!Keepable(entry)) return;
  Shard& shard = shards_[place.shard];
  std::lock_guard<std::mutex> lock(shard.mu);
  InsertLocked(shard, std::move(entry));
}

std::size_t RowCache::BeginWrite(std::string_view key) {
  if (!Caches(key)) return kNoWrite;
  const Place place = PlaceOf(key);
  Shard& shard = shards_[place.shard];
  std::lock_guard<std::mutex> lock(shard.mu);
  ++shard.open_writes[place.slot];
  ++shard.generation[place.slot];
  if (std::optional<std::list<Entry>::iterator> found = shard.index.Find(place.hash, key)) {
    EraseLocked(shard, *found);
  }
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

bool RowCache::Keepable(const Entry& entry) const {
  return entry.Bytes() <= shard_capacity_ && (!entry.row || entry.row->size() <= kMaxRowBytes);
}

void RowCache::InsertLocked(Shard& shard, Entry entry) {
  if (std::optional<std::list<Entry>::iterator> found = shard.index.Find(entry.hash, entry.key)) {
    EraseLocked(shard, *found);
  }
  shard.bytes += entry.Bytes();
  shard.lru.push_front(std::move(entry));
  shard.index.Insert(shard.lru.front().hash, shard.lru.begin());
  while (shard.bytes > shard_capacity_) EraseLocked(shard, std::prev(shard.lru.end()));
}

void RowCache::EraseLocked(Shard& shard, std::list<Entry>::iterator entry) {
  shard.bytes -= entry->Bytes();
  shard.index.Erase(entry->hash, entry->key);
  shard.lru.erase(entry);
}

}  // namespace cairn::internal
