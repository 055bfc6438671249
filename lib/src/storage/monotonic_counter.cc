#include "storage/monotonic_counter.h"

#include "storage/big_endian.h"
#include "storage/key_codec.h"
#include "storage/rocks_status.h"
#include "util/status_macros.h"

namespace cairn::internal {

MonotonicCounter::MonotonicCounter(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* meta,
                                   std::string name, std::uint64_t block)
    : db_(db),
      meta_(meta),
      row_key_(EncodeRowKey(RowTag::kMeta, "counter:" + name)),
      block_(block) {}

Result<std::uint64_t> MonotonicCounter::Next() {
  std::lock_guard<std::mutex> lock(mu_);
  if (last_ == limit_) CAIRN_RETURN_IF_ERROR(Reserve());
  return ++last_;
}

Status MonotonicCounter::Reserve() {
  if (!loaded_) {
    std::string stored;
    rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), meta_, row_key_, &stored);
    if (s.ok()) {
      if (stored.size() != 8) {
        return Status::Corruption("counter " + row_key_.substr(1) + " is " +
                                  std::to_string(stored.size()) + " bytes instead of 8");
      }
      last_ = limit_ = ReadBigEndian64(stored.data());
    } else if (!s.IsNotFound()) {
      return FromRocks(s, "read counter");
    }
    loaded_ = true;
  }
  const std::uint64_t next_limit = limit_ + block_;
  std::string value;
  AppendBigEndian64(&value, next_limit);
  rocksdb::WriteOptions durable;
  durable.sync = true;  // Reserved values must survive a power loss before they are used.
  CAIRN_RETURN_IF_ERROR(FromRocks(db_->Put(durable, meta_, row_key_, value), "reserve counter"));
  limit_ = next_limit;
  return Status::Ok();
}

}  // namespace cairn::internal
