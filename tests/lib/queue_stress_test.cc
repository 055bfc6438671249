// Queue stress on the real clock: 10,000 jobs, enqueued singly and in batches while the
// consumers already run, are consumed by two consumer groups at once — group A by 8 threads,
// group B by 2 — each thread claiming 1..4 jobs at a time and blocking in Claim (wait_ms > 0)
// when nothing is ready. Leases are long enough never to lapse, so within a group a job must
// never be held by two consumers at once, every Ack must succeed, and in the end every job
// must have been acked exactly once per group and be gone from the queue. A second variant
// has handlers fail some jobs a planned number of times (backoff 0 ms): each failed job must
// come back with its attempt counted and still be acked exactly once.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cairn/queue.h"
#include "cairn/status.h"
#include "support/temp_dir.h"

namespace cairn {
namespace {

constexpr std::string_view kQueue = "stress";
constexpr int kJobs = 10'000;
constexpr std::uint32_t kMaxClaim = 4;
// Leases never lapse in this test: a lapse would be a second delivery the test counts as one.
constexpr std::int64_t kVisibilityMs = 10 * 60 * 1000;
// Waiting claimers are ended by stop + WakeWaiters, never by their wait running out, so that a
// lost wake-up shows as a stall rather than a slow test.
constexpr std::int64_t kClaimWaitMs = kMaxVisibilityMs;
// A guard against a hang (a lost wake-up, a deadlock), not a timing expectation: no ack in
// either group for this long fails the test and stops the consumers.
constexpr auto kStallGuard = std::chrono::seconds(120);
// Failures planned per job in the failing variant are at most this; max_attempts is above it.
constexpr std::uint32_t kMaxAttempts = 20;

std::string JobId(int i) {
  std::string digits = std::to_string(i);
  return "job-" + std::string(5 - std::min<std::size_t>(5, digits.size()), '0') + digits;
}

std::string PayloadFor(std::string_view job_id) { return "payload of " + std::string(job_id); }

// The index of a job id made by JobId, or nullopt.
std::optional<int> JobIndex(std::string_view job_id) {
  constexpr std::string_view kPrefix = "job-";
  if (job_id.size() != kPrefix.size() + 5 || !job_id.starts_with(kPrefix)) return std::nullopt;
  int index = 0;
  for (char c : job_id.substr(kPrefix.size())) {
    if (c < '0' || c > '9') return std::nullopt;
    index = index * 10 + (c - '0');
  }
  if (index >= kJobs) return std::nullopt;
  return index;
}

// Collects failures from any thread; the first few messages are kept for the report.
class Problems {
 public:
  void Add(const std::string& message) {
    std::lock_guard<std::mutex> lock(mu_);
    if (++count_ <= kKept) messages_ << "\n  " << message;
  }
  std::size_t count() const {
    std::lock_guard<std::mutex> lock(mu_);
    return count_;
  }
  std::string messages() const {
    std::lock_guard<std::mutex> lock(mu_);
    return messages_.str();
  }

 private:
  static constexpr std::size_t kKept = 20;
  mutable std::mutex mu_;
  std::size_t count_ = 0;
  std::ostringstream messages_;
};

// What the test knows of one job in one group.
struct JobTrack {
  std::atomic<int> holder{-1};  // The consumer thread that holds it now, -1 for none.
  std::atomic<int> acks{0};
  std::atomic<std::uint32_t> fails{0};  // Fail calls made so far.
};

struct GroupPlan {
  std::string name;
  int threads;
  // Failures planned for job i in this group (0 in the plain variant).
  std::uint32_t (*failures)(int i);
};

std::uint32_t NoFailures(int) { return 0; }
// Group A fails every 5th job 1..3 times, group B every 7th job 1..2 times.
std::uint32_t FailuresA(int i) {
  return i % 5 == 0 ? 1 + static_cast<std::uint32_t>(i / 5 % 3) : 0;
}
std::uint32_t FailuresB(int i) {
  return i % 7 == 0 ? 1 + static_cast<std::uint32_t>(i / 7 % 2) : 0;
}

class GroupState {
 public:
  explicit GroupState(GroupPlan plan) : plan_(std::move(plan)), jobs_(new JobTrack[kJobs]) {}

  const GroupPlan& plan() const { return plan_; }
  JobTrack& job(int i) { return jobs_[static_cast<std::size_t>(i)]; }
  std::atomic<bool>& stop() { return stop_; }
  std::atomic<int>& acked() { return acked_; }

 private:
  GroupPlan plan_;
  std::unique_ptr<JobTrack[]> jobs_;
  std::atomic<bool> stop_{false};
  std::atomic<int> acked_{0};  // Jobs acked (each once, if all is well).
};

class Harness {
 public:
  Harness(Queue& queue, std::uint32_t max_attempts, std::vector<GroupPlan> plans)
      : queue_(queue), max_attempts_(max_attempts) {
    for (GroupPlan& plan : plans) groups_.push_back(std::make_unique<GroupState>(std::move(plan)));
  }

  std::vector<std::unique_ptr<GroupState>>& groups() { return groups_; }
  Problems& problems() { return problems_; }
  std::uint64_t progress() const { return progress_.load(); }

  // Stops every consumer of every group (after a failure, or once all is done).
  void StopAll() {
    for (auto& group : groups_) StopGroup(*group);
  }

  // Blocks until every running group has at most `backlog` of the first `enqueued` jobs left
  // to ack. Keeps the queue near empty for a while, so that claims run into the end of the
  // ready jobs while enqueues commit (and claimers wait, to be woken by those enqueues).
  void WaitForBacklog(int enqueued, int backlog) {
    for (;;) {
      const std::uint64_t seen = events_.load();
      bool caught_up = true;
      for (auto& group : groups_) {
        if (!group->stop().load() && enqueued - group->acked().load() > backlog) caught_up = false;
      }
      if (caught_up) return;
      events_.wait(seen);
    }
  }

  // Runs one consumer thread of group until the group is stopped.
  void Consume(GroupState& group, int thread, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::uint32_t> batch(1, kMaxClaim);
    const std::string consumer = group.plan().name + "-" + std::to_string(thread);
    const std::string where = "group " + group.plan().name + ", consumer " + consumer;
    while (!group.stop().load()) {
      ClaimOptions options;
      options.max_jobs = batch(rng);
      options.visibility_ms = kVisibilityMs;
      options.wait_ms = kClaimWaitMs;
      options.stop = &group.stop();
      Result<std::vector<ClaimedJob>> claimed =
          queue_.Claim(kQueue, group.plan().name, consumer, options);
      if (!claimed.ok()) {
        Fatal(where + ": Claim failed: " + claimed.status().ToString());
        return;
      }
      if (claimed->size() > options.max_jobs) {
        problems_.Add(where + ": Claim returned " + std::to_string(claimed->size()) +
                      " jobs for max_jobs " + std::to_string(options.max_jobs));
      }
      for (const ClaimedJob& job : *claimed) {
        if (!Handle(group, thread, where, job)) return;
      }
    }
  }

 private:
  // False when the consumer must stop (a failure that makes going on pointless).
  bool Handle(GroupState& group, int thread, const std::string& where, const ClaimedJob& job) {
    const std::string& id = job.ref.job_id;
    const std::optional<int> index = JobIndex(id);
    if (!index) {
      Fatal(where + ": claimed an unknown job id '" + id + "'");
      return false;
    }
    if (job.ref.group != group.plan().name || job.ref.queue != kQueue) {
      problems_.Add(where + ": job " + id + " came with ref for queue '" + job.ref.queue +
                    "', group '" + job.ref.group + "'");
    }
    if (job.payload != PayloadFor(id)) {
      problems_.Add(where + ": job " + id + " has payload '" + job.payload + "'");
    }
    JobTrack& track = group.job(*index);
    int expected = -1;
    if (!track.holder.compare_exchange_strong(expected, thread)) {
      problems_.Add(where + ": job " + id + " claimed while consumer thread " +
                    std::to_string(expected) + " of the same group still holds it");
    }
    if (track.acks.load() != 0) {
      problems_.Add(where + ": job " + id + " delivered again after it was acked");
    }
    const std::uint32_t fails = track.fails.load();
    if (job.attempt != fails + 1) {
      problems_.Add(where + ": job " + id + " delivered as attempt " + std::to_string(job.attempt) +
                    " after " + std::to_string(fails) + " failed attempts");
    }
    if (job.max_attempts != max_attempts_) {
      problems_.Add(where + ": job " + id + " has max_attempts " +
                    std::to_string(job.max_attempts));
    }
    if (job.errors.size() != std::min<std::size_t>(fails, kMaxJobErrors)) {
      problems_.Add(where + ": job " + id + " carries " + std::to_string(job.errors.size()) +
                    " errors after " + std::to_string(fails) + " failed attempts");
    }

    if (fails < group.plan().failures(*index)) {
      // Counted before the lease is given up: the next delivery may start right after.
      track.fails.fetch_add(1);
      ReleaseHold(track, thread, where, id);
      Result<FailResult> failed = queue_.Fail(job.ref, "planned failure " + std::to_string(fails));
      if (!failed.ok()) {
        Fatal(where + ": Fail of " + id + " failed: " + failed.status().ToString());
        return false;
      }
      if (*failed != FailResult::kRetryScheduled) {
        problems_.Add(where + ": Fail of " + id + " returned " +
                      std::to_string(static_cast<int>(*failed)) + ", not kRetryScheduled");
      }
      ++progress_;
      return true;
    }

    ReleaseHold(track, thread, where, id);
    Result<OwnerResult> acked = queue_.Ack(job.ref);
    if (!acked.ok()) {
      Fatal(where + ": Ack of " + id + " failed: " + acked.status().ToString());
      return false;
    }
    if (*acked != OwnerResult::kDone) {
      problems_.Add(where + ": Ack of " + id + " returned kNotOwner");
      return true;
    }
    track.acks.fetch_add(1);
    ++progress_;
    if (group.acked().fetch_add(1) + 1 == kJobs) StopGroup(group);
    Signal();
    return true;
  }

  void ReleaseHold(JobTrack& track, int thread, const std::string& where, const std::string& id) {
    int expected = thread;
    if (!track.holder.compare_exchange_strong(expected, -1)) {
      problems_.Add(where + ": job " + id + " was taken over by consumer thread " +
                    std::to_string(expected) + " while this one held it");
    }
  }

  void StopGroup(GroupState& group) {
    group.stop().store(true);
    queue_.WakeWaiters(kQueue, group.plan().name);
    Signal();
  }

  // Wakes WaitForBacklog to look again.
  void Signal() {
    events_.fetch_add(1);
    events_.notify_all();
  }

  void Fatal(const std::string& message) {
    problems_.Add(message);
    StopAll();
  }

  Queue& queue_;
  const std::uint32_t max_attempts_;
  std::vector<std::unique_ptr<GroupState>> groups_;
  Problems problems_;
  std::atomic<std::uint64_t> progress_{0};
  std::atomic<std::uint64_t> events_{0};  // Acks and stops, for WaitForBacklog.
};

// Enqueues the kJobs jobs in a random mix of single Enqueue calls and batches of 2..500. Before
// half of the calls it lets the consumers catch up to a small backlog first; otherwise the
// backlog grows (the consumers are slower than the producer).
void EnqueueAll(Queue& queue, const EnqueueOptions& base, std::mt19937_64& rng, Harness& harness) {
  Problems& problems = harness.problems();
  std::uniform_int_distribution<int> kind(0, 2);
  std::uniform_int_distribution<int> batch_size(2, 500);
  std::uniform_int_distribution<int> backlog(-16, 16);
  int next = 0;
  while (next < kJobs && problems.count() == 0) {
    if (const int allowed = backlog(rng); allowed >= 0) harness.WaitForBacklog(next, allowed);
    if (kind(rng) == 0) {
      EnqueueOptions options = base;
      options.job_id = JobId(next);
      Result<EnqueueResult> added = queue.Enqueue(kQueue, PayloadFor(options.job_id), options);
      if (!added.ok()) {
        problems.Add("Enqueue " + options.job_id + ": " + added.status().ToString());
        return;
      }
      if (!added->created || added->job_id != options.job_id) {
        problems.Add("Enqueue " + options.job_id + " returned id '" + added->job_id +
                     "', created " + std::to_string(added->created));
      }
      ++next;
      continue;
    }
    const int count = std::min(batch_size(rng), kJobs - next);
    std::vector<NewJob> batch;
    batch.reserve(static_cast<std::size_t>(count));
    for (int i = next; i < next + count; ++i) {
      NewJob job{"", base};
      job.options.job_id = JobId(i);
      job.payload = PayloadFor(job.options.job_id);
      batch.push_back(std::move(job));
    }
    Result<std::vector<EnqueueResult>> added = queue.EnqueueBatch(kQueue, batch);
    if (!added.ok()) {
      problems.Add("EnqueueBatch from " + JobId(next) + ": " + added.status().ToString());
      return;
    }
    if (added->size() != batch.size()) {
      problems.Add("EnqueueBatch from " + JobId(next) + " returned " +
                   std::to_string(added->size()) + " results for " + std::to_string(batch.size()) +
                   " jobs");
    } else {
      for (std::size_t i = 0; i < batch.size(); ++i) {
        if (!(*added)[i].created || (*added)[i].job_id != batch[i].options.job_id) {
          problems.Add("EnqueueBatch: result " + std::to_string(i) + " is id '" +
                       (*added)[i].job_id + "', created " + std::to_string((*added)[i].created) +
                       ", for " + batch[i].options.job_id);
        }
      }
    }
    next += count;
  }
}

void RunStress(bool with_failures) {
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);

  test::TempDir dir;
  auto store = test::OpenOrDie(test::TestOptions(dir.path()));
  Queue queue(*store);

  std::vector<GroupPlan> plans = {
      {"A", 8, with_failures ? FailuresA : NoFailures},
      {"B", 2, with_failures ? FailuresB : NoFailures},
  };
  for (const GroupPlan& plan : plans) {
    Result<bool> created = queue.CreateGroup(kQueue, plan.name);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    ASSERT_TRUE(*created);
  }
  EnqueueOptions base;
  if (with_failures) {
    base.max_attempts = kMaxAttempts;
    base.backoff = Backoff::Fixed(0);
  }
  Harness harness(queue, base.max_attempts, plans);

  // The consumers start first and block in Claim: enqueues must wake them.
  std::vector<std::thread> consumers;
  for (auto& state : harness.groups()) {
    for (int t = 0; t < state->plan().threads; ++t) {
      consumers.emplace_back(
          [&harness, &group = *state, t, s = rng()] { harness.Consume(group, t, s); });
    }
  }

  std::thread producer([&queue, &base, &harness, s = rng()] {
    std::mt19937_64 producer_rng(s);
    EnqueueAll(queue, base, producer_rng, harness);
    if (harness.problems().count() != 0) harness.StopAll();
  });

  // Waits for the producer and the consumers to end by themselves (the consumers after the last
  // ack of their group), failing the test if nothing moves for kStallGuard.
  std::mutex done_mu;
  std::condition_variable done_cv;
  bool done = false;
  std::thread joiner([&] {
    producer.join();
    for (auto& consumer : consumers) consumer.join();
    std::lock_guard<std::mutex> lock(done_mu);
    done = true;
    done_cv.notify_all();
  });
  {
    std::unique_lock<std::mutex> lock(done_mu);
    std::uint64_t last_progress = harness.progress();
    auto last_change = std::chrono::steady_clock::now();
    while (!done_cv.wait_for(lock, std::chrono::seconds(1), [&] { return done; })) {
      const std::uint64_t progress = harness.progress();
      const auto now = std::chrono::steady_clock::now();
      if (progress != last_progress) {
        last_progress = progress;
        last_change = now;
      } else if (now - last_change > kStallGuard) {
        std::ostringstream state;
        for (auto& group : harness.groups()) {
          state << " group " << group->plan().name << " acked " << group->acked().load() << ";";
        }
        // What the queue says it holds (ready jobs here, with claimers waiting, would mean a
        // lost wake-up; none, with jobs unacked, that the claim index hides them).
        if (Result<std::vector<GroupCounts>> counts = queue.Counts(kQueue); counts.ok()) {
          for (const GroupCounts& c : *counts) {
            state << " counts of " << c.group << ": ready " << c.ready << ", delayed " << c.delayed
                  << ", in flight " << c.in_flight << ", dead " << c.dead << ";";
          }
        }
        const std::string stall = "no progress for " + std::to_string(kStallGuard.count()) +
                                  " s; stopping the consumers:" + state.str();
        // Printed now as well: if a consumer is stuck outside Claim, the join below never ends.
        std::fprintf(stderr, "%s\n", stall.c_str());
        harness.problems().Add(stall);
        harness.StopAll();
        last_change = now;  // Give them another guard period to leave.
      }
    }
  }
  joiner.join();

  ASSERT_EQ(harness.problems().count(), 0u)
      << harness.problems().count()
      << " problems; the first ones:" << harness.problems().messages();

  // Every job acked exactly once per group, with exactly its planned failures.
  for (auto& group : harness.groups()) {
    SCOPED_TRACE("group " + group->plan().name);
    EXPECT_EQ(group->acked().load(), kJobs);
    int wrong = 0;
    for (int i = 0; i < kJobs && wrong < 10; ++i) {
      JobTrack& track = group->job(i);
      const bool ok = track.acks.load() == 1 && track.holder.load() == -1 &&
                      track.fails.load() == group->plan().failures(i);
      EXPECT_TRUE(ok) << JobId(i) << ": acked " << track.acks.load() << " times, failed "
                      << track.fails.load() << " times (planned " << group->plan().failures(i)
                      << "), held by " << track.holder.load();
      if (!ok) ++wrong;
    }
  }

  // Nothing left: no group has a ready, delayed, in-flight or dead job, and nothing is claimable.
  Result<std::vector<GroupCounts>> counts = queue.Counts(kQueue);
  ASSERT_TRUE(counts.ok()) << counts.status().ToString();
  ASSERT_EQ(counts->size(), plans.size());
  for (const GroupCounts& c : *counts) {
    EXPECT_EQ(c.ready, 0u) << "group " << c.group;
    EXPECT_EQ(c.delayed, 0u) << "group " << c.group;
    EXPECT_EQ(c.in_flight, 0u) << "group " << c.group;
    EXPECT_EQ(c.dead, 0u) << "group " << c.group;
  }
  for (const GroupPlan& plan : plans) {
    Result<std::vector<ClaimedJob>> left = queue.Claim(kQueue, plan.name, "checker");
    ASSERT_TRUE(left.ok()) << left.status().ToString();
    EXPECT_TRUE(left->empty()) << "group " << plan.name << " still hands out "
                               << left->front().ref.job_id;
  }
  // Every job completed by every group; its id is kept for the dedup window.
  int not_completed = 0;
  for (int i = 0; i < kJobs; ++i) {
    Result<std::optional<JobInfo>> info = queue.GetJob(kQueue, JobId(i));
    ASSERT_TRUE(info.ok()) << JobId(i) << ": " << info.status().ToString();
    const bool completed = info->has_value() && (*info)->completed;
    if (!completed && ++not_completed <= 10) {
      ADD_FAILURE() << JobId(i) << " is "
                    << (info->has_value() ? "still held by the queue, not completed"
                                          : "unknown to the queue");
    }
  }
  EXPECT_EQ(not_completed, 0);

  const Status closed = store->Close();
  EXPECT_TRUE(closed.ok()) << closed.ToString();
}

TEST(QueueStressTest, TwoGroupsEveryJobAckedOncePerGroup) { RunStress(/*with_failures=*/false); }

TEST(QueueStressTest, FailedJobsComeBackAndAreAckedOncePerGroup) {
  RunStress(/*with_failures=*/true);
}

}  // namespace
}  // namespace cairn
