// Idempotency records: claim a key, run the side effect once, store its outcome; duplicates
// get the stored outcome, a different request under the same key is refused.
//
// Lifecycle of a record (one per IdempotencyKey):
//   Claim → kInProgress (owned by one claim id, with a lock TTL)
//     → Complete          → kCompleted, outcome stored for the result TTL
//     → Fail(kPermanent)  → kFailed, the error stored as the outcome for the result TTL
//     → Fail(kTransient)  → kReleased: the next Claim runs it again (attempt + 1)
//     → lock TTL passes   → the next Claim takes over (attempt + 1, higher fencing token)
//
// Every call is one store transaction, so a claim is atomic under any number of threads. Only
// the claim that currently owns an in-progress record (its claim id, lock not yet expired) can
// complete, fail or extend it; anyone else gets OwnerResult::kNotOwner and nothing changes, so a
// stale owner can never overwrite a newer claim. Fencing tokens come from one persisted
// counter per store: strictly increasing across claims, expiry and restarts.
//
// Records live in the store's `records` column family under their own row tag, survive
// restart, and expire by the same TTL machinery as every record. A record whose bytes cannot
// be decoded fails closed: kCorruption, never treated as absent and never overwritten.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "cairn/fingerprint.h"
#include "cairn/ownership.h"
#include "cairn/result.h"
#include "cairn/store.h"

namespace cairn {

// Longest business key, and longest namespace or version, in bytes.
inline constexpr std::size_t kMaxIdempotencyKeyBytes = 1024;
inline constexpr std::size_t kMaxIdempotencyScopeBytes = 256;
// Limits of a stored outcome.
inline constexpr std::size_t kMaxOutcomeBodyBytes = 16 * 1024 * 1024;
inline constexpr std::size_t kMaxOutcomeMetadataEntries = 64;
inline constexpr std::size_t kMaxOutcomeMetadataBytes = 64 * 1024;  // All keys and values.

// A business key scoped by namespace and version: ("tenant-a", "2.0.0", "order-1234"). Each part
// is length-prefixed in the canonical encoding, so ("a:b", "", "c") and ("a", "b:c", "") differ.
class IdempotencyKey {
 public:
  // kInvalidArgument when key is empty or a part exceeds its limit. Namespace and version may
  // be empty.
  static Result<IdempotencyKey> Make(std::string_view name_space, std::string_view version,
                                     std::string_view key);
  static Result<IdempotencyKey> Make(std::string_view key) { return Make("", "", key); }

  const std::string& name_space() const { return name_space_; }
  const std::string& version() const { return version_; }
  const std::string& key() const { return key_; }
  // The canonical, collision-free encoding (binary).
  const std::string& encoded() const { return encoded_; }
  // "namespace/version/key", for messages.
  std::string ToString() const;

 private:
  IdempotencyKey() = default;
  std::string name_space_, version_, key_, encoded_;
};

// What a completed (or permanently failed) operation answered.
struct Outcome {
  enum class Kind : std::uint8_t { kSuccess = 0, kPermanentFailure = 1 };
  Kind kind = Kind::kSuccess;
  // E.g. an HTTP status. For a permanent failure stored by Fail: 0.
  std::int32_t status_code = 0;
  // The response body; for a permanent failure, the error message.
  std::string body;
  // Small string metadata (e.g. response headers), within the limits above.
  std::map<std::string, std::string> metadata;

  friend bool operator==(const Outcome&, const Outcome&) = default;
};

enum class IdempotencyState : std::uint8_t {
  kInProgress = 0,  // Claimed; owned until lock_expires_at_ms.
  kReleased = 1,    // A transient failure gave the claim back; the next Claim retries.
  kCompleted = 2,
  kFailed = 3,  // Permanently failed; the error is the outcome.
};

struct IdempotencyRecord {
  IdempotencyState state = IdempotencyState::kInProgress;
  Fingerprint fingerprint;
  std::string claim_id;  // The current (or last) claim.
  std::uint64_t fencing_token = 0;
  std::uint32_t attempt = 0;
  std::int64_t created_at_ms = 0;
  std::int64_t updated_at_ms = 0;
  std::int64_t lock_expires_at_ms = 0;  // Meaningful in kInProgress.
  std::int64_t expires_at_ms = 0;       // When the record itself goes.
  std::optional<Outcome> outcome;       // kCompleted and kFailed.
};

// Claim answers: exactly one of these.
struct Claimed {
  std::string claim_id;
  std::uint64_t fencing_token = 0;
  std::uint32_t attempt = 0;  // 1 for the first claim of the key.
  std::int64_t lock_expires_at_ms = 0;
};
struct Completed {
  Outcome outcome;
};
struct InProgress {
  std::int64_t expires_in_ms = 0;  // Until the current claim's lock expires.
  std::uint32_t attempt = 0;
};
struct Mismatch {
  Fingerprint stored;  // The fingerprint of the request the key was first used with.
};
using ClaimResult = std::variant<Claimed, Completed, InProgress, Mismatch>;

enum class FailureKind {
  kTransient,  // Worth retrying: release the claim.
  kPermanent,  // Will fail again: store the error as the outcome.
};

struct IdempotencyOptions {
  // How long a record whose claim lapsed or was released is kept, so that the next claim
  // continues its attempt count. Default: 24 hours. Must be in (0, kMaxTtlMs].
  std::int64_t abandoned_retention_ms = 24LL * 60 * 60 * 1000;
};

struct RunOptions {
  // How long a claim owns the key. Default: 30 s.
  std::int64_t lock_ttl_ms = 30'000;
  // How long the outcome is kept. Default: 24 hours.
  std::int64_t result_ttl_ms = 24LL * 60 * 60 * 1000;
  // How long a duplicate waits for an in-progress claim to settle before kConflict.
  // Default: 10 s. 0: do not wait.
  std::int64_t settle_timeout_ms = 10'000;
  // Decides whether an error from fn is transient or permanent. Default (null): kInvalidArgument,
  // kWrongType, kOutOfRange, kFailedPrecondition, kNotSupported and kMismatch are permanent;
  // everything else is transient.
  std::function<FailureKind(const Status&)> classify;
};

class IdempotencyStore {
 public:
  // The store must outlive this object. Several IdempotencyStores over one Store share its
  // records (and its fencing counter); waiting duplicates are woken only by completions made
  // through the same IdempotencyStore, others wait until the lock TTL or their timeout.
  explicit IdempotencyStore(Store& store, IdempotencyOptions options = {});
  ~IdempotencyStore();
  IdempotencyStore(const IdempotencyStore&) = delete;
  IdempotencyStore& operator=(const IdempotencyStore&) = delete;

  // Claims key for a request with this fingerprint. REQUIRES: 0 < lock_ttl_ms <= kMaxTtlMs.
  Result<ClaimResult> Claim(const IdempotencyKey& key, const Fingerprint& fingerprint,
                            std::int64_t lock_ttl_ms);

  // Stores outcome if claim_id still owns key. REQUIRES: 0 < result_ttl_ms <= kMaxTtlMs and
  // outcome within the limits above.
  Result<OwnerResult> Complete(const IdempotencyKey& key, std::string_view claim_id,
                               const Outcome& outcome, std::int64_t result_ttl_ms);

  // kTransient releases the claim; kPermanent stores `error` as the outcome (kind
  // kPermanentFailure) for result_ttl_ms. Owner-checked like Complete.
  Result<OwnerResult> Fail(const IdempotencyKey& key, std::string_view claim_id, FailureKind kind,
                           std::string_view error, std::int64_t result_ttl_ms);

  // Moves the owner's lock expiry to now + lock_ttl_ms.
  Result<OwnerResult> Extend(const IdempotencyKey& key, std::string_view claim_id,
                             std::int64_t lock_ttl_ms);

  // The whole record, or nullopt if there is none (or it expired).
  Result<std::optional<IdempotencyRecord>> Get(const IdempotencyKey& key);

  // Removes the record whatever its state (an administrator's tool). True if one existed.
  Result<bool> Delete(const IdempotencyKey& key);

  // The whole lifecycle: claims key; if this call wins, runs fn and completes (or fails, as
  // options.classify says) and returns fn's outcome. A duplicate returns the stored outcome,
  // waiting up to settle_timeout_ms for an in-progress claim to settle (woken by its completion,
  // not by polling). Errors: kMismatch (different request), kConflict (still in progress after
  // the wait), kNotOwner (fn outlived its lock and another claim took over: nothing was stored),
  // fn's own error when it was transient. A permanent error is stored and returned as an
  // Outcome of kind kPermanentFailure, as duplicates will receive it.
  using RunFn = std::function<Result<Outcome>(const Claimed&)>;
  Result<Outcome> Run(const IdempotencyKey& key, const Fingerprint& fingerprint, const RunFn& fn,
                      const RunOptions& options = {});

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cairn
