// The fixed header every stored value begins with, and the one rule that decides expiry.
//
// Layout (10 bytes): format version (1 byte) · value type (1 byte) · expiry as big-endian
// int64 milliseconds since the epoch (0 = never) — then the payload. Every read path and every
// compaction filter decides "expired" with IsExpired below, so no path can disagree.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "cairn/result.h"

namespace cairn::internal {

inline constexpr std::uint8_t kValueFormatVersion = 1;
inline constexpr std::size_t kValueHeaderBytes = 10;

enum class ValueType : std::uint8_t {
  kString = 1,       // A keyspace string (Records).
  kIdempotency = 2,  // An idempotency record (cereal payload).
  kLease = 3,        // A lease / semaphore row (cereal payload).
  kBucket = 4,       // Rate-limit state (cereal payload).
  kQueueMeta = 5,    // A queue's consumer groups (cereal payload).
  kJob = 6,          // A job, or the tombstone that reserves a finished job's id (cereal).
  kDelivery = 7,     // A job's delivery state in one group (cereal payload).
  kQueueIndex = 8,   // A ready, lease or dead-letter entry; the payload is the job id.
  kHash = 9,         // A keyspace hash's metadata (composite_meta.h); fields in `members`.
  kMember = 10,      // A row of `members`: a member of a composite value; payload = its value.
  kSet = 11,         // A keyspace set's metadata (composite_meta.h); members in `members`.
  kZSet = 12,        // A keyspace sorted set's metadata; members and score index in `members`.
  kList = 13,        // A keyspace list's metadata (list_meta.h); items in `members`.
  kStream = 14,      // A keyspace stream's metadata (stream_meta.h); entries in `members`.
};

inline bool IsKnownValueType(std::uint8_t type) {
  return type >= static_cast<std::uint8_t>(ValueType::kString) &&
         type <= static_cast<std::uint8_t>(ValueType::kStream);
}

struct ValueHeader {
  ValueType type = ValueType::kString;
  std::int64_t expires_at_ms = 0;  // 0: never.
};

// True when a value with this expiry is dead at `now_ms`. The single definition of expiry.
inline bool IsExpired(std::int64_t expires_at_ms, std::int64_t now_ms) {
  return expires_at_ms != 0 && expires_at_ms <= now_ms;
}

// Header followed by payload, in one allocation.
std::string EncodeValue(ValueType type, std::int64_t expires_at_ms, std::string_view payload);

// Decodes the header of a stored value. kCorruption (naming `key` in the message) when the
// bytes are too short, carry an unknown format version or an unknown type.
Result<ValueHeader> DecodeHeader(std::string_view stored, std::string_view key);

// The payload of a stored value whose header decoded.
inline std::string_view Payload(std::string_view stored) {
  return stored.substr(kValueHeaderBytes);
}

}  // namespace cairn::internal
