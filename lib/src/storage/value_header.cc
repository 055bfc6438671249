#include "storage/value_header.h"

#include "storage/big_endian.h"
#include "util/printable.h"

namespace cairn::internal {

std::string EncodeValue(ValueType type, std::int64_t expires_at_ms, std::string_view payload) {
  std::string out;
  out.reserve(kValueHeaderBytes + payload.size());
  out.push_back(static_cast<char>(kValueFormatVersion));
  out.push_back(static_cast<char>(type));
  AppendBigEndian64(&out, static_cast<std::uint64_t>(expires_at_ms));
  out.append(payload);
  return out;
}

Result<ValueHeader> DecodeHeader(std::string_view stored, std::string_view key) {
  if (stored.size() < kValueHeaderBytes) {
    return Status::Corruption("record '" + Printable(key) + "' is " +
                              std::to_string(stored.size()) +
                              " bytes, shorter than its header; refusing to use or overwrite it");
  }
  auto version = static_cast<std::uint8_t>(stored[0]);
  if (version != kValueFormatVersion) {
    return Status::Corruption("record '" + Printable(key) + "' has unknown format version " +
                              std::to_string(version) + "; refusing to use or overwrite it");
  }
  auto type = static_cast<std::uint8_t>(stored[1]);
  if (!IsKnownValueType(type)) {
    return Status::Corruption("record '" + Printable(key) + "' has unknown value type " +
                              std::to_string(type) + "; refusing to use or overwrite it");
  }
  auto expires_at = static_cast<std::int64_t>(ReadBigEndian64(stored.data() + 2));
  if (expires_at < 0) {
    return Status::Corruption("record '" + Printable(key) + "' has a negative expiry time");
  }
  return ValueHeader{static_cast<ValueType>(type), expires_at};
}

}  // namespace cairn::internal
