#include "server/support/server_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>

namespace cairn::test {
namespace {

std::vector<char*> Argv(const std::string& binary, const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(binary.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  return argv;
}

int WaitFor(pid_t pid, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return -1;
}

// `args` with --threads $CAIRN_TEST_THREADS added when that is set and args name no thread
// count: tools/test runs the server suites at 1, 2 and 4 io threads this way.
std::vector<std::string> WithTestThreads(std::vector<std::string> args) {
  const char* threads = std::getenv("CAIRN_TEST_THREADS");
  if (threads == nullptr || *threads == '\0') return args;
  for (const std::string& a : args) {
    if (a == "--threads" || a.rfind("--threads=", 0) == 0) return args;
  }
  args.push_back("--threads");
  args.push_back(threads);
  return args;
}

}  // namespace

ServerProcess::ServerProcess(const std::string& binary, const std::vector<std::string>& args,
                             const std::string& log_path) {
  int out[2];
  if (::pipe(out) != 0) {
    error_ = std::strerror(errno);
    return;
  }
  const std::vector<std::string> full_args = WithTestThreads(args);
  std::vector<char*> argv = Argv(binary, full_args);
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    const int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (log >= 0) ::dup2(log, STDERR_FILENO);
    ::close(out[0]);
    ::close(out[1]);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(out[1]);
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  const std::string marker = "cairn-server ready port=";
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{out[0], POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char chunk[512];
    const ssize_t n = ::read(out[0], chunk, sizeof(chunk));
    if (n <= 0) break;
    text.append(chunk, static_cast<std::size_t>(n));
    const std::size_t at = text.find(marker);
    if (at != std::string::npos && text.find('\n', at) != std::string::npos) {
      port_ = std::stoi(text.substr(at + marker.size()));
      break;
    }
  }
  ::close(out[0]);
  if (port_ <= 0) error_ = "cairn-server did not print its ready line; stdout: '" + text + "'";
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

int ServerProcess::Stop(int signal) {
  if (pid_ <= 0) return -1;
  ::kill(pid_, signal);
  return WaitExit();
}

int ServerProcess::WaitExit() {
  if (pid_ <= 0) return -1;
  const int status = WaitFor(pid_, 30'000);
  if (status != -1) pid_ = -1;
  return status;
}

std::string MakeScratchDir(const std::string& prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/" + prefix + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    std::perror((prefix + ": mkdtemp").c_str());
    return "";
  }
  return pattern;
}

std::string FindProgram(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string_view rest = path != nullptr ? path : "";
  while (!rest.empty()) {
    const std::size_t colon = rest.find(':');
    const std::string candidate = std::string(rest.substr(0, colon)) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  const std::string fallback = "/usr/bin/" + name;
  return ::access(fallback.c_str(), X_OK) == 0 ? fallback : "";
}

int RunToExit(const std::string& binary, const std::vector<std::string>& args,
              std::string* output) {
  int out[2];
  if (::pipe(out) != 0) return -1;
  std::vector<char*> argv = Argv(binary, args);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(out[1], STDERR_FILENO);
    ::close(out[0]);
    ::close(out[1]);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(out[1]);
  char chunk[4096];
  ssize_t n;
  while ((n = ::read(out[0], chunk, sizeof(chunk))) > 0) {
    output->append(chunk, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace cairn::test
