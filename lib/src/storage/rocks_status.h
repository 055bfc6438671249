// The one place where RocksDB statuses become Cairn statuses.
#pragma once

#include <rocksdb/status.h>

#include <string_view>

#include "cairn/status.h"

namespace cairn::internal {

// Translates a RocksDB status; `context` says what was being done ("commit", "open /data").
// Lock timeouts and deadlocks become kBusy, so callers can retry.
Status FromRocks(const rocksdb::Status& status, std::string_view context);

}  // namespace cairn::internal
