// A memtable for the `records` column family when one thread at a time serves the keyspace:
// the B+tree of storage/btree_memtable.h, which keeps the rows in order for reads, iterators
// and flushes, plus a hash index from each key to its newest entry. The index answers the
// search RocksDB makes before it rewrites a row in place (inplace_update_support), and point
// reads of the latest state, with one hash probe; the tree took ~4 nodes, the skiplist before
// it ~20 — under small scripts on hot keys a sixth of the server's time.
//
// The index costs 16 bytes a slot, at most half of them used (counted in the memtable's
// size, so the memtable is flushed a little sooner), and a hash insert per write. Only for
// a column family without a prefix extractor: RocksDB then asks the "dynamic prefix"
// iterator (the one this adds the index to) only about the entries of one key. The tree
// takes readers from any thread (the members compaction filter reads records).
#pragma once

#include <rocksdb/memtablerep.h>

#include <memory>

namespace cairn::internal {

std::shared_ptr<rocksdb::MemTableRepFactory> NewIndexedMemTableFactory();

}  // namespace cairn::internal
