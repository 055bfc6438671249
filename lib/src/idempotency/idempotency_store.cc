#include <algorithm>

#include "cairn/idempotency.h"
#include "cairn/limits.h"
#include "idempotency/record_codec.h"
#include "records/record_validation.h"
#include "storage/key_codec.h"
#include "storage/rocks_status.h"
#include "storage/value_header.h"
#include "store_core.h"
#include "transaction_core.h"
#include "util/random_id.h"
#include "util/range_check.h"
#include "util/status_macros.h"
#include "util/wakeup_registry.h"

namespace cairn {

using internal::ColumnFamily;
using internal::Rows;

namespace {

// Longest claim id accepted as input (ours are 32 characters).
constexpr std::size_t kMaxClaimIdBytes = 256;

Status ValidateOutcome(const Outcome& outcome) {
  if (outcome.body.size() > kMaxOutcomeBodyBytes) {
    return Status::InvalidArgument("outcome body is " + std::to_string(outcome.body.size()) +
                                   " bytes; the limit is " + std::to_string(kMaxOutcomeBodyBytes));
  }
  if (outcome.metadata.size() > kMaxOutcomeMetadataEntries) {
    return Status::InvalidArgument("outcome has " + std::to_string(outcome.metadata.size()) +
                                   " metadata entries; the limit is " +
                                   std::to_string(kMaxOutcomeMetadataEntries));
  }
  std::size_t bytes = 0;
  for (const auto& [k, v] : outcome.metadata) bytes += k.size() + v.size();
  if (bytes > kMaxOutcomeMetadataBytes) {
    return Status::InvalidArgument("outcome metadata is " + std::to_string(bytes) +
                                   " bytes; the limit is " +
                                   std::to_string(kMaxOutcomeMetadataBytes));
  }
  return Status::Ok();
}

Status ValidateClaimId(std::string_view claim_id) {
  return internal::CheckSize("claim id", claim_id.size(), 1, kMaxClaimIdBytes);
}

Status ValidateLockTtl(std::int64_t ms) {
  Status s = internal::ValidateTtl(ms);
  if (!s.ok()) return Status::InvalidArgument("lock TTL: " + s.message());
  return s;
}

Status ValidateResultTtl(std::int64_t ms) {
  Status s = internal::ValidateTtl(ms);
  if (!s.ok()) return Status::InvalidArgument("result TTL: " + s.message());
  return s;
}

FailureKind DefaultClassify(const Status& status) {
  switch (status.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kWrongType:
    case StatusCode::kOutOfRange:
    case StatusCode::kFailedPrecondition:
    case StatusCode::kNotSupported:
    case StatusCode::kMismatch:
      return FailureKind::kPermanent;
    default:
      return FailureKind::kTransient;
  }
}

bool OwnedBy(const IdempotencyRecord& record, std::string_view claim_id, std::int64_t now_ms) {
  return record.state == IdempotencyState::kInProgress && record.claim_id == claim_id &&
         now_ms < record.lock_expires_at_ms;
}

}  // namespace

class IdempotencyStore::Impl {
 public:
  Impl(Store& store, IdempotencyOptions options) : core_(store.core()), options_(options) {}

  Status ValidateOptions() const {
    Status s = internal::ValidateTtl(options_.abandoned_retention_ms);
    if (!s.ok()) return Status::InvalidArgument("abandoned_retention_ms: " + s.message());
    return s;
  }

  Result<ClaimResult> Claim(const IdempotencyKey& key, const Fingerprint& fingerprint,
                            std::int64_t lock_ttl_ms) {
    CAIRN_RETURN_IF_ERROR(ValidateOptions());
    CAIRN_RETURN_IF_ERROR(ValidateLockTtl(lock_ttl_ms));
    // Fast path for duplicates: a settled record (or one for another request) only changes by
    // expiring or being deleted, so a plain read can answer without a transaction or a lock.
    CAIRN_ASSIGN_OR_RETURN(std::optional<IdempotencyRecord> seen, Get(key));
    if (seen) {
      if (seen->fingerprint != fingerprint) return ClaimResult(Mismatch{seen->fingerprint});
      if (seen->outcome) return ClaimResult(Completed{*seen->outcome});
    }
    return Mutate<ClaimResult>(
        key,
        [&](std::optional<IdempotencyRecord>& record, std::int64_t now,
            bool& changed) -> Result<ClaimResult> {
          if (record) {
            if (record->fingerprint != fingerprint)
              return ClaimResult(Mismatch{record->fingerprint});
            switch (record->state) {
              case IdempotencyState::kCompleted:
              case IdempotencyState::kFailed:
                return ClaimResult(Completed{*record->outcome});
              case IdempotencyState::kInProgress:
                if (now < record->lock_expires_at_ms) {
                  return ClaimResult(InProgress{record->lock_expires_at_ms - now, record->attempt});
                }
                break;  // The owner's lock lapsed: take over.
              case IdempotencyState::kReleased:
                break;
            }
          } else {
            record.emplace();
            record->fingerprint = fingerprint;
            record->created_at_ms = now;
          }
          CAIRN_ASSIGN_OR_RETURN(std::uint64_t fencing, core_.fencing_counter().Next());
          record->state = IdempotencyState::kInProgress;
          record->claim_id = internal::RandomId();
          record->fencing_token = fencing;
          record->attempt += 1;
          record->updated_at_ms = now;
          record->lock_expires_at_ms = now + lock_ttl_ms;
          record->expires_at_ms = record->lock_expires_at_ms + options_.abandoned_retention_ms;
          changed = true;
          return ClaimResult(Claimed{record->claim_id, record->fencing_token, record->attempt,
                                     record->lock_expires_at_ms});
        });
  }

  Result<OwnerResult> Complete(const IdempotencyKey& key, std::string_view claim_id,
                               const Outcome& outcome, std::int64_t result_ttl_ms) {
    CAIRN_RETURN_IF_ERROR(ValidateClaimId(claim_id));
    CAIRN_RETURN_IF_ERROR(ValidateOutcome(outcome));
    CAIRN_RETURN_IF_ERROR(ValidateResultTtl(result_ttl_ms));
    return Settle(key, claim_id, [&](IdempotencyRecord& record, std::int64_t now) {
      record.state = outcome.kind == Outcome::Kind::kPermanentFailure
                         ? IdempotencyState::kFailed
                         : IdempotencyState::kCompleted;
      record.outcome = outcome;
      record.expires_at_ms = now + result_ttl_ms;
    });
  }

  Result<OwnerResult> Fail(const IdempotencyKey& key, std::string_view claim_id, FailureKind kind,
                           std::string_view error, std::int64_t result_ttl_ms) {
    CAIRN_RETURN_IF_ERROR(ValidateOptions());
    CAIRN_RETURN_IF_ERROR(ValidateClaimId(claim_id));
    CAIRN_RETURN_IF_ERROR(ValidateResultTtl(result_ttl_ms));
    if (error.size() > kMaxOutcomeBodyBytes) {
      return Status::InvalidArgument("error message is " + std::to_string(error.size()) +
                                     " bytes; the limit is " +
                                     std::to_string(kMaxOutcomeBodyBytes));
    }
    return Settle(key, claim_id, [&](IdempotencyRecord& record, std::int64_t now) {
      if (kind == FailureKind::kTransient) {
        record.state = IdempotencyState::kReleased;
        record.lock_expires_at_ms = now;
        record.expires_at_ms = now + options_.abandoned_retention_ms;
        return;
      }
      record.state = IdempotencyState::kFailed;
      Outcome failure;
      failure.kind = Outcome::Kind::kPermanentFailure;
      failure.body = std::string(error);
      record.outcome = std::move(failure);
      record.expires_at_ms = now + result_ttl_ms;
    });
  }

  Result<OwnerResult> Extend(const IdempotencyKey& key, std::string_view claim_id,
                             std::int64_t lock_ttl_ms) {
    CAIRN_RETURN_IF_ERROR(ValidateOptions());
    CAIRN_RETURN_IF_ERROR(ValidateClaimId(claim_id));
    CAIRN_RETURN_IF_ERROR(ValidateLockTtl(lock_ttl_ms));
    return OwnerMutate(key, claim_id, [&](IdempotencyRecord& record, std::int64_t now) {
      record.lock_expires_at_ms = now + lock_ttl_ms;
      record.expires_at_ms = record.lock_expires_at_ms + options_.abandoned_retention_ms;
    });
  }

  Result<std::optional<IdempotencyRecord>> Get(const IdempotencyKey& key) {
    CAIRN_ASSIGN_OR_RETURN(internal::KeyspaceHold hold, core_.EnterKeyspace());
    internal::DbRows rows(core_.db(), core_.cf(ColumnFamily::kRecords), core_.read_options(),
                          core_.write_options(), core_.row_cache(ColumnFamily::kRecords),
                          core_.health());
    return Load(rows, core_.clock().NowMs(), key);
  }

  Result<bool> Delete(const IdempotencyKey& key) {
    const std::string row_key = RowKey(key);
    auto deleted = internal::RunInTransaction(
        core_, ColumnFamily::kRecords, [&](Rows& rows, std::int64_t now) -> Result<bool> {
          std::string stored;
          rocksdb::Status s = rows.Read(row_key, &stored);
          if (s.IsNotFound()) return false;
          if (!s.ok()) return internal::FromRocks(s, "read " + key.ToString());
          // A corrupt record counts as present: deleting it is how an administrator repairs it.
          auto header = internal::DecodeHeader(stored, key.ToString());
          const bool live = !header.ok() || !internal::IsExpired(header->expires_at_ms, now);
          CAIRN_RETURN_IF_ERROR(
              internal::FromRocks(rows.Remove(row_key), "delete " + key.ToString()));
          return live;
        });
    if (deleted.ok()) settle_waiters_.NotifyAll(key.encoded());
    return deleted;
  }

  Result<Outcome> Run(const IdempotencyKey& key, const Fingerprint& fingerprint, const RunFn& fn,
                      const RunOptions& options) {
    CAIRN_RETURN_IF_ERROR(ValidateLockTtl(options.lock_ttl_ms));
    CAIRN_RETURN_IF_ERROR(ValidateResultTtl(options.result_ttl_ms));
    CAIRN_RETURN_IF_ERROR(
        internal::CheckRange("settle_timeout_ms", options.settle_timeout_ms, 0, kMaxTtlMs, " ms"));
    const Clock& clock = core_.clock();
    const std::int64_t deadline = clock.NowMs() + options.settle_timeout_ms;
    Wakeup wakeup;
    internal::WakeupRegistry::Entry registration(settle_waiters_, key.encoded(), &wakeup);
    while (true) {
      Result<ClaimResult> result = Claim(key, fingerprint, options.lock_ttl_ms);
      if (!result.ok()) return result.status();
      const ClaimResult& claim = *result;
      if (auto* claimed = std::get_if<Claimed>(&claim)) {
        return RunClaimed(key, *claimed, fn, options);
      }
      if (auto* completed = std::get_if<Completed>(&claim)) return completed->outcome;
      if (auto* mismatch = std::get_if<Mismatch>(&claim)) {
        return Status::Mismatch("idempotency key " + key.ToString() +
                                " was first used with a different request (fingerprint " +
                                mismatch->stored.ToHex() + ", this one " + fingerprint.ToHex() +
                                "); refusing to run it");
      }
      const auto& in_progress = std::get<InProgress>(claim);
      const std::int64_t now = clock.NowMs();
      if (now >= deadline) {
        return Status::Conflict("idempotency key " + key.ToString() +
                                " is still in progress (attempt " +
                                std::to_string(in_progress.attempt) + ", lock expires in " +
                                std::to_string(in_progress.expires_in_ms) + " ms)");
      }
      // Woken by a settle through this store, or at the lock's expiry (its owner may have
      // died), or at our deadline — whichever comes first; then look again.
      clock.WaitUntil(wakeup, std::min(deadline, now + in_progress.expires_in_ms));
    }
  }

 private:
  static std::string RowKey(const IdempotencyKey& key) {
    return internal::EncodeRowKey(internal::RowTag::kIdempotency, key.encoded());
  }

  // The live record of key, nullopt if absent or expired; kCorruption if undecodable.
  static Result<std::optional<IdempotencyRecord>> Load(Rows& rows, std::int64_t now,
                                                       const IdempotencyKey& key) {
    std::string stored;
    rocksdb::Status s = rows.Read(RowKey(key), &stored);
    if (s.IsNotFound()) return std::optional<IdempotencyRecord>();
    if (!s.ok()) return internal::FromRocks(s, "read " + key.ToString());
    // Messages name the business key; the scoped name is built only when something fails.
    CAIRN_ASSIGN_OR_RETURN(internal::ValueHeader header, internal::DecodeHeader(stored, key.key()));
    if (header.type != internal::ValueType::kIdempotency) {
      return Status::Corruption("idempotency record " + key.ToString() + " has value type " +
                                std::to_string(static_cast<int>(header.type)));
    }
    if (internal::IsExpired(header.expires_at_ms, now)) return std::optional<IdempotencyRecord>();
    CAIRN_ASSIGN_OR_RETURN(IdempotencyRecord record, internal::DecodeIdempotencyPayload(
                                                         internal::Payload(stored), key.key()));
    record.expires_at_ms = header.expires_at_ms;
    return std::optional<IdempotencyRecord>(std::move(record));
  }

  // Reads key's record in a transaction (locked) and lets fn(record, now, &changed) decide;
  // writes the record back if fn set `changed`. fn's result says what to answer.
  template <typename T, typename Fn>
  Result<T> Mutate(const IdempotencyKey& key, Fn&& fn) {
    const std::string row_key = RowKey(key);
    return internal::RunInTransaction(
        core_, ColumnFamily::kRecords, [&](Rows& rows, std::int64_t now) -> Result<T> {
          CAIRN_ASSIGN_OR_RETURN(std::optional<IdempotencyRecord> record, Load(rows, now, key));
          bool changed = false;
          CAIRN_ASSIGN_OR_RETURN(T result, fn(record, now, changed));
          if (changed && record) {
            CAIRN_RETURN_IF_ERROR(
                internal::FromRocks(rows.Write(row_key, internal::EncodeIdempotencyRecord(*record)),
                                    "write " + key.ToString()));
          }
          return result;
        });
  }

  // Applies change to key's record only while claim_id owns it.
  template <typename Change>
  Result<OwnerResult> OwnerMutate(const IdempotencyKey& key, std::string_view claim_id,
                                  Change&& change) {
    return Mutate<OwnerResult>(key,
                               [&](std::optional<IdempotencyRecord>& record, std::int64_t now,
                                   bool& changed) -> Result<OwnerResult> {
                                 if (!record || !OwnedBy(*record, claim_id, now))
                                   return OwnerResult::kNotOwner;
                                 change(*record, now);
                                 record->updated_at_ms = now;
                                 changed = true;
                                 return OwnerResult::kDone;
                               });
  }

  // OwnerMutate, then wakes the duplicates waiting on key.
  template <typename Change>
  Result<OwnerResult> Settle(const IdempotencyKey& key, std::string_view claim_id,
                             Change&& change) {
    auto result = OwnerMutate(key, claim_id, std::forward<Change>(change));
    if (result.ok() && *result == OwnerResult::kDone) settle_waiters_.NotifyAll(key.encoded());
    return result;
  }

  Result<Outcome> RunClaimed(const IdempotencyKey& key, const Claimed& claimed, const RunFn& fn,
                             const RunOptions& options) {
    Result<Outcome> produced = fn(claimed);
    const auto not_owner = [&] {
      return Status::NotOwner("the claim on " + key.ToString() + " (attempt " +
                              std::to_string(claimed.attempt) +
                              ") lapsed before the operation finished; its result was not "
                              "stored and must not be reported as done");
    };
    if (produced.ok()) {
      CAIRN_ASSIGN_OR_RETURN(OwnerResult done,
                             Complete(key, claimed.claim_id, *produced, options.result_ttl_ms));
      if (done == OwnerResult::kNotOwner) return not_owner();
      return produced;
    }
    const Status& error = produced.status();
    const FailureKind kind = options.classify ? options.classify(error) : DefaultClassify(error);
    std::string message = error.ToString();
    if (message.size() > kMaxOutcomeBodyBytes) message.resize(kMaxOutcomeBodyBytes);
    CAIRN_ASSIGN_OR_RETURN(OwnerResult done,
                           Fail(key, claimed.claim_id, kind, message, options.result_ttl_ms));
    if (kind == FailureKind::kTransient) return error;
    if (done == OwnerResult::kNotOwner) return not_owner();
    Outcome failure;
    failure.kind = Outcome::Kind::kPermanentFailure;
    failure.body = std::move(message);
    return failure;
  }

  internal::StoreCore& core_;
  const IdempotencyOptions options_;
  internal::WakeupRegistry settle_waiters_;
};

IdempotencyStore::IdempotencyStore(Store& store, IdempotencyOptions options)
    : impl_(std::make_unique<Impl>(store, options)) {}

IdempotencyStore::~IdempotencyStore() = default;

Result<ClaimResult> IdempotencyStore::Claim(const IdempotencyKey& key,
                                            const Fingerprint& fingerprint,
                                            std::int64_t lock_ttl_ms) {
  return impl_->Claim(key, fingerprint, lock_ttl_ms);
}

Result<OwnerResult> IdempotencyStore::Complete(const IdempotencyKey& key, std::string_view claim_id,
                                               const Outcome& outcome, std::int64_t result_ttl_ms) {
  return impl_->Complete(key, claim_id, outcome, result_ttl_ms);
}

Result<OwnerResult> IdempotencyStore::Fail(const IdempotencyKey& key, std::string_view claim_id,
                                           FailureKind kind, std::string_view error,
                                           std::int64_t result_ttl_ms) {
  return impl_->Fail(key, claim_id, kind, error, result_ttl_ms);
}

Result<OwnerResult> IdempotencyStore::Extend(const IdempotencyKey& key, std::string_view claim_id,
                                             std::int64_t lock_ttl_ms) {
  return impl_->Extend(key, claim_id, lock_ttl_ms);
}

Result<std::optional<IdempotencyRecord>> IdempotencyStore::Get(const IdempotencyKey& key) {
  return impl_->Get(key);
}

Result<bool> IdempotencyStore::Delete(const IdempotencyKey& key) { return impl_->Delete(key); }

Result<Outcome> IdempotencyStore::Run(const IdempotencyKey& key, const Fingerprint& fingerprint,
                                      const RunFn& fn, const RunOptions& options) {
  return impl_->Run(key, fingerprint, fn, options);
}

}  // namespace cairn
