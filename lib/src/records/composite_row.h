// The keyspace row of a composite value (hash, set, sorted set, list): what every kind's
// operations read first, before decoding their own metadata from its payload.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cairn/result.h"
#include "records/rows.h"
#include "storage/value_header.h"

namespace cairn::internal {

struct CompositeRow {
  std::string row_key;
  std::int64_t expires_at_ms = 0;
  std::optional<std::string> payload;  // nullopt: no live value under the key.
};

// Reads (and, in a transaction, locks) the keyspace row of key, which must hold a value of
// `type`: kWrongType when it holds another kind, kInvalidArgument for a bad key.
Result<CompositeRow> ReadCompositeRow(Rows& records, std::int64_t now_ms, std::string_view key,
                                      ValueType type);

}  // namespace cairn::internal
