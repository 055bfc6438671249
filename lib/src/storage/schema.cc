#include "storage/schema.h"

#include <string>

#include "storage/big_endian.h"
#include "storage/key_codec.h"
#include "storage/rocks_status.h"

namespace cairn::internal {

Status CheckOrWriteSchema(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* meta,
                          std::string_view data_dir) {
  const std::string key = EncodeRowKey(RowTag::kMeta, "schema_version");
  std::string stored;
  rocksdb::Status s = db->Get(rocksdb::ReadOptions(), meta, key, &stored);
  if (s.IsNotFound()) {
    std::string value;
    AppendBigEndian32(&value, kSchemaVersion);
    rocksdb::WriteOptions sync_write;
    sync_write.sync = true;
    return FromRocks(db->Put(sync_write, meta, key, value), "write schema version");
  }
  if (!s.ok()) return FromRocks(s, "read schema version");
  if (stored.size() != 4) {
    return Status::Corruption("schema version in " + std::string(data_dir) + " is " +
                              std::to_string(stored.size()) + " bytes instead of 4");
  }
  std::uint32_t version = ReadBigEndian32(stored.data());
  if (version > kSchemaVersion) {
    return Status::FailedPrecondition(
        "data directory " + std::string(data_dir) + " was written by a newer Cairn (schema " +
        "version " + std::to_string(version) + "); this build reads schema version " +
        std::to_string(kSchemaVersion) + " only. Upgrade Cairn to open it.");
  }
  if (version == 0) {
    return Status::Corruption("schema version in " + std::string(data_dir) + " is 0");
  }
  return Status::Ok();
}

}  // namespace cairn::internal
