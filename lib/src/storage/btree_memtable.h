// A memtable for the `members` column family when one thread at a time uses the keyspace
// (Options::serialize_keyspace): a B+tree of the entries in place of RocksDB's skiplist.
//
// Why: a member written at a random place in a big collection (ZADD of a new member, SADD,
// HSET of a new field) cost a skiplist insert of ~2.4 µs — about 20 nodes visited, each a
// cache miss, and each compared through RocksDB's key comparator — where Redis's own skiplist
// insert costs ~0.4 µs. ZADD writes two such rows. In the tree a search reads a few nodes
// near the root (which stay in cache) and one leaf, and compares mostly 8-byte partial keys
// kept in the nodes: in each node every user key shares its first `lcp` bytes, and the node
// keeps, for each key, the next 8 bytes as a big-endian number. Only keys whose partial keys
// tie with the sought key's are read and compared in full.
//
// Entries and nodes live in the memtable's arena; nothing is freed before the memtable.
//
// One thread writes at a time (RocksDB's allow_concurrent_memtable_write = false). Without
// `concurrent_readers`, no other thread may read the memtable while it is written: only where
// every reader and writer of the column family takes its turn (serialize_keyspace);
// immutable memtables (a flush reading one) may be read by any number of threads. With it,
// reads take a shared lock and writes an exclusive one. Needs the column family's comparator
// to be RocksDB's bytewise one.
#pragma once

#include <rocksdb/memtablerep.h>

#include <memory>

namespace cairn::internal {

std::shared_ptr<rocksdb::MemTableRepFactory> NewBTreeMemTableFactory(bool concurrent_readers);

}  // namespace cairn::internal
