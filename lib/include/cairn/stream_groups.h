// The types of a stream's consumer groups (Records::StreamGroup… and the calls after it),
// which follow Redis's XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM and XINFO.
//
// A group reads a stream from a position of its own (its last delivered id) and hands each
// entry to one of its consumers, which holds it pending until it acknowledges it; another
// consumer may claim an entry that stayed pending too long. A group's state lives with its
// stream and goes when the stream does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cairn/stream_types.h"

namespace cairn {

// What a group call found, when it did nothing.
enum class StreamGroupOutcome {
  kDone,
  kNoStream,        // The key holds no stream: nothing was written.
  kNoGroup,         // The stream has no such group: nothing was written.
  kGroupExists,     // StreamGroupCreate: the group exists already.
  kConsumerExists,  // StreamConsumerCreate: the consumer exists already.
};

// Where a group starts reading (Redis's XGROUP CREATE/SETID id and ENTRIESREAD).
struct StreamGroupPosition {
  // Start after the stream's last id (Redis's `$`); `id` is then ignored.
  bool at_last_id = false;
  StreamId id;
  // How many of the stream's entries the group has read up to there, which XINFO GROUPS
  // counts its lag from; nullopt: unknown (Redis's -1), estimated from the stream when it can.
  std::optional<std::uint64_t> entries_read;
};

// Which entries StreamReadGroup hands to the consumer.
struct StreamGroupReadRequest {
  // True: entries the group has not delivered yet (Redis's `>`), which become pending for
  // the consumer. False: the consumer's own pending entries with ids above `after`.
  bool new_entries = true;
  StreamId after;
  // At most this many; 0: all.
  std::uint64_t count = 0;
  // New entries are delivered without becoming pending (Redis's NOACK).
  bool no_ack = false;
};

struct StreamGroupReadResult {
  StreamGroupOutcome outcome = StreamGroupOutcome::kDone;
  // In id order. Reading the consumer's history, an entry deleted from the stream since it
  // was delivered comes with no fields (a live entry always has at least one).
  std::vector<StreamEntry> entries;
};

// The first few pending entries' summary (Redis's XPENDING key group).
struct StreamPendingSummary {
  std::uint64_t count = 0;
  StreamId first;  // The lowest and highest pending id; 0-0 when none is pending.
  StreamId last;
  struct Consumer {
    std::string name;
    std::uint64_t pending = 0;
  };
  // The consumers with entries pending, by name.
  std::vector<Consumer> consumers;
};

struct StreamPendingRequest {
  StreamId first;
  StreamId last = kMaxStreamId;
  // At most this many; 0: none.
  std::uint64_t count = 0;
  // Only entries delivered at least this long ago.
  std::int64_t min_idle_ms = 0;
  // Only this consumer's entries; nullopt: every consumer's.
  std::optional<std::string> consumer;
};

struct StreamPendingEntry {
  StreamId id;
  std::string consumer;
  std::int64_t delivered_at_ms = 0;  // When it was last delivered (or claimed).
  std::int64_t idle_ms = 0;          // How long ago that was; never negative.
  std::uint64_t deliveries = 0;
};

struct StreamPendingResult {
  StreamGroupOutcome outcome = StreamGroupOutcome::kDone;
  StreamPendingSummary summary;             // StreamPendingSummarize's.
  std::vector<StreamPendingEntry> entries;  // StreamPendingRange's, by id.
};

// Redis's XCLAIM: gives pending entries idle for at least min_idle_ms to a consumer.
struct StreamClaimRequest {
  std::int64_t min_idle_ms = 0;
  std::vector<StreamId> ids;
  // The entries' new delivery time: `idle_ms` before now (Redis's IDLE), or `time_ms`
  // (TIME); a time in the future or before 1970 means now. Neither: now.
  std::optional<std::int64_t> idle_ms;
  std::optional<std::int64_t> time_ms;
  // Set the delivery count to this; nullopt: add one (unless just_ids).
  std::optional<std::uint64_t> retry_count;
  // An id that exists in the stream but is not pending becomes pending (Redis's FORCE).
  bool force = false;
  // Return ids only, and leave the delivery count alone (Redis's JUSTID).
  bool just_ids = false;
  // Move the group's last delivered id up to this id, if it is below (Redis's LASTID).
  std::optional<StreamId> last_id;
};

// Redis's XAUTOCLAIM: claims up to `count` pending entries idle at least min_idle_ms, walking
// the group's pending entries from `start`.
struct StreamAutoClaimRequest {
  std::int64_t min_idle_ms = 0;
  StreamId start;
  std::uint64_t count = 100;  // REQUIRES: at least 1.
  bool just_ids = false;
};

struct StreamClaimResult {
  StreamGroupOutcome outcome = StreamGroupOutcome::kDone;
  // What was claimed, in order (with no fields when just_ids).
  std::vector<StreamEntry> claimed;
  // StreamAutoClaim: where the next call should start (0-0: the walk reached the end), and
  // the pending ids whose entries had been deleted from the stream, which it dropped.
  StreamId next;
  std::vector<StreamId> deleted;
};

// One group, as Redis's XINFO GROUPS reports it.
struct StreamGroupInfo {
  std::string name;
  std::uint64_t consumers = 0;
  std::uint64_t pending = 0;
  StreamId last_delivered_id;
  std::optional<std::uint64_t> entries_read;  // nullopt: unknown.
  // Entries not yet delivered; nullopt: unknown. Negative after a position set with more
  // entries read than the stream ever had, as in Redis.
  std::optional<std::int64_t> lag;
};

struct StreamConsumerInfo {
  std::string name;
  std::uint64_t pending = 0;
  std::int64_t seen_at_ms = 0;  // When it last read or claimed.
  std::int64_t idle_ms = 0;     // How long ago that was; never negative.
};

struct StreamConsumersResult {
  StreamGroupOutcome outcome = StreamGroupOutcome::kDone;
  std::vector<StreamConsumerInfo> consumers;  // By name.
};

}  // namespace cairn
