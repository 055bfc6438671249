// The messages published to one subscribed client that its connection has not written yet.
// Publishers on any io thread push into it and go on; the client's connection takes the
// messages out on its own thread and writes them, so a publisher never waits for a
// subscriber's socket. Pushes from one publisher keep their order.
//
// It is where `client-output-buffer-limit pubsub` is enforced. The bytes pushed and not yet
// written — queued here, or taken and still in the connection's write — are counted; when they
// reach the hard limit, or stay at or above the soft limit for more than its seconds, the
// mailbox closes (it drops what it holds and takes nothing more) and tells the connection,
// which disconnects the client, as Redis does.
//
// The connection hears of it through two callbacks, called on the publisher's thread outside
// the mailbox's lock, which must only post work to the connection's own thread: `wake` when
// messages arrive and the connection was not woken since it last took them, `overflow` once,
// when the limit closes the mailbox. Thread-safe.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "config/server_config.h"
#include "pubsub/message.h"

namespace cairn::server::pubsub {

class Mailbox {
 public:
  // REQUIRES: protocol is 2 or 3 (the client's, which its frames are encoded for).
  Mailbox(int protocol, std::function<void()> wake, std::function<void()> overflow)
      : protocol_(protocol), wake_(std::move(wake)), overflow_(std::move(overflow)) {}

  // Any thread. Queues the message's frame for the client's protocol. False when the mailbox
  // is closed, or closes now because of `limit` (`now_ms` times how long the soft limit has
  // been exceeded).
  bool Push(Message& message, const OutputBufferLimit& limit, std::int64_t now_ms);

  // ---- The owner's thread only. ----
  // Frames queued from now on are encoded for `protocol` (HELLO). The lock makes it a clean
  // cut: a frame is encoded and queued wholly before or wholly after the switch.
  void SetProtocol(int protocol);
  // Appends every queued frame to *out; false when none was queued. The frames count against
  // the limit until Sent(). Takes no lock when nothing is queued (every connection calls it
  // after every batch of commands).
  bool TakeInto(std::string* out);
  // Drops what is queued: messages the client must not get any more (a RESP2 client that has
  // left subscribed mode, net/connection.cc).
  void Drop();
  // Everything taken so far has been written to the socket.
  void Sent();
  // Drops what is queued and refuses further pushes: the client is gone.
  void Close();

 private:
  // Whether `bytes` unsent bytes break the limit; keeps the time the soft limit was first
  // reached. REQUIRES: mu_ held.
  bool OverLimit(std::size_t bytes, const OutputBufferLimit& limit, std::int64_t now_ms);

  std::mutex mu_;
  int protocol_;
  std::string queued_;
  std::size_t unsent_ = 0;           // queued_ plus the bytes taken and not yet Sent().
  std::size_t taken_ = 0;            // Of those, the ones taken (owner's thread only).
  std::int64_t soft_since_ms_ = -1;  // When the soft limit was reached; -1: it is not.
  bool woken_ = false;               // A wake is on its way and no take has happened since.
  bool closed_ = false;
  // !queued_.empty(), readable without the lock. A push sets it before its wake, which the
  // owner's thread sees after that, so a take never misses what woke it.
  std::atomic<bool> pending_{false};
  const std::function<void()> wake_;
  const std::function<void()> overflow_;
};

}  // namespace cairn::server::pubsub
