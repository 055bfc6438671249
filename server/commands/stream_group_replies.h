// Replies and errors that several consumer-group commands share (stream_group_commands.cc,
// and XINFO in stream_commands.cc).
#pragma once

#include <string>
#include <string_view>

#include "cairn/records.h"
#include "resp/reply_writer.h"

namespace cairn::server {

// XGROUP's and XINFO CONSUMERS's: the stream exists, the group does not.
inline std::string NoSuchGroup(std::string_view key, std::string_view group) {
  return "NOGROUP No such consumer group '" + std::string(group) + "' for key name '" +
         std::string(key) + "'";
}

// XPENDING's, XCLAIM's and XAUTOCLAIM's: the stream or the group does not exist.
inline std::string NoSuchKeyOrGroup(std::string_view key, std::string_view group) {
  return "NOGROUP No such key '" + std::string(key) + "' or consumer group '" + std::string(group) +
         "'";
}

// A group's entries-read and lag fields (XINFO GROUPS, XINFO STREAM FULL): null when unknown.
inline void ReplyGroupProgress(resp::ReplyWriter& reply, const StreamGroupInfo& group) {
  reply.Bulk("entries-read");
  group.entries_read ? reply.Integer(static_cast<std::int64_t>(*group.entries_read)) : reply.Null();
  reply.Bulk("lag");
  group.lag ? reply.Integer(*group.lag) : reply.Null();
}

}  // namespace cairn::server
