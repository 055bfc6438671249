// Who listens to what: the channels and patterns every client subscribes to, and the delivery
// of a published message to them — Redis's PUBLISH: every subscriber of the channel gets a
// "message", then every client subscribed to a matching pattern gets a "pmessage" per such
// pattern. One registry per server, shared by the io threads. A publish holds its lock while it
// queues the message into the mailboxes (never waiting for a socket), so once Unsubscribe
// returns, no push for that subscription is in flight: a client that leaves can take what is
// queued and know it has everything. One plain mutex, not a readers-writer lock: publishers
// on different io threads take turns for that short while, and a SUBSCRIBE is not kept out by
// a stream of overlapping publishes (glibc's rwlock prefers readers).
// Patterns are Redis globs (GlobMatch), matched case-sensitively. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "config/server_config.h"
#include "pubsub/mailbox.h"
#include "util/string_hash.h"

namespace cairn::server::pubsub {

class Registry {
 public:
  using ClientId = std::uint64_t;

  // Each returns true when it changed something: the client was not subscribed (Subscribe,
  // PSubscribe) or was (Unsubscribe, PUnsubscribe).
  bool Subscribe(std::string_view channel, ClientId client, const std::shared_ptr<Mailbox>& box);
  bool Unsubscribe(std::string_view channel, ClientId client);
  bool PSubscribe(std::string_view pattern, ClientId client, const std::shared_ptr<Mailbox>& box);
  bool PUnsubscribe(std::string_view pattern, ClientId client);

  // Queues `payload` for the subscribers of `channel` and of every pattern matching it;
  // returns how many subscriptions that is (PUBLISH's reply; a mailbox that overflows now
  // counts, as in Redis, where the client is dropped after the message was added).
  std::size_t Publish(std::string_view channel, std::string_view payload,
                      const OutputBufferLimit& limit, std::int64_t now_ms) const;
  // How many subscriptions a Publish to `channel` would reach now.
  std::size_t CountReceivers(std::string_view channel) const;

  // PUBSUB CHANNELS: the channels with at least one subscriber, those matching `pattern` if
  // given, in no particular order.
  std::vector<std::string> Channels(std::optional<std::string_view> pattern) const;
  // PUBSUB NUMSUB: the subscribers of `channel` (pattern subscriptions not counted).
  std::size_t SubscriberCount(std::string_view channel) const;
  // PUBSUB NUMPAT and INFO's pubsub_patterns: distinct patterns with a subscriber.
  std::size_t PatternCount() const;
  // INFO's pubsub_channels: channels with a subscriber.
  std::size_t ChannelCount() const;

 private:
  using Subscribers = std::unordered_map<ClientId, std::shared_ptr<Mailbox>>;
  // Looked up by string_view without building a std::string.
  using Table = std::unordered_map<std::string, Subscribers, StringHash, std::equal_to<>>;

  static bool Add(Table& table, std::string_view name, ClientId client,
                  const std::shared_ptr<Mailbox>& box);
  static bool Remove(Table& table, std::string_view name, ClientId client);

  mutable std::mutex mu_;
  Table channels_;
  Table patterns_;
};

}  // namespace cairn::server::pubsub
