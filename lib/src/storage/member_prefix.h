// The prefix of a `members` row key shared by every member of one value (member_key.h: tag,
// user key, version), as a RocksDB SliceTransform, for memtable insert hints: RocksDB keeps
// the skiplist position of the last insert per prefix and starts the next insert of that
// prefix there, instead of searching from the top of the skiplist. Members of one value are
// mostly written next to each other: stream entries and list items at one end, the pending
// entries of a group in id order, the fields of a new hash together. Used for nothing else:
// the SST files keep no prefix index.
#pragma once

#include <rocksdb/slice_transform.h>

#include <memory>

namespace cairn::internal {

std::shared_ptr<const rocksdb::SliceTransform> NewMemberPrefixTransform();

}  // namespace cairn::internal
