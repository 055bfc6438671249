#include "storage/member_prefix.h"

#include <cstdint>

#include "storage/big_endian.h"

namespace cairn::internal {
namespace {

constexpr std::size_t kFixedBytes = 1 + 4 + 8;  // Tag, key length, version.

// The prefix's length in `row`, or 0 when the row is not a member row key.
std::size_t PrefixLength(const rocksdb::Slice& row) {
  if (row.size() < kFixedBytes) return 0;
  const std::uint64_t key_length = ReadBigEndian32(row.data() + 1);
  if (key_length > row.size() - kFixedBytes) return 0;
  return kFixedBytes + key_length;
}

class MemberPrefixTransform final : public rocksdb::SliceTransform {
 public:
  const char* Name() const override { return "cairn.MemberPrefix"; }
  rocksdb::Slice Transform(const rocksdb::Slice& row) const override {
    return rocksdb::Slice(row.data(), PrefixLength(row));
  }
  bool InDomain(const rocksdb::Slice& row) const override { return PrefixLength(row) != 0; }
};

}  // namespace

std::shared_ptr<const rocksdb::SliceTransform> NewMemberPrefixTransform() {
  return std::make_shared<MemberPrefixTransform>();
}

}  // namespace cairn::internal
