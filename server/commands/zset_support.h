// What the sorted-set commands share with the blocking ones (BZPOPMIN, BZPOPMAX, BZMPOP):
// taking the lowest or highest members, and the reply shapes of scored members in RESP2 and
// RESP3.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cairn/records.h"
#include "resp/reply_writer.h"

namespace cairn::server {

// Removes and returns the `count` lowest-scoring members of the sorted set at key (highest,
// with `max`), in the order taken. None when the key is absent or count is 0.
Result<std::vector<ScoredMember>> PopExtremes(Records& data, std::string_view key, bool max,
                                              std::int64_t count);

// Members, each followed by its score when with_scores: a flat array in RESP2, an array of
// [member, score] pairs in RESP3, as ZRANGE … WITHSCORES replies.
void ReplyScoredMembers(resp::ReplyWriter& reply, const std::vector<ScoredMember>& members,
                        bool with_scores);

// An array of [member, score] pairs, in either protocol: RESP3's shape of ZRANGE … WITHSCORES,
// and ZMPOP's in both.
void ReplyScorePairs(resp::ReplyWriter& reply, const std::vector<ScoredMember>& members);

// ZPOPMIN/ZPOPMAX's reply: with a count, as ReplyScoredMembers with scores; without one, the
// single member and its score as a flat pair (empty array when nothing was popped).
void ReplyPopped(resp::ReplyWriter& reply, const std::vector<ScoredMember>& popped,
                 bool with_count);

// A score as ZSCAN returns it: an integral score as a plain integer ("1000000000000000"), as
// Redis's compact encoding keeps it, any other in the shortest form that reads back exactly.
std::string ScoreText(double score);

}  // namespace cairn::server
