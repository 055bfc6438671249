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
#include "util/printable.h"

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

// A composite value's keyspace row with its metadata decoded.
template <typename Meta>
struct CompositeState {
  std::string row_key;
  std::int64_t expires_at_ms = 0;
  std::optional<Meta> meta;  // nullopt: no live value under the key.
};

// ReadCompositeRow, then the metadata through decode (which answers nullopt for metadata it
// cannot use): kCorruption, naming the value by `noun`, when it does not decode.
template <typename Meta, typename Decode>
Result<CompositeState<Meta>> LoadComposite(Rows& records, std::int64_t now_ms, std::string_view key,
                                           ValueType type, std::string_view noun, Decode&& decode) {
  Result<CompositeRow> row = ReadCompositeRow(records, now_ms, key, type);
  if (!row.ok()) return row.status();
  CompositeState<Meta> state{std::move(row->row_key), row->expires_at_ms, std::nullopt};
  if (!row->payload) return state;
  state.meta = decode(*row->payload);
  if (!state.meta) {
    return Status::Corruption(std::string(noun) + " '" + Printable(key) +
                              "' has unreadable metadata (" + std::to_string(row->payload->size()) +
                              " bytes); refusing to use or overwrite it");
  }
  return state;
}

}  // namespace cairn::internal
