#include "queue/queue_rows.h"

#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include "queue/queue_keys.h"
#include "storage/domain_row.h"
#include "util/printable.h"

namespace cairn {

// Bump a class's version (and branch on `version`) when its fields change; never reorder.
template <class Archive>
void serialize(Archive& ar, Backoff& b, std::uint32_t /*version*/) {
  ar(b.kind, b.base_ms, b.max_ms, b.jitter);
}

template <class Archive>
void serialize(Archive& ar, JobError& e, std::uint32_t /*version*/) {
  ar(e.attempt, e.at_ms, e.consumer, e.message);
}

namespace internal {

template <class Archive>
void serialize(Archive& ar, GroupRow& g, std::uint32_t /*version*/) {
  ar(g.name, g.created_at_ms);
}

template <class Archive>
void serialize(Archive& ar, QueueMetaRow& m, std::uint32_t /*version*/) {
  ar(m.groups);
}

template <class Archive>
void serialize(Archive& ar, JobRow& j, std::uint32_t /*version*/) {
  ar(j.seq, j.completed, j.payload, j.enqueued_at_ms, j.due_ms, j.max_attempts, j.backoff,
     j.dedup_window_ms, j.outstanding);
}

template <class Archive>
void serialize(Archive& ar, DeliveryRow& d, std::uint32_t /*version*/) {
  ar(d.stage, d.seq, d.attempts, d.at_ms, d.token, d.consumer, d.errors);
}

}  // namespace internal
}  // namespace cairn

CEREAL_CLASS_VERSION(cairn::Backoff, 1)
CEREAL_CLASS_VERSION(cairn::JobError, 1)
CEREAL_CLASS_VERSION(cairn::internal::GroupRow, 1)
CEREAL_CLASS_VERSION(cairn::internal::QueueMetaRow, 1)
CEREAL_CLASS_VERSION(cairn::internal::JobRow, 1)
CEREAL_CLASS_VERSION(cairn::internal::DeliveryRow, 1)

namespace cairn::internal {
namespace {

std::string QueueWhat(std::string_view queue) { return "queue '" + Printable(queue) + "'"; }

std::string JobWhat(std::string_view queue, std::string_view job_id) {
  return "job '" + Printable(job_id) + "' of queue '" + Printable(queue) + "'";
}

std::string DeliveryWhat(std::string_view job_id) {
  return "delivery row of job '" + Printable(job_id) + "'";
}

}  // namespace

bool QueueMetaRow::Has(std::string_view group) const {
  for (const GroupRow& g : groups) {
    if (g.name == group) return true;
  }
  return false;
}

Result<std::optional<QueueMetaRow>> LoadQueueMeta(Rows& rows, std::string_view queue, Lock lock) {
  return LoadDomainRow<QueueMetaRow>(rows, QueueMetaKey(queue), ValueType::kQueueMeta, 0, lock,
                                     [&] { return QueueWhat(queue); });
}

Status StoreQueueMeta(Rows& rows, std::string_view queue, const QueueMetaRow& row) {
  return StoreDomainRow(rows, QueueMetaKey(queue), ValueType::kQueueMeta, 0, row,
                        [&] { return QueueWhat(queue); });
}

Result<std::optional<JobRow>> LoadJob(Rows& rows, std::int64_t now_ms, std::string_view queue,
                                      std::string_view job_id, Lock lock) {
  return LoadDomainRow<JobRow>(rows, JobKey(queue, job_id), ValueType::kJob, now_ms, lock,
                               [&] { return JobWhat(queue, job_id); });
}

Status StoreJob(Rows& rows, std::string_view queue, std::string_view job_id, const JobRow& row,
                std::int64_t expires_at_ms) {
  return StoreDomainRow(rows, JobKey(queue, job_id), ValueType::kJob, expires_at_ms, row,
                        [&] { return JobWhat(queue, job_id); });
}

Result<std::optional<DeliveryRow>> LoadDelivery(Rows& rows, std::string_view scope,
                                                std::string_view job_id, Lock lock) {
  return LoadDomainRow<DeliveryRow>(rows, DeliveryKey(scope, job_id), ValueType::kDelivery, 0, lock,
                                    [&] { return DeliveryWhat(job_id); });
}

Status StoreDelivery(Rows& rows, std::string_view scope, std::string_view job_id,
                     const DeliveryRow& row) {
  return StoreDomainRow(rows, DeliveryKey(scope, job_id), ValueType::kDelivery, 0, row,
                        [&] { return DeliveryWhat(job_id); });
}

std::string EncodeIndexValue(DeliveryStage stage, std::string_view job_id) {
  std::string payload;
  payload.reserve(1 + job_id.size());
  payload.push_back(static_cast<char>(stage));
  payload.append(job_id);
  return EncodeValue(ValueType::kQueueIndex, 0, payload);
}

Result<IndexValue> DecodeIndexValue(std::string_view stored, std::string_view key) {
  Result<ValueHeader> header = DecodeHeader(stored, key);
  if (!header.ok()) return header.status();
  const std::string_view payload = Payload(stored);
  if (header->type != ValueType::kQueueIndex || payload.empty() ||
      static_cast<std::uint8_t>(payload[0]) > static_cast<std::uint8_t>(DeliveryStage::kDead)) {
    return Status::Corruption("queue index entry '" + Printable(key) + "' is malformed");
  }
  return IndexValue{static_cast<DeliveryStage>(payload[0]), payload.substr(1)};
}

}  // namespace cairn::internal
