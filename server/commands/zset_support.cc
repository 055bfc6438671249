#include "commands/zset_support.h"

#include <charconv>
#include <cmath>

namespace cairn::server {

Result<std::vector<ScoredMember>> PopExtremes(Records& data, std::string_view key, bool max,
                                              std::int64_t count) {
  if (count <= 0) {
    // Still answer WRONGTYPE for a key of another kind.
    Result<std::uint64_t> size = data.ZSetSize(key);
    if (!size.ok()) return size.status();
    return std::vector<ScoredMember>();
  }
  ZRangeRequest request;
  request.start = 0;
  request.stop = count - 1;
  request.reverse = max;
  Result<std::vector<ScoredMember>> taken = data.ZSetRange(key, request);
  if (!taken.ok() || taken->empty()) return taken;
  std::vector<std::string_view> names;
  names.reserve(taken->size());
  for (const ScoredMember& m : *taken) names.push_back(m.member);
  Result<std::size_t> removed = data.ZSetRemove(key, names);
  if (!removed.ok()) return removed.status();
  return taken;
}

void ReplyScoredMembers(resp::ReplyWriter& reply, const std::vector<ScoredMember>& members,
                        bool with_scores) {
  if (!with_scores) {
    reply.ArrayHeader(members.size());
    for (const ScoredMember& m : members) reply.Bulk(m.member);
    return;
  }
  if (reply.protocol() == 3) return ReplyScorePairs(reply, members);
  reply.ArrayHeader(members.size() * 2);
  for (const ScoredMember& m : members) {
    reply.Bulk(m.member);
    reply.Double(m.score);
  }
}

void ReplyScorePairs(resp::ReplyWriter& reply, const std::vector<ScoredMember>& members) {
  reply.ArrayHeader(members.size());
  for (const ScoredMember& m : members) {
    reply.ArrayHeader(2);
    reply.Bulk(m.member);
    reply.Double(m.score);
  }
}

void ReplyPopped(resp::ReplyWriter& reply, const std::vector<ScoredMember>& popped,
                 bool with_count) {
  if (with_count) return ReplyScoredMembers(reply, popped, true);
  if (popped.empty()) return reply.ArrayHeader(0);
  reply.ArrayHeader(2);
  reply.Bulk(popped[0].member);
  reply.Double(popped[0].score);
}

std::string ScoreText(double score) {
  if (std::isinf(score)) return score > 0 ? "inf" : "-inf";
  char buf[64];
  // Integral scores within ±2^63 print as the integers they are.
  if (score == std::trunc(score) && std::fabs(score) < 9.2e18) {
    const auto end = std::to_chars(buf, buf + sizeof(buf), static_cast<std::int64_t>(score));
    return std::string(buf, end.ptr);
  }
  const auto end = std::to_chars(buf, buf + sizeof(buf), score);
  return std::string(buf, end.ptr);
}

}  // namespace cairn::server
