// The stored form of an IdempotencyRecord: the value header (type kIdempotency, expiry = when
// the record goes) followed by a cereal portable-binary payload with an explicit class version,
// so records written by this version stay readable by later ones.
#pragma once

#include <string>
#include <string_view>

#include "cairn/idempotency.h"

namespace cairn::internal {

// Header + payload. record.expires_at_ms becomes the header's expiry.
std::string EncodeIdempotencyRecord(const IdempotencyRecord& record);

// Decodes the payload of a stored record (after its header). kCorruption when the bytes do not
// decode or hold values out of range; `key` names the record in the message.
Result<IdempotencyRecord> DecodeIdempotencyPayload(std::string_view payload, std::string_view key);

}  // namespace cairn::internal
