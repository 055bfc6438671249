#include "records/record_validation.h"

#include <string>

#include "cairn/limits.h"
#include "util/printable.h"

namespace cairn::internal {

Status ValidateKey(std::string_view key) {
  if (key.size() > kMaxKeyBytes) {
    return Status::InvalidArgument("key is " + std::to_string(key.size()) +
                                   " bytes; the limit is " + std::to_string(kMaxKeyBytes) +
                                   " (cairn::kMaxKeyBytes)");
  }
  return Status::Ok();
}

Status ValidateValue(std::string_view value, std::string_view what) {
  if (value.size() > kMaxValueBytes) {
    return Status::InvalidArgument(std::string(what) + " is " + std::to_string(value.size()) +
                                   " bytes; the limit is " + std::to_string(kMaxValueBytes) +
                                   " (cairn::kMaxValueBytes)");
  }
  return Status::Ok();
}

Status ValidateTtl(std::int64_t ttl_ms) {
  if (ttl_ms <= 0) {
    return Status::InvalidArgument("TTL must be a positive number of milliseconds, got " +
                                   std::to_string(ttl_ms));
  }
  if (ttl_ms > kMaxTtlMs) {
    return Status::InvalidArgument("TTL of " + std::to_string(ttl_ms) +
                                   " ms exceeds the limit of " + std::to_string(kMaxTtlMs) +
                                   " ms (100 years, cairn::kMaxTtlMs)");
  }
  return Status::Ok();
}

Status ValidateExpiry(const Expiry& expiry) {
  switch (expiry.kind()) {
    case Expiry::Kind::kNone:
    case Expiry::Kind::kKeep:
      return Status::Ok();
    case Expiry::Kind::kAfter:
      return ValidateTtl(expiry.ms());
    case Expiry::Kind::kAt:
      if (expiry.ms() <= 0) {
        return Status::InvalidArgument(
            "expiry time must be a positive number of milliseconds since the epoch, got " +
            std::to_string(expiry.ms()));
      }
      return Status::Ok();
  }
  return Status::InvalidArgument("unknown expiry kind");
}

Status ValidateScan(const ScanRequest& request) {
  if (request.count == 0 || request.count > kMaxScanCount) {
    return Status::InvalidArgument("scan count must be between 1 and " +
                                   std::to_string(kMaxScanCount) + ", got " +
                                   std::to_string(request.count));
  }
  if (Status s = ValidateKey(request.prefix); !s.ok()) {
    return Status::InvalidArgument("scan prefix: " + s.message());
  }
  // A cursor is a key followed by one more byte (see record_ops::Scan).
  if (request.cursor.size() > kMaxKeyBytes + 1) {
    return Status::InvalidArgument("scan cursor is " + std::to_string(request.cursor.size()) +
                                   " bytes; no cursor is longer than " +
                                   std::to_string(kMaxKeyBytes + 1));
  }
  if (!request.cursor.empty() && !request.cursor.starts_with(request.prefix)) {
    return Status::InvalidArgument("scan cursor '" + Printable(request.cursor) +
                                   "' does not belong to a scan of prefix '" +
                                   Printable(request.prefix) + "'");
  }
  return Status::Ok();
}

Result<ResolvedExpiry> ResolveExpiry(const Expiry& expiry, std::int64_t now_ms,
                                     std::int64_t current_expires_at_ms) {
  switch (expiry.kind()) {
    case Expiry::Kind::kNone:
      return ResolvedExpiry{};
    case Expiry::Kind::kKeep:
      return ResolvedExpiry{current_expires_at_ms, false};
    case Expiry::Kind::kAfter: {
      std::int64_t at = 0;
      if (__builtin_add_overflow(now_ms, expiry.ms(), &at)) {
        return Status::InvalidArgument("TTL of " + std::to_string(expiry.ms()) +
                                       " ms overflows the clock");
      }
      return ResolvedExpiry{at, false};
    }
    case Expiry::Kind::kAt: {
      std::int64_t latest = 0;
      if (!__builtin_add_overflow(now_ms, kMaxTtlMs, &latest) && expiry.ms() > latest) {
        return Status::InvalidArgument("expiry time " + std::to_string(expiry.ms()) +
                                       " is more than 100 years (cairn::kMaxTtlMs) from now");
      }
      return ResolvedExpiry{expiry.ms(), expiry.ms() <= now_ms};
    }
  }
  return Status::InvalidArgument("unknown expiry kind");
}

}  // namespace cairn::internal
