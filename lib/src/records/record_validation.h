// Input checks for record operations, against the limits of cairn/limits.h. Each returns
// kInvalidArgument with a message that names the limit, before anything is read or written.
#pragma once

#include <cstdint>
#include <string_view>

#include "cairn/records.h"
#include "cairn/status.h"

namespace cairn::internal {

Status ValidateKey(std::string_view key);
Status ValidateValue(std::string_view value, std::string_view what = "value");
// REQUIRES of Expiry::After / Expiry::At that do not depend on the clock.
Status ValidateExpiry(const Expiry& expiry);
// 0 < ttl_ms <= kMaxTtlMs.
Status ValidateTtl(std::int64_t ttl_ms);
Status ValidateScan(const ScanRequest& request);

// kWrongType: the key holds another kind of value than the operation works on.
inline Status WrongTypeError() {
  return Status::WrongType("operation against a key holding the wrong kind of value");
}

// What expiry a write stores.
struct ResolvedExpiry {
  std::int64_t expires_at_ms = 0;  // 0: never.
  bool already_past = false;       // Expiry::At a time at or before now: delete, do not store.
};

// Resolves an (already validated) Expiry at `now_ms`. `current_expires_at_ms` is the expiry of
// the record being replaced (0 if none or absent), used by Expiry::Keep.
Result<ResolvedExpiry> ResolveExpiry(const Expiry& expiry, std::int64_t now_ms,
                                     std::int64_t current_expires_at_ms);

}  // namespace cairn::internal
