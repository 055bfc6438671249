// A shared library a test preloads into cairn-server (LD_PRELOAD) to make accept(2) fail with
// EMFILE — the process out of file descriptors — while the file named by $CAIRN_ACCEPT_FAULT
// exists. Each failed call is counted in <that file>.count, so the test can tell a server that
// backs off from one that retries in a loop.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

std::atomic<long> failures{0};

// True (with errno set) when this call must fail.
bool Fail() {
  const char* trigger = std::getenv("CAIRN_ACCEPT_FAULT");
  if (trigger == nullptr || ::access(trigger, F_OK) != 0) return false;
  const long n = ++failures;
  const std::string count = std::string(trigger) + ".count";
  if (FILE* f = std::fopen(count.c_str(), "w")) {
    std::fprintf(f, "%ld\n", n);
    std::fclose(f);
  }
  errno = EMFILE;
  return true;
}

}  // namespace

extern "C" int accept(int fd, sockaddr* addr, socklen_t* len) {
  if (Fail()) return -1;
  using Fn = int (*)(int, sockaddr*, socklen_t*);
  static const auto real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "accept"));
  return real(fd, addr, len);
}

extern "C" int accept4(int fd, sockaddr* addr, socklen_t* len, int flags) {
  if (Fail()) return -1;
  using Fn = int (*)(int, sockaddr*, socklen_t*, int);
  static const auto real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "accept4"));
  return real(fd, addr, len, flags);
}
