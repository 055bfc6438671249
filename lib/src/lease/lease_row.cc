#include "lease/lease_row.h"

#include <algorithm>
#include <cereal/archives/portable_binary.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>
#include <sstream>

#include "storage/key_codec.h"
#include "storage/rocks_status.h"
#include "storage/value_header.h"
#include "util/printable.h"
#include "util/status_macros.h"

namespace cairn {

// Bump a class's version (and branch on `version`) when its fields change.
template <class Archive>
void serialize(Archive& ar, LeaseHolder& h, std::uint32_t /*version*/) {
  ar(h.owner, h.token, h.fencing, h.acquired_at_ms, h.expires_at_ms);
}

namespace internal {
template <class Archive>
void serialize(Archive& ar, LeaseRow& row, std::uint32_t /*version*/) {
  ar(row.highest_fencing, row.holders);
}
}  // namespace internal

}  // namespace cairn

CEREAL_CLASS_VERSION(cairn::LeaseHolder, 1)
CEREAL_CLASS_VERSION(cairn::internal::LeaseRow, 1)

namespace cairn::internal {

bool LeaseRow::Prune(std::int64_t now_ms) {
  const auto dead = [&](const LeaseHolder& h) { return IsExpired(h.expires_at_ms, now_ms); };
  const std::size_t before = holders.size();
  holders.erase(std::remove_if(holders.begin(), holders.end(), dead), holders.end());
  return holders.size() != before;
}

LeaseHolder* LeaseRow::Find(std::string_view token) {
  for (LeaseHolder& h : holders) {
    if (h.token == token) return &h;
  }
  return nullptr;
}

std::string LeaseRowKey(std::string_view resource) {
  return EncodeRowKey(RowTag::kLease, resource);
}

Result<LeaseRow> LoadLeaseRow(Rows& rows, std::int64_t now_ms, std::string_view resource) {
  std::string stored;
  rocksdb::Status s = rows.Read(LeaseRowKey(resource), &stored);
  LeaseRow row;
  if (s.IsNotFound()) return row;
  if (!s.ok()) return FromRocks(s, "read lease '" + Printable(resource) + "'");
  CAIRN_ASSIGN_OR_RETURN(ValueHeader header, DecodeHeader(stored, resource));
  if (header.type != ValueType::kLease) {
    return Status::Corruption("lease row '" + Printable(resource) + "' has value type " +
                              std::to_string(static_cast<int>(header.type)));
  }
  try {
    std::istringstream in{std::string(Payload(stored))};
    cereal::PortableBinaryInputArchive archive(in);
    archive(row);
    if (in.peek() != std::char_traits<char>::eof()) throw std::runtime_error("trailing bytes");
  } catch (const std::exception& e) {
    return Status::Corruption("lease row '" + Printable(resource) + "' cannot be decoded (" +
                              e.what() + "); refusing to use or overwrite it");
  }
  row.Prune(now_ms);
  return row;
}

Status StoreLeaseRow(Rows& rows, std::string_view resource, const LeaseRow& row) {
  std::ostringstream out;
  {
    cereal::PortableBinaryOutputArchive archive(out);
    archive(row);
  }
  rocksdb::Status s =
      rows.Write(LeaseRowKey(resource), EncodeValue(ValueType::kLease, 0, out.str()));
  if (s.ok()) return Status::Ok();
  return FromRocks(s, "write lease '" + Printable(resource) + "'");
}

}  // namespace cairn::internal
