// Owns a child process for crash tests: Wait() or Poll() reaps it; otherwise the destructor
// kills and reaps it, so that a failed assertion never leaves a child running (or a zombie)
// behind.
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <cerrno>
#include <optional>

namespace cairn::test {

class ChildProcess {
 public:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  ~ChildProcess() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    (void)Wait();
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  void Kill() { kill(pid_, SIGKILL); }

  // The wait status if the child has ended (reaping it), nullopt while it runs.
  std::optional<int> Poll() {
    int status = 0;
    pid_t reaped;
    do {
      reaped = waitpid(pid_, &status, WNOHANG);
    } while (reaped < 0 && errno == EINTR);
    if (reaped != pid_) return std::nullopt;
    pid_ = -1;
    return status;
  }

  // Waits for the child to end and returns its wait status (nullopt if waitpid failed).
  std::optional<int> Wait() {
    int status = 0;
    pid_t reaped;
    do {
      reaped = waitpid(pid_, &status, 0);
    } while (reaped < 0 && errno == EINTR);
    pid_ = -1;
    if (reaped < 0) return std::nullopt;
    return status;
  }

 private:
  pid_t pid_;
};

}  // namespace cairn::test
