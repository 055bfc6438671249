#include "lease/lease_row.h"

#include <algorithm>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include "storage/domain_row.h"
#include "storage/key_codec.h"
#include "util/printable.h"

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

namespace {
std::string LeaseWhat(std::string_view resource) {
  return "lease row '" + Printable(resource) + "'";
}
}  // namespace

std::string LeaseRowKey(std::string_view resource) {
  return EncodeRowKey(RowTag::kLease, resource);
}

Result<LeaseRow> LoadLeaseRow(Rows& rows, const Clock& clock, std::string_view resource,
                              std::int64_t* now_ms) {
  // Lease rows have no expiry of their own: the instant given here does not matter.
  Result<std::optional<LeaseRow>> loaded =
      LoadDomainRow<LeaseRow>(rows, LeaseRowKey(resource), ValueType::kLease, clock.NowMs(),
                              Lock::kExclusive, [&] { return LeaseWhat(resource); });
  if (!loaded.ok()) return loaded.status();
  *now_ms = clock.NowMs();
  LeaseRow row = loaded->value_or(LeaseRow{});
  row.Prune(*now_ms);
  return row;
}

Status StoreLeaseRow(Rows& rows, std::string_view resource, const LeaseRow& row) {
  return StoreDomainRow(rows, LeaseRowKey(resource), ValueType::kLease, 0, row,
                        [&] { return LeaseWhat(resource); });
}

}  // namespace cairn::internal
