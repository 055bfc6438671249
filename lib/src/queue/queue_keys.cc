#include "queue/queue_keys.h"

#include <algorithm>

#include "storage/big_endian.h"
#include "storage/key_codec.h"

namespace cairn::internal {
namespace {

void AppendName(std::string* out, std::string_view name) {
  // Names are at most kMaxQueueNameBytes (256), validated before any key is built.
  const auto size = static_cast<std::uint16_t>(name.size());
  out->push_back(static_cast<char>(size >> 8));
  out->push_back(static_cast<char>(size & 0xff));
  out->append(name);
}

std::string Tagged(RowTag tag, std::string_view rest) { return EncodeRowKey(tag, rest); }

}  // namespace

std::string GroupScope(std::string_view queue, std::string_view group) {
  std::string out;
  AppendName(&out, queue);
  AppendName(&out, group);
  return out;
}

std::string QueueMetaKey(std::string_view queue) {
  std::string rest;
  AppendName(&rest, queue);
  return Tagged(RowTag::kQueueMeta, rest);
}

std::string JobPrefix(std::string_view queue) {
  std::string rest;
  AppendName(&rest, queue);
  return Tagged(RowTag::kJob, rest);
}

std::string JobKey(std::string_view queue, std::string_view job_id) {
  std::string key = JobPrefix(queue);
  key.append(job_id);
  return key;
}

std::string DeliveryKey(std::string_view scope, std::string_view job_id) {
  std::string key = Tagged(RowTag::kDelivery, scope);
  key.append(job_id);
  return key;
}

std::string ReadyPrefix(std::string_view scope) { return Tagged(RowTag::kReadyIndex, scope); }

std::string LeasePrefix(std::string_view scope) { return Tagged(RowTag::kLeaseIndex, scope); }

std::string DeadPrefix(std::string_view scope) { return Tagged(RowTag::kDeadIndex, scope); }

std::string IndexPosition(std::int64_t due_ms, std::uint64_t seq) {
  std::string out;
  AppendBigEndian64(&out, static_cast<std::uint64_t>(std::max<std::int64_t>(0, due_ms)));
  AppendBigEndian64(&out, seq);
  return out;
}

std::optional<DecodedPosition> DecodePositionKey(std::string_view key, std::size_t prefix_size) {
  if (key.size() != prefix_size + 16) return std::nullopt;
  const char* p = key.data() + prefix_size;
  return DecodedPosition{static_cast<std::int64_t>(ReadBigEndian64(p)), ReadBigEndian64(p + 8)};
}

std::string SeqBytes(std::uint64_t seq) {
  std::string out;
  AppendBigEndian64(&out, seq);
  return out;
}

std::optional<std::uint64_t> DecodeDeadKey(std::string_view key, std::size_t prefix_size) {
  if (key.size() != prefix_size + 8) return std::nullopt;
  return ReadBigEndian64(key.data() + prefix_size);
}

}  // namespace cairn::internal
