// The types of streams (Records::Stream…): ids, entries, and what adds, trims and ranges take.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <vector>

#include "cairn/fields.h"

namespace cairn {

// A stream entry's id: milliseconds, then a sequence number among the entries of that
// millisecond. Ids order a stream's entries; Redis writes them "ms-seq".
struct StreamId {
  std::uint64_t ms = 0;
  std::uint64_t seq = 0;
  friend auto operator<=>(const StreamId&, const StreamId&) = default;
};

inline constexpr StreamId kMaxStreamId{UINT64_MAX, UINT64_MAX};

struct StreamEntry {
  StreamId id;
  // Its field-value pairs in the order added (a field may appear twice, as in Redis).
  std::vector<HashEntry> fields;
};

// Which entries a trim removes, always the oldest first (Redis's MAXLEN and MINID).
struct StreamTrimRule {
  enum class By {
    kNone,       // Trim nothing.
    kMaxLength,  // Remove entries until at most max_length are left.
    kMinId,      // Remove the entries whose ids are below min_id.
  };
  By by = By::kNone;
  std::uint64_t max_length = 0;
  StreamId min_id;
  // Remove at most this many entries; 0: no bound (Redis's LIMIT).
  std::uint64_t limit = 0;
  // kMaxLength: trim only once more than `slack` entries are over max_length, then down to
  // it. Redis's `~` lets a stream keep up to a node's worth (100) over; a slack does the same,
  // so that a capped stream trims a batch now and then rather than an entry on every add.
  std::uint64_t slack = 0;
};

struct StreamAddOptions {
  enum class IdMode {
    // The clock's milliseconds, or the last id's when the clock is behind them (ids never go
    // back), with the next free sequence number.
    kAuto,
    // id.ms with the next free sequence number (Redis's "ms-*").
    kAutoSequence,
    // id as given; it must be above the stream's last id.
    kExplicit,
  };
  IdMode id_mode = IdMode::kAuto;
  StreamId id;
  // Add nothing when the stream is absent (Redis's NOMKSTREAM). Default: create it.
  bool only_if_exists = false;
  // Applied after the entry is added (so MAXLEN 0 keeps no entry, not even the new one).
  StreamTrimRule trim;
};

enum class StreamAddOutcome {
  kAdded,
  kNoStream,      // only_if_exists, and the stream is absent: nothing was written.
  kIdTooSmall,    // The id is not above the stream's last id: nothing was written.
  kIdZero,        // The id is 0-0, which no entry may have: nothing was written.
  kIdsExhausted,  // The stream's last id is the greatest possible: nothing was written.
  // kAutoSequence for the last id's millisecond, whose sequence numbers are all taken:
  // nothing was written.
  kSequenceExhausted,
};

struct StreamAddResult {
  StreamAddOutcome outcome = StreamAddOutcome::kAdded;
  StreamId id;  // The new entry's id, when added.
};

// Which entries StreamRange returns: ids first … last, both included.
struct StreamRangeRequest {
  StreamId first;
  StreamId last = kMaxStreamId;
  // Newest first.
  bool reverse = false;
  // At most this many; 0: all.
  std::uint64_t count = 0;
};

// What a stream is, as Redis's XINFO STREAM reports it.
struct StreamSummary {
  std::uint64_t length = 0;
  StreamId last_id;                 // The greatest id ever added (entries since deleted included).
  StreamId first_id;                // The first entry's id; 0-0 when the stream is empty.
  StreamId max_deleted_id;          // The greatest id StreamDelete removed; 0-0 if none.
  std::uint64_t entries_added = 0;  // Entries ever added, deleted ones included.
  std::uint64_t groups = 0;         // Its consumer groups.
  std::optional<StreamEntry> first_entry;
  std::optional<StreamEntry> last_entry;
};

}  // namespace cairn
