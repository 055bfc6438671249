// A memtable for the `records` column family: RocksDB's skiplist, which keeps the rows in
// order for reads, iterators and flushes, plus a hash index from each key to its newest
// entry, for the search RocksDB makes before it rewrites a row in place
// (inplace_update_support) — which, in the skiplist, walked ~20 nodes scattered over the
// memtable: under small scripts on hot keys a sixth of the server's time. The index answers
// it with one hash probe.
//
// The index costs 16 bytes a slot, at most half of them used (counted in the memtable's
// size, so the memtable is flushed a little sooner), and a hash insert per write. Only for
// a column family without a prefix extractor: RocksDB then asks the "dynamic prefix"
// iterator (the one this adds the index to) only about the entries of one key.
#pragma once

#include <rocksdb/memtablerep.h>

#include <memory>

namespace cairn::internal {

std::shared_ptr<rocksdb::MemTableRepFactory> NewIndexedSkipListFactory();

}  // namespace cairn::internal
