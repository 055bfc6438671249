// The stored rows of the queue engine (keys in queue_keys.h). Each value starts with the
// common value header; domain rows carry a cereal payload with an explicit class version.
// A row that does not decode is kCorruption: never treated as absent, never overwritten.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cairn/queue.h"
#include "records/rows.h"
#include "storage/domain_row.h"

namespace cairn::internal {

struct GroupRow {
  std::string name;
  std::int64_t created_at_ms = 0;
};

struct QueueMetaRow {
  std::vector<GroupRow> groups;  // In creation order.
  bool Has(std::string_view group) const;
};

struct JobRow {
  std::uint64_t seq = 0;  // Enqueue order, from the store's queue sequence.
  // A completed job keeps only seq, under a header expiry that ends its dedup window.
  bool completed = false;
  std::string payload;
  std::int64_t enqueued_at_ms = 0;
  std::int64_t due_ms = 0;  // When it first becomes claimable.
  std::uint32_t max_attempts = 0;
  Backoff backoff;
  std::int64_t dedup_window_ms = 0;
  std::uint32_t outstanding = 0;  // Groups that have not finished it (acked or purged).
};

enum class DeliveryStage : std::uint8_t { kPending = 0, kInFlight = 1, kDead = 2 };

struct DeliveryRow {
  DeliveryStage stage = DeliveryStage::kPending;
  std::uint64_t seq = 0;
  std::uint32_t attempts = 0;  // Deliveries so far.
  // Pending: due time. In flight: lease deadline. Dead: when it died. Pending and in-flight
  // rows have a ready- or lease-index entry at (at_ms, seq); dead ones a dead-letter entry
  // at seq.
  std::int64_t at_ms = 0;
  std::string token;     // In flight: the lease token.
  std::string consumer;  // In flight: the holder; else the last holder.
  std::vector<JobError> errors;
};

// nullopt when the row is absent or expired.
Result<std::optional<QueueMetaRow>> LoadQueueMeta(Rows& rows, std::string_view queue, Lock lock);
Status StoreQueueMeta(Rows& rows, std::string_view queue, const QueueMetaRow& row);

Result<std::optional<JobRow>> LoadJob(Rows& rows, std::int64_t now_ms, std::string_view queue,
                                      std::string_view job_id, Lock lock);
// A completed job is stored as a tombstone expiring at expires_at_ms.
Status StoreJob(Rows& rows, std::string_view queue, std::string_view job_id, const JobRow& row,
                std::int64_t expires_at_ms = 0);

Result<std::optional<DeliveryRow>> LoadDelivery(Rows& rows, std::string_view scope,
                                                std::string_view job_id, Lock lock);
Status StoreDelivery(Rows& rows, std::string_view scope, std::string_view job_id,
                     const DeliveryRow& row);

// An index entry's value: the stage (ready and lease index only) and the job id.
std::string EncodeIndexValue(DeliveryStage stage, std::string_view job_id);
struct IndexValue {
  DeliveryStage stage = DeliveryStage::kPending;
  std::string_view job_id;
};
Result<IndexValue> DecodeIndexValue(std::string_view stored, std::string_view key);

}  // namespace cairn::internal
