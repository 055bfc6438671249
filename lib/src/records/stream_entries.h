// What every stream operation starts from: the stream's keyspace row (its metadata), and its
// entry rows by id. Shared by the stream operations (stream_ops.h) and its consumer groups'
// (stream_group_ops.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "cairn/records.h"
#include "records/composite_row.h"
#include "records/keyspace.h"
#include "storage/stream_meta.h"

namespace cairn::internal {

// A stream's keyspace row, read (and, in a transaction, locked).
using StreamState = CompositeState<StreamMeta>;

Result<StreamState> LoadStream(Rows& records, std::int64_t now_ms, std::string_view key);
Status WriteStreamMeta(Rows& records, std::string_view key, const StreamState& state,
                       const StreamMeta& meta);

// The id right after `id` (nullopt after the greatest).
std::optional<StreamId> Successor(StreamId id);

// The entry rows of one incarnation of a stream, by id.
class StreamEntries {
 public:
  StreamEntries(Keyspace& ks, std::string_view key, std::uint64_t version);

  std::string Row(StreamId id) const;
  Status Write(StreamId id, std::span<const HashField> fields);
  Status Remove(StreamId id);
  Result<bool> Exists(StreamId id);
  // The entry with this id; nullopt when there is none.
  Result<std::optional<StreamEntry>> Get(StreamId id);

  // Calls visit(id, stored row value) for the entries from `from` on (included), ascending,
  // or descending when `reverse`, until visit returns false or the entries run out.
  Status Walk(StreamId from, bool reverse,
              const std::function<bool(StreamId, std::string_view)>& visit);
  Result<StreamEntry> Decode(StreamId id, std::string_view stored) const;

 private:
  Status Written(const rocksdb::Status& s) const;

  Rows& rows_;
  std::string_view key_;
  std::string prefix_;
};

}  // namespace cairn::internal
