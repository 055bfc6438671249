#include "commands/stream_ids.h"

#include <charconv>

namespace cairn::server {
namespace {

// A decimal uint64 with nothing around it (Redis also takes leading zeros).
std::optional<std::uint64_t> ParseU64(std::string_view s) {
  std::uint64_t v = 0;
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<StreamId> ParseStreamId(std::string_view arg, std::uint64_t missing_seq) {
  const std::size_t dash = arg.find('-');
  const std::optional<std::uint64_t> ms = ParseU64(arg.substr(0, dash));
  if (!ms) return std::nullopt;
  if (dash == std::string_view::npos) return StreamId{*ms, missing_seq};
  const std::optional<std::uint64_t> seq = ParseU64(arg.substr(dash + 1));
  if (!seq) return std::nullopt;
  return StreamId{*ms, *seq};
}

std::optional<StreamAddOptions> ParseAddId(std::string_view arg) {
  StreamAddOptions options;
  if (arg == "*") return options;
  if (arg.ends_with("-*")) {
    const std::optional<std::uint64_t> ms = ParseU64(arg.substr(0, arg.size() - 2));
    if (!ms) return std::nullopt;
    options.id_mode = StreamAddOptions::IdMode::kAutoSequence;
    options.id = {*ms, 0};
    return options;
  }
  const std::optional<StreamId> id = ParseStreamId(arg);
  if (!id) return std::nullopt;
  options.id_mode = StreamAddOptions::IdMode::kExplicit;
  options.id = *id;
  return options;
}

std::optional<StreamId> ParseRangeBound(std::string_view arg, RangeEnd end,
                                        resp::ReplyWriter& reply) {
  if (arg == "-") return StreamId{};
  if (arg == "+") return kMaxStreamId;
  const bool exclusive = arg.starts_with('(');
  if (exclusive) arg.remove_prefix(1);
  const std::optional<StreamId> id = ParseStreamId(arg, end == RangeEnd::kStart ? 0 : UINT64_MAX);
  if (!id) {
    reply.Error(kInvalidStreamId);
    return std::nullopt;
  }
  if (!exclusive) return id;
  // The id next to it, inside the range; none past the greatest (or before the least) id.
  if (end == RangeEnd::kStart) {
    if (*id == kMaxStreamId) {
      reply.Error("ERR invalid start ID for the interval");
      return std::nullopt;
    }
    return id->seq == UINT64_MAX ? StreamId{id->ms + 1, 0} : StreamId{id->ms, id->seq + 1};
  }
  if (*id == StreamId{}) {
    reply.Error("ERR invalid end ID for the interval");
    return std::nullopt;
  }
  return id->seq == 0 ? StreamId{id->ms - 1, UINT64_MAX} : StreamId{id->ms, id->seq - 1};
}

std::string FormatStreamId(const StreamId& id) {
  return std::to_string(id.ms) + "-" + std::to_string(id.seq);
}

void ReplyStreamEntry(resp::ReplyWriter& reply, const StreamEntry& entry) {
  reply.ArrayHeader(2);
  reply.Bulk(FormatStreamId(entry.id));
  // No fields: deleted since a group delivered it (a live entry has at least one).
  if (entry.fields.empty()) return reply.NullArray();
  reply.ArrayHeader(entry.fields.size() * 2);
  for (const HashEntry& field : entry.fields) {
    reply.Bulk(field.field);
    reply.Bulk(field.value);
  }
}

void ReplyStreamEntries(resp::ReplyWriter& reply, const std::vector<StreamEntry>& entries) {
  reply.ArrayHeader(entries.size());
  for (const StreamEntry& entry : entries) ReplyStreamEntry(reply, entry);
}

}  // namespace cairn::server
