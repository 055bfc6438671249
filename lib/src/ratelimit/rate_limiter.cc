#include "cairn/ratelimit.h"
#include "ratelimit/bucket_math.h"
#include "storage/domain_row.h"
#include "storage/key_codec.h"
#include "store_core.h"
#include "transaction_core.h"
#include "util/printable.h"
#include "util/status_macros.h"

namespace cairn {

namespace internal {
// Bump the version (and branch on it) when fields change.
template <class Archive>
void serialize(Archive& ar, BucketState& s, std::uint32_t /*version*/) {
  ar(s.kind, s.capacity, s.period_ms, s.rate_count, s.a, s.b, s.c);
}
}  // namespace internal

}  // namespace cairn

CEREAL_CLASS_VERSION(cairn::internal::BucketState, 1)

namespace cairn {

using internal::BucketState;
using internal::ColumnFamily;
using internal::Printable;
using internal::Rows;

namespace {

std::string RowKey(std::string_view key) {
  return internal::EncodeRowKey(internal::RowTag::kBucket, key);
}

Status ValidateKey(std::string_view key) {
  if (key.empty()) return Status::InvalidArgument("rate limit key is empty");
  if (key.size() > kMaxRateLimitKeyBytes) {
    return Status::InvalidArgument("rate limit key is " + std::to_string(key.size()) +
                                   " bytes; the limit is " + std::to_string(kMaxRateLimitKeyBytes));
  }
  return Status::Ok();
}

// The key's live state, nullopt if none (or expired); kCorruption if undecodable.
Result<std::optional<BucketState>> Load(Rows& rows, std::int64_t now, std::string_view key) {
  const auto what = [&] { return "rate limit row '" + Printable(key) + "'"; };
  Result<std::optional<BucketState>> loaded = internal::LoadDomainRow<BucketState>(
      rows, RowKey(key), internal::ValueType::kBucket, now, internal::Lock::kExclusive, what);
  if (!loaded.ok() || !loaded->has_value()) return loaded;
  const BucketState& state = **loaded;
  const auto kind = static_cast<std::uint8_t>(state.kind);
  if (kind < static_cast<std::uint8_t>(Limit::Kind::kFixedWindow) ||
      kind > static_cast<std::uint8_t>(Limit::Kind::kGcra) || state.period_ms <= 0) {
    return Status::Corruption(what() + " holds invalid values");
  }
  return loaded;
}

Status Save(Rows& rows, std::string_view key, const BucketState& state,
            std::int64_t expires_at_ms) {
  return internal::StoreDomainRow(rows, RowKey(key), internal::ValueType::kBucket, expires_at_ms,
                                  state, [&] { return "rate limit row '" + Printable(key) + "'"; });
}

}  // namespace

class RateLimiter::Impl {
 public:
  explicit Impl(Store& store) : core_(store.core()) {}

  Result<Decision> Take(std::string_view key, const Limit& limit, std::int64_t cost, bool dry_run) {
    CAIRN_RETURN_IF_ERROR(ValidateKey(key));
    CAIRN_RETURN_IF_ERROR(limit.validity());
    if (cost < 1 || cost > limit.capacity()) {
      return Status::InvalidArgument("rate limit cost must be between 1 and the limit's capacity " +
                                     std::to_string(limit.capacity()) +
                                     " (a larger cost could never be admitted), got " +
                                     std::to_string(cost));
    }
    return internal::RunInTransaction(
        core_, ColumnFamily::kBuckets, [&](Rows& rows, std::int64_t now) -> Result<Decision> {
          CAIRN_ASSIGN_OR_RETURN(std::optional<BucketState> stored, Load(rows, now, key));
          internal::Evaluation e = internal::Evaluate(stored, limit, now, cost);
          // A refused take and a dry run change nothing.
          if (e.decision.allowed && !dry_run) {
            if (e.expires_at_ms > now) {
              CAIRN_RETURN_IF_ERROR(Save(rows, key, e.next, e.expires_at_ms));
            } else if (stored) {
              CAIRN_RETURN_IF_ERROR(internal::FromRocks(rows.Remove(RowKey(key)), "delete"));
            }
          }
          return e.decision;
        });
  }

  Result<bool> Reset(std::string_view key) {
    CAIRN_RETURN_IF_ERROR(ValidateKey(key));
    return internal::RunInTransaction(
        core_, ColumnFamily::kBuckets, [&](Rows& rows, std::int64_t now) -> Result<bool> {
          std::string stored;
          rocksdb::Status s = rows.Read(RowKey(key), &stored);
          if (s.IsNotFound()) return false;
          if (!s.ok()) return internal::FromRocks(s, "read rate limit '" + Printable(key) + "'");
          auto header = internal::DecodeHeader(stored, key);
          const bool live = !header.ok() || !internal::IsExpired(header->expires_at_ms, now);
          CAIRN_RETURN_IF_ERROR(internal::FromRocks(rows.Remove(RowKey(key)), "delete"));
          return live;
        });
  }

 private:
  internal::StoreCore& core_;
};

RateLimiter::RateLimiter(Store& store) : impl_(std::make_unique<Impl>(store)) {}

RateLimiter::~RateLimiter() = default;

Result<Decision> RateLimiter::Take(std::string_view key, const Limit& limit, std::int64_t cost,
                                   bool dry_run) {
  return impl_->Take(key, limit, cost, dry_run);
}

Result<Decision> RateLimiter::Peek(std::string_view key, const Limit& limit) {
  return impl_->Take(key, limit, 1, /*dry_run=*/true);
}

Result<bool> RateLimiter::Reset(std::string_view key) { return impl_->Reset(key); }

}  // namespace cairn
