// Crash safety: a writer process (crash_writer.cc) is killed with SIGKILL at a random point, and
// every write it had acknowledged must be in the store, with its exact value, when the store is
// reopened. Durability kAlways and kEverySec both promise that acknowledged writes survive a
// crash of the process (only a power loss, which a test cannot cause, tells them apart), so both
// are run, several rounds each with a different kill point.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cairn/options.h"
#include "cairn/store.h"
#include "crash_protocol.h"
#include "support/child_process.h"
#include "support/temp_dir.h"

extern char** environ;

namespace cairn {
namespace {

using test::ChildProcess;

using crash::IsTransaction;
using crash::ValueFor;

constexpr int kRounds = 3;
// A guard against a hung writer, not a timing expectation: a writer that prints nothing for this
// long is killed and the test fails instead of hanging until ctest's timeout.
constexpr int kIdleGuardMs = 120'000;
// A guard against a kill that did not take: more lines than this after the kill fail the test.
constexpr std::size_t kMaxLinesAfterKill = 1'000'000;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string DescribeWaitStatus(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "wait status " + std::to_string(status);
}

// Closes a file descriptor on scope exit.
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() {
    if (fd_ >= 0) close(fd_);
  }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;

 private:
  int fd_;
};

// Runs crash_writer on data_dir, kills it with SIGKILL after it has acknowledged kill_after
// writes, reads its output to the end and appends every acknowledged line (without the newline)
// to acked. The writer's stderr goes to stderr_path.
void RunWriterAndKill(const std::string& data_dir, Durability durability, std::size_t kill_after,
                      const std::string& stderr_path, std::vector<std::string>& acked) {
  int pipe_fds[2];
  ASSERT_EQ(pipe2(pipe_fds, O_CLOEXEC), 0) << std::strerror(errno);
  FdCloser read_closer(pipe_fds[0]);
  std::optional<FdCloser> write_closer(std::in_place, pipe_fds[1]);

  posix_spawn_file_actions_t actions;
  ASSERT_EQ(posix_spawn_file_actions_init(&actions), 0);
  ASSERT_EQ(posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0), 0);
  // dup2 clears O_CLOEXEC on the child's stdout; the pipe's own descriptors close at exec.
  ASSERT_EQ(posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO), 0);
  ASSERT_EQ(posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(),
                                             O_WRONLY | O_CREAT | O_TRUNC, 0644),
            0);

  std::string program = CAIRN_CRASH_WRITER;
  std::string dir_arg = data_dir;
  std::string durability_arg(DurabilityName(durability));
  char* argv[] = {program.data(), dir_arg.data(), durability_arg.data(), nullptr};
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ASSERT_EQ(spawned, 0) << "posix_spawn " << program << ": " << std::strerror(spawned);
  ChildProcess child(pid);
  // Only the child may hold the write end, so that its death ends the pipe.
  write_closer.reset();

  bool killed = false;
  std::string pending;
  char buffer[4096];
  for (;;) {
    pollfd poll_fd{pipe_fds[0], POLLIN, 0};
    const int ready = poll(&poll_fd, 1, kIdleGuardMs);
    if (ready < 0 && errno == EINTR) continue;
    ASSERT_GE(ready, 0) << "poll: " << std::strerror(errno);
    ASSERT_GT(ready, 0) << "the writer printed nothing for " << kIdleGuardMs / 1000
                        << " s; it seems hung. Its stderr:\n"
                        << ReadFile(stderr_path);
    const ssize_t got = read(pipe_fds[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    ASSERT_GE(got, 0) << "read: " << std::strerror(errno);
    if (got == 0) break;  // End of file: the writer is gone.
    pending.append(buffer, static_cast<std::size_t>(got));
    std::size_t start = 0;
    for (std::size_t end; (end = pending.find('\n', start)) != std::string::npos; start = end + 1) {
      acked.push_back(pending.substr(start, end - start));
      if (!killed && acked.size() >= kill_after) {
        child.Kill();
        killed = true;
      }
    }
    pending.erase(0, start);
    ASSERT_LE(acked.size(), kill_after + kMaxLinesAfterKill) << "the writer outlived SIGKILL";
  }
  // A line without its newline was never fully reported, so it is not an acknowledgement.
  // (Writes to a pipe this short are atomic, so this cannot happen in practice.)

  const std::optional<int> status = child.Wait();
  ASSERT_TRUE(status.has_value()) << "waitpid: " << std::strerror(errno);
  ASSERT_TRUE(killed) << "the writer ended by itself after " << acked.size()
                      << " acknowledged writes (" << DescribeWaitStatus(*status)
                      << "). Its stderr:\n"
                      << ReadFile(stderr_path);
  ASSERT_TRUE(WIFSIGNALED(*status) && WTERMSIG(*status) == SIGKILL)
      << "the writer was not killed by SIGKILL: " << DescribeWaitStatus(*status)
      << ". Its stderr:\n"
      << ReadFile(stderr_path);
}

// Checks that every acknowledged write is in store with its exact value.
void ExpectAllAcknowledgedWritesPresent(Store& store, const std::vector<std::string>& acked) {
  constexpr std::size_t kMaxReported = 10;
  std::size_t bad = 0;
  std::ostringstream report;
  auto expect_value = [&](const std::string& key, const std::string& want) {
    auto got = store.Get(key);
    std::string problem;
    if (!got.ok()) {
      problem = "Get failed: " + got.status().ToString();
    } else if (!got->has_value()) {
      problem = "missing";
    } else if (**got != want) {
      problem = "value is \"" + **got + "\", want \"" + want + "\"";
    } else {
      return;
    }
    if (++bad <= kMaxReported) report << "\n  " << key << ": " << problem;
  };

  for (std::uint64_t n = 0; n < acked.size(); ++n) {
    // The writer reports its writes in order, so line n is write n.
    const bool txn = IsTransaction(n);
    const std::string name = (txn ? "t" : "") + std::to_string(n);
    ASSERT_EQ(acked[n], name) << "acknowledgement " << n << " is out of order";
    const std::string value = ValueFor(n);
    if (txn) {
      expect_value(name + "a", value);
      expect_value(name + "b", value);
    } else {
      expect_value("k" + name, value);
    }
  }
  EXPECT_EQ(bad, 0u) << bad << " acknowledged keys lost or wrong after the crash (of "
                     << acked.size() << " acknowledged writes); the first ones:" << report.str();
}

struct CrashCase {
  Durability durability;
  // Kill after a number of acknowledged writes drawn uniformly from [min_acked, max_acked].
  std::size_t min_acked;
  std::size_t max_acked;
};

void PrintTo(const CrashCase& c, std::ostream* out) {
  *out << DurabilityName(c.durability) << ", kill after [" << c.min_acked << ", " << c.max_acked
       << "] acknowledged writes";
}

class CrashSafetyTest : public testing::TestWithParam<CrashCase> {};

TEST_P(CrashSafetyTest, AcknowledgedWritesSurviveSigkill) {
  const CrashCase& param = GetParam();
  const std::uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> kill_point(param.min_acked, param.max_acked);

  for (int round = 0; round < kRounds; ++round) {
    const std::size_t kill_after = kill_point(rng);
    SCOPED_TRACE("durability " + std::string(DurabilityName(param.durability)) + ", round " +
                 std::to_string(round) + ", seed " + std::to_string(seed) + ", kill after " +
                 std::to_string(kill_after) + " acknowledged writes");
    test::TempDir dir;
    const std::string data_dir = dir.Sub("store");

    std::vector<std::string> acked;
    ASSERT_NO_FATAL_FAILURE(
        RunWriterAndKill(data_dir, param.durability, kill_after, dir.Sub("writer.stderr"), acked));
    ASSERT_GE(acked.size(), kill_after);
    ASSERT_GT(acked.size(), 0u);

    std::unique_ptr<Store> store = test::OpenOrDie(test::TestOptions(data_dir));
    ASSERT_NO_FATAL_FAILURE(ExpectAllAcknowledgedWritesPresent(*store, acked));
    const Status closed = store->Close();
    ASSERT_TRUE(closed.ok()) << closed.ToString();
  }
}

INSTANTIATE_TEST_SUITE_P(Durabilities, CrashSafetyTest,
                         testing::Values(CrashCase{Durability::kAlways, 20, 200},
                                         CrashCase{Durability::kEverySec, 200, 2000}),
                         [](const testing::TestParamInfo<CrashCase>& case_info) {
                           return case_info.param.durability == Durability::kAlways ? "Always"
                                                                                    : "EverySec";
                         });

}  // namespace
}  // namespace cairn
