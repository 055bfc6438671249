#include "storage/ttl_filter.h"

#include "storage/value_header.h"

namespace cairn::internal {

bool TtlCompactionFilter::Filter(int /*level*/, const rocksdb::Slice& key,
                                 const rocksdb::Slice& existing_value, std::string* /*new_value*/,
                                 bool* /*value_changed*/) const {
  auto header = DecodeHeader(std::string_view(existing_value.data(), existing_value.size()),
                             std::string_view(key.data(), key.size()));
  if (!header.ok()) return false;  // Fail closed: keep what we cannot read.
  return IsExpired(header->expires_at_ms, clock_->NowMs());
}

}  // namespace cairn::internal
