// One published message as its receivers get it: Redis's ["message", channel, payload], or
// ["pmessage", pattern, channel, payload] for a receiver subscribed by a pattern — an array
// under RESP2, a push frame under RESP3. Each encoding is built the first time a receiver of
// that protocol needs it, then shared by every such receiver. Not thread-safe: one publisher
// builds and uses it; the bytes it hands out are copied into each receiver's mailbox.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cairn::server::pubsub {

class Message {
 public:
  // A message for the subscribers of `channel` itself.
  Message(std::string_view channel, std::string_view payload)
      : channel_(channel), payload_(payload) {}
  // A message for the subscribers of `pattern`, which matches `channel`.
  Message(std::string_view pattern, std::string_view channel, std::string_view payload)
      : pattern_(pattern), channel_(channel), payload_(payload) {}

  // The frame for a receiver speaking `protocol`. REQUIRES: protocol is 2 or 3.
  const std::string& Frame(int protocol);

 private:
  std::optional<std::string_view> pattern_;
  std::string_view channel_;
  std::string_view payload_;
  std::optional<std::string> frames_[2];  // RESP2, RESP3.
};

}  // namespace cairn::server::pubsub
