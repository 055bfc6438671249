// One client connection's state as the commands see it: identity (id, name, library),
// protocol version, authentication, the MULTI queue, the watched keys and the pub/sub
// subscriptions. Owned by the connection; used by one thread at a time (the connection's),
// except the fields marked atomic, which CLIENT KILL and CLIENT LIST on other connections read
// or set (and the subscription counts, pubsub/client_subscriptions.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "execution/parked_call.h"
#include "pubsub/client_subscriptions.h"

namespace cairn::server {

struct WatchedKey {
  std::string key;
  std::uint64_t version = 0;       // The key's write version when WATCH ran (watch_registry.h).
  std::int64_t expires_at_ms = 0;  // Its expiry then (0: none or absent): expiry is a change.
};

class Session {
 public:
  Session(std::uint64_t id, std::string peer, std::string local, std::int64_t now_ms)
      : id_(id), peer_(std::move(peer)), local_(std::move(local)), created_ms_(now_ms) {
    last_command_ms_.store(now_ms);
  }

  std::uint64_t id() const { return id_; }
  const std::string& peer() const { return peer_; }
  const std::string& local() const { return local_; }
  std::int64_t created_ms() const { return created_ms_; }

  int protocol = 2;
  bool authenticated = false;
  // The client connected from a loopback address (protected mode lets only these in while no
  // password is set). Set by the connection.
  bool loopback = true;
  bool in_script = false;  // The client a script's commands run as (scripting's CommandHost).
  bool close_after_reply = false;  // QUIT, or a protocol error.
  // A write command ran since the replies were last sent: under durability `always` the
  // connection syncs the store before it sends them.
  bool wrote = false;
  // A command that reads the data set (flagged readonly or write) ran since the replies were
  // last sent: under `always` its replies wait until every write it could have seen, of any
  // io thread, is durable. (INFO, PING, CONFIG and the like read none, and are answered even
  // while the disk fails.)
  bool read_data = false;
  // The keys (KeyWaiters::KeyHash) write commands named since the replies were last sent;
  // once their writes are committed the connection signals them to the clients blocked on
  // keys (key_waiters.h).
  std::vector<std::size_t> touched;
  // A command changed keys it does not name (FLUSHALL, FLUSHDB): every blocked client is
  // signalled instead.
  bool touched_everything = false;

  // Set by a blocking command that must wait: the connection runs it off the io thread and
  // sends its reply before running the next command (parked_call.h).
  std::optional<ParkedCall> parked;

  // Serves what is ready on the connection's io thread — other clients' I/O — while this
  // connection's script runs long (execution/script_busy.h). Set by the connection.
  std::function<void()> serve_others;

  // MULTI: the queued commands (copied: the read buffer they came from moves on).
  bool in_multi = false;
  bool multi_failed = false;  // A command failed to queue: EXEC answers EXECABORT.
  std::vector<std::vector<std::string>> queued;
  std::size_t queued_bytes = 0;  // About the memory `queued` holds.
  std::vector<WatchedKey> watched;

  // Pub/sub: what the client subscribes to, and where its messages arrive.
  pubsub::ClientSubscriptions pubsub;
  // Messages published by PUBLISH inside EXEC or a script (channel, payload): they go out
  // once the transaction has committed, never from an attempt that was rolled back and run
  // again (execution/pubsub_session.h).
  struct StagedMessage {
    std::string channel;
    std::string payload;
  };
  std::vector<StagedMessage> staged_messages;

  // Read by CLIENT LIST/INFO from any connection, written by this one.
  std::string name() const {
    std::lock_guard<std::mutex> lock(mu_);
    return name_;
  }
  void set_name(std::string name) {
    std::lock_guard<std::mutex> lock(mu_);
    name_ = std::move(name);
  }
  std::string lib_name() const {
    std::lock_guard<std::mutex> lock(mu_);
    return lib_name_;
  }
  std::string lib_version() const {
    std::lock_guard<std::mutex> lock(mu_);
    return lib_version_;
  }
  void set_lib(std::string name, std::string version) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!name.empty()) lib_name_ = std::move(name);
    if (!version.empty()) lib_version_ = std::move(version);
  }
  std::string last_command() const {
    std::lock_guard<std::mutex> lock(mu_);
    return last_command_;
  }
  void set_last_command(std::string_view name) {
    std::lock_guard<std::mutex> lock(mu_);
    last_command_.assign(name);
  }

  // What CLIENT LIST shows of `in_multi`, `queued` and `protocol`, which only this connection's
  // io thread may touch: published by that thread after every command (command_runner.cc) and
  // whenever its transaction state is cleared, for CLIENT LIST on any io thread to read.
  void PublishForClientList() {
    shown_multi_.store(in_multi ? static_cast<std::int64_t>(queued.size()) : -1,
                       std::memory_order_relaxed);
    shown_protocol_.store(protocol, std::memory_order_relaxed);
  }
  std::int64_t shown_multi() const { return shown_multi_.load(std::memory_order_relaxed); }
  int shown_protocol() const { return shown_protocol_.load(std::memory_order_relaxed); }

  std::atomic<std::int64_t> last_command_ms_{0};
  std::atomic<bool> kill_requested{false};  // CLIENT KILL from another connection.
  std::atomic<bool> blocked{false};         // A parked command waits (CLIENT LIST flag b).

 private:
  const std::uint64_t id_;
  const std::string peer_;
  const std::string local_;
  const std::int64_t created_ms_;
  std::atomic<std::int64_t> shown_multi_{-1};
  std::atomic<int> shown_protocol_{2};
  mutable std::mutex mu_;
  std::string name_;
  std::string lib_name_;
  std::string lib_version_;
  std::string last_command_;
};

}  // namespace cairn::server
