// A loopback TCP connection for tests that misbehave on purpose: raw bytes split any way,
// sends that never block the test (the socket is non-blocking and every wait has a deadline),
// replies left unread, resets and half-closes. Whatever the server sends is collected in
// received(). A wait that runs out returns kTimeout, so a server that hangs fails the test
// instead of hanging it.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace cairn::test {

class RawConnection {
 public:
  enum class Io {
    kOk,       // Done.
    kClosed,   // The server closed or reset the connection first.
    kTimeout,  // No progress at all for the whole timeout.
  };

  // Connects to 127.0.0.1:port; nullptr (with *error set) on failure.
  static std::unique_ptr<RawConnection> Connect(int port, std::string* error = nullptr);
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  // Sends every byte, receiving whatever the server sends meanwhile (a server that writes
  // while the test writes must not deadlock the two). timeout_ms bounds each wait for progress.
  Io SendAll(std::string_view bytes, int timeout_ms);
  // One round of a conversation: waits until the server sent something or (when *pending is
  // not empty) the socket takes more bytes, then receives what has arrived and sends what it
  // can of *pending, dropping that from it. kTimeout if neither happened within timeout_ms.
  Io Exchange(std::string_view* pending, int timeout_ms);
  // Sends what the socket takes without waiting; returns how many bytes that was.
  std::size_t SendNow(std::string_view bytes);
  // True when the socket can take more bytes within timeout_ms.
  bool WaitWritable(int timeout_ms);

  // Receives what has arrived, without waiting.
  void ReceiveNow();
  // Receives until received() holds at least n bytes (kClosed if the server closed first).
  Io ReceiveAtLeast(std::size_t n, int timeout_ms);
  // Receives until the server closes the connection; kTimeout if nothing arrives for
  // timeout_ms.
  Io ReceiveUntilClosed(int timeout_ms);

  // Sends FIN: the server sees end of input, the test can still read.
  void ShutdownWrite();
  // Closes with SO_LINGER 0, so the kernel sends RST instead of FIN.
  void Reset();
  // A fixed send buffer (no autotuning), so a test knows how little the socket absorbs.
  void SetSendBuffer(int bytes);

  std::string& received() { return received_; }
  // The server ended the connection: EOF, or a reset.
  bool peer_closed() const { return peer_closed_; }
  // The connection ended with a reset rather than a clean EOF.
  bool peer_reset() const { return peer_reset_; }

 private:
  // Waits up to timeout_ms for bytes (or the close), then takes what is there.
  Io WaitAndReceive(int timeout_ms);
  explicit RawConnection(int fd) : fd_(fd) {}
  // One non-blocking recv into received_; false once the connection ended.
  bool ReceiveOnce();

  int fd_;
  std::string received_;
  bool peer_closed_ = false;
  bool peer_reset_ = false;
};

// VmRSS of process `pid` in bytes; 0 if it cannot be read.
std::size_t ResidentBytes(pid_t pid);

// True while `pid` runs. Reads /proc instead of calling waitpid, so that it does not reap a
// child that ServerProcess still owns; a zombie counts as not running.
bool ProcessRunning(pid_t pid);

}  // namespace cairn::test
