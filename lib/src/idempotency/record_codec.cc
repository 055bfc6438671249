#include "idempotency/record_codec.h"

#include <cereal/archives/portable_binary.hpp>
#include <cereal/types/map.hpp>
#include <cereal/types/optional.hpp>
#include <cereal/types/string.hpp>
#include <sstream>

#include "storage/value_header.h"

namespace cairn {

// Free serialize functions, found by argument-dependent lookup. Bump a class's version (and
// branch on `version`) when its fields change; never reorder existing fields.
template <class Archive>
void save(Archive& ar, const Fingerprint& fp, std::uint32_t /*version*/) {
  ar(fp.high(), fp.low());
}
template <class Archive>
void load(Archive& ar, Fingerprint& fp, std::uint32_t /*version*/) {
  std::uint64_t high = 0, low = 0;
  ar(high, low);
  fp = Fingerprint(high, low);
}

template <class Archive>
void serialize(Archive& ar, Outcome& outcome, std::uint32_t /*version*/) {
  ar(outcome.kind, outcome.status_code, outcome.body, outcome.metadata);
}

template <class Archive>
void serialize(Archive& ar, IdempotencyRecord& r, std::uint32_t /*version*/) {
  // expires_at_ms lives in the value header, not here.
  ar(r.state, r.fingerprint, r.claim_id, r.fencing_token, r.attempt, r.created_at_ms,
     r.updated_at_ms, r.lock_expires_at_ms, r.outcome);
}

}  // namespace cairn

CEREAL_CLASS_VERSION(cairn::Fingerprint, 1)
CEREAL_CLASS_VERSION(cairn::Outcome, 1)
CEREAL_CLASS_VERSION(cairn::IdempotencyRecord, 1)

namespace cairn::internal {
namespace {

bool InRange(const IdempotencyRecord& r) {
  const auto state = static_cast<std::uint8_t>(r.state);
  if (state > static_cast<std::uint8_t>(IdempotencyState::kFailed)) return false;
  if (r.outcome && static_cast<std::uint8_t>(r.outcome->kind) >
                       static_cast<std::uint8_t>(Outcome::Kind::kPermanentFailure)) {
    return false;
  }
  const bool settled =
      r.state == IdempotencyState::kCompleted || r.state == IdempotencyState::kFailed;
  return settled == r.outcome.has_value();
}

}  // namespace

std::string EncodeIdempotencyRecord(const IdempotencyRecord& record) {
  std::ostringstream out;
  {
    cereal::PortableBinaryOutputArchive archive(out);
    archive(record);
  }
  return EncodeValue(ValueType::kIdempotency, record.expires_at_ms, out.str());
}

Result<IdempotencyRecord> DecodeIdempotencyPayload(std::string_view payload, std::string_view key) {
  IdempotencyRecord record;
  try {
    std::istringstream in{std::string(payload)};
    cereal::PortableBinaryInputArchive archive(in);
    archive(record);
    // Trailing bytes mean the record is not what this version wrote.
    if (in.peek() != std::char_traits<char>::eof()) throw std::runtime_error("trailing bytes");
  } catch (const std::exception& e) {
    return Status::Corruption("idempotency record '" + std::string(key) + "' cannot be decoded (" +
                              e.what() + "); refusing to use or overwrite it");
  }
  if (!InRange(record)) {
    return Status::Corruption("idempotency record '" + std::string(key) +
                              "' holds inconsistent values; refusing to use or overwrite it");
  }
  return record;
}

}  // namespace cairn::internal
