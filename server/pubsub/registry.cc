#include "pubsub/registry.h"

#include <mutex>

namespace cairn::server::pubsub {

bool Registry::Add(Table& table, std::string_view name, ClientId client,
                   const std::shared_ptr<Mailbox>& box) {
  auto it = table.find(name);
  if (it == table.end()) it = table.emplace(std::string(name), Subscribers()).first;
  return it->second.emplace(client, box).second;
}

bool Registry::Remove(Table& table, std::string_view name, ClientId client) {
  auto it = table.find(name);
  if (it == table.end() || it->second.erase(client) == 0) return false;
  // A channel or pattern nobody listens to any more is no longer listed or matched.
  if (it->second.empty()) table.erase(it);
  return true;
}

bool Registry::Subscribe(std::string_view channel, ClientId client,
                         const std::shared_ptr<Mailbox>& box) {
  std::lock_guard<std::mutex> lock(mu_);
  return Add(channels_, channel, client, box);
}

bool Registry::Unsubscribe(std::string_view channel, ClientId client) {
  std::lock_guard<std::mutex> lock(mu_);
  return Remove(channels_, channel, client);
}

bool Registry::PSubscribe(std::string_view pattern, ClientId client,
                          const std::shared_ptr<Mailbox>& box) {
  std::lock_guard<std::mutex> lock(mu_);
  return Add(patterns_, pattern, client, box);
}

bool Registry::PUnsubscribe(std::string_view pattern, ClientId client) {
  std::lock_guard<std::mutex> lock(mu_);
  return Remove(patterns_, pattern, client);
}

std::size_t Registry::Publish(std::string_view channel, std::string_view payload,
                              const OutputBufferLimit& limit, std::int64_t now_ms) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::size_t receivers = 0;
  if (auto it = channels_.find(channel); it != channels_.end()) {
    Message message(channel, payload);
    for (const auto& [client, box] : it->second) box->Push(message, limit, now_ms);
    receivers += it->second.size();
  }
  for (const auto& [pattern, subscribers] : patterns_) {
    if (!GlobMatch(pattern, channel, /*nocase=*/false)) continue;
    Message message(pattern, channel, payload);
    for (const auto& [client, box] : subscribers) box->Push(message, limit, now_ms);
    receivers += subscribers.size();
  }
  return receivers;
}

std::size_t Registry::CountReceivers(std::string_view channel) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::size_t receivers = 0;
  if (auto it = channels_.find(channel); it != channels_.end()) receivers += it->second.size();
  for (const auto& [pattern, subscribers] : patterns_) {
    if (GlobMatch(pattern, channel, /*nocase=*/false)) receivers += subscribers.size();
  }
  return receivers;
}

std::vector<std::string> Registry::Channels(std::optional<std::string_view> pattern) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [channel, subscribers] : channels_) {
    if (!pattern || GlobMatch(*pattern, channel, /*nocase=*/false)) out.push_back(channel);
  }
  return out;
}

std::size_t Registry::SubscriberCount(std::string_view channel) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = channels_.find(channel);
  return it == channels_.end() ? 0 : it->second.size();
}

std::size_t Registry::PatternCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return patterns_.size();
}

std::size_t Registry::ChannelCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return channels_.size();
}

}  // namespace cairn::server::pubsub
