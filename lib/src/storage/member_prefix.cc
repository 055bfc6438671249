#include "storage/member_prefix.h"

#include <optional>

#include "storage/member_key.h"

namespace cairn::internal {
namespace {

// The prefix's length in `row`, or 0 when the row is not a member row key.
std::size_t PrefixLength(const rocksdb::Slice& row) {
  const std::optional<MemberKey> member = DecodeMemberKey(std::string_view(row.data(), row.size()));
  return member ? row.size() - member->member.size() : 0;
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
