// Lists (cairn/records.h's List… calls), written once against Keyspace so that Store and
// Transaction share them.
//
// A list is a metadata row in `records` (its type, the key's expiry, and version · size ·
// head: list_meta.h) and one `members` row per item (tag kListItem), keyed by the list's
// version and the item's index, so that item i is the row at index head + i. Pushes and pops
// at either end write or remove rows at the ends and move nothing; reading item i is one point
// read; a range is one seek and a scan. Inserting or removing in the middle (LINSERT, LREM)
// rewrites the rows on the shorter side of the change: O(n) in the worst case.
//
// Writes lock the metadata row, which serializes every writer of one list; item rows are then
// read without locks of their own. Unlike a hash's members, a list's items change in place
// under one version (pops, LSET, the shifts above), so a read outside a transaction must read
// the metadata and the items from one snapshot (Store does).
//
// Deleting the last item deletes the key, as Redis does: no empty list exists. When a list
// goes away whole (popped or trimmed to nothing, like DEL or expiry), its remaining item rows
// are left to the members compaction filter, which drops rows of a version no live key has.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cairn/records.h"
#include "records/keyspace.h"

namespace cairn::internal::list_ops {

Result<std::uint64_t> Push(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                           std::span<const std::string_view> values, ListEnd end,
                           bool only_if_exists);
Result<std::optional<std::vector<std::string>>> Pop(Keyspace& ks, std::int64_t now_ms,
                                                    std::string_view key, ListEnd end,
                                                    std::uint64_t count);
Result<std::uint64_t> Length(Keyspace& ks, std::int64_t now_ms, std::string_view key);
Result<std::vector<std::string>> Range(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                       std::int64_t start, std::int64_t stop);
Result<std::optional<std::string>> Index(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                         std::int64_t index);
Result<ListSetOutcome> Set(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                           std::int64_t index, std::string_view value);
Result<std::uint64_t> Remove(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                             std::int64_t count, std::string_view value);
Result<std::uint64_t> Trim(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                           std::int64_t start, std::int64_t stop);
Result<std::int64_t> Insert(Keyspace& ks, std::int64_t now_ms, std::string_view key, bool before,
                            std::string_view pivot, std::string_view value);
Result<std::vector<std::uint64_t>> Position(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                            std::string_view value,
                                            const ListPositionOptions& options);
Result<std::optional<std::string>> Move(Keyspace& ks, std::int64_t now_ms, std::string_view source,
                                        std::string_view destination, ListEnd from_end,
                                        ListEnd to_end);

}  // namespace cairn::internal::list_ops
