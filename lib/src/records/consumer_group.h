// One consumer group of one stream, as an operation reads and changes it: its group row,
// consumer rows and pending rows (storage/stream_group_rows.h). The group and consumer rows
// are kept in memory from the first read and written back by Save, so that an operation that
// delivers or acknowledges many entries rewrites each once; every change of a pending entry
// adjusts the counters of the group and of the consumers it concerns, so that the rows and
// their counts never drift apart.
//
// REQUIRES: the caller holds the stream's metadata row (LoadStream, locked in a
// transaction), which guards every member row of the stream, these included.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "cairn/records.h"
#include "records/keyspace.h"
#include "storage/stream_group_rows.h"

namespace cairn::internal {

class ConsumerGroup {
 public:
  // The group `name` of the stream (key, version); nullopt when it has none by that name.
  static Result<std::optional<ConsumerGroup>> Open(Keyspace& ks, std::string_view key,
                                                   std::uint64_t version, std::string_view name);
  // A new group (REQUIRES: none by that name); written by Save.
  static ConsumerGroup Create(Keyspace& ks, std::string_view key, std::uint64_t version,
                              std::string_view name, const GroupRow& row);

  // Calls visit(name, row) for every group of the stream (key, version), by name, until visit
  // returns false.
  static Status WalkGroups(Keyspace& ks, std::string_view key, std::uint64_t version,
                           const std::function<bool(std::string_view, const GroupRow&)>& visit);

  GroupRow& row() { return row_; }
  std::string_view name() const { return name_; }

  // The consumer's row, or nullptr when the group has no such consumer. Valid until Save.
  Result<ConsumerRow*> FindConsumer(std::string_view consumer);
  // The consumer's row, created (with nothing pending) if absent; `seen_at_ms` becomes its
  // last-seen time either way.
  Result<ConsumerRow*> Touch(std::string_view consumer, std::int64_t seen_at_ms,
                             bool* created = nullptr);
  // Deletes the consumer and its pending entries; returns how many it had.
  Result<std::uint64_t> DeleteConsumer(std::string_view consumer);

  Result<std::optional<PendingRow>> GetPending(StreamId id);
  // Makes the entry pending for row.consumer as `row` says; `old` is its pending row now, if
  // any (then it moves from old->consumer when that differs).
  Status SetPending(StreamId id, const PendingRow& row, const std::optional<PendingRow>& old);
  // The entry, pending as `old` says, is no longer pending.
  Status RemovePending(StreamId id, const PendingRow& old);

  // Calls visit(id, pending row) for the group's pending entries from `from` on (included),
  // ascending or descending, until visit returns false or they run out. Collects before it
  // visits, so visit may change pending rows.
  Status WalkPending(StreamId from, bool reverse,
                     const std::function<bool(StreamId, const PendingRow&)>& visit);
  // Calls visit(id, pending row) for the consumer's pending entries from `from` on (included),
  // ascending, until visit returns false or they run out; may change pending rows, as
  // WalkPending. Walks the group's pending entries up to the consumer's last one.
  Status WalkConsumerPending(std::string_view consumer, StreamId from,
                             const std::function<bool(StreamId, const PendingRow&)>& visit);
  // Calls visit(name, row) for every consumer, by name.
  Status WalkConsumers(const std::function<bool(std::string_view, const ConsumerRow&)>& visit);

  // Writes the group row and every consumer row read or changed since Open.
  Status Save();
  // Deletes the group with all its rows.
  Status Destroy();

 private:
  ConsumerGroup(Keyspace& ks, std::string_view key, std::uint64_t version, std::string_view name,
                GroupRow row);

  std::string GroupRowKey() const;
  std::string ConsumerRowKey(std::string_view consumer) const;
  std::string PendingRowKey(StreamId id) const;
  Status AdjustConsumer(std::string_view consumer, bool add);
  // How messages name a consumer's row and a pending row of this group.
  std::string ConsumerNoun(std::string_view consumer) const;
  std::string PendingNoun() const;
  Status Failed(const rocksdb::Status& s, std::string_view what) const;

  Rows* members_;
  std::string key_;
  std::uint64_t version_;
  std::string name_;
  GroupRow row_;
  struct CachedConsumer {
    std::optional<ConsumerRow> row;  // nullopt: absent (or deleted).
    bool dirty = false;
  };
  std::map<std::string, CachedConsumer, std::less<>> consumers_;
};

}  // namespace cairn::internal
