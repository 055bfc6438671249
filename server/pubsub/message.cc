#include "pubsub/message.h"

#include "resp/reply_writer.h"

namespace cairn::server::pubsub {

const std::string& Message::Frame(int protocol) {
  std::optional<std::string>& frame = frames_[protocol == 3 ? 1 : 0];
  if (frame) return *frame;
  frame.emplace();
  resp::ReplyWriter writer(&*frame, protocol);
  // PushHeader is a plain array header under RESP2, which is how Redis sends messages there.
  if (pattern_) {
    writer.PushHeader(4);
    writer.Bulk("pmessage");
    writer.Bulk(*pattern_);
  } else {
    writer.PushHeader(3);
    writer.Bulk("message");
  }
  writer.Bulk(channel_);
  writer.Bulk(payload_);
  return *frame;
}

}  // namespace cairn::server::pubsub
