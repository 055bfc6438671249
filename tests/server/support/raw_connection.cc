#include "server/support/raw_connection.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "server/support/loopback.h"

namespace cairn::test {

std::unique_ptr<RawConnection> RawConnection::Connect(int port, std::string* error) {
  const int fd = ConnectLoopback(port, error);
  if (fd < 0) return nullptr;
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  return std::unique_ptr<RawConnection>(new RawConnection(fd));
}

RawConnection::~RawConnection() {
  if (fd_ >= 0) ::close(fd_);
}

bool RawConnection::ReceiveOnce() {
  if (peer_closed_) return false;
  char chunk[65536];
  const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
  if (n > 0) {
    received_.append(chunk, static_cast<std::size_t>(n));
    return true;
  }
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return true;
  peer_closed_ = true;
  peer_reset_ = n < 0;
  return false;
}

void RawConnection::ReceiveNow() {
  // Until a recv finds nothing more (EAGAIN) or the connection ended.
  while (true) {
    const std::size_t before = received_.size();
    if (!ReceiveOnce() || received_.size() == before) return;
  }
}

std::size_t RawConnection::SendNow(std::string_view bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size() && !peer_closed_) {
    const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    // EPIPE or ECONNRESET: the server is gone; what it sent before may still be readable.
    ReceiveNow();
    peer_closed_ = true;
    break;
  }
  return sent;
}

bool RawConnection::WaitWritable(int timeout_ms) {
  pollfd p{fd_, POLLOUT, 0};
  return ::poll(&p, 1, timeout_ms) > 0 && (p.revents & POLLOUT) != 0;
}

RawConnection::Io RawConnection::Exchange(std::string_view* pending, int timeout_ms) {
  if (peer_closed_) return Io::kClosed;
  pollfd p{fd_, static_cast<short>(POLLIN | (pending->empty() ? 0 : POLLOUT)), 0};
  int ready = 0;
  do {
    ready = ::poll(&p, 1, timeout_ms);
  } while (ready < 0 && errno == EINTR);
  if (ready == 0) return Io::kTimeout;
  if (ready < 0) return Io::kClosed;
  if ((p.revents & (POLLIN | POLLHUP | POLLERR)) != 0) ReceiveNow();
  if ((p.revents & POLLOUT) != 0) pending->remove_prefix(SendNow(*pending));
  return peer_closed_ ? Io::kClosed : Io::kOk;
}

RawConnection::Io RawConnection::SendAll(std::string_view bytes, int timeout_ms) {
  while (!bytes.empty()) {
    if (const Io io = Exchange(&bytes, timeout_ms); io != Io::kOk) return io;
  }
  return Io::kOk;
}

RawConnection::Io RawConnection::WaitAndReceive(int timeout_ms) {
  pollfd p{fd_, POLLIN, 0};
  const int ready = ::poll(&p, 1, timeout_ms);
  if (ready == 0) return Io::kTimeout;
  if (ready < 0 && errno != EINTR) return Io::kClosed;
  ReceiveNow();
  return Io::kOk;
}

RawConnection::Io RawConnection::ReceiveAtLeast(std::size_t n, int timeout_ms) {
  while (received_.size() < n) {
    if (peer_closed_) return Io::kClosed;
    if (const Io io = WaitAndReceive(timeout_ms); io != Io::kOk) return io;
  }
  return Io::kOk;
}

RawConnection::Io RawConnection::ReceiveUntilClosed(int timeout_ms) {
  while (!peer_closed_) {
    if (const Io io = WaitAndReceive(timeout_ms); io != Io::kOk) return io;
  }
  return Io::kOk;
}

void RawConnection::ShutdownWrite() { ::shutdown(fd_, SHUT_WR); }

void RawConnection::Reset() {
  linger l{};
  l.l_onoff = 1;
  l.l_linger = 0;
  ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
  ::close(fd_);
  fd_ = -1;
  peer_closed_ = true;
}

void RawConnection::SetSendBuffer(int bytes) {
  ::setsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes));
}

std::size_t ResidentBytes(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) != 0) continue;
    std::istringstream fields(line.substr(6));
    std::size_t kib = 0;
    fields >> kib;
    return kib * 1024;
  }
  return 0;
}

bool ProcessRunning(pid_t pid) {
  if (pid <= 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  // "pid (comm) S ...": the state follows the last ')', as comm may hold anything.
  const std::size_t paren = text.rfind(')');
  if (paren == std::string::npos || paren + 2 >= text.size()) return false;
  const char state = text[paren + 2];
  return state != 'Z' && state != 'X';
}

}  // namespace cairn::test
