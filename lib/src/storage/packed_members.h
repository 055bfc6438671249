// The fields of a small hash kept inside its metadata row (composite_meta.h) instead of one
// `members` row each, as Redis keeps a small hash in one listpack. A job queue's job hash (a
// handful of short fields, written and read whole) is then one row: a write of its fields is one
// memtable insert instead of one per field, and HGETALL one point read instead of an iterator.
// A hash leaves this form for member rows for good once it outgrows it (Redis's
// hash-max-listpack-entries and hash-max-listpack-value, at their defaults).
//
// Layout: the entries in byte order of field, each field length (1 byte) · field · value length
// (1 byte) · value.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cairn/fields.h"

namespace cairn::internal {

inline constexpr std::size_t kPackedMaxEntries = 128;
inline constexpr std::size_t kPackedMaxBytes = 64;  // Of a field, and of a value.

// Whether a field and its value may be kept packed.
inline bool Packable(std::string_view field, std::string_view value) {
  return field.size() <= kPackedMaxBytes && value.size() <= kPackedMaxBytes;
}

// `entries` sorted by field, no field twice, each Packable, at most kPackedMaxEntries.
std::string EncodePacked(const std::vector<HashField>& entries);

// Views into `packed`; nullopt when it is not a well-formed encoding (truncated, or fields out
// of order).
std::optional<std::vector<HashField>> DecodePacked(std::string_view packed);

}  // namespace cairn::internal
