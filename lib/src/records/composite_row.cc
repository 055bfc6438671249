#include "records/composite_row.h"

#include "records/record_validation.h"
#include "storage/key_codec.h"
#include "storage/rocks_status.h"
#include "util/printable.h"
#include "util/status_macros.h"

namespace cairn::internal {

Result<CompositeRow> ReadCompositeRow(Rows& records, std::int64_t now_ms, std::string_view key,
                                      ValueType type) {
  CAIRN_RETURN_IF_ERROR(ValidateKey(key));
  CompositeRow row;
  row.row_key = EncodeRowKey(RowTag::kKeyspace, key);
  std::string stored;
  rocksdb::Status s = records.Read(row.row_key, &stored);
  if (s.IsNotFound()) return row;
  if (!s.ok()) return FromRocks(s, "read '" + Printable(key) + "'");
  CAIRN_ASSIGN_OR_RETURN(ValueHeader header, DecodeHeader(stored, key));
  if (IsExpired(header.expires_at_ms, now_ms)) return row;
  if (header.type != type) return WrongTypeError();
  row.expires_at_ms = header.expires_at_ms;
  row.payload = std::string(Payload(stored));
  return row;
}

}  // namespace cairn::internal
