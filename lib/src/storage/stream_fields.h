// The value of a stream entry's row: its field-value pairs in the order given, each string
// length-prefixed (big-endian uint32) — a field may repeat, as in Redis, so they are kept as a
// sequence rather than a map.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cairn/records.h"
#include "storage/big_endian.h"

namespace cairn::internal {

inline std::string EncodeStreamFields(std::span<const HashField> fields) {
  std::size_t bytes = 0;
  for (const HashField& f : fields) bytes += 8 + f.field.size() + f.value.size();
  std::string out;
  out.reserve(bytes);
  for (const HashField& f : fields) {
    AppendBigEndian32(&out, static_cast<std::uint32_t>(f.field.size()));
    out.append(f.field);
    AppendBigEndian32(&out, static_cast<std::uint32_t>(f.value.size()));
    out.append(f.value);
  }
  return out;
}

// nullopt when the bytes are not a sequence of length-prefixed pairs.
inline std::optional<std::vector<HashEntry>> DecodeStreamFields(std::string_view bytes) {
  std::vector<HashEntry> out;
  auto next = [&](std::string* into) {
    if (bytes.size() < 4) return false;
    const std::uint32_t n = ReadBigEndian32(bytes.data());
    if (bytes.size() - 4 < n) return false;
    into->assign(bytes.substr(4, n));
    bytes.remove_prefix(4 + n);
    return true;
  };
  while (!bytes.empty()) {
    HashEntry& pair = out.emplace_back();
    if (!next(&pair.field) || !next(&pair.value)) return std::nullopt;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

}  // namespace cairn::internal
