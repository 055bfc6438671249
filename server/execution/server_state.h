// What every connection of one cairn-server shares: the store, the command table, the live
// configuration (CONFIG SET changes part of it), the connected clients (CLIENT LIST, KILL),
// the watched keys, the pub/sub subscriptions and the counters INFO reports. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cairn/clock.h"
#include "cairn/idempotency.h"
#include "cairn/lease.h"
#include "cairn/queue.h"
#include "cairn/ratelimit.h"
#include "cairn/store.h"
#include "config/server_config.h"
#include "execution/command_table.h"
#include "execution/key_waiters.h"
#include "execution/scan_cursors.h"
#include "execution/session.h"
#include "execution/watch_registry.h"
#include "pubsub/registry.h"
#include "scripting/script_cache.h"

namespace cairn::server {

// The library's engines over the server's store, one of each, shared by every connection
// (each is thread-safe).
struct Engines {
  explicit Engines(Store& store)
      : idempotency(store), leases(store), rate_limits(store), queues(store) {}
  IdempotencyStore idempotency;
  LeaseManager leases;
  RateLimiter rate_limits;
  Queue queues;
};

// The scripts running now, each with the flag that stops it (SCRIPT KILL).
class RunningScripts {
 public:
  // Registers a running script for as long as it lives.
  class Entry {
   public:
    explicit Entry(RunningScripts& all) : all_(all) {
      std::lock_guard<std::mutex> lock(all_.mu_);
      all_.flags_.push_back(&kill_);
    }
    ~Entry() {
      std::lock_guard<std::mutex> lock(all_.mu_);
      std::erase(all_.flags_, &kill_);
    }
    Entry(const Entry&) = delete;
    Entry& operator=(const Entry&) = delete;
    const std::atomic<bool>* kill() const { return &kill_; }

   private:
    RunningScripts& all_;
    std::atomic<bool> kill_{false};
  };

  // Tells every running script to stop; false if none runs.
  bool KillAll() {
    std::lock_guard<std::mutex> lock(mu_);
    for (std::atomic<bool>* flag : flags_) flag->store(true);
    return !flags_.empty();
  }

 private:
  std::mutex mu_;
  std::vector<std::atomic<bool>*> flags_;
};

class ServerState {
 public:
  ServerState(Store& store, const CommandTable& table, ServerConfig config,
              std::shared_ptr<const Clock> clock)
      : store_(store),
        table_(table),
        config_(std::move(config)),
        clock_(std::move(clock)),
        started_ms_(clock_->NowMs()),
        engines_(store) {
    PublishHotSettings();
  }

  Store& store() { return store_; }
  // Durability `always` as Redis's appendfsync always does it: the store writes without an
  // fsync per commit, and each io thread syncs once per pass before its replies leave
  // (net/pass_commit.h), so no write is acknowledged before it is durable.
  bool sync_before_reply() const { return sync_before_reply_; }
  void set_sync_before_reply(bool on) { sync_before_reply_ = on; }
  // The store's fault injector (fault-injection yes, for tests), driven by DEBUG FAULT; null
  // otherwise.
  FaultInjection* faults() const { return faults_.get(); }
  void set_faults(std::shared_ptr<FaultInjection> faults) { faults_ = std::move(faults); }
  Engines& engines() { return engines_; }
  const CommandTable& table() const { return table_; }
  const Clock& clock() const { return *clock_; }
  std::int64_t started_ms() const { return started_ms_; }
  WatchRegistry& watches() { return watches_; }
  KeyWaiters& key_waiters() { return key_waiters_; }
  ScanCursors& scan_cursors() { return scan_cursors_; }
  scripting::ScriptCache& scripts() { return scripts_; }
  RunningScripts& running_scripts() { return running_scripts_; }
  pubsub::Registry& pubsub() { return pubsub_; }

  ServerConfig config() const {
    std::lock_guard<std::mutex> lock(config_mu_);
    return config_;
  }
  // Applies fn to the live configuration under its lock.
  template <typename Fn>
  auto UpdateConfig(Fn&& fn) {
    std::lock_guard<std::mutex> lock(config_mu_);
    auto result = fn(config_);
    PublishHotSettings();
    return result;
  }
  // Settings read on every request, without copying the configuration or taking its lock.
  bool RequiresAuth() const { return requires_auth_.load(std::memory_order_relaxed); }
  std::size_t proto_max_bulk_len() const { return max_bulk_.load(std::memory_order_relaxed); }
  std::int64_t idle_timeout_s() const { return timeout_s_.load(std::memory_order_relaxed); }
  std::size_t maxclients() const { return maxclients_.load(std::memory_order_relaxed); }
  // The most clients the process's file descriptors allow (CONFIG SET maxclients is refused
  // beyond it); set once at start.
  int maxclients_cap() const { return maxclients_cap_.load(std::memory_order_relaxed); }
  void set_maxclients_cap(int cap) { maxclients_cap_.store(cap); }
  std::size_t client_query_buffer_limit() const {
    return query_buffer_limit_.load(std::memory_order_relaxed);
  }
  std::int64_t tcp_keepalive_s() const { return tcp_keepalive_s_.load(std::memory_order_relaxed); }
  // Protected mode turns non-loopback clients away: it is on and no password is set.
  bool DeniesRemoteClients() const { return denies_remote_.load(std::memory_order_relaxed); }
  std::int64_t busy_reply_threshold_ms() const {
    return busy_reply_threshold_ms_.load(std::memory_order_relaxed);
  }
  // client-output-buffer-limit normal, read when a client's replies are ready to go.
  OutputBufferLimit normal_output_limit() const {
    return {normal_hard_.load(std::memory_order_relaxed),
            normal_soft_.load(std::memory_order_relaxed),
            normal_soft_seconds_.load(std::memory_order_relaxed)};
  }
  std::int64_t lua_time_limit_ms() const {
    return lua_time_limit_ms_.load(std::memory_order_relaxed);
  }
  std::size_t lua_memory_limit() const { return lua_memory_limit_.load(std::memory_order_relaxed); }
  std::size_t lua_write_buffer_limit() const {
    return lua_write_buffer_limit_.load(std::memory_order_relaxed);
  }
  // client-output-buffer-limit pubsub, read on every delivery of a message.
  OutputBufferLimit pubsub_output_limit() const {
    return {pubsub_hard_.load(std::memory_order_relaxed),
            pubsub_soft_.load(std::memory_order_relaxed),
            pubsub_soft_seconds_.load(std::memory_order_relaxed)};
  }
  // Constant-time comparison with requirepass; false when none is set.
  bool CheckPassword(std::string_view password) const;
  // Logs that a client sent an HTTP request (POST, Host:) and is being closed: at most once a
  // minute, as Redis does, so that a flood of them cannot flood the log.
  void LogSecurityAttack(std::string_view peer);

  // ---- Clients ----
  struct ClientEntry {
    Session* session;
    std::function<void()> close;  // Closes the connection from any thread.
  };
  void AddClient(Session* session, std::function<void()> close);
  void RemoveClient(std::uint64_t id);
  std::vector<Session*> ClientsLocked() const;  // REQUIRES: clients_mu() held.
  std::mutex& clients_mu() const { return clients_mu_; }
  // Closes the clients `pick` selects (under the clients lock); returns how many.
  std::size_t KillClients(const std::function<bool(const Session&)>& pick);
  std::size_t client_count() const { return client_count_.load(); }
  std::uint64_t NextClientId() { return next_client_id_.fetch_add(1) + 1; }

  // ---- Counters for INFO ----
  std::atomic<std::uint64_t> connections_received{0};
  std::atomic<std::uint64_t> connections_rejected{0};
  std::atomic<std::uint64_t> commands_processed{0};
  std::atomic<std::uint64_t> blocked_clients{0};
  std::atomic<std::uint64_t> net_input_bytes{0};
  std::atomic<std::uint64_t> net_output_bytes{0};
  int tcp_port = 0;  // The port actually bound (set once before serving).

  // SHUTDOWN: set by the server before serving; stops accepting and closes the store.
  std::function<void()> request_shutdown;

 private:
  // REQUIRES: config_mu_ held, or the constructor.
  void PublishHotSettings() {
    requires_auth_.store(!config_.requirepass.empty());
    max_bulk_.store(config_.proto_max_bulk_len);
    timeout_s_.store(config_.timeout_s);
    maxclients_.store(static_cast<std::size_t>(config_.maxclients));
    lua_time_limit_ms_.store(config_.lua_time_limit_ms);
    busy_reply_threshold_ms_.store(config_.busy_reply_threshold_ms);
    query_buffer_limit_.store(config_.client_query_buffer_limit);
    tcp_keepalive_s_.store(config_.tcp_keepalive_s);
    denies_remote_.store(config_.protected_mode && config_.requirepass.empty());
    const OutputBufferLimit& normal = config_.normal_output_limit();
    normal_hard_.store(normal.hard_bytes);
    normal_soft_.store(normal.soft_bytes);
    normal_soft_seconds_.store(normal.soft_seconds);
    lua_memory_limit_.store(config_.lua_memory_limit);
    lua_write_buffer_limit_.store(config_.lua_write_buffer_limit);
    const OutputBufferLimit& pubsub = config_.pubsub_output_limit();
    pubsub_hard_.store(pubsub.hard_bytes);
    pubsub_soft_.store(pubsub.soft_bytes);
    pubsub_soft_seconds_.store(pubsub.soft_seconds);
  }

  Store& store_;
  std::shared_ptr<FaultInjection> faults_;
  const CommandTable& table_;
  mutable std::mutex config_mu_;
  ServerConfig config_;
  std::atomic<bool> requires_auth_{false};
  std::atomic<std::size_t> max_bulk_{0};
  std::atomic<std::int64_t> timeout_s_{0};
  std::atomic<std::size_t> maxclients_{0};
  std::atomic<int> maxclients_cap_{std::numeric_limits<int>::max()};
  std::atomic<std::int64_t> lua_time_limit_ms_{0};
  std::atomic<std::int64_t> busy_reply_threshold_ms_{0};
  std::atomic<std::size_t> query_buffer_limit_{0};
  std::atomic<std::int64_t> tcp_keepalive_s_{0};
  std::atomic<bool> denies_remote_{false};
  std::atomic<std::int64_t> normal_hard_{0};
  std::atomic<std::int64_t> normal_soft_{0};
  std::atomic<std::int64_t> normal_soft_seconds_{0};
  std::atomic<std::size_t> lua_memory_limit_{0};
  std::atomic<std::size_t> lua_write_buffer_limit_{0};
  std::atomic<std::int64_t> pubsub_hard_{0};
  std::atomic<std::int64_t> pubsub_soft_{0};
  std::atomic<std::int64_t> pubsub_soft_seconds_{0};
  std::shared_ptr<const Clock> clock_;
  const std::int64_t started_ms_;
  bool sync_before_reply_ = false;
  Engines engines_;
  WatchRegistry watches_;
  KeyWaiters key_waiters_;
  ScanCursors scan_cursors_;
  scripting::ScriptCache scripts_;
  RunningScripts running_scripts_;
  pubsub::Registry pubsub_;

  mutable std::mutex clients_mu_;
  std::map<std::uint64_t, ClientEntry> clients_;  // By id: CLIENT LIST's order.
  std::atomic<std::size_t> client_count_{0};
  std::atomic<std::uint64_t> next_client_id_{0};
  std::atomic<std::int64_t> last_attack_log_ms_{-1};
};

// Ends MULTI and WATCH for the session (EXEC, DISCARD, RESET, disconnect).
void ClearTransactionState(ServerState& server, Session& session);

}  // namespace cairn::server
