#include "records/record_ops.h"

#include "cairn/limits.h"
#include "records/decimal.h"
#include "records/record_validation.h"
#include "storage/key_codec.h"
#include "storage/rocks_status.h"
#include "storage/value_header.h"
#include "util/printable.h"
#include "util/status_macros.h"

namespace cairn::internal::record_ops {
namespace {

// A live (decoded, unexpired) record as stored.
struct Loaded {
  std::string stored;
  ValueHeader header;
  std::string_view payload() const { return Payload(stored); }
};

// Reads and decodes the record at row_key. nullopt when absent or expired; kCorruption when
// its header does not decode.
Result<std::optional<Loaded>> Load(Rows& rows, std::int64_t now_ms, std::string_view key,
                                   const std::string& row_key) {
  Loaded loaded;
  rocksdb::Status s = rows.Read(row_key, &loaded.stored);
  if (s.IsNotFound()) return std::optional<Loaded>();
  if (!s.ok()) return FromRocks(s, "read '" + Printable(key) + "'");
  CAIRN_ASSIGN_OR_RETURN(loaded.header, DecodeHeader(loaded.stored, key));
  if (IsExpired(loaded.header.expires_at_ms, now_ms)) return std::optional<Loaded>();
  return std::optional<Loaded>(std::move(loaded));
}

// A loaded record must hold a string for a string operation.
Status RequireString(const std::optional<Loaded>& loaded) {
  if (loaded && loaded->header.type != ValueType::kString) return WrongTypeError();
  return Status::Ok();
}

// Translates a write's status; the message (which costs an allocation) only on failure.
Status WriteStatus(const rocksdb::Status& s, const char* verb, std::string_view key) {
  if (s.ok()) return Status::Ok();
  return FromRocks(s, std::string(verb) + " '" + Printable(key) + "'");
}

Status WriteString(Rows& rows, std::string_view key, const std::string& row_key,
                   std::int64_t expires_at_ms, std::string_view value) {
  return WriteStatus(rows.Write(row_key, EncodeValue(ValueType::kString, expires_at_ms, value)),
                     "write", key);
}

Status RemoveRow(Rows& rows, std::string_view key, const std::string& row_key) {
  return WriteStatus(rows.Remove(row_key), "delete", key);
}

// Writes value with the resolved expiry, or removes the key when that expiry is already past.
Status WriteOrRemove(Rows& rows, std::string_view key, const std::string& row_key,
                     const ResolvedExpiry& expiry, std::string_view value) {
  if (expiry.already_past) return RemoveRow(rows, key, row_key);
  return WriteString(rows, key, row_key, expiry.expires_at_ms, value);
}

std::int64_t ExpiryOf(const std::optional<Loaded>& loaded) {
  return loaded ? loaded->header.expires_at_ms : 0;
}

// Rewrites a live record with a new expiry; the payload and type stay as they are.
Status Reexpire(Rows& rows, std::string_view key, const std::string& row_key, const Loaded& current,
                std::int64_t expires_at_ms) {
  return WriteStatus(
      rows.Write(row_key, EncodeValue(current.header.type, expires_at_ms, current.payload())),
      "write", key);
}

// Gives a live record a new expiry (Expiry::After or Expiry::At); a time already past deletes
// it. False if the key is absent.
Result<bool> ApplyExpiry(Rows& rows, std::int64_t now_ms, std::string_view key,
                         const Expiry& expiry) {
  CAIRN_RETURN_IF_ERROR(ValidateKey(key));
  CAIRN_RETURN_IF_ERROR(ValidateExpiry(expiry));
  CAIRN_ASSIGN_OR_RETURN(ResolvedExpiry resolved, ResolveExpiry(expiry, now_ms, 0));
  const std::string row_key = EncodeRowKey(RowTag::kKeyspace, key);
  CAIRN_ASSIGN_OR_RETURN(std::optional<Loaded> current, Load(rows, now_ms, key, row_key));
  if (!current) return false;
  if (resolved.already_past) {
    CAIRN_RETURN_IF_ERROR(RemoveRow(rows, key, row_key));
  } else {
    CAIRN_RETURN_IF_ERROR(Reexpire(rows, key, row_key, *current, resolved.expires_at_ms));
  }
  return true;
}

}  // namespace

Result<std::optional<std::string>> Get(Rows& rows, std::int64_t now_ms, std::string_view key) {
  CAIRN_RETURN_IF_ERROR(ValidateKey(key));
  const std::string row_key = EncodeRowKey(RowTag::kKeyspace, key);
  CAIRN_ASSIGN_OR_RETURN(std::optional<Loaded> loaded, Load(rows, now_ms, key, row_key));
  CAIRN_RETURN_IF_ERROR(RequireString(loaded));
  if (!loaded) return std::optional<std::string>();
  // Reuse the buffer RocksDB filled rather than copying the payload out of it.
  std::string value = std::move(loaded->stored);
  value.erase(0, kValueHeaderBytes);
  return std::optional<std::string>(std::move(value));
}

bool NeedsRead(const SetOptions& options) {
  return options.condition != SetCondition::kAlways || options.return_old ||
         options.expiry.kind() == Expiry::Kind::kKeep;
}

Result<SetResult> Set(Rows& rows, std::int64_t now_ms, std::string_view key, std::string_view value,
                      const SetOptions& options) {
  CAIRN_RETURN_IF_ERROR(ValidateKey(key));
  CAIRN_RETURN_IF_ERROR(ValidateValue(value));
  CAIRN_RETURN_IF_ERROR(ValidateExpiry(options.expiry));
  const std::string row_key = EncodeRowKey(RowTag::kKeyspace, key);

  SetResult result;
  std::optional<Loaded> current;
  if (NeedsRead(options)) {
    CAIRN_ASSIGN_OR_RETURN(current, Load(rows, now_ms, key, row_key));
    if (options.return_old) {
      CAIRN_RETURN_IF_ERROR(RequireString(current));
      if (current) result.old_value = std::string(current->payload());
    }
    if ((options.condition == SetCondition::kIfAbsent && current) ||
        (options.condition == SetCondition::kIfPresent && !current)) {
      return result;  // Condition not met: nothing written.
    }
  }
  CAIRN_ASSIGN_OR_RETURN(ResolvedExpiry expiry,
                         ResolveExpiry(options.expiry, now_ms, ExpiryOf(current)));
  CAIRN_RETURN_IF_ERROR(WriteOrRemove(rows, key, row_key, expiry, value));
  result.applied = true;
  return result;
}

Result<bool> Delete(Rows& rows, std::int64_t now_ms, std::string_view key) {
  CAIRN_RETURN_IF_ERROR(ValidateKey(key));
  const std::string row_key = EncodeRowKey(RowTag::kKeyspace, key);
  std::string stored;
  rocksdb::Status s = rows.Read(row_key, &stored);
  if (s.IsNotFound()) return false;
  if (!s.ok()) return FromRocks(s, "read '" + Printable(key) + "'");
  // A corrupt record counts as present: deleting it is how an administrator repairs it.
  auto header = DecodeHeader(stored, key);
  const bool live = !header.ok() || !IsExpired(header->expires_at_ms, now_ms);
  CAIRN_RETURN_IF_ERROR(RemoveRow(rows, key, row_key));
  return live;
}

Result<CasResult> CompareAndSwap(Rows& rows, std::int64_t now_ms, std::string_view key,
                                 std::string_view expected, std::string_view desired,
                                 const Expiry& expiry) {
  CAIRN_RETURN_IF_ERROR(ValidateKey(key));
  CAIRN_RETURN_IF_ERROR(ValidateValue(expected, "expected value"));
  CAIRN_RETURN_IF_ERROR(ValidateValue(desired, "new value"));
  CAIRN_RETURN_IF_ERROR(ValidateExpiry(expiry));
  const std::string row_key = EncodeRowKey(RowTag::kKeyspace, key);
  CAIRN_ASSIGN_OR_RETURN(std::optional<Loaded> current, Load(rows, now_ms, key, row_key));
  CAIRN_RETURN_IF_ERROR(RequireString(current));
  CasResult result;
  if (!current || current->payload() != expected) {
    if (current) result.current = std::string(current->payload());
    return result;
  }
  CAIRN_ASSIGN_OR_RETURN(ResolvedExpiry resolved,
                         ResolveExpiry(expiry, now_ms, current->header.expires_at_ms));
  CAIRN_RETURN_IF_ERROR(WriteOrRemove(rows, key, row_key, resolved, desired));
  result.swapped = true;
  return result;
}

Result<bool> CompareAndDelete(Rows& rows, std::int64_t now_ms, std::string_view key,
                              std::string_view expected) {
  CAIRN_RETURN_IF_ERROR(ValidateKey(key));
  CAIRN_RETURN_IF_ERROR(ValidateValue(expected, "expected value"));
  const std::string row_key = EncodeRowKey(RowTag::kKeyspace, key);
  CAIRN_ASSIGN_OR_RETURN(std::optional<Loaded> current, Load(rows, now_ms, key, row_key));
  CAIRN_RETURN_IF_ERROR(RequireString(current));
  if (!current || current->payload() != expected) return false;
  CAIRN_RETURN_IF_ERROR(RemoveRow(rows, key, row_key));
  return true;
}

Result<bool> Expire(Rows& rows, std::int64_t now_ms, std::string_view key, std::int64_t ttl_ms) {
  return ApplyExpiry(rows, now_ms, key, Expiry::After(ttl_ms));
}

Result<bool> ExpireAt(Rows& rows, std::int64_t now_ms, std::string_view key, std::int64_t at_ms) {
  return ApplyExpiry(rows, now_ms, key, Expiry::At(at_ms));
}

Result<bool> Persist(Rows& rows, std::int64_t now_ms, std::string_view key) {
  CAIRN_RETURN_IF_ERROR(ValidateKey(key));
  const std::string row_key = EncodeRowKey(RowTag::kKeyspace, key);
  CAIRN_ASSIGN_OR_RETURN(std::optional<Loaded> current, Load(rows, now_ms, key, row_key));
  if (!current || current->header.expires_at_ms == 0) return false;
  CAIRN_RETURN_IF_ERROR(Reexpire(rows, key, row_key, *current, 0));
  return true;
}

Result<TtlState> GetTtl(Rows& rows, std::int64_t now_ms, std::string_view key) {
  CAIRN_RETURN_IF_ERROR(ValidateKey(key));
  const std::string row_key = EncodeRowKey(RowTag::kKeyspace, key);
  CAIRN_ASSIGN_OR_RETURN(std::optional<Loaded> current, Load(rows, now_ms, key, row_key));
  TtlState state;
  if (!current) return state;
  const std::int64_t at = current->header.expires_at_ms;
  if (at == 0) {
    state.kind = TtlState::Kind::kNoExpiry;
    return state;
  }
  state.kind = TtlState::Kind::kExpires;
  state.expires_at_ms = at;
  state.remaining_ms = at - now_ms;
  return state;
}

Result<std::int64_t> IncrBy(Rows& rows, std::int64_t now_ms, std::string_view key,
                            std::int64_t delta) {
  CAIRN_RETURN_IF_ERROR(ValidateKey(key));
  const std::string row_key = EncodeRowKey(RowTag::kKeyspace, key);
  CAIRN_ASSIGN_OR_RETURN(std::optional<Loaded> current, Load(rows, now_ms, key, row_key));
  CAIRN_RETURN_IF_ERROR(RequireString(current));
  std::int64_t value = 0;
  if (current) {
    std::optional<std::int64_t> parsed = ParseCanonicalInt64(current->payload());
    if (!parsed) {
      return Status::InvalidArgument("value of '" + Printable(key) +
                                     "' is not an integer or out of range");
    }
    value = *parsed;
  }
  std::int64_t next = 0;
  if (__builtin_add_overflow(value, delta, &next)) {
    return Status::OutOfRange("increment of '" + Printable(key) + "' by " + std::to_string(delta) +
                              " would overflow a 64-bit integer");
  }
  CAIRN_RETURN_IF_ERROR(WriteString(rows, key, row_key, ExpiryOf(current), FormatInt64(next)));
  return next;
}

KeyType KeyTypeOf(ValueType type) {
  switch (type) {
    case ValueType::kHash:
      return KeyType::kHash;
    case ValueType::kSet:
      return KeyType::kSet;
    case ValueType::kZSet:
      return KeyType::kZSet;
    case ValueType::kList:
      return KeyType::kList;
    case ValueType::kStream:
      return KeyType::kStream;
    default:
      return KeyType::kString;
  }
}

Result<KeyType> Type(Rows& rows, std::int64_t now_ms, std::string_view key) {
  CAIRN_RETURN_IF_ERROR(ValidateKey(key));
  const std::string row_key = EncodeRowKey(RowTag::kKeyspace, key);
  CAIRN_ASSIGN_OR_RETURN(std::optional<Loaded> current, Load(rows, now_ms, key, row_key));
  return current ? KeyTypeOf(current->header.type) : KeyType::kNone;
}

Result<ScanPage> Scan(Rows& rows, std::int64_t now_ms, const ScanRequest& request) {
  CAIRN_RETURN_IF_ERROR(ValidateScan(request));
  const std::string row_prefix = EncodeRowKey(RowTag::kKeyspace, request.prefix);
  const std::string start =
      request.cursor.empty() ? row_prefix : EncodeRowKey(RowTag::kKeyspace, request.cursor);
  const std::size_t max_visits = request.count * kScanVisitFactor;

  ScanPage page;
  std::unique_ptr<rocksdb::Iterator> it = rows.NewIterator();
  it->Seek(start);
  std::size_t visits = 0;
  std::string last_key;
  for (; it->Valid() && it->key().starts_with(row_prefix); it->Next()) {
    if (page.entries.size() == request.count || visits == max_visits) {
      // More may follow. The cursor is the smallest key after the last one visited, so that it
      // is never empty (which would mean "done"), even when the last key visited is "".
      page.cursor = std::move(last_key);
      page.cursor.push_back('\0');
      break;
    }
    ++visits;
    const std::string_view row_key(it->key().data(), it->key().size());
    const std::string_view stored(it->value().data(), it->value().size());
    const std::string_view key = DecodeRowKey(row_key);
    last_key.assign(key);
    CAIRN_ASSIGN_OR_RETURN(ValueHeader header, DecodeHeader(stored, key));
    if (IsExpired(header.expires_at_ms, now_ms)) continue;
    const KeyType type = KeyTypeOf(header.type);
    page.entries.push_back(
        ScanEntry{std::string(key), type,
                  type == KeyType::kString ? std::string(Payload(stored)) : std::string(),
                  header.expires_at_ms});
  }
  CAIRN_RETURN_IF_ERROR(FromRocks(it->status(), "scan"));
  return page;
}

}  // namespace cairn::internal::record_ops
