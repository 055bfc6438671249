// Row keys of the queue engine, all in the `queues` column family. Queue and group names are
// length-prefixed (2 bytes, big-endian), so no name can run into the next component; integers
// are big-endian, so byte order is numeric order:
//
//   q·queue                     the queue's consumer groups             (QueueMetaRow)
//   j·queue·job_id              a job, or the tombstone of a done one   (JobRow)
//   d·queue·group·job_id        the job's delivery state in a group     (DeliveryRow)
//   r·queue·group·due·seq       ready index: pending jobs by due time, then enqueue order
//   w·queue·group·deadline·seq  lease index: in-flight jobs by lease deadline
//   x·queue·group·seq           dead-letter list, in enqueue order
// Index entries hold the delivery stage and the job id.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cairn::internal {

// queue·group: the prefix shared by a group's rows after their tag, and the name of its
// waiters and claim state in QueueRuntime.
std::string GroupScope(std::string_view queue, std::string_view group);

std::string QueueMetaKey(std::string_view queue);
std::string JobPrefix(std::string_view queue);
std::string JobKey(std::string_view queue, std::string_view job_id);
std::string DeliveryKey(std::string_view scope, std::string_view job_id);
std::string ReadyPrefix(std::string_view scope);
std::string LeasePrefix(std::string_view scope);
std::string DeadPrefix(std::string_view scope);

// The part of a ready- or lease-index key after its prefix: time (ms) then seq, 16 bytes.
std::string IndexPosition(std::int64_t due_ms, std::uint64_t seq);
struct DecodedPosition {
  std::int64_t due_ms = 0;
  std::uint64_t seq = 0;
};
// Decodes a ready- or lease-index key with this prefix; nullopt if it is malformed.
std::optional<DecodedPosition> DecodePositionKey(std::string_view key, std::size_t prefix_size);

std::string SeqBytes(std::uint64_t seq);
// The seq of a dead-letter key with this prefix; nullopt if it is malformed.
std::optional<std::uint64_t> DecodeDeadKey(std::string_view key, std::size_t prefix_size);

}  // namespace cairn::internal
