// Runs a real redis-server (Debian's package) as a child process for differential tests: on a
// free loopback port, no persistence, its working directory a test's temp dir. The destructor
// stops it.
#pragma once

#include <sys/types.h>

#include <string>

namespace cairn::test {

// The redis-server binary on PATH (or /usr/bin), "" if there is none.
std::string FindRedisServer();

class RedisProcess {
 public:
  RedisProcess(const std::string& binary, const std::string& dir);
  ~RedisProcess();
  RedisProcess(const RedisProcess&) = delete;
  RedisProcess& operator=(const RedisProcess&) = delete;

  bool ok() const { return port_ > 0; }
  const std::string& error() const { return error_; }
  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string error_;
};

// A TCP port on 127.0.0.1 that was free a moment ago.
int FreeLoopbackPort();

}  // namespace cairn::test
