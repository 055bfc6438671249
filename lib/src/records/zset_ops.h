// Sorted sets (cairn/records.h's ZSet… calls), written once against Keyspace.
//
// Besides its metadata row, a sorted set has two rows per member in `members`: the member
// row (tag kZSetMember, member → score), for lookups by member and ranges by member, and the
// score-index row (tag kZSetScore, score then member → nothing), for ranges by score and
// rank. Both carry the set's version, so deleting or expiring the set is its metadata row
// alone, as for hashes (member_map_ops.h, whose metadata handling this shares).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "cairn/records.h"
#include "records/keyspace.h"

namespace cairn::internal::zset_ops {

Result<std::optional<double>> Score(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                    std::string_view member);
Result<std::size_t> Put(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                        std::span<const ZSetEntry> entries);
Result<std::size_t> Remove(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                           std::span<const std::string_view> members);
Result<std::uint64_t> Size(Keyspace& ks, std::int64_t now_ms, std::string_view key);
Result<std::vector<ScoredMember>> Range(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                        const ZRangeRequest& request);
Result<std::optional<std::uint64_t>> Rank(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                          std::string_view member, bool reverse);
Result<ZSetPage> Scan(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                      const MemberScanRequest& request);

}  // namespace cairn::internal::zset_ops
