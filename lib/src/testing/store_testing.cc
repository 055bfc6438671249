#include "testing/store_testing.h"

#include "storage/big_endian.h"
#include "storage/key_codec.h"
#include "storage/rocks_status.h"
#include "store_core.h"

namespace cairn::testing {

using internal::ColumnFamily;
using internal::EncodeRowKey;
using internal::RowTag;

Result<std::size_t> CountRawKeyspaceRows(Store& store) {
  internal::StoreCore& core = store.core();
  std::unique_ptr<rocksdb::Iterator> it(
      core.db()->NewIterator(rocksdb::ReadOptions(), core.cf(ColumnFamily::kRecords)));
  const std::string prefix(1, static_cast<char>(RowTag::kKeyspace));
  std::size_t count = 0;
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) ++count;
  Status s = internal::FromRocks(it->status(), "raw scan");
  if (!s.ok()) return s;
  return count;
}

Result<std::optional<std::string>> GetRawKeyspaceRow(Store& store, std::string_view key) {
  internal::StoreCore& core = store.core();
  std::string value;
  rocksdb::Status s = core.db()->Get(rocksdb::ReadOptions(), core.cf(ColumnFamily::kRecords),
                                     EncodeRowKey(RowTag::kKeyspace, key), &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  if (!s.ok()) return internal::FromRocks(s, "raw get");
  return std::optional<std::string>(std::move(value));
}

Status PutRawKeyspaceRow(Store& store, std::string_view key, std::string_view stored) {
  internal::StoreCore& core = store.core();
  return internal::FromRocks(
      core.db()->Put(rocksdb::WriteOptions(), core.cf(ColumnFamily::kRecords),
                     EncodeRowKey(RowTag::kKeyspace, key), stored),
      "raw put");
}

Status PutRawIdempotencyRow(Store& store, std::string_view encoded_key, std::string_view stored) {
  internal::StoreCore& core = store.core();
  return internal::FromRocks(
      core.db()->Put(rocksdb::WriteOptions(), core.cf(ColumnFamily::kRecords),
                     EncodeRowKey(RowTag::kIdempotency, encoded_key), stored),
      "raw put");
}

Status PutSchemaVersion(Store& store, std::uint32_t version) {
  internal::StoreCore& core = store.core();
  std::string value;
  internal::AppendBigEndian32(&value, version);
  return internal::FromRocks(core.db()->Put(rocksdb::WriteOptions(), core.cf(ColumnFamily::kMeta),
                                            EncodeRowKey(RowTag::kMeta, "schema_version"), value),
                             "raw put schema version");
}

}  // namespace cairn::testing
