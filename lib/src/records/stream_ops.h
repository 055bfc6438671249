// Streams (cairn/records.h's Stream… calls), written once against Keyspace so that Store and
// Transaction share them.
//
// A stream is a metadata row in `records` (its type, the key's expiry, and version · length ·
// ids: stream_meta.h) and one `members` row per entry (tag kStreamEntry), keyed by the
// stream's version and the entry's id, so that entries sort by id and a range is one seek and
// a scan. The metadata keeps the first entry's id, so that trims and forward walks start at the
// first live row instead of stepping over the deleted rows before it.
//
// Writes lock the metadata row, which serializes every writer of one stream. Entries never
// change once written, only go, so a read needs no lock on them; outside a transaction Store
// still reads the metadata and the entries from one snapshot, so that a length and a range
// agree.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "cairn/records.h"
#include "records/keyspace.h"

namespace cairn::internal::stream_ops {

Result<StreamAddResult> Add(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                            std::span<const HashField> fields, const StreamAddOptions& options);
Result<std::uint64_t> Length(Keyspace& ks, std::int64_t now_ms, std::string_view key);
Result<std::vector<StreamEntry>> Range(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                       const StreamRangeRequest& request);
Result<std::size_t> Delete(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                           std::span<const StreamId> ids);
Result<std::uint64_t> Trim(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                           const StreamTrimRule& rule);
Result<std::optional<StreamSummary>> Describe(Keyspace& ks, std::int64_t now_ms,
                                              std::string_view key);

}  // namespace cairn::internal::stream_ops
