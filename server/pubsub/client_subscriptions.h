// One client's side of pub/sub: the channels and patterns it subscribes to (the registry has
// the other side, registry.h) and the mailbox its messages arrive in. Changed only on the
// client's connection thread; the counts are also kept in atomics for CLIENT LIST, which
// other connections run.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "pubsub/mailbox.h"

namespace cairn::server::pubsub {

class ClientSubscriptions {
 public:
  // Each returns true when it changed something.
  bool AddChannel(std::string_view channel) { return Add(channels_, channel_count_, channel); }
  bool RemoveChannel(std::string_view channel) {
    return Remove(channels_, channel_count_, channel);
  }
  bool AddPattern(std::string_view pattern) { return Add(patterns_, pattern_count_, pattern); }
  bool RemovePattern(std::string_view pattern) {
    return Remove(patterns_, pattern_count_, pattern);
  }

  // Forgets every subscription (the registry's side is the caller's to remove first).
  void Clear() {
    channels_.clear();
    patterns_.clear();
    channel_count_.store(0, std::memory_order_relaxed);
    pattern_count_.store(0, std::memory_order_relaxed);
  }

  // In byte order (UNSUBSCRIBE with no argument answers for each, in this order).
  const std::set<std::string, std::less<>>& channels() const { return channels_; }
  const std::set<std::string, std::less<>>& patterns() const { return patterns_; }
  // Channels plus patterns: the count subscribe replies carry. Nonzero puts a RESP2 client in
  // subscribed mode.
  std::size_t count() const { return channels_.size() + patterns_.size(); }

  // Any thread (CLIENT LIST's sub= and psub=).
  std::size_t channel_count() const { return channel_count_.load(std::memory_order_relaxed); }
  std::size_t pattern_count() const { return pattern_count_.load(std::memory_order_relaxed); }

  // Where the client's messages arrive; set by its connection when it starts (a session
  // without one, such as a script's, cannot subscribe).
  std::shared_ptr<Mailbox> mailbox;

 private:
  using Names = std::set<std::string, std::less<>>;
  static bool Add(Names& names, std::atomic<std::size_t>& count, std::string_view name) {
    if (!names.emplace(name).second) return false;
    count.store(names.size(), std::memory_order_relaxed);
    return true;
  }
  static bool Remove(Names& names, std::atomic<std::size_t>& count, std::string_view name) {
    auto it = names.find(name);
    if (it == names.end()) return false;
    names.erase(it);
    count.store(names.size(), std::memory_order_relaxed);
    return true;
  }

  Names channels_;
  Names patterns_;
  std::atomic<std::size_t> channel_count_{0};
  std::atomic<std::size_t> pattern_count_{0};
};

}  // namespace cairn::server::pubsub
