#include "execution/server_state.h"

#include <cstdio>

namespace cairn::server {

bool ServerState::CheckPassword(std::string_view password) const {
  std::string expected;
  {
    std::lock_guard<std::mutex> lock(config_mu_);
    expected = config_.requirepass;
  }
  if (expected.empty()) return false;
  // Time depends on the lengths only, never on where the first difference is.
  unsigned char diff = expected.size() == password.size() ? 0 : 1;
  const std::size_t n = std::max(expected.size(), password.size());
  for (std::size_t i = 0; i < n; ++i) {
    const auto a = static_cast<unsigned char>(i < expected.size() ? expected[i] : 0);
    const auto b = static_cast<unsigned char>(i < password.size() ? password[i] : 0);
    diff |= static_cast<unsigned char>(a ^ b);
  }
  return diff == 0;
}

void ServerState::LogSecurityAttack(std::string_view peer) {
  const std::int64_t now = clock_->NowMs();
  std::int64_t last = last_attack_log_ms_.load();
  if (last >= 0 && now - last < 60'000) return;
  if (!last_attack_log_ms_.compare_exchange_strong(last, now)) return;  // Another logged it.
  std::fprintf(stderr,
               "cairn-server: Possible SECURITY ATTACK detected: a client sent POST or Host: as "
               "a command, as a browser tricked into cross-protocol scripting would. Connection "
               "from %.*s aborted.\n",
               static_cast<int>(peer.size()), peer.data());
}

void ServerState::AddClient(Session* session, std::function<void()> close) {
  std::lock_guard<std::mutex> lock(clients_mu_);
  clients_[session->id()] = ClientEntry{session, std::move(close)};
  client_count_.store(clients_.size());
}

void ServerState::RemoveClient(std::uint64_t id) {
  std::lock_guard<std::mutex> lock(clients_mu_);
  clients_.erase(id);
  client_count_.store(clients_.size());
}

std::vector<Session*> ServerState::ClientsLocked() const {
  std::vector<Session*> out;
  out.reserve(clients_.size());
  for (const auto& [id, entry] : clients_) out.push_back(entry.session);
  return out;
}

std::size_t ServerState::KillClients(const std::function<bool(const Session&)>& pick) {
  std::lock_guard<std::mutex> lock(clients_mu_);
  std::size_t killed = 0;
  for (auto& [id, entry] : clients_) {
    if (!pick(*entry.session)) continue;
    entry.session->kill_requested.store(true);
    entry.close();
    ++killed;
  }
  return killed;
}

void ClearTransactionState(ServerState& server, Session& session) {
  for (const WatchedKey& w : session.watched) server.watches().Unwatch(w.key);
  session.watched.clear();
  session.in_multi = false;
  session.multi_failed = false;
  session.queued.clear();
  session.queued_bytes = 0;
  session.PublishForClientList();
}

}  // namespace cairn::server
