// Walks the whole keyspace (or the keys under a prefix) page by page through Records::Scan,
// for the commands that need every key (KEYS, DBSIZE, FLUSHDB, RANDOMKEY).
#pragma once

#include <functional>
#include <optional>
#include <string_view>

#include "cairn/limits.h"
#include "cairn/records.h"

namespace cairn::server {

// Calls visit for every live key; stops early when visit returns false. `limit`, when set,
// caps the number of keys visited.
Status ScanKeyspace(Records& data, std::string_view prefix, std::optional<std::size_t> limit,
                    const std::function<bool(const ScanEntry&)>& visit);

}  // namespace cairn::server
