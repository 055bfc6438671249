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
//
// Trimming removes no rows: it moves the stream's first entry (StreamMeta::first_id) past the
// entries it drops, and the rows left below it are dead, for the members compaction filter to
// drop (member_filter.h). An XADD with MAXLEN then costs a metadata write, not a delete per
// entry, as Redis's trims drop whole nodes. So every read here sees only the live entries: ids
// at or past the first one, while the stream has any.
class StreamEntries {
 public:
  // `meta`: the stream's metadata as the operation holds it, read as it changes (an XADD's
  // trim moves the first entry); it must outlive this object.
  StreamEntries(Keyspace& ks, std::string_view key, const StreamMeta& meta);

  std::string Row(StreamId id) const;
  Status Write(StreamId id, std::span<const HashField> fields);
  Status Remove(StreamId id);
  Result<bool> Exists(StreamId id);
  // The entry with this id; nullopt when there is none.
  Result<std::optional<StreamEntry>> Get(StreamId id);

  // Calls visit(id, stored row value) for the live entries from `from` on (included),
  // ascending, or descending when `reverse`, until visit returns false or the entries run out.
  Status Walk(StreamId from, bool reverse,
              const std::function<bool(StreamId, std::string_view)>& visit);
  Result<StreamEntry> Decode(StreamId id, std::string_view stored) const;

 private:
  Status Written(const rocksdb::Status& s) const;
  // Whether `id` may be a live entry's: not below the first entry, nor of an empty stream.
  bool Live(StreamId id) const { return meta_.length > 0 && id >= meta_.first_id; }

  Rows& rows_;
  const StreamMeta& meta_;
  std::string_view key_;
  std::string prefix_;
};

}  // namespace cairn::internal
