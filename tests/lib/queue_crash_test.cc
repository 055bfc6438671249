// Queue crash safety: a consumer process (queue_crash_consumer.cc) working through a queue with
// several threads is killed with SIGKILL in the middle of its jobs. The test then reopens the
// store and consumes what is left, and checks that every job is acknowledged exactly once in
// all: never by both the dead consumer and the test, never lost. Jobs the consumer held when
// it died stay leased to it until their lease deadlines (the test cannot claim them before),
// and then come back as a further attempt — except a job whose Ack committed just before the
// kill, which must be complete. Several rounds, each with another kill point.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cairn/clock.h"
#include "cairn/queue.h"
#include "cairn/status.h"
#include "cairn/store.h"
#include "queue_crash_protocol.h"
#include "support/child_process.h"
#include "support/temp_dir.h"

extern char** environ;

namespace cairn {
namespace {

using test::ChildProcess;

using queue_crash::kConsumerPrefix;
using queue_crash::kGroup;
using queue_crash::kQueue;

constexpr int kRounds = 3;
constexpr int kJobs = 2000;
constexpr int kChildThreads = 4;
constexpr std::int64_t kChildVisibilityMs = 2000;
// Kill the child once its log shows a number of acks drawn from this range.
constexpr std::size_t kMinAcksBeforeKill = 100;
constexpr std::size_t kMaxAcksBeforeKill = 400;
// Deliveries allowed per job: far more than a job can use here, so none is dead-lettered.
constexpr std::uint32_t kMaxAttempts = 10;
constexpr int kParentThreads = 3;
// A guard against a hung child, not a timing expectation: a child whose log does not grow for
// this long is killed and the test fails instead of hanging until ctest's timeout.
constexpr auto kIdleGuard = std::chrono::seconds(120);

std::string JobId(int i) {
  std::string digits = std::to_string(i);
  return "job-" + std::string(4 - std::min<std::size_t>(4, digits.size()), '0') + digits;
}

std::string PayloadFor(std::string_view job_id) { return "payload of " + std::string(job_id); }

std::optional<int> JobIndex(std::string_view job_id) {
  constexpr std::string_view kPrefix = "job-";
  if (job_id.size() != kPrefix.size() + 4 || !job_id.starts_with(kPrefix)) return std::nullopt;
  int index = 0;
  for (char c : job_id.substr(kPrefix.size())) {
    if (c < '0' || c > '9') return std::nullopt;
    index = index * 10 + (c - '0');
  }
  if (index >= kJobs) return std::nullopt;
  return index;
}

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

std::size_t CountAcks(const std::string& log) {
  std::size_t acks = 0;
  for (std::size_t at = 0; (at = log.find("acked ", at)) != std::string::npos; ++at) {
    if (at == 0 || log[at - 1] == '\n') ++acks;
  }
  return acks;
}

// Runs queue_crash_consumer on data_dir, logging to log_path, and kills it with SIGKILL once
// the log shows kill_after acks. The child's stdout and stderr go to output_path.
void RunConsumerAndKill(const std::string& data_dir, const std::string& log_path,
                        const std::string& output_path, std::size_t kill_after) {
  posix_spawn_file_actions_t actions;
  ASSERT_EQ(posix_spawn_file_actions_init(&actions), 0);
  ASSERT_EQ(posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0), 0);
  ASSERT_EQ(posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output_path.c_str(),
                                             O_WRONLY | O_CREAT | O_TRUNC, 0644),
            0);
  ASSERT_EQ(posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO), 0);

  std::string program = CAIRN_QUEUE_CRASH_CONSUMER;
  std::string dir_arg = data_dir;
  std::string log_arg = log_path;
  std::string threads_arg = std::to_string(kChildThreads);
  std::string visibility_arg = std::to_string(kChildVisibilityMs);
  char* argv[] = {program.data(),     dir_arg.data(),        log_arg.data(),
                  threads_arg.data(), visibility_arg.data(), nullptr};
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ASSERT_EQ(spawned, 0) << "posix_spawn " << program << ": " << std::strerror(spawned);
  ChildProcess child(pid);

  // The child is a separate process: polling its log is the only way to follow it.
  std::size_t last_size = 0;
  auto last_growth = std::chrono::steady_clock::now();
  for (;;) {
    const std::string log = ReadFile(log_path);
    if (CountAcks(log) >= kill_after) break;
    const std::optional<int> ended = child.Poll();
    ASSERT_FALSE(ended.has_value()) << "the consumer ended by itself after " << CountAcks(log)
                                    << " acks (" << DescribeWaitStatus(*ended) << "). Its output:\n"
                                    << ReadFile(output_path);
    const auto now = std::chrono::steady_clock::now();
    if (log.size() != last_size) {
      last_size = log.size();
      last_growth = now;
    }
    ASSERT_LT(now - last_growth, kIdleGuard)
        << "the consumer logged nothing for " << kIdleGuard.count()
        << " s; it seems hung. Its output:\n"
        << ReadFile(output_path);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  child.Kill();
  const std::optional<int> status = child.Wait();
  ASSERT_TRUE(status.has_value()) << "waitpid: " << std::strerror(errno);
  ASSERT_TRUE(WIFSIGNALED(*status) && WTERMSIG(*status) == SIGKILL)
      << "the consumer was not killed by SIGKILL: " << DescribeWaitStatus(*status)
      << ". Its output:\n"
      << ReadFile(output_path);
}

// What the child's log says.
struct ChildLog {
  struct Job {
    std::vector<std::uint32_t> attempts;  // Of each logged claim, in log order.
    int acks = 0;
    std::int64_t last_deadline_ms = 0;
  };
  std::map<int, Job> jobs;  // By job index; only jobs the log names.
  // Per child thread, the job it had claimed (logged) and not yet logged an ack for.
  std::vector<std::optional<int>> outstanding = std::vector<std::optional<int>>(kChildThreads);
  std::size_t acks = 0;
  std::size_t not_owner = 0;

  bool Claimed(int job) const { return jobs.contains(job); }
  int Acks(int job) const {
    auto it = jobs.find(job);
    return it == jobs.end() ? 0 : it->second.acks;
  }
  // The child thread that had job outstanding at the kill, or -1.
  int OutstandingThread(int job) const {
    for (int t = 0; t < kChildThreads; ++t) {
      if (outstanding[static_cast<std::size_t>(t)] == job) return t;
    }
    return -1;
  }
  std::size_t OutstandingCount() const {
    std::size_t count = 0;
    for (const auto& job : outstanding) count += job.has_value() ? 1 : 0;
    return count;
  }
};

// Parses the log; a last line without its newline was never fully written and is ignored.
void ParseChildLog(const std::string& text, ChildLog& log) {
  std::istringstream lines(text.substr(0, text.rfind('\n') + 1));
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    SCOPED_TRACE("log line " + std::to_string(number) + ": \"" + line + "\"");
    std::istringstream fields(line);
    std::string event, id;
    int thread = -1;
    fields >> event >> id;
    const std::optional<int> index = JobIndex(id);
    ASSERT_TRUE(index.has_value()) << "unknown job id";
    if (event == "claimed") {
      std::uint32_t attempt = 0;
      std::int64_t deadline = 0;
      fields >> attempt >> thread >> deadline;
      ASSERT_TRUE(fields && thread >= 0 && thread < kChildThreads) << "malformed line";
      auto& outstanding = log.outstanding[static_cast<std::size_t>(thread)];
      ASSERT_FALSE(outstanding.has_value())
          << "the thread claimed a job before finishing " << JobId(*outstanding);
      outstanding = *index;
      ChildLog::Job& job = log.jobs[*index];
      job.attempts.push_back(attempt);
      job.last_deadline_ms = deadline;
    } else if (event == "acked" || event == "notowner") {
      fields >> thread;
      ASSERT_TRUE(fields && thread >= 0 && thread < kChildThreads) << "malformed line";
      auto& outstanding = log.outstanding[static_cast<std::size_t>(thread)];
      ASSERT_EQ(outstanding, index) << "the thread acked a job it had not claimed";
      outstanding.reset();
      if (event == "acked") {
        ++log.jobs[*index].acks;
        ++log.acks;
      } else {
        ++log.not_owner;
      }
    } else {
      FAIL() << "unknown event";
    }
  }
}

// What the test itself did with each job.
struct ParentJob {
  std::atomic<int> acks{0};
  std::atomic<std::uint32_t> attempt{0};  // Of the delivery it acked.
  std::atomic<int> phase{0};              // 1: claimed before the clock moved, 2: after.
};

void CreateStoreWithJobs(const std::string& data_dir) {
  Options options = test::TestOptions(data_dir);
  options.durability = Durability::kAlways;
  std::unique_ptr<Store> store = test::OpenOrDie(options);
  Queue queue(*store);
  Result<bool> created = queue.CreateGroup(kQueue, kGroup);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  constexpr int kBatch = 250;
  for (int first = 0; first < kJobs; first += kBatch) {
    std::vector<NewJob> batch;
    for (int i = first; i < std::min(kJobs, first + kBatch); ++i) {
      NewJob job;
      job.options.job_id = JobId(i);
      job.options.max_attempts = kMaxAttempts;
      job.payload = PayloadFor(job.options.job_id);
      batch.push_back(std::move(job));
    }
    Result<std::vector<EnqueueResult>> added = queue.EnqueueBatch(kQueue, batch);
    ASSERT_TRUE(added.ok()) << added.status().ToString();
  }
  const Status closed = store->Close();
  ASSERT_TRUE(closed.ok()) << closed.ToString();
}

// Claims and acks every job claimable now, with `threads` threads; records them in parent.
// Returns the problems found (empty when none).
std::vector<std::string> ConsumeAll(Queue& queue, int threads, int phase, std::uint64_t seed,
                                    std::unique_ptr<ParentJob[]>& parent) {
  std::mutex mu;
  std::vector<std::string> problems;
  auto problem = [&](std::string message) {
    std::lock_guard<std::mutex> lock(mu);
    problems.push_back(std::move(message));
  };
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      std::mt19937_64 rng(seed + static_cast<std::uint64_t>(t));
      std::uniform_int_distribution<std::uint32_t> batch(1, 8);
      const std::string consumer = "parent-" + std::to_string(phase) + "-" + std::to_string(t);
      for (;;) {
        ClaimOptions options;
        options.max_jobs = batch(rng);
        options.visibility_ms = 60'000;
        Result<std::vector<ClaimedJob>> claimed = queue.Claim(kQueue, kGroup, consumer, options);
        if (!claimed.ok()) return problem("Claim: " + claimed.status().ToString());
        if (claimed->empty()) return;
        for (const ClaimedJob& job : *claimed) {
          const std::string& id = job.ref.job_id;
          const std::optional<int> index = JobIndex(id);
          if (!index) return problem("claimed an unknown job id '" + id + "'");
          if (job.payload != PayloadFor(id)) problem(id + " has payload '" + job.payload + "'");
          ParentJob& record = parent[static_cast<std::size_t>(*index)];
          record.attempt.store(job.attempt);
          record.phase.store(phase);
          Result<OwnerResult> acked = queue.Ack(job.ref);
          if (!acked.ok()) return problem("Ack " + id + ": " + acked.status().ToString());
          if (*acked != OwnerResult::kDone) {
            problem("Ack " + id + " returned kNotOwner");
            continue;
          }
          record.acks.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  return problems;
}

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size() && i < 20; ++i) out += "\n  " + lines[i];
  return out;
}

TEST(QueueCrashTest, KilledConsumerLosesNoJobAndNoJobIsAckedTwice) {
  const std::uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> kill_point(kMinAcksBeforeKill, kMaxAcksBeforeKill);

  for (int round = 0; round < kRounds; ++round) {
    const std::size_t kill_after = kill_point(rng);
    SCOPED_TRACE("round " + std::to_string(round) + ", seed " + std::to_string(seed) +
                 ", kill after " + std::to_string(kill_after) + " acks");
    test::TempDir dir;
    const std::string data_dir = dir.Sub("store");
    const std::string log_path = dir.Sub("consumer.log");
    ASSERT_NO_FATAL_FAILURE(CreateStoreWithJobs(data_dir));

    // Every lease the child takes ends after spawn_ms + kChildVisibilityMs; every job is due.
    const std::int64_t spawn_ms = SystemClock().NowMs();
    ASSERT_NO_FATAL_FAILURE(
        RunConsumerAndKill(data_dir, log_path, dir.Sub("consumer.out"), kill_after));

    ChildLog child;
    ASSERT_NO_FATAL_FAILURE(ParseChildLog(ReadFile(log_path), child));
    ASSERT_GE(child.acks, kill_after);
    // Each job acked at most once by the child.
    for (const auto& [index, job] : child.jobs) {
      ASSERT_LE(job.acks, 1) << JobId(index) << " acked twice by the child";
    }

    // Reopen at a time before any of the child's lease deadlines.
    auto clock = std::make_shared<ManualClock>(spawn_ms);
    std::unique_ptr<Store> store = test::OpenOrDie(test::TestOptions(data_dir, clock));
    Queue queue(*store);

    // Jobs the child held at the kill: each still leased to its child thread, or complete (its
    // Ack committed but was not logged).
    std::size_t acked_unlogged = 0;
    for (int t = 0; t < kChildThreads; ++t) {
      const std::optional<int> index = child.outstanding[static_cast<std::size_t>(t)];
      if (!index) continue;
      const ChildLog::Job& logged = child.jobs.at(*index);
      Result<std::optional<JobInfo>> info = queue.GetJob(kQueue, JobId(*index));
      ASSERT_TRUE(info.ok()) << info.status().ToString();
      ASSERT_TRUE(info->has_value()) << JobId(*index) << " is unknown to the queue";
      const JobInfo& job = **info;
      if (job.completed) {
        ++acked_unlogged;
        continue;
      }
      ASSERT_EQ(job.deliveries.size(), 1u) << JobId(*index);
      const DeliveryInfo& d = job.deliveries[0];
      EXPECT_EQ(d.state, JobState::kInFlight) << JobId(*index);
      EXPECT_EQ(d.consumer, std::string(kConsumerPrefix) + std::to_string(t)) << JobId(*index);
      EXPECT_EQ(d.attempts, logged.attempts.back()) << JobId(*index);
      EXPECT_EQ(d.at_ms, logged.last_deadline_ms) << JobId(*index);
    }

    Result<std::vector<GroupCounts>> before = queue.Counts(kQueue);
    ASSERT_TRUE(before.ok()) << before.status().ToString();
    ASSERT_EQ(before->size(), 1u);
    const GroupCounts at_kill = before->front();
    EXPECT_EQ(at_kill.delayed, 0u);
    EXPECT_EQ(at_kill.dead, 0u);
    // Not yet done: all but the acked jobs (logged, plus those whose ack was not logged).
    EXPECT_EQ(at_kill.ready + at_kill.in_flight + child.acks + acked_unlogged,
              static_cast<std::uint64_t>(kJobs));

    // Phase 1, before the child's leases end: only jobs the child never claimed come out, each
    // on its first attempt.
    std::unique_ptr<ParentJob[]> parent(new ParentJob[kJobs]);
    std::vector<std::string> problems = ConsumeAll(queue, 1, 1, rng(), parent);
    ASSERT_TRUE(problems.empty()) << problems.size() << " problems:" << Join(problems);
    std::size_t phase1 = 0;
    std::size_t unlogged_claims = 0;  // Held by the child without a logged claim.
    for (int i = 0; i < kJobs; ++i) {
      const ParentJob& p = parent[static_cast<std::size_t>(i)];
      if (p.phase.load() == 1) {
        ++phase1;
        EXPECT_FALSE(child.Claimed(i)) << JobId(i) << " was held by the child, yet claimable";
        EXPECT_EQ(p.attempt.load(), 1u) << JobId(i);
      } else if (!child.Claimed(i)) {
        ++unlogged_claims;
      }
    }
    EXPECT_EQ(phase1, at_kill.ready);
    // Each child thread had at most one job in hand: logged as claimed, or not yet.
    EXPECT_LE(child.OutstandingCount() + unlogged_claims, static_cast<std::size_t>(kChildThreads))
        << unlogged_claims << " jobs not ready, yet not in the child's log as claimed";

    // Phase 2, an hour on: every lease of the child has lapsed; the rest comes back.
    clock->Set(SystemClock().NowMs() + 60 * 60 * 1000);
    problems = ConsumeAll(queue, kParentThreads, 2, rng(), parent);
    ASSERT_TRUE(problems.empty()) << problems.size() << " problems:" << Join(problems);

    // Every job acknowledged exactly once: by the child (logged), by the test, or by the child
    // just before it died (held by a child thread, complete, never delivered to the test).
    std::vector<std::string> wrong;
    std::size_t redelivered = 0;
    for (int i = 0; i < kJobs; ++i) {
      const ParentJob& p = parent[static_cast<std::size_t>(i)];
      const int child_acks = child.Acks(i);
      const int parent_acks = p.acks.load();
      const int outstanding_thread = child.OutstandingThread(i);
      Result<std::optional<JobInfo>> info = queue.GetJob(kQueue, JobId(i));
      ASSERT_TRUE(info.ok()) << info.status().ToString();
      const std::string job = JobId(i) + ": ";
      if (!info->has_value() || !(*info)->completed) wrong.push_back(job + "not complete");
      if (child_acks + parent_acks > 1) {
        wrong.push_back(job + "acked " + std::to_string(child_acks) + " times by the child and " +
                        std::to_string(parent_acks) + " times by the test");
      }
      if (child_acks + parent_acks == 0 && outstanding_thread == -1) {
        wrong.push_back(job + "acked by nobody, and not in a child thread's hands at the kill");
      }
      const std::uint32_t attempt = p.attempt.load();
      if (outstanding_thread != -1 && parent_acks == 1) {
        // Held by the child at the kill, not acked: a new attempt once its lease lapsed.
        ++redelivered;
        const std::uint32_t child_attempt = child.jobs.at(i).attempts.back();
        if (p.phase.load() != 2 || attempt < 2 || attempt <= child_attempt) {
          wrong.push_back(job + "held by the child (attempt " + std::to_string(child_attempt) +
                          ") at the kill, then delivered in phase " +
                          std::to_string(p.phase.load()) + " as attempt " +
                          std::to_string(attempt));
        }
      }
      if (p.phase.load() == 2 && !child.Claimed(i) && attempt != 2) {
        // Not ready before the clock moved, so the child had claimed it without logging it.
        wrong.push_back(job + "never claimed per the child's log, yet not ready before the " +
                        "clock moved, and then delivered as attempt " + std::to_string(attempt));
      }
    }
    EXPECT_TRUE(wrong.empty()) << wrong.size() << " jobs went wrong:" << Join(wrong);
    EXPECT_EQ(redelivered + acked_unlogged, child.OutstandingCount());

    // Nothing left in the queue.
    Result<std::vector<GroupCounts>> after = queue.Counts(kQueue);
    ASSERT_TRUE(after.ok()) << after.status().ToString();
    ASSERT_EQ(after->size(), 1u);
    EXPECT_EQ(after->front().ready, 0u);
    EXPECT_EQ(after->front().delayed, 0u);
    EXPECT_EQ(after->front().in_flight, 0u);
    EXPECT_EQ(after->front().dead, 0u);
    Result<std::vector<ClaimedJob>> left = queue.Claim(kQueue, kGroup, "checker");
    ASSERT_TRUE(left.ok()) << left.status().ToString();
    EXPECT_TRUE(left->empty()) << left->front().ref.job_id << " is still claimable";

    std::printf(
        "round %d: the child acked %zu jobs (%zu lapsed leases); at the kill it held %zu with a "
        "logged claim (%zu of them acked, not logged) and %zu without; the test took %zu "
        "before its clock passed the child's leases, %zu after\n",
        round, child.acks, child.not_owner, child.OutstandingCount(), acked_unlogged,
        unlogged_claims, phase1, kJobs - child.acks - acked_unlogged - phase1);
    const Status closed = store->Close();
    ASSERT_TRUE(closed.ok()) << closed.ToString();
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
}  // namespace cairn
