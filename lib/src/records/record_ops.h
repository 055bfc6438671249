// The record operations of cairn/records.h, written once against Rows so that Store (single
// calls) and Transaction (many calls, one commit) share them. Each validates its input first,
// reads the clock once (`now_ms`) and decides expiry with IsExpired.
//
// Atomicity comes from the Rows given: over a transaction, reads lock their keys, so a
// read-modify-write cannot interleave with another writer. Only Get and a Set that needs no
// read (NeedsRead false) may be given DbRows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cairn/records.h"
#include "records/rows.h"
#include "storage/value_header.h"

namespace cairn::internal::record_ops {

Result<std::optional<std::string>> Get(Rows& rows, std::int64_t now_ms, std::string_view key);

// True when Set with these options must read the current record first.
bool NeedsRead(const SetOptions& options);

Result<SetResult> Set(Rows& rows, std::int64_t now_ms, std::string_view key, std::string_view value,
                      const SetOptions& options);
Result<bool> Delete(Rows& rows, std::int64_t now_ms, std::string_view key);
Result<CasResult> CompareAndSwap(Rows& rows, std::int64_t now_ms, std::string_view key,
                                 std::string_view expected, std::string_view desired,
                                 const Expiry& expiry);
Result<bool> CompareAndDelete(Rows& rows, std::int64_t now_ms, std::string_view key,
                              std::string_view expected);
Result<bool> Expire(Rows& rows, std::int64_t now_ms, std::string_view key, std::int64_t ttl_ms);
Result<bool> ExpireAt(Rows& rows, std::int64_t now_ms, std::string_view key, std::int64_t at_ms);
Result<bool> Persist(Rows& rows, std::int64_t now_ms, std::string_view key);
Result<TtlState> GetTtl(Rows& rows, std::int64_t now_ms, std::string_view key);
Result<std::int64_t> IncrBy(Rows& rows, std::int64_t now_ms, std::string_view key,
                            std::int64_t delta);
Result<ScanPage> Scan(Rows& rows, std::int64_t now_ms, const ScanRequest& request);
Result<KeyType> Type(Rows& rows, std::int64_t now_ms, std::string_view key);

// The kind of value a keyspace row of this stored type holds.
KeyType KeyTypeOf(ValueType type);

}  // namespace cairn::internal::record_ops
