// The hash operations of cairn/records.h, and Rename (which moves values of every kind),
// written once against Keyspace so that Store and Transaction share them.
//
// A hash is a metadata row in `records` (type kHash, the key's expiry, composite_meta.h) and
// one `members` row per field under the hash's version (member_key.h). Writes lock the
// metadata row, which serializes every writer of one hash; member rows are then read
// without locks of their own.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "cairn/records.h"
#include "records/keyspace.h"

namespace cairn::internal::hash_ops {

Result<std::optional<std::string>> Get(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                       std::string_view field);
Result<std::size_t> Set(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                        std::span<const HashField> fields);
Result<std::size_t> Delete(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                           std::span<const std::string_view> fields);
Result<std::uint64_t> Length(Keyspace& ks, std::int64_t now_ms, std::string_view key);
Result<HashPage> Scan(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                      const HashScanRequest& request);

Result<RenameOutcome> Rename(Keyspace& ks, std::int64_t now_ms, std::string_view from,
                             std::string_view to, bool only_if_absent);

}  // namespace cairn::internal::hash_ops
