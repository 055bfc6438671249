// Test-only access to what a Store keeps on disk, below the record API: raw rows as RocksDB
// holds them, expired ones included. Linked into tests as cairn_testing, never into cairn.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "cairn/store.h"

namespace cairn::testing {

// Rows physically present in the keyspace, whatever their expiry (a raw RocksDB iterator).
Result<std::size_t> CountRawKeyspaceRows(Store& store);

// Rows physically present in `members` (fields of hashes), reachable or not.
Result<std::size_t> CountRawMemberRows(Store& store);

// The stored bytes of key (header included), ignoring expiry; nullopt if no row exists.
Result<std::optional<std::string>> GetRawKeyspaceRow(Store& store, std::string_view key);

// Entries in the keyspace column family's active memtable: every write since the last flush,
// each version of a key counted.
Result<std::uint64_t> KeyspaceMemtableEntries(Store& store);

// Writes stored bytes for key as they are, bypassing encoding (to plant corrupt records).
Status PutRawKeyspaceRow(Store& store, std::string_view key, std::string_view stored);

// Writes stored bytes as the row of an idempotency record (IdempotencyKey::encoded()).
Status PutRawIdempotencyRow(Store& store, std::string_view encoded_key, std::string_view stored);

// Writes the schema version stored in meta (to simulate a store written by a newer Cairn).
Status PutSchemaVersion(Store& store, std::uint32_t version);

}  // namespace cairn::testing
