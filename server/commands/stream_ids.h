// Stream ids as Redis's stream commands write them: "ms-seq", or "ms" alone (the sequence
// then depends on the use: 0 at the start of a range, the greatest at its end), "-" and "+"
// for the least and greatest ids, "(" before an id for an exclusive range bound, and XADD's
// "*" and "ms-*".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cairn/records.h"
#include "resp/reply_writer.h"

namespace cairn::server {

inline constexpr std::string_view kInvalidStreamId =
    "ERR Invalid stream ID specified as stream command argument";

// "ms" or "ms-seq", both decimal uint64; "ms" alone takes `missing_seq`. nullopt otherwise.
std::optional<StreamId> ParseStreamId(std::string_view arg, std::uint64_t missing_seq = 0);

// XADD's id argument: "*", "ms-*", "ms" or "ms-seq". nullopt when it is none of them.
std::optional<StreamAddOptions> ParseAddId(std::string_view arg);

enum class RangeEnd { kStart, kEnd };

// A bound of XRANGE/XREVRANGE: "-", "+", an id, or "(" and an id (exclusive, turned into the
// inclusive id next to it). nullopt after replying with Redis's error.
std::optional<StreamId> ParseRangeBound(std::string_view arg, RangeEnd end,
                                        resp::ReplyWriter& reply);

std::string FormatStreamId(const StreamId& id);

// An entry as Redis replies it: [id, [field, value, …]]; [id, null] for one with no fields,
// which is one deleted since its group delivered it (StreamGroupReadResult).
void ReplyStreamEntry(resp::ReplyWriter& reply, const StreamEntry& entry);
void ReplyStreamEntries(resp::ReplyWriter& reply, const std::vector<StreamEntry>& entries);

}  // namespace cairn::server
