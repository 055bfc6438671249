#include <string>

#include "cairn/idempotency.h"
#include "storage/big_endian.h"
#include "util/printable.h"

namespace cairn {
namespace {

Status CheckPart(std::string_view part, std::string_view what, std::size_t limit) {
  if (part.size() > limit) {
    return Status::InvalidArgument("idempotency " + std::string(what) + " is " +
                                   std::to_string(part.size()) + " bytes; the limit is " +
                                   std::to_string(limit));
  }
  return Status::Ok();
}

}  // namespace

Result<IdempotencyKey> IdempotencyKey::Make(std::string_view name_space, std::string_view version,
                                            std::string_view key) {
  if (key.empty()) return Status::InvalidArgument("idempotency key is empty");
  if (Status s = CheckPart(key, "key", kMaxIdempotencyKeyBytes); !s.ok()) return s;
  if (Status s = CheckPart(name_space, "namespace", kMaxIdempotencyScopeBytes); !s.ok()) return s;
  if (Status s = CheckPart(version, "version", kMaxIdempotencyScopeBytes); !s.ok()) return s;
  IdempotencyKey out;
  out.name_space_ = name_space;
  out.version_ = version;
  out.key_ = key;
  // Length-prefixed scope, then the key: no two (namespace, version, key) triples share an
  // encoding, whatever separators they contain.
  out.encoded_.reserve(8 + name_space.size() + version.size() + key.size());
  internal::AppendBigEndian32(&out.encoded_, static_cast<std::uint32_t>(name_space.size()));
  out.encoded_.append(name_space);
  internal::AppendBigEndian32(&out.encoded_, static_cast<std::uint32_t>(version.size()));
  out.encoded_.append(version);
  out.encoded_.append(key);
  return out;
}

std::string IdempotencyKey::ToString() const {
  return internal::Printable(name_space_) + "/" + internal::Printable(version_) + "/" +
         internal::Printable(key_);
}

}  // namespace cairn
