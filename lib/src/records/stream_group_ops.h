// Consumer groups of streams (cairn/records.h's StreamGroup…, StreamReadGroup, StreamAck,
// StreamPending…, StreamClaim, StreamAutoClaim, StreamGroups, StreamConsumers), written once
// against Keyspace so that Store and Transaction share them; each follows the Redis command it
// serves (XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM, XINFO).
//
// Every call first loads the stream's metadata row, which in a transaction locks it: the
// calls that change a group are serialized with every other writer of the stream, and their
// rows (consumer_group.h) change in the same transaction as the read that caused them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "cairn/records.h"
#include "records/keyspace.h"

namespace cairn::internal::stream_group_ops {

Result<StreamGroupOutcome> Create(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                  std::string_view group, const StreamGroupPosition& position,
                                  bool make_stream);
Result<StreamGroupOutcome> SetPosition(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                       std::string_view group, const StreamGroupPosition& position);
Result<StreamGroupOutcome> Destroy(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                   std::string_view group);
Result<StreamGroupOutcome> CreateConsumer(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                          std::string_view group, std::string_view consumer);
Result<std::pair<StreamGroupOutcome, std::uint64_t>> DeleteConsumer(Keyspace& ks,
                                                                    std::int64_t now_ms,
                                                                    std::string_view key,
                                                                    std::string_view group,
                                                                    std::string_view consumer);
Result<StreamGroupReadResult> Read(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                   std::string_view group, std::string_view consumer,
                                   const StreamGroupReadRequest& request);
Result<std::uint64_t> Ack(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                          std::string_view group, std::span<const StreamId> ids);
Result<StreamPendingResult> Summarize(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                      std::string_view group);
Result<StreamPendingResult> Pending(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                    std::string_view group, const StreamPendingRequest& request);
Result<StreamClaimResult> Claim(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                std::string_view group, std::string_view consumer,
                                const StreamClaimRequest& request);
Result<StreamClaimResult> AutoClaim(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                    std::string_view group, std::string_view consumer,
                                    const StreamAutoClaimRequest& request);
Result<std::optional<std::vector<StreamGroupInfo>>> Groups(Keyspace& ks, std::int64_t now_ms,
                                                           std::string_view key);
Result<StreamConsumersResult> Consumers(Keyspace& ks, std::int64_t now_ms, std::string_view key,
                                        std::string_view group);

// How many groups the stream (key, version) has.
Result<std::uint64_t> CountGroups(Keyspace& ks, std::string_view key, std::uint64_t version);

}  // namespace cairn::internal::stream_group_ops
