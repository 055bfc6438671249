// Runs cairn-server as a child process for a test: on a free loopback port (--port 0, read
// back from its ready line), with its own data directory, its stderr in <dir>/server.log.
// The destructor kills whatever is still running.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace cairn::test {

class ServerProcess {
 public:
  // Starts `binary` with `args` and waits (up to 30 s) for "cairn-server ready port=<n>".
  // ok() is false, and error() says why, if it did not get there.
  ServerProcess(const std::string& binary, const std::vector<std::string>& args,
                const std::string& log_path);
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  bool ok() const { return port_ > 0; }
  const std::string& error() const { return error_; }
  int port() const { return port_; }
  pid_t pid() const { return pid_; }

  // Sends `signal` and waits for the exit; returns the exit status as waitpid reports it
  // (-1 if it did not exit within 30 s, after which it is killed).
  int Stop(int signal);
  // Waits for an exit the test caused otherwise (SHUTDOWN); same return as Stop.
  int WaitExit();

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string error_;
};

// A new directory $TMPDIR/<prefix>-XXXXXX (/tmp without TMPDIR) for a harness's data; "" (after
// printing why to stderr) if it cannot be made.
std::string MakeScratchDir(const std::string& prefix);

// The program `name` on PATH (or in /usr/bin), "" if it is not installed.
std::string FindProgram(const std::string& name);

// Runs the binary to completion with `args`; returns its exit code and its stdout+stderr.
int RunToExit(const std::string& binary, const std::vector<std::string>& args, std::string* output);

}  // namespace cairn::test
