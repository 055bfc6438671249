#include "testing/store_testing.h"

#include "records/rows.h"
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

Result<std::size_t> CountRawMemberRows(Store& store) {
  internal::StoreCore& core = store.core();
  std::unique_ptr<rocksdb::Iterator> it(
      core.db()->NewIterator(rocksdb::ReadOptions(), core.cf(ColumnFamily::kMembers)));
  std::size_t count = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++count;
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

Result<std::uint64_t> KeyspaceMemtableEntries(Store& store) {
  internal::StoreCore& core = store.core();
  std::uint64_t entries = 0;
  if (!core.db()->GetIntProperty(core.cf(ColumnFamily::kRecords),
                                 "rocksdb.num-entries-active-mem-table", &entries)) {
    return Status::Internal("the memtable entry count is not available");
  }
  return entries;
}

namespace {

// A raw write to the records column family, through Rows so that the row cache hears of it.
Status PutRawRecordsRow(Store& store, const std::string& row_key, std::string_view stored) {
  internal::StoreCore& core = store.core();
  const rocksdb::WriteOptions write_options;
  internal::DbRows rows(core.db(), core.cf(ColumnFamily::kRecords), core.read_options(),
                        write_options, core.row_cache(ColumnFamily::kRecords), core.health());
  return internal::FromRocks(rows.Write(row_key, stored), "raw put");
}

}  // namespace

Status PutRawKeyspaceRow(Store& store, std::string_view key, std::string_view stored) {
  return PutRawRecordsRow(store, EncodeRowKey(RowTag::kKeyspace, key), stored);
}

Status PutRawIdempotencyRow(Store& store, std::string_view encoded_key, std::string_view stored) {
  return PutRawRecordsRow(store, EncodeRowKey(RowTag::kIdempotency, encoded_key), stored);
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
