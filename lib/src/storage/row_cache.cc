#include "storage/row_cache.h"

#include <xxhash.h>

namespace cairn::internal {

RowCache::RowCache(std::size_t capacity_bytes, KeyFilter caches)
    : shard_capacity_(capacity_bytes / kShards), caches_(caches) {}

std::size_t RowCache::ShardOf(std::string_view key) {
  return XXH3_64bits(key.data(), key.size()) % kShards;
}

std::optional<std::optional<std::string>> RowCache::Lookup(std::string_view key, Miss* miss) {
  if (!Caches(key)) {
    *miss = Miss{};  // Not fillable.
    return std::nullopt;
  }
  Shard& shard = shards_[ShardOf(key)];
  std::lock_guard<std::mutex> lock(shard.mu);
  auto found = shard.index.find(key);
  if (found != shard.index.end()) {
    shard.lru.splice(shard.lru.begin(), shard.lru, found->second);
    return found->second->row;
  }
  *miss = Miss{static_cast<std::size_t>(&shard - shards_.data()), shard.generation,
               shard.open_writes == 0};
  return std::nullopt;
}

void RowCache::Fill(const Miss& miss, std::string_view key, const std::optional<std::string>& row) {
  if (!miss.fillable) return;
  Entry entry{std::string(key), row};
  if (!Keepable(entry)) return;
  Shard& shard = shards_[miss.shard];
  std::lock_guard<std::mutex> lock(shard.mu);
  if (shard.generation != miss.generation || shard.open_writes != 0) return;
  InsertLocked(shard, std::move(entry));  // Replacing another reader's fill, if any.
}

void RowCache::Publish(std::string_view key, const std::optional<std::string>& row) {
  // No generation step: while the caller's write is open no fill lands in the shard, and the
  // EndWrite that closes it moves the generation on. A row too large to keep is simply not
  // kept: the caller's BeginWrite already dropped the key.
  if (!Caches(key)) return;
  Entry entry{std::string(key), row};
  if (!Keepable(entry)) return;
  Shard& shard = shards_[ShardOf(key)];
  std::lock_guard<std::mutex> lock(shard.mu);
  InsertLocked(shard, std::move(entry));
}

std::size_t RowCache::BeginWrite(std::string_view key) {
  if (!Caches(key)) return kNoShard;
  const std::size_t index = ShardOf(key);
  Shard& shard = shards_[index];
  std::lock_guard<std::mutex> lock(shard.mu);
  ++shard.open_writes;
  ++shard.generation;
  auto found = shard.index.find(key);
  if (found != shard.index.end()) EraseLocked(shard, found->second);
  return index;
}

void RowCache::EndWrite(std::size_t index) {
  if (index == kNoShard) return;
  Shard& shard = shards_[index];
  std::lock_guard<std::mutex> lock(shard.mu);
  --shard.open_writes;
  ++shard.generation;
}

bool RowCache::Keepable(const Entry& entry) const {
  return entry.Bytes() <= shard_capacity_ && (!entry.row || entry.row->size() <= kMaxRowBytes);
}

void RowCache::InsertLocked(Shard& shard, Entry entry) {
  auto found = shard.index.find(entry.key);
  if (found != shard.index.end()) EraseLocked(shard, found->second);
  shard.bytes += entry.Bytes();
  shard.lru.push_front(std::move(entry));
  shard.index.emplace(shard.lru.front().key, shard.lru.begin());
  while (shard.bytes > shard_capacity_) EraseLocked(shard, std::prev(shard.lru.end()));
}

void RowCache::EraseLocked(Shard& shard, std::list<Entry>::iterator entry) {
  shard.bytes -= entry->Bytes();
  shard.index.erase(std::string_view(entry->key));
  shard.lru.erase(entry);
}

}  // namespace cairn::internal
