// The schema version stored in `meta`. A store records the version that wrote it; a build
// refuses to open a store of a newer version instead of misreading it.
#pragma once

#include <rocksdb/db.h>

#include <cstdint>
#include <string_view>

#include "cairn/status.h"

namespace cairn::internal {

// The layout this build writes: value header v1, column families of column_families.h.
inline constexpr std::uint32_t kSchemaVersion = 1;

// Reads the stored schema version: writes kSchemaVersion if there is none (a new store);
// kFailedPrecondition if it is newer than this build; kCorruption if it cannot be read.
Status CheckOrWriteSchema(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* meta,
                          std::string_view data_dir);

}  // namespace cairn::internal
