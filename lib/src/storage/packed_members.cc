#include "storage/packed_members.h"

namespace cairn::internal {

std::string EncodePacked(const std::vector<HashField>& entries) {
  std::size_t bytes = 0;
  for (const HashField& e : entries) bytes += 2 + e.field.size() + e.value.size();
  std::string out;
  out.reserve(bytes);
  for (const HashField& e : entries) {
    out.push_back(static_cast<char>(e.field.size()));
    out.append(e.field);
    out.push_back(static_cast<char>(e.value.size()));
    out.append(e.value);
  }
  return out;
}

std::optional<std::vector<HashField>> DecodePacked(std::string_view packed) {
  std::vector<HashField> entries;
  std::size_t at = 0;
  // Reads one length-prefixed string at `at`; false when it overruns.
  auto take = [&](std::string_view* out) {
    if (at >= packed.size()) return false;
    const std::size_t length = static_cast<unsigned char>(packed[at]);
    if (length > kPackedMaxBytes || packed.size() - at - 1 < length) return false;
    *out = packed.substr(at + 1, length);
    at += 1 + length;
    return true;
  };
  while (at < packed.size()) {
    HashField e;
    if (!take(&e.field) || !take(&e.value)) return std::nullopt;
    if (!entries.empty() && !(entries.back().field < e.field)) return std::nullopt;
    entries.push_back(e);
  }
  if (entries.size() > kPackedMaxEntries) return std::nullopt;
  return entries;
}

}  // namespace cairn::internal
