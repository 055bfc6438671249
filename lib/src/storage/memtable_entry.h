// Reading RocksDB's memtable entries, for the memtables of our own (indexed_memtable,
// btree_memtable). An entry is: varint32 length, internal key (user key, then an 8-byte
// little-endian tag: sequence << 8 | type), varint32 length, value. A memtable key — what
// RocksDB hands a memtable to look for — is the same without the value.
#pragma once

#include <rocksdb/memtablerep.h>
#include <rocksdb/slice.h>

#include <cstdint>
#include <cstring>
#include <string_view>

namespace cairn::internal::memtable_entry {

inline const char* DecodeVarint32(const char* p, std::uint32_t* out) {
  std::uint32_t result = 0;
  for (int shift = 0; shift <= 28; shift += 7) {
    const auto byte = static_cast<unsigned char>(*p++);
    result |= static_cast<std::uint32_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) break;
  }
  *out = result;
  return p;
}

struct EntryKey {
  std::string_view user_key;
  std::uint64_t sequence;
};

// An internal key's last 8 bytes, little-endian: sequence << 8 | type.
inline std::uint64_t TrailerOf(const char* data, std::size_t size) {
  std::uint64_t tag = 0;
  for (int i = 7; i >= 0; --i) tag = (tag << 8) | static_cast<unsigned char>(data[size - 8 + i]);
  return tag;
}

inline EntryKey DecodeInternalKey(const char* data, std::size_t size) {
  return {std::string_view(data, size - 8), TrailerOf(data, size) >> 8};
}

// The internal key of an entry or of a memtable key.
inline rocksdb::Slice InternalKeyOf(const char* entry) {
  std::uint32_t length = 0;
  const char* key = DecodeVarint32(entry, &length);
  return rocksdb::Slice(key, length);
}

// The memtable key RocksDB looks for in a point read. It hands it as a LookupKey
// (db/dbformat.h), a type it does not export; since LevelDB its first member points at the
// memtable key it holds. (Misread, every point read from our memtables would fail their
// tests at once.)
inline const char* MemtableKeyOf(const rocksdb::LookupKey& key) {
  const char* memtable_key = nullptr;
  std::memcpy(&memtable_key, &key, sizeof(memtable_key));
  return memtable_key;
}

inline std::string_view UserKeyOf(const char* entry) {
  const rocksdb::Slice key = InternalKeyOf(entry);
  return std::string_view(key.data(), key.size() - 8);
}

inline EntryKey DecodeEntry(const char* entry) {
  const rocksdb::Slice key = InternalKeyOf(entry);
  return DecodeInternalKey(key.data(), key.size());
}

}  // namespace cairn::internal::memtable_entry
