#include "server/support/redis_process.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>
#include <vector>

#include "server/support/resp_client.h"
#include "server/support/server_process.h"

namespace cairn::test {

std::string FindRedisServer() { return FindProgram("redis-server"); }

int FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    socklen_t len = sizeof(addr);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

RedisProcess::RedisProcess(const std::string& binary, const std::string& dir) {
  // The port is picked, released and then bound by redis-server: another process could take
  // it in between, so try a few times.
  for (int attempt = 0; attempt < 5 && port_ == 0; ++attempt) {
    const int port = FreeLoopbackPort();
    const std::vector<std::string> args = {binary,
                                           "--port",
                                           std::to_string(port),
                                           "--bind",
                                           "127.0.0.1",
                                           "--save",
                                           "",
                                           "--appendonly",
                                           "no",
                                           "--dir",
                                           dir,
                                           "--logfile",
                                           dir + "/redis.log",
                                           "--protected-mode",
                                           "no"};
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::filesystem::create_directories(dir);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::execv(binary.c_str(), argv.data());
      ::_exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      if (auto c = RespClient::Connect(port)) {
        if (c->Call({"PING"}).str == "PONG") {
          port_ = port;
          break;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  if (port_ == 0) error_ = "redis-server did not start (see " + dir + "/redis.log)";
}

RedisProcess::~RedisProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

}  // namespace cairn::test
