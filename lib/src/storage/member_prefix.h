// The prefix of a `members` row key shared by every member of one value (member_key.h: tag,
// user key, version), as a RocksDB SliceTransform, for memtable insert hints: RocksDB keeps
// the skiplist position of the last insert per prefix and starts the next insert of that
// prefix there, instead of searching from the top of the skiplist. Only the members written
// in order are in its domain: list items at the ends, stream entries and a group's pending
// entries by increasing id. Fields, set members and sorted-set rows land wherever their
// names or scores fall, where a hint costs more than it saves. Used for nothing else: the
// SST files keep no prefix index.
#pragma once

#include <rocksdb/slice_transform.h>

#include <memory>

namespace cairn::internal {

std::shared_ptr<const rocksdb::SliceTransform> NewMemberPrefixTransform();

}  // namespace cairn::internal
