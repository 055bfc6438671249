// Records: the base keyspace of Cairn — binary keys mapped to values, each with an optional
// absolute expiry time. A value is a string (Get, Set, …), a hash of fields (Hash…), a set
// of members (Set…), a sorted set of scored members (ZSet…), a list of items (List…) or a
// stream of entries (Stream…). The calls for one kind answer kWrongType on a key holding another;
// Delete, the expiry calls, Type, Rename and Scan take keys of every kind. Deleting or expiring a
// value of any kind is O(1) whatever its size: its members become unreachable at once and
// compaction removes them.
//
// Store (store.h) is Records whose calls are each atomic on its own; Transaction
// (transaction.h) is Records whose calls join one all-or-nothing commit. Code written against
// Records works in both. Each call is declared here once; a RecordsExecutor runs it.
//
// Expiry: a record whose expiry time is at or before the clock's now is absent to every read
// at once (lazy expiry); compaction removes it from disk later.
//
// Failure: every call validates its input against limits.h first and answers kInvalidArgument
// before anything is written. A record whose stored header cannot be decoded is reported as
// kCorruption by reads; conditional writes refuse to touch it (fail closed). Only an
// unconditional Set or a Delete replaces it. Inside a transaction, any call may fail with kBusy
// (lock wait timeout or deadlock): roll back and retry, or use Store::RunTransaction.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "cairn/fields.h"
#include "cairn/result.h"
#include "cairn/status.h"
#include "cairn/stream_groups.h"
#include "cairn/stream_types.h"

namespace cairn {

// What expiry a write gives the record it writes.
class Expiry {
 public:
  enum class Kind { kNone, kAfter, kAt, kKeep };

  // No expiry: the record lives until deleted.
  static Expiry None() { return Expiry(Kind::kNone, 0); }
  // Expires ttl_ms after the write. REQUIRES: 0 < ttl_ms <= kMaxTtlMs.
  static Expiry After(std::int64_t ttl_ms) { return Expiry(Kind::kAfter, ttl_ms); }
  // Expires at the absolute clock time at_ms. REQUIRES: 0 < at_ms <= now + kMaxTtlMs.
  // A time already past makes the write store nothing and delete the key, as Redis's PXAT does.
  static Expiry At(std::int64_t at_ms) { return Expiry(Kind::kAt, at_ms); }
  // Keeps the expiry the record already has (none if the record is absent).
  static Expiry Keep() { return Expiry(Kind::kKeep, 0); }

  Kind kind() const { return kind_; }
  std::int64_t ms() const { return ms_; }

 private:
  Expiry(Kind kind, std::int64_t ms) : kind_(kind), ms_(ms) {}
  Kind kind_;
  std::int64_t ms_;
};

enum class SetCondition {
  kAlways,     // Write whether or not the key exists.
  kIfAbsent,   // Write only if the key is absent (Redis NX).
  kIfPresent,  // Write only if the key is present (Redis XX).
};

struct SetOptions {
  // Default: no expiry.
  Expiry expiry = Expiry::None();
  // Default: kAlways.
  SetCondition condition = SetCondition::kAlways;
  // Return the value the key held before the call (Redis GET option). Default: false.
  bool return_old = false;
};

struct SetResult {
  // False when the condition was not met; nothing was written then.
  bool applied = false;
  // The previous value, when SetOptions::return_old was set and the key held one.
  std::optional<std::string> old_value;
};

struct CasResult {
  // True when the stored value equalled `expected` and was replaced.
  bool swapped = false;
  // When not swapped: the value found (nullopt if the key was absent).
  std::optional<std::string> current;
};

// Remaining lifetime of a key.
struct TtlState {
  enum class Kind { kMissing, kNoExpiry, kExpires };
  Kind kind = Kind::kMissing;
  // Milliseconds until expiry (> 0) when kind == kExpires; 0 otherwise.
  std::int64_t remaining_ms = 0;
  // Absolute expiry time when kind == kExpires; 0 otherwise.
  std::int64_t expires_at_ms = 0;
};

struct ScanRequest {
  // Only keys that start with these bytes. Default: every key.
  std::string_view prefix;
  // Where to resume: empty for the first call, then ScanPage::cursor of the previous call.
  std::string_view cursor;
  // How many records to return at most. REQUIRES: 1 <= count <= kMaxScanCount. Default: 100.
  std::size_t count = 100;
};

// The kind of value a key holds.
enum class KeyType { kNone, kString, kHash, kSet, kZSet, kList, kStream };

struct ScanEntry {
  std::string key;
  KeyType type = KeyType::kString;
  std::string value;               // A string's value; empty for other kinds.
  std::int64_t expires_at_ms = 0;  // 0: no expiry.
};

struct ScanPage {
  // Live records in key order (byte-wise).
  std::vector<ScanEntry> entries;
  // Empty when the scan is complete; otherwise pass it back to continue (it is the smallest key
  // after the last one visited). A page can be empty with a non-empty cursor when the call
  // stopped after visiting only expired rows.
  std::string cursor;
};

enum class RenameOutcome {
  kRenamed,       // The value and its expiry moved (renaming a key to itself also says so).
  kNoSuchKey,     // The source key is absent.
  kTargetExists,  // only_if_absent was set and the target holds a live key.
};

// A page of a hash's fields or a set's members.
struct MemberScanRequest {
  // Where to resume: empty for the first call, then the cursor of the previous page.
  std::string_view cursor;
  // How many to return at most. REQUIRES: 1 <= count <= kMaxScanCount. Default: 100.
  std::size_t count = 100;
};

struct HashPage {
  // Fields in byte order.
  std::vector<HashEntry> entries;
  // Empty when the hash has no more fields; otherwise pass it back to continue.
  std::string cursor;
};

struct SetPage {
  // Members in byte order.
  std::vector<std::string> members;
  // Empty when the set has no more members; otherwise pass it back to continue.
  std::string cursor;
};

// A member and its score, to write.
struct ZSetEntry {
  std::string_view member;
  double score = 0;  // REQUIRES: not NaN.
};

struct ScoredMember {
  std::string member;
  double score = 0;
};

struct ZSetPage {
  // Members in byte order of the member.
  std::vector<ScoredMember> entries;
  // Empty when the sorted set has no more members; otherwise pass it back to continue.
  std::string cursor;
};

// Which members of a sorted set ZSetRange returns, in score order (ties in member byte
// order), or the reverse.
struct ZRangeRequest {
  enum class By {
    kRank,   // ranks start…stop, both included; negative ranks count from the end (-1: last)
    kScore,  // scores between min_score and max_score
    kLex,    // members between min_member and max_member (meant for equal scores, as Redis's)
  };
  struct ScoreBound {
    double value = 0;
    bool exclusive = false;
  };
  struct MemberBound {
    std::string_view value;
    bool exclusive = false;
    bool unbounded = false;  // No bound on this side.
  };
  By by = By::kRank;
  std::int64_t start = 0;
  std::int64_t stop = -1;
  ScoreBound min_score{-HUGE_VAL, false};
  ScoreBound max_score{HUGE_VAL, false};
  MemberBound min_member{{}, false, true};
  MemberBound max_member{{}, false, true};
  // Highest first; ranks then count from the highest.
  bool reverse = false;
  // kScore and kLex: skip this many matches, then return at most `limit` (negative: all).
  std::int64_t offset = 0;
  std::int64_t limit = -1;
};

// One end of a list: the head (item 0, Redis's "left") or the tail ("right").
enum class ListEnd { kHead, kTail };

enum class ListSetOutcome {
  kSet,         // The item was replaced.
  kNoSuchKey,   // The list is absent.
  kOutOfRange,  // The list has no item at that index.
};

// Which matches of a value ListPosition reports, as Redis's LPOS options say.
struct ListPositionOptions {
  // Start at the rank-th match from the head (1: the first), or, when negative, the -rank-th
  // from the tail, walking towards the head. REQUIRES: rank != 0 and rank != INT64_MIN.
  // Default: 1.
  std::int64_t rank = 1;
  // How many matches to report at most; 0: all of them. Default: 1.
  std::uint64_t count = 1;
  // Compare at most this many items (from where the walk starts); 0: all. Default: 0.
  std::uint64_t max_len = 0;
};

namespace internal {
struct Keyspace;
}

// How one Records call uses the keyspace, which decides how an executor runs it.
enum class RecordAccess {
  kRead,          // Reads rows each good on its own: one row, or a scan (its own snapshot).
  kSnapshotRead,  // Reads several rows that must agree with each other: at one snapshot.
  kWrite,         // Reads and then writes rows: atomic as a whole.
  kBlindWrite,    // Writes rows it has not read: atomic row by row.
};

// What Records calls run on. Each call is declared once, in Records, as an operation over the
// keyspace with its RecordAccess; an executor decides how it runs: a Store's each call alone
// (store_core.h), a Transaction's inside its own commit, cairn-server's over another executor
// noting lock conflicts. The library's executors are the only ones that reach the keyspace;
// another executor wraps one of them and passes the operation on.
class RecordsExecutor {
 public:
  // The operation of one call, borrowed for the length of Run: op(keyspace, now_ms) runs it
  // and returns its status (its result stays with the caller).
  class Operation {
   public:
    template <typename Fn>
    requires(!std::is_same_v<std::remove_cvref_t<Fn>, Operation>) explicit Operation(Fn& fn)
        : target_(&fn), call_([](void* target, internal::Keyspace& ks, std::int64_t now_ms) {
            return (*static_cast<Fn*>(target))(ks, now_ms);
          }) {}
    Status operator()(internal::Keyspace& ks, std::int64_t now_ms) const {
      return call_(target_, ks, now_ms);
    }

   private:
    void* target_;
    Status (*call_)(void*, internal::Keyspace&, std::int64_t);
  };

  // Runs op as `access` says. Returns op's status, or the executor's own failure (a closed
  // store, a finished transaction — op does not run then — or a commit that failed).
  virtual Status Run(RecordAccess access, Operation op) = 0;

 protected:
  ~RecordsExecutor() = default;
};

class Records {
 public:
  // The calls run on `executor` (a Store's or a Transaction's), which must outlive this.
  explicit Records(RecordsExecutor& executor) : executor_(executor) {}
  Records(const Records&) = delete;
  Records& operator=(const Records&) = delete;

  // What the calls run on: wrap it to see every call's outcome (cairn-server notes kBusy).
  RecordsExecutor& executor() const { return executor_; }

  // The value of key, or nullopt when absent or expired.
  Result<std::optional<std::string>> Get(std::string_view key);

  // Writes value under key as the options say.
  Result<SetResult> Set(std::string_view key, std::string_view value,
                        const SetOptions& options = {});

  // Removes key. True if a live record was removed.
  Result<bool> Delete(std::string_view key);

  // Replaces the value with `desired` only if it currently equals `expected`. The new record's
  // expiry is `expiry` (default: keep the current one).
  Result<CasResult> CompareAndSwap(std::string_view key, std::string_view expected,
                                   std::string_view desired, Expiry expiry = Expiry::Keep());

  // Removes key only if its value equals `expected`. True if removed.
  Result<bool> CompareAndDelete(std::string_view key, std::string_view expected);

  // Sets the key to expire ttl_ms from now. False if the key is absent.
  // REQUIRES: 0 < ttl_ms <= kMaxTtlMs.
  Result<bool> Expire(std::string_view key, std::int64_t ttl_ms);

  // Sets the key to expire at the absolute time at_ms; a time at or before now deletes it.
  // False if the key is absent. REQUIRES: 0 < at_ms <= now + kMaxTtlMs.
  Result<bool> ExpireAt(std::string_view key, std::int64_t at_ms);

  // Removes the key's expiry. True if the key had one.
  Result<bool> Persist(std::string_view key);

  // Remaining lifetime of key.
  Result<TtlState> GetTtl(std::string_view key);

  // Adds delta to the decimal integer stored at key (an absent key counts as 0) and returns the
  // new value. The key's expiry is kept. A value that is not a canonical decimal int64 is
  // kInvalidArgument; a result outside int64 is kOutOfRange; nothing is written then.
  Result<std::int64_t> IncrBy(std::string_view key, std::int64_t delta);

  // One page of the live records whose keys start with request.prefix, in key order. Records
  // written or removed while a scan is under way may or may not be seen; every record present
  // for the whole scan is returned exactly once.
  Result<ScanPage> Scan(const ScanRequest& request);

  // What kind of value key holds (kNone when absent or expired).
  Result<KeyType> Type(std::string_view key);

  // Moves the value of `from`, whatever its kind, and its expiry to `to`, replacing what `to`
  // held unless only_if_absent. A hash's fields (a list's items) are copied: O(their number).
  Result<RenameOutcome> Rename(std::string_view from, std::string_view to, bool only_if_absent);

  // Hashes. A hash exists while it has a field: writing the first creates it, removing the
  // last deletes it. Fields and values are binary; a field is at most kMaxKeyBytes, a value at
  // most kMaxValueBytes. A write keeps the hash's expiry. A small hash (at most 128 fields,
  // none of them or their values over 64 bytes) is stored in one row, read and written whole;
  // a larger one as a row per field, for good once it has grown past that.

  // The value of a field, or nullopt when the field or the hash is absent.
  Result<std::optional<std::string>> HashGet(std::string_view key, std::string_view field);
  // The values of several fields, in their order: HashGet of each, at one look at the hash.
  Result<std::vector<std::optional<std::string>>> HashGetMany(
      std::string_view key, std::span<const std::string_view> fields);
  // Writes the fields in order (a field named twice ends with its last value) and returns how
  // many of them were new.
  Result<std::size_t> HashSet(std::string_view key, std::span<const HashField> fields);
  // Removes the fields and returns how many were present.
  Result<std::size_t> HashDelete(std::string_view key, std::span<const std::string_view> fields);
  // How many fields the hash has (0 when absent).
  Result<std::uint64_t> HashLength(std::string_view key);
  // One page of the hash's fields, in byte order. Fields written or removed during a scan may
  // or may not be seen; every field present for the whole scan is returned exactly once.
  Result<HashPage> HashScan(std::string_view key, const MemberScanRequest& request);

  // Sets, as hashes without values: a set exists while it has a member. A member is at most
  // kMaxKeyBytes.

  // Adds the members; returns how many were not in the set.
  Result<std::size_t> SetAdd(std::string_view key, std::span<const std::string_view> members);
  // Removes the members; returns how many were in the set.
  Result<std::size_t> SetRemove(std::string_view key, std::span<const std::string_view> members);
  Result<bool> SetContains(std::string_view key, std::string_view member);
  // How many members the set has (0 when absent).
  Result<std::uint64_t> SetSize(std::string_view key);
  // One page of the set's members, in byte order, with HashScan's guarantees.
  Result<SetPage> SetScan(std::string_view key, const MemberScanRequest& request);

  // Sorted sets: members (at most kMaxKeyBytes) with scores, ordered by score and then by
  // member bytes. A sorted set exists while it has a member.

  // The member's score, or nullopt.
  Result<std::optional<double>> ZSetScore(std::string_view key, std::string_view member);
  // Writes the scores in order (a member named twice ends with its last score); returns how
  // many members were new. A NaN score is kInvalidArgument.
  Result<std::size_t> ZSetPut(std::string_view key, std::span<const ZSetEntry> entries);
  // Removes the members; returns how many were present.
  Result<std::size_t> ZSetRemove(std::string_view key, std::span<const std::string_view> members);
  Result<std::uint64_t> ZSetSize(std::string_view key);
  // The members the request selects, in its order. O(members visited): a rank range walks
  // from the start (or the end, reversed).
  Result<std::vector<ScoredMember>> ZSetRange(std::string_view key, const ZRangeRequest& request);
  // The member's rank (0: lowest score; with `reverse`, 0: highest), or nullopt. O(rank).
  Result<std::optional<std::uint64_t>> ZSetRank(std::string_view key, std::string_view member,
                                                bool reverse);
  // One page of members in byte order of the member, with HashScan's guarantees.
  Result<ZSetPage> ZSetScan(std::string_view key, const MemberScanRequest& request);

  // Lists: items (binary, each at most kMaxValueBytes) in order, item 0 at the head. A list
  // exists while it has an item: pushing the first creates it, removing the last deletes it.
  // Indexes are Redis's: 0 is the head, -1 the tail, -2 the item before it, and so on. Writes
  // keep the list's expiry. Costs: pushes and pops O(items pushed or popped), a length or an
  // index O(1), a range O(items returned); LREM, LINSERT and LPOS walk the list; LINSERT and
  // LREM then rewrite the items on the shorter side of the change. Every call answers
  // kWrongType for a key of another kind, and kInvalidArgument for an item (or a value to
  // compare items with) over kMaxValueBytes, before anything is written.

  // Pushes the values one after another at `end` (pushing a, b, c at the head leaves c, b, a
  // in front) and returns the list's new length. With only_if_exists, an absent list is left
  // absent and the result is 0. REQUIRES: values is not empty.
  Result<std::uint64_t> ListPush(std::string_view key, std::span<const std::string_view> values,
                                 ListEnd end, bool only_if_exists);
  // Removes up to `count` items from `end` and returns them in the order removed; an empty
  // vector when count is 0. nullopt when the list is absent (then count is not looked at).
  Result<std::optional<std::vector<std::string>>> ListPop(std::string_view key, ListEnd end,
                                                          std::uint64_t count);
  // How many items the list has (0 when absent).
  Result<std::uint64_t> ListLength(std::string_view key);
  // The items from index start to index stop, both included, clamped to the list as Redis's
  // LRANGE clamps them; empty when the range holds none or the list is absent.
  Result<std::vector<std::string>> ListRange(std::string_view key, std::int64_t start,
                                             std::int64_t stop);
  // The item at index, or nullopt when the list is absent or has no such item.
  Result<std::optional<std::string>> ListIndex(std::string_view key, std::int64_t index);
  // Replaces the item at index with value.
  Result<ListSetOutcome> ListSet(std::string_view key, std::int64_t index, std::string_view value);
  // Removes items equal to value and returns how many: with count > 0 the first count of them
  // from the head, with count < 0 the first -count from the tail, with count 0 all of them.
  Result<std::uint64_t> ListRemove(std::string_view key, std::int64_t count,
                                   std::string_view value);
  // Keeps only the items from index start to index stop (clamped as ListRange clamps them;
  // a range that holds none deletes the list) and returns how many items are left.
  Result<std::uint64_t> ListTrim(std::string_view key, std::int64_t start, std::int64_t stop);
  // Inserts value just before (or after) the first item equal to pivot, walking from the
  // head. Returns the new length, -1 when no item equals pivot, 0 when the list is absent.
  Result<std::int64_t> ListInsert(std::string_view key, bool before, std::string_view pivot,
                                  std::string_view value);
  // The indexes (from the head) of the items equal to value that options select, in the order
  // met: ascending for a positive rank, descending for a negative one. Empty when none match
  // or the list is absent. kInvalidArgument for a rank of 0 or INT64_MIN.
  Result<std::vector<std::uint64_t>> ListPosition(std::string_view key, std::string_view value,
                                                  const ListPositionOptions& options);
  // Pops an item from `from_end` of source and pushes it at `to_end` of destination, creating
  // it if absent, and returns the item; nullopt (and nothing written) when source is absent.
  // kWrongType when source is not a list, or destination holds something else (then nothing
  // is written). Source and destination may be the same list: it then rotates.
  Result<std::optional<std::string>> ListMove(std::string_view source, std::string_view destination,
                                              ListEnd from_end, ListEnd to_end);

  // Streams: append-only logs of entries (field-value pairs) ordered by id. Unlike the other
  // kinds a stream may be empty: it is created by its first StreamAdd and lives until deleted
  // or expired, keeping its last id, so ids only grow. Fields and values are binary, each at
  // most kMaxValueBytes. Costs: adding O(1) plus the entries trimmed, a range O(entries
  // returned), a delete O(ids given). Every call answers kWrongType for a key of another kind.

  // Adds an entry with the fields (REQUIRES: at least one) as options say, then trims.
  Result<StreamAddResult> StreamAdd(std::string_view key, std::span<const HashField> fields,
                                    const StreamAddOptions& options);
  // How many entries the stream has (0 when absent).
  Result<std::uint64_t> StreamLength(std::string_view key);
  // The entries the request selects, in its order; empty when the stream is absent.
  Result<std::vector<StreamEntry>> StreamRange(std::string_view key,
                                               const StreamRangeRequest& request);
  // Removes the entries with these ids and returns how many there were.
  Result<std::size_t> StreamDelete(std::string_view key, std::span<const StreamId> ids);
  // Removes the oldest entries as the rule says; returns how many.
  Result<std::uint64_t> StreamTrim(std::string_view key, const StreamTrimRule& rule);
  // The stream's summary, or nullopt when it is absent.
  Result<std::optional<StreamSummary>> StreamDescribe(std::string_view key);

  // Consumer groups of streams (stream_groups.h), each call one atomic step of Redis's group
  // commands. A call on a key with no stream answers kNoStream, on a group the stream has not
  // kNoGroup, having written nothing. Group and consumer names are binary, each at most
  // kMaxKeyBytes. Costs: O(entries or ids handled) plus O(log n) per pending row; a group's
  // state is deleted with its stream in O(1).

  // Creates the group at `position`; with make_stream, creates an absent stream (empty)
  // first.
  Result<StreamGroupOutcome> StreamGroupCreate(std::string_view key, std::string_view group,
                                               const StreamGroupPosition& position,
                                               bool make_stream);
  // Moves the group's last delivered id (and entries-read count) to `position`.
  Result<StreamGroupOutcome> StreamGroupSetPosition(std::string_view key, std::string_view group,
                                                    const StreamGroupPosition& position);
  // Deletes the group with its consumers and pending entries.
  Result<StreamGroupOutcome> StreamGroupDestroy(std::string_view key, std::string_view group);
  // Adds a consumer with nothing pending.
  Result<StreamGroupOutcome> StreamConsumerCreate(std::string_view key, std::string_view group,
                                                  std::string_view consumer);
  // Deletes the consumer with its pending entries (no longer pending for anyone) and returns
  // how many it had; 0 when it did not exist.
  Result<std::pair<StreamGroupOutcome, std::uint64_t>> StreamConsumerDelete(
      std::string_view key, std::string_view group, std::string_view consumer);
  // Redis's XREADGROUP on one stream: creates the consumer if new, then delivers as the
  // request says, updating the group's position and pending entries.
  Result<StreamGroupReadResult> StreamReadGroup(std::string_view key, std::string_view group,
                                                std::string_view consumer,
                                                const StreamGroupReadRequest& request);
  // Acknowledges the pending entries with these ids (no longer pending); returns how many were
  // pending (an id given twice counts once). 0 when the stream or group is absent.
  Result<std::uint64_t> StreamAck(std::string_view key, std::string_view group,
                                  std::span<const StreamId> ids);
  // The summary of the group's pending entries (result.summary).
  Result<StreamPendingResult> StreamPendingSummarize(std::string_view key, std::string_view group);
  // The group's pending entries the request selects (result.entries).
  Result<StreamPendingResult> StreamPendingRange(std::string_view key, std::string_view group,
                                                 const StreamPendingRequest& request);
  // Redis's XCLAIM. An id pending whose entry was deleted stops being pending.
  Result<StreamClaimResult> StreamClaim(std::string_view key, std::string_view group,
                                        std::string_view consumer,
                                        const StreamClaimRequest& request);
  // Redis's XAUTOCLAIM. Pending ids whose entries were deleted stop being pending and are
  // reported in result.deleted; each counts against request.count.
  Result<StreamClaimResult> StreamAutoClaim(std::string_view key, std::string_view group,
                                            std::string_view consumer,
                                            const StreamAutoClaimRequest& request);
  // The stream's groups, by name; nullopt when the stream is absent.
  Result<std::optional<std::vector<StreamGroupInfo>>> StreamGroups(std::string_view key);
  // The group's consumers, by name.
  Result<StreamConsumersResult> StreamConsumers(std::string_view key, std::string_view group);

 private:
  RecordsExecutor& executor_;
};

}  // namespace cairn
