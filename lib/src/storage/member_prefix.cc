#include "storage/member_prefix.h"

#include <optional>

#include "storage/key_codec.h"
#include "storage/member_key.h"

namespace cairn::internal {
namespace {

// Members written in order: a list's items at its ends, a stream's entries and pending rows
// by increasing id. The members of hashes, sets and sorted sets (and a sorted set's score
// index) land wherever their names or scores fall: a hint from the last one costs the
// skiplist more than a search from the top (redis-benchmark's ZADD of random members ran
// 17% slower with it).
bool WrittenInOrder(RowTag tag) {
  return tag == RowTag::kListItem || tag == RowTag::kStreamEntry || tag == RowTag::kStreamPending;
}

// The prefix's length in `row`, or 0 when the row is not a member row key written in order.
std::size_t PrefixLength(const rocksdb::Slice& row) {
  if (row.empty() || !WrittenInOrder(static_cast<RowTag>(row[0]))) return 0;
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
