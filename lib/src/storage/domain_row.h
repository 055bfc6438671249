// Reading and writing one domain row (a lease row, a bucket, a job…): the value header, then
// a cereal payload (util/cereal_codec.h). One function decides, for every engine, that a
// missing or expired row is absent, that a row of another type or undecodable bytes are
// kCorruption (never treated as absent, never overwritten), and which lock a read takes.
// The cereal `serialize` functions of T must be visible where these are instantiated.
#pragma once

#include <optional>
#include <string>

#include "records/rows.h"
#include "storage/rocks_status.h"
#include "storage/value_header.h"
#include "util/cereal_codec.h"

namespace cairn::internal {

// Which lock a read takes inside a transaction (outside one, none).
enum class Lock { kExclusive, kShared, kNone };

inline rocksdb::Status ReadRow(Rows& rows, const std::string& key, std::string* value, Lock lock) {
  switch (lock) {
    case Lock::kExclusive:
      return rows.Read(key, value);
    case Lock::kShared:
      return rows.ReadShared(key, value);
    case Lock::kNone:
      break;
  }
  return rows.ReadUnlocked(key, value);
}

// The row at key, decoded; nullopt if absent or expired at now_ms. `what` names it in
// messages ("lease 'x'"): a string, or a callable returning one, called only on error.
template <typename T, typename What>
Result<std::optional<T>> LoadDomainRow(Rows& rows, const std::string& key, ValueType type,
                                       std::int64_t now_ms, Lock lock, const What& what) {
  std::string stored;
  rocksdb::Status s = ReadRow(rows, key, &stored, lock);
  if (s.IsNotFound()) return std::optional<T>();
  if (!s.ok()) return FromRocks(s, "read " + Describe(what));
  Result<ValueHeader> header = DecodeHeader(stored, key);
  if (!header.ok()) return header.status();
  if (header->type != type) {
    return Status::Corruption(Describe(what) + " has value type " +
                              std::to_string(static_cast<int>(header->type)));
  }
  if (IsExpired(header->expires_at_ms, now_ms)) return std::optional<T>();
  T row;
  Status decoded = FromCereal(Payload(stored), &row, what);
  if (!decoded.ok()) return decoded;
  return std::optional<T>(std::move(row));
}

template <typename T, typename What>
Status StoreDomainRow(Rows& rows, const std::string& key, ValueType type,
                      std::int64_t expires_at_ms, const T& row, const What& what) {
  rocksdb::Status s = rows.Write(key, EncodeValue(type, expires_at_ms, ToCereal(row)));
  return s.ok() ? Status::Ok() : FromRocks(s, "write " + Describe(what));
}

}  // namespace cairn::internal
