#include "records/stream_ops.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <variant>

#include "cairn/limits.h"
#include "records/record_validation.h"
#include "records/stream_entries.h"
#include "records/stream_group_ops.h"
#include "storage/key_codec.h"
#include "storage/member_key.h"
#include "storage/rocks_status.h"
#include "storage/stream_fields.h"
#include "storage/stream_meta.h"
#include "storage/value_header.h"
#include "util/printable.h"
#include "util/status_macros.h"

namespace cairn::internal::stream_ops {
namespace {

constexpr StreamId kNoId{};

// The entries of request's range, in its order.
Result<std::vector<StreamEntry>> Collect(StreamEntries& entries, const StreamMeta& meta,
                                         const StreamRangeRequest& request) {
  std::vector<StreamEntry> out;
  if (request.first > request.last) return out;
  // (The walk itself starts no lower than the first live entry.)
  const StreamId from = request.reverse ? std::min(request.last, meta.last_id) : request.first;
  Status decoded = Status::Ok();
  CAIRN_RETURN_IF_ERROR(entries.Walk(from, request.reverse, [&](StreamId id, std::string_view v) {
    if (request.reverse ? id < request.first : id > request.last) return false;
    Result<StreamEntry> entry = entries.Decode(id, v);
    if (!entry.ok()) {
      decoded = entry.status();
      return false;
    }
    out.push_back(std::move(*entry));
    return request.count == 0 || out.size() < request.count;
  }));
  CAIRN_RETURN_IF_ERROR(decoded);
  return out;
}

// The id of the first entry at or after `from`, or 0-0 when there is none.
Result<StreamId> FirstFrom(StreamEntries& entries, StreamId from) {
  StreamId first = kNoId;
  CAIRN_RETURN_IF_ERROR(entries.Walk(from, false, [&](StreamId id, std::string_view) {
    first = id;
    return false;
  }));
  return first;
}

// Removes the oldest entries as the rule says; returns how many.
Result<std::uint64_t> TrimEntries(StreamEntries& entries, StreamMeta& meta,
                                  const StreamTrimRule& rule) {
  // Most trims find nothing to do; they are answered from the metadata, without a walk.
  switch (rule.by) {
    case StreamTrimRule::By::kNone:
      return std::uint64_t{0};
    case StreamTrimRule::By::kMaxLength:
      if (meta.length <= rule.max_length || meta.length - rule.max_length <= rule.slack) {
        return std::uint64_t{0};
      }
      break;
    case StreamTrimRule::By::kMinId:
      if (meta.length == 0 || meta.first_id >= rule.min_id) return std::uint64_t{0};
      break;
  }
  // The entries it drops stay as rows below the new first entry, dead (stream_entries.h): the
  // walk only counts them and finds the first one kept.
  std::uint64_t removed = 0;
  std::optional<StreamId> kept;
  CAIRN_RETURN_IF_ERROR(entries.Walk(meta.first_id, false, [&](StreamId id, std::string_view) {
    const std::uint64_t left = meta.length - removed;
    const bool goes =
        rule.by == StreamTrimRule::By::kMaxLength ? left > rule.max_length : id < rule.min_id;
    if (!goes || (rule.limit != 0 && removed >= rule.limit)) {
      kept = id;
      return false;
    }
    ++removed;
    return true;
  }));
  if (removed == 0) return removed;
  meta.length -= std::min(removed, meta.length);
  if (!kept) meta.length = 0;  // The walk ran out: it dropped every entry.
  meta.first_id = meta.length == 0 ? kNoId : *kept;
  return removed;
}

Status ValidateFields(std::span<const HashField> fields) {
  if (fields.empty()) return Status::InvalidArgument("a stream entry needs at least one field");
  std::size_t bytes = 0;
  for (const HashField& f : fields) {
    CAIRN_RETURN_IF_ERROR(ValidateValue(f.field, "stream field"));
    CAIRN_RETURN_IF_ERROR(ValidateValue(f.value, "stream value"));
    bytes += 8 + f.field.size() + f.value.size();
  }
  if (bytes > kMaxValueBytes) {
    return Status::InvalidArgument("a stream entry may hold at most " +
                                   std::to_string(kMaxValueBytes) + " bytes; this one has " +
                                   std::to_string(bytes));
  }
  return Status::Ok();
}

// The id a new entry gets, or why it gets none.
std::variant<StreamId, StreamAddOutcome> NextId(const StreamAddOptions& options, StreamId last,
                                                std::int64_t now_ms) {
  switch (options.id_mode) {
    case StreamAddOptions::IdMode::kExplicit:
      if (options.id == kNoId) return StreamAddOutcome::kIdZero;
      if (options.id <= last) return StreamAddOutcome::kIdTooSmall;
      return options.id;
    case StreamAddOptions::IdMode::kAutoSequence:
      if (last == kMaxStreamId) return StreamAddOutcome::kIdsExhausted;
      if (options.id.ms < last.ms) return StreamAddOutcome::kIdTooSmall;
      if (options.id.ms == last.ms && last.seq == UINT64_MAX) {
        return StreamAddOutcome::kSequenceExhausted;
      }
      return StreamId{options.id.ms, options.id.ms == last.ms ? last.seq + 1 : 0};
    case StreamAddOptions::IdMode::kAuto:
      break;
  }
  const auto now = static_cast<std::uint64_t>(std::max<std::int64_t>(now_ms, 0));
  // The clock may step back: ids never do.
  if (now > last.ms) return StreamId{now, 0};
  if (std::optional<StreamId> next = Successor(last)) return *next;
  return StreamAddOutcome::kIdsExhausted;
}

}  // namespace

Result<StreamAddResult> Add(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                            std::span<const HashField> fields, const StreamAddOptions& options) {
  CAIRN_RETURN_IF_ERROR(ValidateFields(fields));
  CAIRN_ASSIGN_OR_RETURN(StreamState state, LoadStream(ks.records, now_ms, key));
  StreamMeta meta;
  if (state.meta) {
    meta = *state.meta;
  } else {
    if (options.only_if_exists) return StreamAddResult{StreamAddOutcome::kNoStream, kNoId};
    // A fresh version: rows left by an earlier value of this key are not ours.
    CAIRN_ASSIGN_OR_RETURN(meta.version, ks.versions.Next());
    state.expires_at_ms = 0;
  }
  const std::variant<StreamId, StreamAddOutcome> next = NextId(options, meta.last_id, now_ms);
  if (const auto* refused = std::get_if<StreamAddOutcome>(&next)) {
    return StreamAddResult{*refused, kNoId};
  }
  const StreamId id = std::get<StreamId>(next);
  StreamEntries entries(ks, key, meta);
  CAIRN_RETURN_IF_ERROR(entries.Write(id, fields));
  if (meta.length == 0) meta.first_id = id;
  ++meta.length;
  ++meta.entries_added;
  meta.last_id = id;
  CAIRN_RETURN_IF_ERROR(TrimEntries(entries, meta, options.trim).status());
  CAIRN_RETURN_IF_ERROR(WriteStreamMeta(ks.records, key, state, meta));
  return StreamAddResult{StreamAddOutcome::kAdded, id};
}

Result<std::uint64_t> Length(Keyspace& ks, std::int64_t now_ms, std::string_view key) {
  CAIRN_ASSIGN_OR_RETURN(StreamState state, LoadStream(ks.records, now_ms, key));
  return state.meta ? state.meta->length : 0;
}

Result<std::vector<StreamEntry>> Range(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                       const StreamRangeRequest& request) {
  CAIRN_ASSIGN_OR_RETURN(StreamState state, LoadStream(ks.records, now_ms, key));
  if (!state.meta) return std::vector<StreamEntry>();
  StreamEntries entries(ks, key, *state.meta);
  return Collect(entries, *state.meta, request);
}

Result<std::size_t> Delete(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                           std::span<const StreamId> ids) {
  CAIRN_ASSIGN_OR_RETURN(StreamState state, LoadStream(ks.records, now_ms, key));
  if (!state.meta) return std::size_t{0};
  StreamMeta meta = *state.meta;
  StreamEntries entries(ks, key, meta);
  std::size_t removed = 0;
  bool first_gone = false;
  for (StreamId id : ids) {
    CAIRN_ASSIGN_OR_RETURN(bool exists, entries.Exists(id));
    if (!exists) continue;
    CAIRN_RETURN_IF_ERROR(entries.Remove(id));
    ++removed;
    meta.max_deleted_id = std::max(meta.max_deleted_id, id);
    first_gone = first_gone || id == meta.first_id;
  }
  if (removed == 0) return removed;
  meta.length -= std::min<std::uint64_t>(removed, meta.length);
  if (meta.length == 0) {
    meta.first_id = kNoId;
  } else if (first_gone) {
    CAIRN_ASSIGN_OR_RETURN(meta.first_id, FirstFrom(entries, meta.first_id));
  }
  CAIRN_RETURN_IF_ERROR(WriteStreamMeta(ks.records, key, state, meta));
  return removed;
}

Result<std::uint64_t> Trim(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                           const StreamTrimRule& rule) {
  CAIRN_ASSIGN_OR_RETURN(StreamState state, LoadStream(ks.records, now_ms, key));
  if (!state.meta) return std::uint64_t{0};
  StreamMeta meta = *state.meta;
  StreamEntries entries(ks, key, meta);
  CAIRN_ASSIGN_OR_RETURN(std::uint64_t removed, TrimEntries(entries, meta, rule));
  if (removed > 0) CAIRN_RETURN_IF_ERROR(WriteStreamMeta(ks.records, key, state, meta));
  return removed;
}

Result<std::optional<StreamSummary>> Describe(Keyspace& ks, std::int64_t now_ms,
                                              std::string_view key) {
  CAIRN_ASSIGN_OR_RETURN(StreamState state, LoadStream(ks.records, now_ms, key));
  if (!state.meta) return std::optional<StreamSummary>();
  const StreamMeta& meta = *state.meta;
  StreamSummary summary{meta.length,         meta.last_id,       meta.first_id,
                        meta.max_deleted_id, meta.entries_added, 0,
                        std::nullopt,        std::nullopt};
  CAIRN_ASSIGN_OR_RETURN(summary.groups, stream_group_ops::CountGroups(ks, key, meta.version));
  StreamEntries entries(ks, key, meta);
  for (bool reverse : {false, true}) {
    StreamRangeRequest one;
    one.reverse = reverse;
    one.count = 1;
    CAIRN_ASSIGN_OR_RETURN(std::vector<StreamEntry> found, Collect(entries, meta, one));
    if (!found.empty()) {
      (reverse ? summary.last_entry : summary.first_entry) = std::move(found.front());
    }
  }
  return std::optional<StreamSummary>(std::move(summary));
}

}  // namespace cairn::internal::stream_ops
