#include "records/stream_group_ops.h"

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <utility>

#include "cairn/limits.h"
#include "records/consumer_group.h"
#include "records/stream_entries.h"
#include "util/printable.h"
#include "util/status_macros.h"

namespace cairn::internal::stream_group_ops {
namespace {

Status ValidateName(std::string_view name, std::string_view noun) {
  if (name.size() > kMaxKeyBytes) {
    return Status::InvalidArgument(std::string(noun) + " name is " + std::to_string(name.size()) +
                                   " bytes; the limit is " + std::to_string(kMaxKeyBytes));
  }
  return Status::Ok();
}

// A stream and one of its groups, loaded (and, in a transaction, locked through the stream's
// metadata row); `outcome` says what was missing when one of them is.
struct Loaded {
  StreamGroupOutcome outcome = StreamGroupOutcome::kDone;
  StreamMeta meta;
  std::optional<ConsumerGroup> group;
};

// `consumer`: the consumer the call names, if any, checked with the group's name.
Result<Loaded> LoadGroup(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                         std::string_view group, std::string_view consumer = {}) {
  CAIRN_RETURN_IF_ERROR(ValidateName(group, "group"));
  CAIRN_RETURN_IF_ERROR(ValidateName(consumer, "consumer"));
  CAIRN_ASSIGN_OR_RETURN(StreamState state, LoadStream(ks.records, now_ms, key));
  Loaded loaded;
  if (!state.meta) {
    loaded.outcome = StreamGroupOutcome::kNoStream;
    return loaded;
  }
  loaded.meta = *state.meta;
  CAIRN_ASSIGN_OR_RETURN(loaded.group, ConsumerGroup::Open(ks, key, loaded.meta.version, group));
  if (!loaded.group) loaded.outcome = StreamGroupOutcome::kNoGroup;
  return loaded;
}

// Whether an entry at or after `from` was deleted (Redis's streamRangeHasTombstones): then a
// count of entries read up to `from` says nothing of the entries after it.
bool DeletedFrom(const StreamMeta& meta, StreamId from) {
  if (meta.length == 0 || meta.max_deleted_id == StreamId{}) return false;
  if (meta.first_id > meta.max_deleted_id) return false;
  return from <= meta.max_deleted_id;
}

// How many entries come up to and including `id`, when the stream's counters tell (Redis's
// streamEstimateDistanceFromFirstEverEntry); nullopt when they do not.
std::optional<std::uint64_t> EntriesUpTo(const StreamMeta& meta, StreamId id) {
  if (meta.entries_added == 0) return 0;
  if (meta.length == 0 && id <= meta.last_id) return meta.entries_added;
  if (id == meta.last_id) return meta.entries_added;
  if (id > meta.last_id) return std::nullopt;
  if (meta.max_deleted_id == StreamId{} || meta.max_deleted_id < meta.first_id) {
    // Nothing was deleted among the entries there are.
    if (id < meta.first_id) return meta.entries_added - meta.length;
    if (id == meta.first_id) return meta.entries_added - meta.length + 1;
  }
  return std::nullopt;
}

std::optional<std::int64_t> Lag(const StreamMeta& meta, const GroupRow& group) {
  if (meta.entries_added == 0) return 0;
  const auto added = static_cast<std::int64_t>(meta.entries_added);
  if (group.entries_read && !DeletedFrom(meta, group.last_id)) {
    return added - static_cast<std::int64_t>(*group.entries_read);
  }
  if (std::optional<std::uint64_t> read = EntriesUpTo(meta, group.last_id)) {
    return added - static_cast<std::int64_t>(*read);
  }
  return std::nullopt;
}

// The group has now delivered `id` (above its last delivered id): moves its position there,
// keeping its count of entries read when the stream's counters allow.
void Advance(const StreamMeta& meta, GroupRow& group, StreamId id) {
  if (group.entries_read && !DeletedFrom(meta, id)) {
    ++*group.entries_read;
  } else if (meta.entries_added != 0) {
    group.entries_read = EntriesUpTo(meta, id);
  }
  group.last_id = id;
}

std::int64_t IdleSince(std::int64_t now_ms, std::int64_t at_ms) {
  return at_ms >= now_ms ? 0 : now_ms - at_ms;
}

// Whether a pending entry delivered at `at_ms` has been idle too short for min_idle_ms (0:
// every entry qualifies).
bool TooRecent(std::int64_t now_ms, std::int64_t at_ms, std::int64_t min_idle_ms) {
  return min_idle_ms > 0 && now_ms - at_ms < min_idle_ms;
}

// The delivery time a claim gives, as Redis's XCLAIM computes it: IDLE or TIME, and now when
// that is in the future or before 1970.
std::int64_t ClaimTime(std::int64_t now_ms, const StreamClaimRequest& request) {
  // An idle time outside [0, now] gives a time outside it too (checked first: no overflow).
  if (request.time_ms)
    return *request.time_ms < 0 || *request.time_ms > now_ms ? now_ms : *request.time_ms;
  if (request.idle_ms)
    return *request.idle_ms < 0 || *request.idle_ms > now_ms ? now_ms : now_ms - *request.idle_ms;
  return now_ms;
}

// Gives the (existing) entry `id`, pending as `old` says (nullopt: not pending), to
// `consumer`, delivered at `at_ms`, with `deliveries`.
Status GiveTo(ConsumerGroup& group, StreamId id, std::string_view consumer, std::int64_t now_ms,
              std::int64_t at_ms, std::uint64_t deliveries, const std::optional<PendingRow>& old) {
  CAIRN_RETURN_IF_ERROR(group.Touch(consumer, now_ms).status());
  return group.SetPending(id, PendingRow{at_ms, deliveries, std::string(consumer)}, old);
}

// The entry for a claim's reply: its id alone with just_ids, else the whole entry.
Result<StreamEntry> ClaimedEntry(StreamEntries& entries, StreamId id, bool just_ids) {
  if (just_ids) return StreamEntry{id, {}};
  CAIRN_ASSIGN_OR_RETURN(std::optional<StreamEntry> entry, entries.Get(id));
  if (!entry) return StreamEntry{id, {}};  // REQUIRES excludes this: it was just seen.
  return std::move(*entry);
}

}  // namespace

Result<StreamGroupOutcome> Create(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                  std::string_view group, const StreamGroupPosition& position,
                                  bool make_stream) {
  CAIRN_RETURN_IF_ERROR(ValidateName(group, "group"));
  CAIRN_ASSIGN_OR_RETURN(StreamState state, LoadStream(ks.records, now_ms, key));
  if (!state.meta) {
    if (!make_stream) return StreamGroupOutcome::kNoStream;
    // An empty stream, as XADD would start one.
    StreamMeta meta;
    CAIRN_ASSIGN_OR_RETURN(meta.version, ks.versions.Next());
    state.expires_at_ms = 0;
    CAIRN_RETURN_IF_ERROR(WriteStreamMeta(ks.records, key, state, meta));
    state.meta = meta;
  }
  const StreamMeta& meta = *state.meta;
  CAIRN_ASSIGN_OR_RETURN(std::optional<ConsumerGroup> existing,
                         ConsumerGroup::Open(ks, key, meta.version, group));
  if (existing) return StreamGroupOutcome::kGroupExists;
  GroupRow row;
  row.last_id = position.at_last_id ? meta.last_id : position.id;
  row.entries_read = position.entries_read;
  CAIRN_RETURN_IF_ERROR(ConsumerGroup::Create(ks, key, meta.version, group, row).Save());
  return StreamGroupOutcome::kDone;
}

Result<StreamGroupOutcome> SetPosition(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                       std::string_view group,
                                       const StreamGroupPosition& position) {
  CAIRN_ASSIGN_OR_RETURN(Loaded loaded, LoadGroup(ks, now_ms, key, group));
  if (loaded.outcome != StreamGroupOutcome::kDone) return loaded.outcome;
  GroupRow& row = loaded.group->row();
  row.last_id = position.at_last_id ? loaded.meta.last_id : position.id;
  row.entries_read = position.entries_read;
  CAIRN_RETURN_IF_ERROR(loaded.group->Save());
  return StreamGroupOutcome::kDone;
}

Result<StreamGroupOutcome> Destroy(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                   std::string_view group) {
  CAIRN_ASSIGN_OR_RETURN(Loaded loaded, LoadGroup(ks, now_ms, key, group));
  if (loaded.outcome != StreamGroupOutcome::kDone) return loaded.outcome;
  CAIRN_RETURN_IF_ERROR(loaded.group->Destroy());
  return StreamGroupOutcome::kDone;
}

Result<StreamGroupOutcome> CreateConsumer(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                          std::string_view group, std::string_view consumer) {
  CAIRN_ASSIGN_OR_RETURN(Loaded loaded, LoadGroup(ks, now_ms, key, group, consumer));
  if (loaded.outcome != StreamGroupOutcome::kDone) return loaded.outcome;
  CAIRN_ASSIGN_OR_RETURN(ConsumerRow * existing, loaded.group->FindConsumer(consumer));
  if (existing != nullptr) return StreamGroupOutcome::kConsumerExists;
  CAIRN_RETURN_IF_ERROR(loaded.group->Touch(consumer, now_ms).status());
  CAIRN_RETURN_IF_ERROR(loaded.group->Save());
  return StreamGroupOutcome::kDone;
}

Result<std::pair<StreamGroupOutcome, std::uint64_t>> DeleteConsumer(Keyspace& ks,
                                                                    std::int64_t now_ms,
                                                                    std::string_view key,
                                                                    std::string_view group,
                                                                    std::string_view consumer) {
  using Out = std::pair<StreamGroupOutcome, std::uint64_t>;
  CAIRN_ASSIGN_OR_RETURN(Loaded loaded, LoadGroup(ks, now_ms, key, group, consumer));
  if (loaded.outcome != StreamGroupOutcome::kDone) return Out{loaded.outcome, 0};
  CAIRN_ASSIGN_OR_RETURN(ConsumerRow * existing, loaded.group->FindConsumer(consumer));
  if (existing == nullptr) return Out{StreamGroupOutcome::kDone, 0};
  CAIRN_ASSIGN_OR_RETURN(std::uint64_t pending, loaded.group->DeleteConsumer(consumer));
  CAIRN_RETURN_IF_ERROR(loaded.group->Save());
  return Out{StreamGroupOutcome::kDone, pending};
}

Result<StreamGroupReadResult> Read(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                   std::string_view group, std::string_view consumer,
                                   const StreamGroupReadRequest& request) {
  CAIRN_ASSIGN_OR_RETURN(Loaded loaded, LoadGroup(ks, now_ms, key, group, consumer));
  StreamGroupReadResult out;
  out.outcome = loaded.outcome;
  if (loaded.outcome != StreamGroupOutcome::kDone) return out;
  ConsumerGroup& g = *loaded.group;
  StreamEntries entries(ks, key, loaded.meta);
  // The consumer is created (and seen) by the read even when it finds nothing, as in Redis.
  CAIRN_RETURN_IF_ERROR(g.Touch(consumer, now_ms).status());
  if (request.new_entries) {
    const std::optional<StreamId> from = Successor(g.row().last_id);
    if (!from || loaded.meta.length == 0 || loaded.meta.last_id < *from) {
      CAIRN_RETURN_IF_ERROR(g.Save());
      return out;
    }
    Status decoded = Status::Ok();
    CAIRN_RETURN_IF_ERROR(entries.Walk(*from, false, [&](StreamId id, std::string_view stored) {
      Result<StreamEntry> entry = entries.Decode(id, stored);
      if (!entry.ok()) {
        decoded = entry.status();
        return false;
      }
      out.entries.push_back(std::move(*entry));
      return request.count == 0 || out.entries.size() < request.count;
    }));
    CAIRN_RETURN_IF_ERROR(decoded);
    for (const StreamEntry& entry : out.entries) {
      Advance(loaded.meta, g.row(), entry.id);
      if (request.no_ack) continue;
      // Pending already (the group's position was set back): it moves to this consumer.
      std::optional<PendingRow> old;
      if (entry.id <= g.row().highest_pending) {
        CAIRN_ASSIGN_OR_RETURN(old, g.GetPending(entry.id));
      }
      CAIRN_RETURN_IF_ERROR(
          g.SetPending(entry.id, PendingRow{now_ms, 1, std::string(consumer)}, old));
    }
  } else {
    const std::optional<StreamId> from = Successor(request.after);
    Status status = Status::Ok();
    if (from) {
      CAIRN_RETURN_IF_ERROR(
          g.WalkConsumerPending(consumer, *from, [&](StreamId id, const PendingRow& row) {
            Result<std::optional<StreamEntry>> entry = entries.Get(id);
            status = entry.status();
            if (!status.ok()) return false;
            if (*entry) {
              // Delivered again: its delivery time and count say so.
              PendingRow again = row;
              again.delivered_at_ms = now_ms;
              ++again.deliveries;
              status = g.SetPending(id, again, row);
              out.entries.push_back(std::move(**entry));
            } else {
              out.entries.push_back(StreamEntry{id, {}});  // Deleted from the stream since.
            }
            return status.ok() && (request.count == 0 || out.entries.size() < request.count);
          }));
    }
    CAIRN_RETURN_IF_ERROR(status);
  }
  CAIRN_RETURN_IF_ERROR(g.Save());
  return out;
}

Result<std::uint64_t> Ack(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                          std::string_view group, std::span<const StreamId> ids) {
  CAIRN_ASSIGN_OR_RETURN(Loaded loaded, LoadGroup(ks, now_ms, key, group));
  if (loaded.outcome != StreamGroupOutcome::kDone) return std::uint64_t{0};
  std::set<StreamId> seen;
  std::uint64_t acked = 0;
  for (StreamId id : ids) {
    if (!seen.insert(id).second) continue;  // An id given twice is acknowledged once.
    CAIRN_ASSIGN_OR_RETURN(std::optional<PendingRow> pending, loaded.group->GetPending(id));
    if (!pending) continue;
    CAIRN_RETURN_IF_ERROR(loaded.group->RemovePending(id, *pending));
    ++acked;
  }
  if (acked > 0) CAIRN_RETURN_IF_ERROR(loaded.group->Save());
  return acked;
}

Result<StreamPendingResult> Summarize(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                      std::string_view group) {
  CAIRN_ASSIGN_OR_RETURN(Loaded loaded, LoadGroup(ks, now_ms, key, group));
  StreamPendingResult out;
  out.outcome = loaded.outcome;
  if (loaded.outcome != StreamGroupOutcome::kDone) return out;
  ConsumerGroup& g = *loaded.group;
  StreamPendingSummary& summary = out.summary;
  summary.count = g.row().pending;
  if (summary.count == 0) return out;
  for (bool reverse : {false, true}) {
    CAIRN_RETURN_IF_ERROR(g.WalkPending(reverse ? kMaxStreamId : StreamId{}, reverse,
                                        [&](StreamId id, const PendingRow&) {
                                          (reverse ? summary.last : summary.first) = id;
                                          return false;
                                        }));
  }
  CAIRN_RETURN_IF_ERROR(g.WalkConsumers([&](std::string_view name, const ConsumerRow& row) {
    if (row.pending > 0) summary.consumers.push_back({std::string(name), row.pending});
    return true;
  }));
  return out;
}

Result<StreamPendingResult> Pending(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                    std::string_view group, const StreamPendingRequest& request) {
  CAIRN_ASSIGN_OR_RETURN(Loaded loaded,
                         LoadGroup(ks, now_ms, key, group, request.consumer.value_or("")));
  StreamPendingResult out;
  out.outcome = loaded.outcome;
  if (loaded.outcome != StreamGroupOutcome::kDone || request.count == 0) return out;
  ConsumerGroup& g = *loaded.group;
  // Adds the entry if it qualifies; false once the request has enough or is past its range.
  auto take = [&](StreamId id, const PendingRow& row) {
    if (id > request.last) return false;
    if (!TooRecent(now_ms, row.delivered_at_ms, request.min_idle_ms)) {
      out.entries.push_back({id, row.consumer, row.delivered_at_ms,
                             IdleSince(now_ms, row.delivered_at_ms), row.deliveries});
    }
    return out.entries.size() < request.count;
  };
  if (!request.consumer) {
    CAIRN_RETURN_IF_ERROR(g.WalkPending(request.first, false, take));
    return out;
  }
  CAIRN_ASSIGN_OR_RETURN(ConsumerRow * consumer, g.FindConsumer(*request.consumer));
  if (consumer == nullptr) return out;
  CAIRN_RETURN_IF_ERROR(g.WalkConsumerPending(*request.consumer, request.first, take));
  return out;
}

Result<StreamClaimResult> Claim(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                std::string_view group, std::string_view consumer,
                                const StreamClaimRequest& request) {
  CAIRN_ASSIGN_OR_RETURN(Loaded loaded, LoadGroup(ks, now_ms, key, group, consumer));
  StreamClaimResult out;
  out.outcome = loaded.outcome;
  if (loaded.outcome != StreamGroupOutcome::kDone) return out;
  ConsumerGroup& g = *loaded.group;
  StreamEntries entries(ks, key, loaded.meta);
  if (request.last_id && *request.last_id > g.row().last_id) g.row().last_id = *request.last_id;
  const std::int64_t at = ClaimTime(now_ms, request);
  for (StreamId id : request.ids) {
    CAIRN_ASSIGN_OR_RETURN(std::optional<PendingRow> pending, g.GetPending(id));
    CAIRN_ASSIGN_OR_RETURN(bool exists, entries.Exists(id));
    if (!exists) {
      // Deleted from the stream: no longer pending for anyone.
      if (pending) CAIRN_RETURN_IF_ERROR(g.RemovePending(id, *pending));
      continue;
    }
    std::uint64_t deliveries = 0;
    if (pending) {
      if (TooRecent(now_ms, pending->delivered_at_ms, request.min_idle_ms)) continue;
      deliveries = pending->deliveries;
    } else if (request.force) {
      deliveries = 1;  // As if delivered once before, as Redis's FORCE counts.
    } else {
      continue;
    }
    if (request.retry_count) {
      deliveries = *request.retry_count;
    } else if (!request.just_ids) {
      ++deliveries;
    }
    CAIRN_RETURN_IF_ERROR(GiveTo(g, id, consumer, now_ms, at, deliveries, pending));
    CAIRN_ASSIGN_OR_RETURN(StreamEntry entry, ClaimedEntry(entries, id, request.just_ids));
    out.claimed.push_back(std::move(entry));
  }
  CAIRN_RETURN_IF_ERROR(g.Save());
  return out;
}

Result<StreamClaimResult> AutoClaim(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                    std::string_view group, std::string_view consumer,
                                    const StreamAutoClaimRequest& request) {
  if (request.count == 0) return Status::InvalidArgument("XAUTOCLAIM count must be at least 1");
  CAIRN_ASSIGN_OR_RETURN(Loaded loaded, LoadGroup(ks, now_ms, key, group, consumer));
  StreamClaimResult out;
  out.outcome = loaded.outcome;
  if (loaded.outcome != StreamGroupOutcome::kDone) return out;
  ConsumerGroup& g = *loaded.group;
  StreamEntries entries(ks, key, loaded.meta);
  // Like Redis, look at no more than ten pending entries per entry asked for, so that a call
  // that finds few idle enough still ends soon; the cursor says where to go on.
  std::uint64_t attempts = request.count > std::numeric_limits<std::uint64_t>::max() / 10
                               ? std::numeric_limits<std::uint64_t>::max()
                               : request.count * 10;
  std::uint64_t left = request.count;
  Status status = Status::Ok();
  CAIRN_RETURN_IF_ERROR(
      g.WalkPending(request.start, false, [&](StreamId id, const PendingRow& row) {
        if (attempts == 0 || left == 0) {
          out.next = id;
          return false;
        }
        --attempts;
        Result<bool> exists = entries.Exists(id);
        status = exists.status();
        if (!status.ok()) return false;
        if (!*exists) {
          status = g.RemovePending(id, row);
          out.deleted.push_back(id);
          --left;
          return status.ok();
        }
        if (TooRecent(now_ms, row.delivered_at_ms, request.min_idle_ms)) return true;
        const std::uint64_t deliveries = request.just_ids ? row.deliveries : row.deliveries + 1;
        status = GiveTo(g, id, consumer, now_ms, now_ms, deliveries, row);
        if (!status.ok()) return false;
        Result<StreamEntry> entry = ClaimedEntry(entries, id, request.just_ids);
        status = entry.status();
        if (!status.ok()) return false;
        out.claimed.push_back(std::move(*entry));
        --left;
        return true;
      }));
  CAIRN_RETURN_IF_ERROR(status);
  CAIRN_RETURN_IF_ERROR(g.Save());
  return out;
}

Result<std::optional<std::vector<StreamGroupInfo>>> Groups(Keyspace& ks, std::int64_t now_ms,
                                                           std::string_view key) {
  CAIRN_ASSIGN_OR_RETURN(StreamState state, LoadStream(ks.records, now_ms, key));
  if (!state.meta) return std::optional<std::vector<StreamGroupInfo>>();
  const StreamMeta& meta = *state.meta;
  std::vector<StreamGroupInfo> out;
  CAIRN_RETURN_IF_ERROR(ConsumerGroup::WalkGroups(
      ks, key, meta.version, [&](std::string_view name, const GroupRow& row) {
        out.push_back({std::string(name), row.consumers, row.pending, row.last_id, row.entries_read,
                       Lag(meta, row)});
        return true;
      }));
  return std::optional<std::vector<StreamGroupInfo>>(std::move(out));
}

Result<StreamConsumersResult> Consumers(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                        std::string_view group) {
  CAIRN_ASSIGN_OR_RETURN(Loaded loaded, LoadGroup(ks, now_ms, key, group));
  StreamConsumersResult out;
  out.outcome = loaded.outcome;
  if (loaded.outcome != StreamGroupOutcome::kDone) return out;
  CAIRN_RETURN_IF_ERROR(
      loaded.group->WalkConsumers([&](std::string_view name, const ConsumerRow& row) {
        out.consumers.push_back(
            {std::string(name), row.pending, row.seen_at_ms, IdleSince(now_ms, row.seen_at_ms)});
        return true;
      }));
  return out;
}

Result<std::uint64_t> CountGroups(Keyspace& ks, std::string_view key, std::uint64_t version) {
  std::uint64_t count = 0;
  CAIRN_RETURN_IF_ERROR(
      ConsumerGroup::WalkGroups(ks, key, version, [&](std::string_view, const GroupRow&) {
        ++count;
        return true;
      }));
  return count;
}

}  // namespace cairn::internal::stream_group_ops
