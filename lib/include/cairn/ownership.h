// OwnerResult: the answer of an owner-checked call (idempotency claims, leases). Losing
// ownership is something a caller meets in normal operation, so it is a value, not an error.
#pragma once

namespace cairn {

enum class OwnerResult {
  kDone,      // The caller still owned the claim or lease; the change was made.
  kNotOwner,  // It did not (expired, released, or taken over); nothing changed.
};

}  // namespace cairn
