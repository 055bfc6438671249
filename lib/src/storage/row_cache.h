// RowCache: the stored bytes of recently read rows of one column family, kept in memory so
// that a hot key is answered without a RocksDB lookup.
//
// Why: a RocksDB point read walks the memtable's skiplist, and every write adds to it, so the
// cost of reading even one hot key grows with the writes since the last flush (the server's
// GET of a key written a few hundred thousand times took twice as long as on a fresh
// memtable). RocksDB's own row cache serves only reads from table files.
//
// Consistency: every write to the column family goes through Rows, which brackets it with
// BeginWrite and EndWrite (for a transaction, from its first write of the key until it has
// committed or rolled back). BeginWrite drops the key, and while a write is open in a key's
// slot nothing is added for any key of that slot; both calls advance the slot's generation,
// so a row read from the database before or during a write is never remembered after it. A
// cached row is thus always the committed one; readers that miss see whatever the database
// has. Slots (a shard's keys split by hash) are finer than shards so that the writes always
// open in a busy server (a script keeps a dozen keys' writes open until it commits) hold off
// the fills of few other keys: keys that share a slot only lose fills, never correctness.
// (A transaction of a store whose keyspace is taken in turns opens no brackets: no other
// thread uses the cache until it ends, and its commit publishes what it wrote; rows.h.)
//
// The cache holds rows as stored (value header included), so expiry is decided by the reader
// exactly as for a row read from RocksDB. Eviction is least recently used by second chance: a
// hit only marks its entry, and the entry at the old end of the list is moved to the new end
// (mark cleared) instead of dropped when marked. A hit so writes nothing outside its own
// entry, where moving it to the front of a list touched two neighbours at random places in
// memory. Rows are split over shards so that threads rarely share a lock. Thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "storage/row_index.h"

namespace cairn::internal {

class RowCache {
 public:
  // Which keys are worth caching: rows that are only ever iterated, never read by key (a
  // sorted set's score index), would only cost each write a cache update. nullptr: all.
  using KeyFilter = bool (*)(std::string_view key);

  explicit RowCache(std::size_t capacity_bytes, KeyFilter caches = nullptr);
  ~RowCache();
  RowCache(const RowCache&) = delete;
  RowCache& operator=(const RowCache&) = delete;

  // Where a read that missed stands: the row it then reads from the database may be
  // remembered with Fill only if no write to the shard began since.
  struct Miss {
    std::size_t shard = 0;
    std::size_t slot = 0;
    std::uint64_t generation = 0;
    std::uint64_t hash = 0;
    bool fillable = false;
  };

  enum class Found { kRow, kAbsent, kMiss };
  // What the cache knows of `key`: its row (copied into *row), that it has none, or nothing
  // (then `miss` is filled in).
  Found Lookup(std::string_view key, std::string* row, Miss* miss);

  // Remembers what the database returned for `key` (nullopt: no row) after Lookup missed.
  void Fill(const Miss& miss, std::string_view key, std::optional<std::string_view> row);

  // Remembers the committed row of `key` (nullopt: deleted), whatever else is being written
  // in its shard (a row too large to keep drops the key's entry instead) — the write-through
  // that keeps a key a transaction wrote cached for its next reader. REQUIRES: the caller has
  // committed the write and no other thread can write or fill the key before it is done:
  // either it still has the key's write open (BeginWrite) and holds its lock, or it holds
  // the keyspace's gate (serialize_keyspace), which keeps every other user of the cache out.
  void Publish(std::string_view key, std::optional<std::string_view> row);

  // Whether the cache keeps rows of `key` at all (its KeyFilter).
  bool Caches(std::string_view key) const { return caches_ == nullptr || caches_(key); }

  // Brackets a write of `key`; EndWrite takes what BeginWrite returned. A key the cache does
  // not keep (KeyFilter) needs no bracket: neither call then does anything.
  std::size_t BeginWrite(std::string_view key);
  void EndWrite(std::size_t write);

  // Rows larger than this are not kept: reading them costs little beside their transfer.
  static constexpr std::size_t kMaxRowBytes = 64 * 1024;

 private:
  static constexpr std::size_t kShards = 16;
  static constexpr std::size_t kSlotsPerShard = 64;
  // What BeginWrite returns: shard * kSlotsPerShard + slot, or kNoWrite for a key never
  // cached.
  static constexpr std::size_t kNoWrite = kShards * kSlotsPerShard;
  // Bookkeeping per entry beyond its key and row bytes (its header, index slot, allocator).
  static constexpr std::size_t kEntryOverhead = 96;

  // One allocation: this header, then the key's bytes, then room for `capacity` row bytes.
  // A lookup reads the index slot and then this one block (the key compared, the row copied),
  // where separate list node, key and row strings cost a cache miss each.
  struct Entry {
    Entry* newer = nullptr;  // The list, most recently added or given a second chance first.
    Entry* older = nullptr;
    std::uint64_t hash = 0;  // Of key: where the index keeps it.
    std::string_view key;    // Its bytes follow the header.
    std::uint32_t capacity = 0;
    std::uint32_t row_size = 0;
    // false: the row is absent ("known absent"). Stale: a write of the key began; no lookup
    // returns it, and the write's Publish fills the block again if the new row fits.
    bool has_row = false;
    bool stale = false;
    bool used = false;  // Looked up since it was last at the old end of the list.
    char* row_data() { return const_cast<char*>(key.data()) + key.size(); }
    std::size_t Bytes() const { return key.size() + capacity + kEntryOverhead; }
  };
  struct Shard {
    std::mutex mu;
    Entry* newest = nullptr;  // The LRU list.
    Entry* oldest = nullptr;
    RowIndex<Entry*> index;  // Keys in the list.
    std::size_t bytes = 0;
    std::array<std::uint64_t, kSlotsPerShard> generation{};
    std::array<std::uint32_t, kSlotsPerShard> open_writes{};
  };
  struct Place {
    std::size_t shard;
    std::size_t slot;
    std::uint64_t hash;
  };

  static Place PlaceOf(std::string_view key);
  // Room for a row, a little beyond its size: a rewrite a few bytes longer (a counter's next
  // value, a hash with one more field) still fits where it was.
  static std::size_t CapacityFor(std::size_t row_size) { return row_size + row_size / 8; }
  // Within the row and shard limits.
  bool Keepable(std::string_view key, std::optional<std::string_view> row) const;
  // Adds (or replaces) a row, then evicts down to the budget. REQUIRES: shard.mu held.
  void InsertLocked(Shard& shard, std::uint64_t hash, std::string_view key,
                    std::optional<std::string_view> row);
  void EraseLocked(Shard& shard, Entry* entry);
  static void Unlink(Shard& shard, Entry* entry);
  static void PushNewest(Shard& shard, Entry* entry);

  const std::size_t shard_capacity_;
  const KeyFilter caches_;
  std::array<Shard, kShards> shards_;
};

}  // namespace cairn::internal
