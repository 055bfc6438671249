// Job queues on a manual clock: delayed jobs and FIFO order, the exact backoff schedule,
// dead-lettering with its error history, replay and purge, visibility leases that lapse or are
// extended, job-id deduplication and its window, consumer groups, counts, waiting claims woken
// by writes, by the timer and by WakeWaiters, input validation, and durability across reopen.
#include "cairn/queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <limits>
#include <map>
#include <ostream>
#include <set>
#include <source_location>
#include <stdexcept>
#include <thread>
#include <vector>

#include "support/temp_dir.h"

namespace cairn {

// Readable failure messages for the queue's enums and errors (found by ADL, so in cairn).
void PrintTo(JobState state, std::ostream* os) {
  static constexpr const char* kNames[] = {"kReady", "kDelayed", "kInFlight", "kDead"};
  *os << kNames[static_cast<int>(state)];
}
void PrintTo(FailResult result, std::ostream* os) {
  static constexpr const char* kNames[] = {"kRetryScheduled", "kDeadLettered", "kNotOwner"};
  *os << kNames[static_cast<int>(result)];
}
void PrintTo(OwnerResult result, std::ostream* os) {
  *os << (result == OwnerResult::kDone ? "kDone" : "kNotOwner");
}
void PrintTo(const JobError& e, std::ostream* os) {
  *os << "{attempt " << e.attempt << ", at " << e.at_ms << ", consumer '" << e.consumer << "', '"
      << e.message << "'}";
}

namespace {

using test::OpenOrDie;
using test::TempDir;
using test::TestOptions;

constexpr std::string_view kQ = "mail";
constexpr std::string_view kG = "senders";
constexpr std::int64_t kVis = 1000;  // The lease of every claim unless a test says otherwise.

// ready, delayed, in flight, dead.
using Tally = std::array<std::uint64_t, 4>;

void AwaitWaiters(const ManualClock& clock, std::size_t n) {
  while (clock.waiters() < n) std::this_thread::yield();
}

// The value of an OK result; fails the test (and leaves it) otherwise.
template <typename T>
T Ok(Result<T> r, std::source_location loc = std::source_location::current()) {
  if (!r.ok()) {
    ADD_FAILURE_AT(loc.file_name(), static_cast<int>(loc.line())) << r.status().ToString();
    throw std::runtime_error(r.status().ToString());
  }
  return std::move(r).value();
}

template <typename T>
StatusCode CodeOf(const Result<T>& r) {
  return r.ok() ? StatusCode::kOk : r.status().code();
}

std::vector<std::string> Payloads(const std::vector<ClaimedJob>& jobs) {
  std::vector<std::string> out;
  for (const ClaimedJob& job : jobs) out.push_back(job.payload);
  return out;
}

std::vector<std::string> DeadIds(const DeadPage& page) {
  std::vector<std::string> out;
  for (const DeadJob& job : page.jobs) out.push_back(job.job_id);
  return out;
}

bool IsLeaseExpiry(const JobError& e) {
  return e.message.find("lease expired") != std::string::npos;
}

Backoff NoBackoff() { return Backoff::Fixed(0); }

class QueueTest : public ::testing::Test {
 protected:
  QueueTest() : clock_(std::make_shared<ManualClock>()) {
    Open();
    EXPECT_TRUE(Ok(queue_->CreateGroup(kQ, kG)));
  }

  void Open() {
    queue_.reset();
    store_.reset();
    store_ = OpenOrDie(TestOptions(dir_.path(), clock_));
    queue_ = std::make_unique<Queue>(*store_);
  }

  std::int64_t Now() const { return clock_->NowMs(); }

  // Enqueues a job whose id and payload are both `id`; it must be new.
  void Add(const std::string& id, EnqueueOptions options = {}) {
    options.job_id = id;
    EnqueueResult r = Ok(queue_->Enqueue(kQ, id, options));
    EXPECT_EQ(r.job_id, id);
    EXPECT_TRUE(r.created) << id;
  }

  std::vector<ClaimedJob> Claim(std::string_view consumer, std::uint32_t max_jobs = 1,
                                std::string_view group = kG, std::int64_t visibility = kVis) {
    ClaimOptions o;
    o.max_jobs = max_jobs;
    o.visibility_ms = visibility;
    return Ok(queue_->Claim(kQ, group, consumer, o));
  }

  // Claims exactly one job, which must be `id`.
  ClaimedJob ClaimOne(std::string_view consumer, const std::string& id, std::string_view group = kG,
                      std::source_location loc = std::source_location::current()) {
    std::vector<ClaimedJob> jobs = Claim(consumer, 1, group);
    if (jobs.size() != 1 || jobs[0].ref.job_id != id) {
      ADD_FAILURE_AT(loc.file_name(), static_cast<int>(loc.line()))
          << "expected to claim " << id << ", got " << ::testing::PrintToString(Payloads(jobs));
      throw std::runtime_error("claim");
    }
    return jobs[0];
  }

  Tally TallyOf(std::string_view group = kG) {
    for (const GroupCounts& c : Ok(queue_->Counts(kQ))) {
      if (c.group == group) return {c.ready, c.delayed, c.in_flight, c.dead};
    }
    ADD_FAILURE() << "no counts for group " << group;
    return {};
  }

  JobInfo Info(std::string_view id, std::source_location loc = std::source_location::current()) {
    std::optional<JobInfo> info = Ok(queue_->GetJob(kQ, id));
    if (!info) {
      ADD_FAILURE_AT(loc.file_name(), static_cast<int>(loc.line())) << "no job " << id;
      throw std::runtime_error("job");
    }
    return *info;
  }

  // The job's delivery to `group`.
  DeliveryInfo DeliveryOf(std::string_view id, std::string_view group = kG,
                          std::source_location loc = std::source_location::current()) {
    for (const DeliveryInfo& d : Info(id, loc).deliveries) {
      if (d.group == group) return d;
    }
    ADD_FAILURE_AT(loc.file_name(), static_cast<int>(loc.line()))
        << "job " << id << " has no delivery in " << group;
    throw std::runtime_error("delivery");
  }

  DeadPage Dead(std::string_view cursor = {}, std::size_t limit = 100) {
    return Ok(queue_->ListDead(kQ, kG, cursor, limit));
  }

  TempDir dir_;
  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Queue> queue_;
};

// ---- Delayed jobs and order ----

TEST_F(QueueTest, DelayedJobIsClaimableExactlyAtItsDueTime) {
  const std::int64_t t0 = Now();
  Add("delayed", {.delay_ms = 500});
  // run_at_ms overrides delay_ms.
  Add("scheduled", {.delay_ms = 10, .run_at_ms = t0 + 1234});
  EXPECT_EQ(TallyOf(), (Tally{0, 2, 0, 0}));
  DeliveryInfo d = DeliveryOf("scheduled");
  EXPECT_EQ(d.state, JobState::kDelayed);
  EXPECT_EQ(d.at_ms, t0 + 1234);

  clock_->Set(t0 + 10);
  EXPECT_TRUE(Claim("c", 10).empty()) << "the scheduled job ignores delay_ms";
  clock_->Set(t0 + 499);
  EXPECT_TRUE(Claim("c", 10).empty());
  clock_->Set(t0 + 500);
  EXPECT_EQ(TallyOf(), (Tally{1, 1, 0, 0}));
  std::vector<ClaimedJob> jobs = Claim("c", 10);
  ASSERT_EQ(Payloads(jobs), std::vector<std::string>{"delayed"});
  EXPECT_EQ(jobs[0].ref.queue, kQ);
  EXPECT_EQ(jobs[0].ref.group, kG);
  EXPECT_EQ(jobs[0].ref.job_id, "delayed");
  EXPECT_FALSE(jobs[0].ref.token.empty());
  EXPECT_EQ(jobs[0].attempt, 1u);
  EXPECT_EQ(jobs[0].max_attempts, 3u);
  EXPECT_EQ(jobs[0].enqueued_at_ms, t0);
  EXPECT_EQ(jobs[0].deadline_ms, t0 + 500 + kVis);
  EXPECT_TRUE(jobs[0].errors.empty());

  clock_->Set(t0 + 1233);
  EXPECT_TRUE(Claim("c", 10).empty());
  clock_->Set(t0 + 1234);
  EXPECT_EQ(Payloads(Claim("c", 10)), std::vector<std::string>{"scheduled"});
}

// TryClaim, for callers that wait themselves: when nothing is taken, the next instant a job can
// fall due without a write — the earliest delayed job or lease deadline — or kNoDueTime.
TEST_F(QueueTest, TryClaimTellsWhenTheNextJobFallsDue) {
  const std::int64_t t0 = Now();
  ClaimOptions options;
  options.visibility_ms = 300;
  std::int64_t due = 0;
  EXPECT_TRUE(Ok(queue_->TryClaim(kQ, kG, "c", options, &due)).empty());
  EXPECT_EQ(due, kNoDueTime) << "an empty group";
  Add("later", {.delay_ms = 500});
  EXPECT_TRUE(Ok(queue_->TryClaim(kQ, kG, "c", options, &due)).empty());
  EXPECT_EQ(due, t0 + 500);
  Add("now");
  ASSERT_EQ(Payloads(Ok(queue_->TryClaim(kQ, kG, "c", options, &due))),
            std::vector<std::string>{"now"});
  EXPECT_TRUE(Ok(queue_->TryClaim(kQ, kG, "c", options, &due)).empty());
  EXPECT_EQ(due, t0 + 300) << "the lease of 'now' lapses before 'later' is due";
  clock_->Set(t0 + 300);  // The lease lapsed: a failed attempt, retried after its backoff.
  EXPECT_TRUE(Ok(queue_->TryClaim(kQ, kG, "c", options, &due)).empty());
  EXPECT_GT(due, t0 + 300);
  EXPECT_LE(due, t0 + 500);
  clock_->Set(due);
  EXPECT_FALSE(Ok(queue_->TryClaim(kQ, kG, "c", options, &due)).empty());
  EXPECT_EQ(queue_->TryClaim(kQ, "no-such-group", "c", options, &due).status().code(),
            StatusCode::kNotFound);
}

TEST_F(QueueTest, ClaimsAreFifoByDueTimeThenEnqueueOrder) {
  const std::int64_t t0 = Now();
  Add("late", {.delay_ms = 100});
  Add("p", {.run_at_ms = t0 + 300});
  clock_->Advance(150);
  Add("now1");
  Add("now2");
  Add("q", {.run_at_ms = t0 + 300});    // Same due time as p, enqueued later.
  Add("past", {.run_at_ms = t0 + 50});  // Enqueued last, due first.
  EXPECT_EQ(Payloads(Claim("c", 2)), (std::vector<std::string>{"past", "late"}));
  EXPECT_EQ(Payloads(Claim("c", 10)), (std::vector<std::string>{"now1", "now2"}));
  clock_->Set(t0 + 299);
  EXPECT_TRUE(Claim("c", 10).empty());
  clock_->Set(t0 + 300);
  EXPECT_EQ(Payloads(Claim("c", 1)), std::vector<std::string>{"p"});
  EXPECT_EQ(Payloads(Claim("c", 1)), std::vector<std::string>{"q"});
  EXPECT_TRUE(Claim("c", 10).empty());
}

// ---- Backoff ----

TEST(BackoffTest, DelayAfterDoublesFromBaseUpToMax) {
  const Backoff e = Backoff::Exponential(1000, 60'000);
  EXPECT_EQ(e.DelayAfter(1), 1000);
  EXPECT_EQ(e.DelayAfter(2), 2000);
  EXPECT_EQ(e.DelayAfter(3), 4000);
  EXPECT_EQ(e.DelayAfter(4), 8000);
  EXPECT_EQ(e.DelayAfter(6), 32'000);
  EXPECT_EQ(e.DelayAfter(7), 60'000) << "64 s capped at 60 s";
  EXPECT_EQ(e.DelayAfter(8), 60'000);
  EXPECT_EQ(e.DelayAfter(kMaxJobAttempts), 60'000);
  EXPECT_EQ(e.DelayAfter(std::numeric_limits<std::uint32_t>::max()), 60'000);

  EXPECT_EQ(Backoff::Exponential(3, 10).DelayAfter(2), 6);
  EXPECT_EQ(Backoff::Exponential(3, 10).DelayAfter(3), 10);
  EXPECT_EQ(Backoff::Exponential(0, 0).DelayAfter(5), 0);
  EXPECT_EQ(Backoff::Exponential(7, 7).DelayAfter(2), 7);
  // No overflow on the way to a huge cap.
  const std::int64_t big = std::int64_t{1} << 62;
  EXPECT_EQ(Backoff::Exponential(big, std::numeric_limits<std::int64_t>::max()).DelayAfter(2),
            std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(Backoff::Exponential(big, std::numeric_limits<std::int64_t>::max()).DelayAfter(40),
            std::numeric_limits<std::int64_t>::max());

  const Backoff f = Backoff::Fixed(500);
  EXPECT_EQ(f.DelayAfter(1), 500);
  EXPECT_EQ(f.DelayAfter(2), 500);
  EXPECT_EQ(f.DelayAfter(50), 500);

  const Backoff defaults;  // Exponential from 1 s to 1 hour, no jitter.
  EXPECT_EQ(defaults.kind, Backoff::Kind::kExponential);
  EXPECT_EQ(defaults.jitter, 0);
  EXPECT_EQ(defaults.DelayAfter(1), 1000);
  EXPECT_EQ(defaults.DelayAfter(12), 2'048'000);
  EXPECT_EQ(defaults.DelayAfter(13), 3'600'000);
}

TEST_F(QueueTest, FixedBackoffScheduleIsExact) {
  Add("job", {.max_attempts = 4, .backoff = Backoff::Fixed(250)});
  for (std::uint32_t attempt = 1; attempt <= 3; ++attempt) {
    SCOPED_TRACE(attempt);
    ClaimedJob job = ClaimOne("w", "job");
    EXPECT_EQ(job.attempt, attempt);
    clock_->Advance(10);
    const std::int64_t failed_at = Now();
    ASSERT_EQ(Ok(queue_->Fail(job.ref, "nope")), FailResult::kRetryScheduled);
    DeliveryInfo d = DeliveryOf("job");
    EXPECT_EQ(d.state, JobState::kDelayed);
    EXPECT_EQ(d.at_ms, failed_at + 250);
    EXPECT_EQ(d.attempts, attempt);
    clock_->Set(failed_at + 249);
    EXPECT_TRUE(Claim("w").empty());
    clock_->Set(failed_at + 250);
  }
  ClaimedJob last = ClaimOne("w", "job");
  EXPECT_EQ(last.attempt, 4u);
  EXPECT_EQ(Ok(queue_->Fail(last.ref, "nope")), FailResult::kDeadLettered);
}

TEST_F(QueueTest, ExponentialBackoffDoublesAndIsCapped) {
  Add("job", {.max_attempts = 6, .backoff = Backoff::Exponential(100, 350)});
  const std::int64_t expected[] = {100, 200, 350, 350, 350};
  for (std::uint32_t attempt = 1; attempt <= 5; ++attempt) {
    SCOPED_TRACE(attempt);
    ClaimedJob job = ClaimOne("w", "job");
    EXPECT_EQ(job.attempt, attempt);
    const std::int64_t failed_at = Now();
    ASSERT_EQ(Ok(queue_->Fail(job.ref, "nope")), FailResult::kRetryScheduled);
    EXPECT_EQ(DeliveryOf("job").at_ms, failed_at + expected[attempt - 1]);
    clock_->Set(failed_at + expected[attempt - 1] - 1);
    EXPECT_TRUE(Claim("w").empty());
    EXPECT_EQ(TallyOf(), (Tally{0, 1, 0, 0}));
    clock_->Advance(1);
    EXPECT_EQ(TallyOf(), (Tally{1, 0, 0, 0}));
  }
  ClaimedJob last = ClaimOne("w", "job");
  EXPECT_EQ(last.attempt, 6u);
  EXPECT_EQ(last.errors.size(), 5u);
  EXPECT_EQ(Ok(queue_->Fail(last.ref, "nope")), FailResult::kDeadLettered);
}

TEST_F(QueueTest, JitterDrawsEachDelayWithinItsRange) {
  const Backoff jittered = Backoff::Exponential(1000, 1000, 0.5);
  constexpr int kJobs = 20;
  for (int i = 0; i < kJobs; ++i) Add("j" + std::to_string(i), {.backoff = jittered});
  std::vector<ClaimedJob> jobs = Claim("w", kJobs);
  ASSERT_EQ(jobs.size(), static_cast<std::size_t>(kJobs));
  clock_->Advance(5);
  const std::int64_t failed_at = Now();
  for (const ClaimedJob& job : jobs) {
    ASSERT_EQ(Ok(queue_->Fail(job.ref, "nope")), FailResult::kRetryScheduled);
  }
  std::map<std::int64_t, std::set<std::string>> by_due;
  for (const ClaimedJob& job : jobs) {
    DeliveryInfo d = DeliveryOf(job.ref.job_id);
    EXPECT_EQ(d.state, JobState::kDelayed);
    EXPECT_GE(d.at_ms, failed_at + 500) << job.ref.job_id;
    EXPECT_LE(d.at_ms, failed_at + 1000) << job.ref.job_id;
    by_due[d.at_ms].insert(job.ref.job_id);
  }
  EXPECT_GT(by_due.size(), 1u) << "20 draws, all alike: jitter not applied";
  // Each job becomes claimable exactly at the instant GetJob showed.
  for (const auto& [due, ids] : by_due) {
    SCOPED_TRACE(due - failed_at);
    clock_->Set(due - 1);
    EXPECT_TRUE(Claim("w", kJobs).empty());
    clock_->Set(due);
    std::vector<ClaimedJob> now_due = Claim("w", kJobs);
    std::set<std::string> got;
    for (const ClaimedJob& job : now_due) got.insert(job.ref.job_id);
    EXPECT_EQ(got, ids);
  }
}

TEST_F(QueueTest, JitteredDelayOfALapsedLeaseIsTheSameBeforeAndAfterRecovery) {
  Add("job", {.backoff = Backoff::Exponential(1000, 1000, 0.5)});
  const ClaimedJob first = ClaimOne("w1", "job");
  const std::int64_t deadline = first.deadline_ms;
  clock_->Set(deadline);
  const DeliveryInfo viewed = DeliveryOf("job");  // Not recovered yet: only shown.
  EXPECT_EQ(viewed.state, JobState::kDelayed);
  const std::int64_t due = viewed.at_ms;
  EXPECT_GE(due, deadline + 500);
  EXPECT_LE(due, deadline + 1000);
  EXPECT_EQ(DeliveryOf("job").at_ms, due) << "the same draw for the same failure";
  clock_->Set(due - 1);
  EXPECT_TRUE(Claim("w2").empty());  // Recovers the lapsed lease into the store.
  EXPECT_EQ(DeliveryOf("job").at_ms, due);
  clock_->Set(due);
  ClaimedJob second = ClaimOne("w2", "job");
  EXPECT_EQ(second.attempt, 2u);
  ASSERT_EQ(second.errors.size(), 1u);
  EXPECT_EQ(second.errors[0].at_ms, deadline);
}

// ---- Dead letters ----

TEST_F(QueueTest, ExhaustedAttemptsDeadLetterWithTheirErrorHistory) {
  const std::int64_t t = Now();
  Add("job", {.max_attempts = 3, .backoff = Backoff::Fixed(100)});
  ClaimedJob j1 = ClaimOne("w1", "job");
  ASSERT_EQ(Ok(queue_->Fail(j1.ref, "boom 1")), FailResult::kRetryScheduled);
  const JobError e1{1, t, "w1", "boom 1"};

  clock_->Advance(100);
  ClaimedJob j2 = ClaimOne("w2", "job");
  EXPECT_EQ(j2.attempt, 2u);
  EXPECT_EQ(j2.errors, std::vector<JobError>{e1});
  clock_->Advance(5);
  ASSERT_EQ(Ok(queue_->Fail(j2.ref, "boom 2")), FailResult::kRetryScheduled);
  const JobError e2{2, t + 105, "w2", "boom 2"};

  clock_->Advance(100);
  ClaimedJob j3 = ClaimOne("w3", "job");
  EXPECT_EQ(j3.attempt, 3u);
  EXPECT_EQ(j3.errors, (std::vector<JobError>{e1, e2}));
  ASSERT_EQ(Ok(queue_->Fail(j3.ref, "boom 3")), FailResult::kDeadLettered);
  const JobError e3{3, t + 205, "w3", "boom 3"};

  clock_->Advance(1'000'000);
  EXPECT_TRUE(Claim("w4").empty());
  EXPECT_EQ(TallyOf(), (Tally{0, 0, 0, 1}));
  DeadPage page = Dead();
  ASSERT_EQ(page.jobs.size(), 1u);
  EXPECT_EQ(page.next_cursor, "");
  const DeadJob& dead = page.jobs[0];
  EXPECT_EQ(dead.job_id, "job");
  EXPECT_EQ(dead.group, kG);
  EXPECT_EQ(dead.payload, "job");
  EXPECT_EQ(dead.attempts, 3u);
  EXPECT_EQ(dead.died_at_ms, t + 205);
  EXPECT_EQ(dead.errors, (std::vector<JobError>{e1, e2, e3}));

  DeliveryInfo d = DeliveryOf("job");
  EXPECT_EQ(d.state, JobState::kDead);
  EXPECT_EQ(d.at_ms, t + 205);
  EXPECT_EQ(d.attempts, 3u);
  EXPECT_EQ(d.consumer, "w3") << "the last holder";
  EXPECT_EQ(d.errors, (std::vector<JobError>{e1, e2, e3}));
  EXPECT_EQ(Ok(queue_->Ack(j3.ref)), OwnerResult::kNotOwner) << "a dead job has no holder";
}

TEST_F(QueueTest, FailWithoutRetryDeadLettersAtOnce) {
  const std::int64_t t = Now();
  Add("job", {.max_attempts = 5});
  ClaimedJob job = ClaimOne("w", "job");
  ASSERT_EQ(Ok(queue_->Fail(job.ref, "bad input", /*retry=*/false)), FailResult::kDeadLettered);
  EXPECT_EQ(Ok(queue_->Fail(job.ref, "again", false)), FailResult::kNotOwner);
  EXPECT_EQ(TallyOf(), (Tally{0, 0, 0, 1}));
  DeadPage page = Dead();
  ASSERT_EQ(page.jobs.size(), 1u);
  EXPECT_EQ(page.jobs[0].attempts, 1u);
  EXPECT_EQ(page.jobs[0].died_at_ms, t);
  EXPECT_EQ(page.jobs[0].errors, (std::vector<JobError>{{1, t, "w", "bad input"}}));
}

TEST_F(QueueTest, ErrorsAreTruncatedAndOnlyTheLatestAreKept) {
  Add("job", {.max_attempts = 20, .backoff = NoBackoff()});
  const std::string long_error(kMaxJobErrorBytes + 100, 'e');
  for (std::uint32_t attempt = 1; attempt <= 18; ++attempt) {
    ClaimedJob job = ClaimOne("w", "job");
    ASSERT_EQ(Ok(queue_->Fail(job.ref, attempt == 18 ? long_error : std::to_string(attempt))),
              FailResult::kRetryScheduled);
    const std::vector<JobError> errors = DeliveryOf("job").errors;
    ASSERT_EQ(errors.size(), std::min<std::size_t>(attempt, kMaxJobErrors)) << attempt;
    EXPECT_EQ(errors.front().attempt,
              attempt > kMaxJobErrors ? attempt - kMaxJobErrors + 1 : std::size_t{1});
  }
  DeliveryInfo d = DeliveryOf("job");
  ASSERT_EQ(d.errors.size(), kMaxJobErrors);
  EXPECT_EQ(d.errors.front().attempt, 3u) << "the oldest two were dropped";
  EXPECT_EQ(d.errors.front().message, "3");
  EXPECT_EQ(d.errors.back().attempt, 18u);
  EXPECT_EQ(d.errors.back().message, long_error.substr(0, kMaxJobErrorBytes));
}

TEST_F(QueueTest, ListDeadPagesInEnqueueOrderWithCursors) {
  for (int i = 0; i < 5; ++i) {
    Add("d" + std::to_string(i), {.max_attempts = 1});
    if (i == 2) Add("alive");  // Not dead: never listed.
  }
  std::vector<ClaimedJob> jobs = Claim("w", 10);
  ASSERT_EQ(jobs.size(), 6u);
  ClaimedJob alive;
  // Die in reverse order: the list is in enqueue order all the same.
  for (auto it = jobs.rbegin(); it != jobs.rend(); ++it) {
    if (it->ref.job_id == "alive") {
      alive = *it;
      continue;
    }
    clock_->Advance(1);
    ASSERT_EQ(Ok(queue_->Fail(it->ref, "x")), FailResult::kDeadLettered);
  }
  const std::vector<std::string> all = {"d0", "d1", "d2", "d3", "d4"};
  EXPECT_EQ(DeadIds(Dead()), all);
  EXPECT_EQ(Dead().next_cursor, "");
  EXPECT_EQ(DeadIds(Dead("", 5)), all);
  EXPECT_EQ(Dead("", 5).next_cursor, "");

  for (std::size_t limit = 1; limit <= 4; ++limit) {
    SCOPED_TRACE(limit);
    std::vector<std::string> seen;
    std::string cursor;
    std::size_t pages = 0;
    do {
      DeadPage page = Dead(cursor, limit);
      ASSERT_FALSE(page.jobs.empty());
      ASSERT_LE(page.jobs.size(), limit);
      for (const std::string& id : DeadIds(page)) seen.push_back(id);
      cursor = page.next_cursor;
      ASSERT_LE(++pages, 5u);
    } while (!cursor.empty());
    EXPECT_EQ(seen, all);
    EXPECT_EQ(pages, (5 + limit - 1) / limit);
  }
  // A cursor from one page size serves another.
  DeadPage first = Dead("", 2);
  EXPECT_EQ(DeadIds(first), (std::vector<std::string>{"d0", "d1"}));
  DeadPage rest = Dead(first.next_cursor, 10);
  EXPECT_EQ(DeadIds(rest), (std::vector<std::string>{"d2", "d3", "d4"}));
  EXPECT_EQ(rest.next_cursor, "");

  EXPECT_EQ(CodeOf(queue_->ListDead(kQ, kG, "", 0)), StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeOf(queue_->ListDead(kQ, kG, "not-a-cursor")), StatusCode::kInvalidArgument);
  EXPECT_EQ(Ok(queue_->Ack(alive.ref)), OwnerResult::kDone);
}

TEST_F(QueueTest, ReplayResetsAttemptsAndKeepsErrors) {
  const std::int64_t t = Now();
  Add("job", {.max_attempts = 2, .backoff = NoBackoff()});
  ClaimedJob j1 = ClaimOne("w1", "job");
  ASSERT_EQ(Ok(queue_->Fail(j1.ref, "e1")), FailResult::kRetryScheduled);
  ClaimedJob j2 = ClaimOne("w2", "job");
  ASSERT_EQ(Ok(queue_->Fail(j2.ref, "e2")), FailResult::kDeadLettered);
  Add("other");
  ClaimedJob other = ClaimOne("w", "other");

  clock_->Advance(50);
  EXPECT_FALSE(Ok(queue_->Replay(kQ, kG, "other"))) << "in flight, not dead";
  EXPECT_FALSE(Ok(queue_->Replay(kQ, kG, "missing")));
  EXPECT_TRUE(Ok(queue_->Replay(kQ, kG, "job")));
  EXPECT_FALSE(Ok(queue_->Replay(kQ, kG, "job"))) << "no longer dead";
  EXPECT_TRUE(Dead().jobs.empty());
  EXPECT_EQ(TallyOf(), (Tally{1, 0, 1, 0}));
  DeliveryInfo d = DeliveryOf("job");
  EXPECT_EQ(d.state, JobState::kReady);
  EXPECT_EQ(d.attempts, 0u);
  EXPECT_EQ(d.at_ms, t + 50);

  ClaimedJob j3 = ClaimOne("w3", "job");
  EXPECT_EQ(j3.attempt, 1u);
  EXPECT_EQ(j3.max_attempts, 2u);
  EXPECT_EQ(j3.errors, (std::vector<JobError>{{1, t, "w1", "e1"}, {2, t, "w2", "e2"}}));
  EXPECT_EQ(Ok(queue_->Fail(j3.ref, "e3")), FailResult::kRetryScheduled)
      << "attempts were reset: one is left";
  EXPECT_EQ(Ok(queue_->Ack(other.ref)), OwnerResult::kDone);
}

TEST_F(QueueTest, PurgeRemovesDeadJobsAndTheLastGroupRemovesTheJob) {
  Add("a", {.max_attempts = 1});
  Add("b", {.max_attempts = 1});
  Add("c", {.max_attempts = 1});
  Add("d", {.max_attempts = 1, .dedup_window_ms = 0});
  Add("alive");
  std::vector<ClaimedJob> jobs = Claim("w", 4);
  ASSERT_EQ(jobs.size(), 4u);
  for (const ClaimedJob& job : jobs) {
    ASSERT_EQ(Ok(queue_->Fail(job.ref, "x", false)), FailResult::kDeadLettered);
  }
  EXPECT_EQ(TallyOf(), (Tally{1, 0, 0, 4}));

  EXPECT_TRUE(Ok(queue_->Purge(kQ, kG, "a")));
  EXPECT_FALSE(Ok(queue_->Purge(kQ, kG, "a")));
  EXPECT_FALSE(Ok(queue_->Purge(kQ, kG, "missing")));
  EXPECT_FALSE(Ok(queue_->Purge(kQ, kG, "alive"))) << "not dead";
  JobInfo a = Info("a");
  EXPECT_TRUE(a.completed);
  EXPECT_EQ(a.payload, "");
  EXPECT_TRUE(a.deliveries.empty());
  EXPECT_EQ(TallyOf(), (Tally{1, 0, 0, 3}));

  EXPECT_EQ(Ok(queue_->PurgeAll(kQ, kG)), 3u);
  EXPECT_EQ(Ok(queue_->PurgeAll(kQ, kG)), 0u);
  EXPECT_EQ(TallyOf(), (Tally{1, 0, 0, 0}));
  EXPECT_TRUE(Dead().jobs.empty());
  EXPECT_TRUE(Info("b").completed);
  EXPECT_TRUE(Info("c").completed);
  EXPECT_EQ(Ok(queue_->GetJob(kQ, "d")), std::nullopt) << "no dedup window: nothing kept";
  EXPECT_FALSE(Ok(queue_->Enqueue(kQ, "again", {.job_id = "a"})).created) << "id reserved";
  EXPECT_TRUE(Ok(queue_->Enqueue(kQ, "again", {.job_id = "d"})).created);
  EXPECT_EQ(Payloads(Claim("w", 10)), (std::vector<std::string>{"alive", "again"}));
}

TEST_F(QueueTest, PurgeInOneGroupLeavesTheJobToTheOthers) {
  ASSERT_TRUE(Ok(queue_->CreateGroup(kQ, "audit")));
  Add("job", {.max_attempts = 1});
  ClaimedJob job = ClaimOne("w", "job");
  ASSERT_EQ(Ok(queue_->Fail(job.ref, "x")), FailResult::kDeadLettered);
  EXPECT_TRUE(Ok(queue_->Purge(kQ, kG, "job")));
  JobInfo info = Info("job");
  EXPECT_FALSE(info.completed);
  ASSERT_EQ(info.deliveries.size(), 1u);
  EXPECT_EQ(info.deliveries[0].group, "audit");
  ClaimedJob audit = ClaimOne("a", "job", "audit");
  EXPECT_EQ(audit.attempt, 1u);
  EXPECT_EQ(Ok(queue_->Ack(audit.ref)), OwnerResult::kDone);
  EXPECT_TRUE(Info("job").completed);
}

TEST_F(QueueTest, EntriesAddedBehindEarlierClaimsAreFound) {
  const std::int64_t t0 = Now();
  Add("dies", {.max_attempts = 1});
  Add("retried", {.backoff = NoBackoff()});
  ASSERT_EQ(Ok(queue_->Fail(ClaimOne("w", "dies").ref, "x")), FailResult::kDeadLettered);
  const ClaimedJob retried = ClaimOne("w", "retried");
  Add("a");
  Add("b");
  EXPECT_EQ(Payloads(Claim("w", 10)), (std::vector<std::string>{"a", "b"}));
  // Each of these lands before the entries the claims above went past.
  Add("early", {.run_at_ms = t0 - 100});
  ASSERT_EQ(Ok(queue_->Fail(retried.ref, "again")), FailResult::kRetryScheduled);
  ASSERT_TRUE(Ok(queue_->Replay(kQ, kG, "dies")));
  EXPECT_EQ(TallyOf(), (Tally{3, 0, 2, 0}));
  EXPECT_EQ(Payloads(Claim("w", 10)), (std::vector<std::string>{"early", "dies", "retried"}));
}

// ---- Leases ----

TEST_F(QueueTest, LapsedLeaseIsRedeliveredAfterBackoffFromItsDeadline) {
  const std::int64_t t0 = Now();
  Add("job");  // Default backoff: 1 s after the first failure.
  const ClaimedJob j1 = ClaimOne("w1", "job");
  EXPECT_EQ(j1.deadline_ms, t0 + kVis);
  EXPECT_TRUE(Claim("w2").empty()) << "leased";
  clock_->Set(t0 + kVis - 1);
  EXPECT_TRUE(Claim("w2").empty()) << "still leased";
  EXPECT_EQ(TallyOf(), (Tally{0, 0, 1, 0}));

  clock_->Set(t0 + kVis);
  EXPECT_EQ(TallyOf(), (Tally{0, 1, 0, 0})) << "lapsed: shown as waiting out its backoff";
  DeliveryInfo d = DeliveryOf("job");
  EXPECT_EQ(d.state, JobState::kDelayed);
  EXPECT_EQ(d.at_ms, t0 + kVis + 1000);
  EXPECT_EQ(d.attempts, 1u);
  EXPECT_EQ(d.consumer, "w1") << "the last holder";
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_EQ(d.errors[0].attempt, 1u);
  EXPECT_EQ(d.errors[0].at_ms, t0 + kVis);
  EXPECT_EQ(d.errors[0].consumer, "w1");
  EXPECT_TRUE(IsLeaseExpiry(d.errors[0])) << d.errors[0].message;

  clock_->Set(t0 + kVis + 999);
  EXPECT_TRUE(Claim("w2").empty());
  clock_->Set(t0 + kVis + 1000);
  const ClaimedJob j2 = ClaimOne("w2", "job");
  EXPECT_EQ(j2.attempt, 2u);
  EXPECT_EQ(j2.deadline_ms, t0 + 2 * kVis + 1000);
  EXPECT_EQ(j2.errors, d.errors);
  EXPECT_NE(j2.ref.token, j1.ref.token);

  // The stale token changes nothing.
  EXPECT_EQ(Ok(queue_->Ack(j1.ref)), OwnerResult::kNotOwner);
  std::int64_t deadline = -1;
  EXPECT_EQ(Ok(queue_->Extend(j1.ref, 60'000, &deadline)), OwnerResult::kNotOwner);
  EXPECT_EQ(deadline, -1);
  EXPECT_EQ(Ok(queue_->Fail(j1.ref, "late", false)), FailResult::kNotOwner);
  d = DeliveryOf("job");
  EXPECT_EQ(d.state, JobState::kInFlight);
  EXPECT_EQ(d.attempts, 2u);
  EXPECT_EQ(d.at_ms, j2.deadline_ms);
  EXPECT_EQ(d.consumer, "w2");
  EXPECT_EQ(d.errors.size(), 1u);
  EXPECT_EQ(TallyOf(), (Tally{0, 0, 1, 0}));
  EXPECT_EQ(Ok(queue_->Ack(j2.ref)), OwnerResult::kDone);
  EXPECT_TRUE(Info("job").completed);
}

TEST_F(QueueTest, LeasedJobIsNotHandedToAnotherConsumer) {
  Add("a");
  Add("b");
  EXPECT_EQ(ClaimOne("w1", "a").attempt, 1u);
  EXPECT_EQ(ClaimOne("w2", "b").attempt, 1u);
  EXPECT_TRUE(Claim("w3", 10).empty());
  EXPECT_EQ(DeliveryOf("a").consumer, "w1");
  EXPECT_EQ(DeliveryOf("b").consumer, "w2");
}

TEST_F(QueueTest, HolderMayStillAckALapsedLeaseBeforeItIsRedelivered) {
  const std::int64_t t0 = Now();
  Add("job");
  const ClaimedJob job = ClaimOne("w1", "job");
  clock_->Set(t0 + 5 * kVis);  // Past the lease and its backoff.
  EXPECT_EQ(TallyOf(), (Tally{1, 0, 0, 0})) << "a lapsed lease counts as what it will become";
  EXPECT_EQ(DeliveryOf("job").state, JobState::kReady);
  EXPECT_EQ(Ok(queue_->Ack(job.ref)), OwnerResult::kDone);
  EXPECT_TRUE(Info("job").completed);
  EXPECT_TRUE(Claim("w2").empty());
  EXPECT_EQ(TallyOf(), (Tally{0, 0, 0, 0}));
}

TEST_F(QueueTest, HolderMayExtendALapsedLeaseBeforeItIsRedelivered) {
  const std::int64_t t0 = Now();
  Add("job", {.backoff = NoBackoff()});
  const ClaimedJob job = ClaimOne("w1", "job");
  clock_->Set(t0 + kVis + 10);
  std::int64_t deadline = 0;
  EXPECT_EQ(Ok(queue_->Extend(job.ref, 500, &deadline)), OwnerResult::kDone);
  EXPECT_EQ(deadline, t0 + kVis + 510);
  EXPECT_TRUE(Claim("w2").empty());
  EXPECT_EQ(DeliveryOf("job").consumer, "w1");
  EXPECT_EQ(Ok(queue_->Ack(job.ref)), OwnerResult::kDone);
}

TEST_F(QueueTest, ExtendMovesTheLeaseDeadline) {
  const std::int64_t t0 = Now();
  Add("job", {.backoff = NoBackoff()});
  const ClaimedJob j1 = ClaimOne("w1", "job");
  clock_->Advance(600);
  std::int64_t deadline = 0;
  ASSERT_EQ(Ok(queue_->Extend(j1.ref, 1000, &deadline)), OwnerResult::kDone);
  EXPECT_EQ(deadline, t0 + 1600);
  DeliveryInfo d = DeliveryOf("job");
  EXPECT_EQ(d.state, JobState::kInFlight);
  EXPECT_EQ(d.at_ms, t0 + 1600);
  EXPECT_EQ(d.consumer, "w1");

  clock_->Set(t0 + kVis);  // The old deadline.
  EXPECT_TRUE(Claim("w2").empty());
  EXPECT_EQ(TallyOf(), (Tally{0, 0, 1, 0}));
  clock_->Set(t0 + 1599);
  EXPECT_TRUE(Claim("w2").empty());
  clock_->Set(t0 + 1600);
  const ClaimedJob j2 = ClaimOne("w2", "job");
  EXPECT_EQ(j2.attempt, 2u);
  ASSERT_EQ(j2.errors.size(), 1u);
  EXPECT_EQ(j2.errors[0].at_ms, t0 + 1600);
  EXPECT_EQ(j2.errors[0].consumer, "w1");
}

TEST_F(QueueTest, LapseWithAttemptsExhaustedDeadLettersOnTheNextClaim) {
  const std::int64_t t0 = Now();
  Add("job", {.max_attempts = 1});
  const ClaimedJob job = ClaimOne("w1", "job");
  clock_->Set(t0 + kVis);
  EXPECT_EQ(TallyOf(), (Tally{0, 0, 0, 1}));
  DeliveryInfo d = DeliveryOf("job");
  EXPECT_EQ(d.state, JobState::kDead);
  EXPECT_EQ(d.at_ms, t0 + kVis);

  EXPECT_TRUE(Claim("w2").empty());
  EXPECT_EQ(TallyOf(), (Tally{0, 0, 0, 1}));
  DeadPage page = Dead();
  ASSERT_EQ(page.jobs.size(), 1u);
  EXPECT_EQ(page.jobs[0].job_id, "job");
  EXPECT_EQ(page.jobs[0].attempts, 1u);
  EXPECT_EQ(page.jobs[0].died_at_ms, t0 + kVis);
  ASSERT_EQ(page.jobs[0].errors.size(), 1u);
  EXPECT_EQ(page.jobs[0].errors[0].attempt, 1u);
  EXPECT_EQ(page.jobs[0].errors[0].at_ms, t0 + kVis);
  EXPECT_EQ(page.jobs[0].errors[0].consumer, "w1");
  EXPECT_TRUE(IsLeaseExpiry(page.jobs[0].errors[0]));
  EXPECT_EQ(Ok(queue_->Ack(job.ref)), OwnerResult::kNotOwner);
}

TEST_F(QueueTest, DeadLetterCallsSettleLapsedLeasesFirst) {
  const std::int64_t t0 = Now();
  Add("listed", {.max_attempts = 1});
  Add("replayed", {.max_attempts = 1});
  Add("purged", {.max_attempts = 1});
  const std::vector<ClaimedJob> held = Claim("w1", 3);
  ASSERT_EQ(held.size(), 3u);
  clock_->Set(t0 + kVis);  // All three lapse with no attempts left; no Claim runs.
  DeadPage page = Dead();
  ASSERT_EQ(page.jobs.size(), 3u) << "ListDead shows what Counts calls dead";
  EXPECT_EQ(page.jobs[0].job_id, "listed");
  EXPECT_EQ(Ok(queue_->Ack(held[0].ref)), OwnerResult::kNotOwner) << "the lapse was settled";
  EXPECT_TRUE(Ok(queue_->Replay(kQ, kG, "replayed")));
  EXPECT_TRUE(Ok(queue_->Purge(kQ, kG, "purged")));
  EXPECT_EQ(TallyOf(), (Tally{1, 0, 0, 1}));
  EXPECT_EQ(Payloads(Claim("w2", 10)).size(), 1u);
}

// More leases lapse at once than one claim transaction settles (a crashed consumer's):
// every one is settled, by successive passes, and redelivered in order.
TEST_F(QueueTest, ManyLapsedLeasesAreAllRedeliveredInOrder) {
  const std::int64_t t0 = Now();
  constexpr int kMany = 1300;
  std::vector<NewJob> batch;
  for (int i = 0; i < kMany; ++i) batch.push_back({"p", {.backoff = NoBackoff()}});
  std::vector<std::string> ids;
  for (std::size_t at = 0; at < batch.size(); at += kMaxEnqueueBatch) {
    const auto first = batch.begin() + static_cast<std::ptrdiff_t>(at);
    const auto last =
        batch.begin() + static_cast<std::ptrdiff_t>(std::min(batch.size(), at + kMaxEnqueueBatch));
    for (const EnqueueResult& r : Ok(queue_->EnqueueBatch(kQ, {first, last}))) {
      ids.push_back(r.job_id);
    }
  }
  std::vector<std::string> claimed;
  for (std::vector<ClaimedJob> jobs = Claim("w1", kMaxClaimBatch); !jobs.empty();
       jobs = Claim("w1", kMaxClaimBatch)) {
    for (const ClaimedJob& job : jobs) claimed.push_back(job.ref.job_id);
  }
  ASSERT_EQ(claimed, ids);
  clock_->Set(t0 + kVis);
  EXPECT_EQ(TallyOf(), (Tally{kMany, 0, 0, 0}));
  std::vector<std::string> again;
  for (std::vector<ClaimedJob> jobs = Claim("w2", kMaxClaimBatch); !jobs.empty();
       jobs = Claim("w2", kMaxClaimBatch)) {
    for (const ClaimedJob& job : jobs) {
      EXPECT_EQ(job.attempt, 2u);
      again.push_back(job.ref.job_id);
    }
  }
  EXPECT_EQ(again, ids) << "each lapsed job once, in enqueue order";
  EXPECT_EQ(TallyOf(), (Tally{0, 0, kMany, 0}));
}

TEST_F(QueueTest, DeadLetterCallsSettleMoreLapsesThanOnePassTakes) {
  const std::int64_t t0 = Now();
  constexpr std::uint64_t kMany = 1300;
  std::vector<NewJob> batch(kMaxEnqueueBatch, NewJob{"p", {.max_attempts = 1}});
  for (std::uint64_t n = 0; n < kMany; n += batch.size()) {
    batch.resize(std::min<std::uint64_t>(kMaxEnqueueBatch, kMany - n));
    Ok(queue_->EnqueueBatch(kQ, batch));
  }
  while (!Claim("w1", kMaxClaimBatch).empty()) {
  }
  clock_->Set(t0 + kVis);
  std::uint64_t listed = 0;
  std::string cursor;
  do {
    DeadPage page = Dead(cursor, 1000);
    listed += page.jobs.size();
    cursor = page.next_cursor;
  } while (!cursor.empty());
  EXPECT_EQ(listed, kMany);
  EXPECT_EQ(TallyOf(), (Tally{0, 0, 0, kMany}));
  EXPECT_EQ(Ok(queue_->PurgeAll(kQ, kG)), kMany);
}

TEST_F(QueueTest, DeadLetterCallsOnAMissingGroupAreNotFound) {
  EXPECT_EQ(CodeOf(queue_->ListDead(kQ, "nope")), StatusCode::kNotFound);
  EXPECT_EQ(CodeOf(queue_->Replay(kQ, "nope", "a")), StatusCode::kNotFound);
  EXPECT_EQ(CodeOf(queue_->Purge(kQ, "nope", "a")), StatusCode::kNotFound);
  EXPECT_EQ(CodeOf(queue_->PurgeAll(kQ, "nope")), StatusCode::kNotFound);
}

// ---- Deduplication ----

TEST_F(QueueTest, DuplicateIdKeepsTheOriginalJob) {
  EnqueueResult first = Ok(queue_->Enqueue(kQ, "first", {.job_id = "x"}));
  EXPECT_EQ(first.job_id, "x");
  EXPECT_TRUE(first.created);
  EnqueueResult second = Ok(queue_->Enqueue(kQ, "second", {.job_id = "x", .delay_ms = 5000}));
  EXPECT_EQ(second.job_id, "x");
  EXPECT_FALSE(second.created);
  EXPECT_EQ(Info("x").payload, "first");
  EXPECT_EQ(Payloads(Claim("w", 10)), std::vector<std::string>{"first"});
  EXPECT_TRUE(Ok(queue_->Enqueue("other-queue", "third", {.job_id = "x"})).created)
      << "ids are per queue";

  EnqueueResult random = Ok(queue_->Enqueue(kQ, "r"));
  EXPECT_TRUE(random.created);
  EXPECT_FALSE(random.job_id.empty());
  EXPECT_NE(random.job_id, Ok(queue_->Enqueue(kQ, "r")).job_id);
}

TEST_F(QueueTest, CompletedIdStaysReservedForTheDedupWindow) {
  ASSERT_TRUE(Ok(queue_->Enqueue(kQ, "first", {.job_id = "x", .dedup_window_ms = 10'000})).created);
  ClaimedJob job = ClaimOne("w", "x");
  clock_->Advance(100);
  ASSERT_EQ(Ok(queue_->Ack(job.ref)), OwnerResult::kDone);
  const std::int64_t acked = Now();
  JobInfo info = Info("x");
  EXPECT_TRUE(info.completed);
  EXPECT_EQ(info.job_id, "x");
  EXPECT_EQ(info.payload, "");
  EXPECT_TRUE(info.deliveries.empty());

  EXPECT_FALSE(Ok(queue_->Enqueue(kQ, "again", {.job_id = "x"})).created);
  EXPECT_TRUE(Claim("w").empty());
  clock_->Set(acked + 9999);
  EXPECT_FALSE(Ok(queue_->Enqueue(kQ, "again", {.job_id = "x"})).created);
  EXPECT_TRUE(Info("x").completed);
  EXPECT_TRUE(Claim("w").empty());
  EXPECT_EQ(TallyOf(), (Tally{0, 0, 0, 0}));

  clock_->Set(acked + 10'000);
  EXPECT_EQ(Ok(queue_->GetJob(kQ, "x")), std::nullopt);
  EXPECT_TRUE(Ok(queue_->Enqueue(kQ, "third", {.job_id = "x"})).created);
  ClaimedJob again = ClaimOne("w", "x");
  EXPECT_EQ(again.payload, "third");
  EXPECT_EQ(again.attempt, 1u);
  EXPECT_TRUE(again.errors.empty());
}

TEST_F(QueueTest, ZeroDedupWindowFreesTheIdAtOnce) {
  ASSERT_TRUE(Ok(queue_->Enqueue(kQ, "first", {.job_id = "x", .dedup_window_ms = 0})).created);
  ClaimedJob job = ClaimOne("w", "x");
  ASSERT_EQ(Ok(queue_->Ack(job.ref)), OwnerResult::kDone);
  EXPECT_EQ(Ok(queue_->GetJob(kQ, "x")), std::nullopt);
  EXPECT_TRUE(Ok(queue_->Enqueue(kQ, "second", {.job_id = "x"})).created);
  EXPECT_EQ(ClaimOne("w", "x").payload, "second");
}

TEST_F(QueueTest, EnqueueBatchDeduplicatesWithinTheBatchAndAgainstStoredJobs) {
  Add("old");
  std::vector<NewJob> batch = {{"1", {.job_id = "a"}},
                               {"2", {.job_id = "b"}},
                               {"3", {.job_id = "a"}},
                               {"4", {.job_id = "old"}},
                               {"5", {}},
                               {"6", {}}};
  std::vector<EnqueueResult> results = Ok(queue_->EnqueueBatch(kQ, batch));
  ASSERT_EQ(results.size(), 6u);
  EXPECT_EQ(results[0].job_id, "a");
  EXPECT_TRUE(results[0].created);
  EXPECT_EQ(results[1].job_id, "b");
  EXPECT_TRUE(results[1].created);
  EXPECT_EQ(results[2].job_id, "a");
  EXPECT_FALSE(results[2].created);
  EXPECT_EQ(results[3].job_id, "old");
  EXPECT_FALSE(results[3].created);
  EXPECT_TRUE(results[4].created);
  EXPECT_TRUE(results[5].created);
  EXPECT_FALSE(results[4].job_id.empty());
  EXPECT_NE(results[4].job_id, results[5].job_id);
  EXPECT_EQ(Info("a").payload, "1");
  EXPECT_EQ(Payloads(Claim("w", 10)), (std::vector<std::string>{"old", "1", "2", "5", "6"}));
}

TEST_F(QueueTest, EnqueueBatchIsAllOrNothing) {
  std::vector<NewJob> batch = {{"1", {.job_id = "a"}}, {"2", {.job_id = "b", .max_attempts = 0}}};
  EXPECT_EQ(CodeOf(queue_->EnqueueBatch(kQ, batch)), StatusCode::kInvalidArgument);
  batch[1] = {"2", {.job_id = std::string(kMaxJobIdBytes + 1, 'b')}};
  EXPECT_EQ(CodeOf(queue_->EnqueueBatch(kQ, batch)), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Ok(queue_->EnqueueBatch(kQ, {})).empty()) << "an empty batch adds nothing";
  EXPECT_EQ(Ok(queue_->GetJob(kQ, "a")), std::nullopt);
  EXPECT_EQ(TallyOf(), (Tally{0, 0, 0, 0}));
  EXPECT_TRUE(Claim("w", 10).empty());
}

// ---- Consumer groups ----

TEST_F(QueueTest, EveryGroupGetsEveryJobAndAcksIndependently) {
  ASSERT_TRUE(Ok(queue_->CreateGroup(kQ, "audit")));
  const std::int64_t t0 = Now();
  Add("a");
  Add("b");
  const std::vector<ClaimedJob> mine = Claim("x", 10);
  const std::vector<ClaimedJob> theirs = Claim("y", 10, "audit");
  ASSERT_EQ(Payloads(mine), (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(Payloads(theirs), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(theirs[0].attempt, 1u);
  JobRef crossed = theirs[0].ref;
  crossed.group = kG;
  EXPECT_EQ(Ok(queue_->Ack(crossed)), OwnerResult::kNotOwner) << "a token holds in its group only";

  for (const ClaimedJob& job : mine) ASSERT_EQ(Ok(queue_->Ack(job.ref)), OwnerResult::kDone);
  EXPECT_EQ(TallyOf(kG), (Tally{0, 0, 0, 0}));
  EXPECT_EQ(TallyOf("audit"), (Tally{0, 0, 2, 0}));
  JobInfo a = Info("a");
  EXPECT_FALSE(a.completed);
  ASSERT_EQ(a.deliveries.size(), 1u);
  EXPECT_EQ(a.deliveries[0].group, "audit");
  EXPECT_EQ(a.deliveries[0].state, JobState::kInFlight);
  EXPECT_EQ(a.deliveries[0].attempts, 1u);
  EXPECT_EQ(a.deliveries[0].at_ms, t0 + kVis);
  EXPECT_EQ(a.deliveries[0].consumer, "y");

  ASSERT_EQ(Ok(queue_->Fail(theirs[0].ref, "audit failed", false)), FailResult::kDeadLettered);
  EXPECT_EQ(TallyOf(kG), (Tally{0, 0, 0, 0}));
  EXPECT_EQ(TallyOf("audit"), (Tally{0, 0, 1, 1}));
  EXPECT_TRUE(Dead().jobs.empty()) << "each group has its own dead-letter queue";
  EXPECT_EQ(DeadIds(Ok(queue_->ListDead(kQ, "audit"))), std::vector<std::string>{"a"});

  ASSERT_EQ(Ok(queue_->Ack(theirs[1].ref)), OwnerResult::kDone);
  EXPECT_TRUE(Info("b").completed) << "acked by every group";
  EXPECT_FALSE(Info("a").completed);
}

TEST_F(QueueTest, NewGroupGetsNewJobsOrEveryJobTheQueueStillHolds) {
  const std::int64_t t0 = Now();
  Add("done");
  Add("pending", {.delay_ms = 500});
  ASSERT_EQ(Ok(queue_->Ack(ClaimOne("w", "done").ref)), OwnerResult::kDone);
  EXPECT_TRUE(Ok(queue_->CreateGroup(kQ, "fresh", GroupStart::kNewJobs)));
  EXPECT_TRUE(Ok(queue_->CreateGroup(kQ, "all", GroupStart::kAllJobs)));
  EXPECT_FALSE(Ok(queue_->CreateGroup(kQ, "all", GroupStart::kNewJobs))) << "exists already";
  EXPECT_FALSE(Ok(queue_->CreateGroup(kQ, kG, GroupStart::kAllJobs)));
  Add("after");

  EXPECT_EQ(Payloads(Claim("w", 10, "fresh")), std::vector<std::string>{"after"});
  EXPECT_EQ(Payloads(Claim("w", 10, "all")), std::vector<std::string>{"after"})
      << "'pending' keeps its due time; 'done' is finished";
  clock_->Set(t0 + 500);
  EXPECT_EQ(Payloads(Claim("w", 10, "all")), std::vector<std::string>{"pending"});
  EXPECT_TRUE(Claim("w", 10, "fresh").empty());
  EXPECT_EQ(Ok(queue_->Groups(kQ)), (std::vector<std::string>{std::string(kG), "fresh", "all"}));
  std::vector<std::string> groups;
  for (const DeliveryInfo& d : Info("pending").deliveries) groups.push_back(d.group);
  EXPECT_EQ(groups, (std::vector<std::string>{std::string(kG), "all"}));

  // A job enqueued before the queue had any group waits for a kAllJobs group.
  ASSERT_TRUE(Ok(queue_->Enqueue("orphans", "orphan", {.job_id = "o"})).created);
  ASSERT_TRUE(Ok(queue_->CreateGroup("orphans", "new-only")));
  ASSERT_TRUE(Ok(queue_->CreateGroup("orphans", "everything", GroupStart::kAllJobs)));
  EXPECT_TRUE(Ok(queue_->Claim("orphans", "new-only", "w")).empty());
  std::vector<ClaimedJob> orphan = Ok(queue_->Claim("orphans", "everything", "w"));
  EXPECT_EQ(Payloads(orphan), std::vector<std::string>{"orphan"});
}

TEST_F(QueueTest, GroupsAreListedInCreationOrder) {
  EXPECT_TRUE(Ok(queue_->Groups("jobs")).empty());
  for (const char* name : {"zeta", "alpha", "mid"}) {
    EXPECT_TRUE(Ok(queue_->CreateGroup("jobs", name)));
  }
  EXPECT_FALSE(Ok(queue_->CreateGroup("jobs", "alpha")));
  const std::vector<std::string> expected = {"zeta", "alpha", "mid"};
  EXPECT_EQ(Ok(queue_->Groups("jobs")), expected);
  std::vector<std::string> counted;
  for (const GroupCounts& c : Ok(queue_->Counts("jobs"))) counted.push_back(c.group);
  EXPECT_EQ(counted, expected);
  EXPECT_EQ(Ok(queue_->Groups(kQ)), std::vector<std::string>{std::string(kG)});
  EXPECT_TRUE(Ok(queue_->Counts("no-such-queue")).empty());
}

TEST_F(QueueTest, ClaimOnAMissingGroupIsNotFound) {
  Add("job");
  EXPECT_EQ(CodeOf(queue_->Claim(kQ, "nobody", "w")), StatusCode::kNotFound);
  EXPECT_EQ(CodeOf(queue_->Claim("no-queue", kG, "w")), StatusCode::kNotFound);
  ClaimOptions waiting;
  waiting.wait_ms = 60'000;
  EXPECT_EQ(CodeOf(queue_->Claim(kQ, "nobody", "w", waiting)), StatusCode::kNotFound)
      << "and at once, without waiting";
  EXPECT_EQ(TallyOf(), (Tally{1, 0, 0, 0}));
}

// ---- Counts and GetJob ----

TEST_F(QueueTest, CountsEachStatePerGroup) {
  ASSERT_TRUE(Ok(queue_->CreateGroup(kQ, "audit")));
  const std::int64_t t0 = Now();
  Add("flight");  // Default backoff: due again 1 s after its lease lapses.
  Add("dead", {.max_attempts = 1});
  Add("ready");
  Add("delayed", {.delay_ms = 5000});
  std::vector<ClaimedJob> jobs = Claim("w", 2);
  ASSERT_EQ(Payloads(jobs), (std::vector<std::string>{"flight", "dead"}));
  ASSERT_EQ(Ok(queue_->Fail(jobs[1].ref, "x")), FailResult::kDeadLettered);

  std::vector<GroupCounts> counts = Ok(queue_->Counts(kQ));
  ASSERT_EQ(counts.size(), 2u);
  EXPECT_EQ(counts[0].group, kG);
  EXPECT_EQ(counts[1].group, "audit");
  EXPECT_EQ(TallyOf(kG), (Tally{1, 1, 1, 1}));
  EXPECT_EQ(TallyOf("audit"), (Tally{3, 1, 0, 0}));

  clock_->Set(t0 + kVis);  // The lease of "flight" lapses: a retry 1 s later.
  EXPECT_EQ(TallyOf(kG), (Tally{1, 2, 0, 1}));
  clock_->Set(t0 + kVis + 1000);
  EXPECT_EQ(TallyOf(kG), (Tally{2, 1, 0, 1}));
  clock_->Set(t0 + 5000);
  EXPECT_EQ(TallyOf(kG), (Tally{3, 0, 0, 1}));
  EXPECT_EQ(TallyOf("audit"), (Tally{4, 0, 0, 0}));
}

TEST_F(QueueTest, GetJobShowsTheJobAndEachGroupsDelivery) {
  ASSERT_TRUE(Ok(queue_->CreateGroup(kQ, "audit")));
  const std::int64_t t0 = Now();
  Add("job", {.max_attempts = 4, .backoff = Backoff::Exponential(200, 800, 0.25)});
  JobInfo info = Info("job");
  EXPECT_EQ(info.job_id, "job");
  EXPECT_FALSE(info.completed);
  EXPECT_EQ(info.payload, "job");
  EXPECT_EQ(info.enqueued_at_ms, t0);
  EXPECT_EQ(info.max_attempts, 4u);
  EXPECT_EQ(info.backoff.kind, Backoff::Kind::kExponential);
  EXPECT_EQ(info.backoff.base_ms, 200);
  EXPECT_EQ(info.backoff.max_ms, 800);
  EXPECT_EQ(info.backoff.jitter, 0.25);
  ASSERT_EQ(info.deliveries.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const DeliveryInfo& d = info.deliveries[i];
    EXPECT_EQ(d.group, i == 0 ? std::string(kG) : "audit");
    EXPECT_EQ(d.state, JobState::kReady);
    EXPECT_EQ(d.attempts, 0u);
    EXPECT_EQ(d.at_ms, t0);
    EXPECT_EQ(d.consumer, "");
    EXPECT_TRUE(d.errors.empty());
  }

  clock_->Advance(10);
  const ClaimedJob job = ClaimOne("w1", "job");
  info = Info("job");
  ASSERT_EQ(info.deliveries.size(), 2u);
  EXPECT_EQ(info.deliveries[0].state, JobState::kInFlight);
  EXPECT_EQ(info.deliveries[0].attempts, 1u);
  EXPECT_EQ(info.deliveries[0].at_ms, t0 + 10 + kVis);
  EXPECT_EQ(info.deliveries[0].consumer, "w1");
  EXPECT_EQ(info.deliveries[1].state, JobState::kReady);
  EXPECT_EQ(info.deliveries[1].attempts, 0u);

  ASSERT_EQ(Ok(queue_->Fail(job.ref, "e", false)), FailResult::kDeadLettered);
  const DeliveryInfo dead = DeliveryOf("job");
  EXPECT_EQ(dead.state, JobState::kDead);
  EXPECT_EQ(dead.attempts, 1u);
  EXPECT_EQ(dead.at_ms, t0 + 10);
  EXPECT_EQ(dead.consumer, "w1");
  EXPECT_EQ(dead.errors, (std::vector<JobError>{{1, t0 + 10, "w1", "e"}}));
  EXPECT_EQ(Ok(queue_->GetJob(kQ, "missing")), std::nullopt);
  EXPECT_EQ(Ok(queue_->GetJob("other-queue", "job")), std::nullopt);
}

// ---- Waiting claims ----

class WaitingClaimTest : public QueueTest {
 protected:
  using Claimed = Result<std::vector<ClaimedJob>>;

  std::thread StartClaim(Claimed& out, std::string consumer, std::int64_t wait_ms,
                         const std::atomic<bool>* stop = nullptr) {
    return std::thread([this, &out, consumer, wait_ms, stop] {
      ClaimOptions o;
      o.visibility_ms = kVis;
      o.wait_ms = wait_ms;
      o.stop = stop;
      out = queue_->Claim(kQ, kG, consumer, o);
    });
  }
};

TEST_F(WaitingClaimTest, ReadyJobIsReturnedWithoutWaiting) {
  Add("job");
  ClaimOptions o;
  o.wait_ms = 60'000;
  EXPECT_EQ(Payloads(Ok(queue_->Claim(kQ, kG, "w", o))), std::vector<std::string>{"job"});
}

TEST_F(WaitingClaimTest, IsWokenByAnEnqueue) {
  Claimed got(Status::Internal("not run"));
  std::thread waiter = StartClaim(got, "w", 60'000);
  AwaitWaiters(*clock_, 1);
  const std::int64_t before = Now();
  Add("job");
  waiter.join();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(Payloads(*got), std::vector<std::string>{"job"});
  EXPECT_EQ(Now(), before) << "woken by the write, not by time";
  EXPECT_EQ((*got)[0].deadline_ms, before + kVis);
  EXPECT_FALSE((*got)[0].ref.token.empty());
}

TEST_F(WaitingClaimTest, IsWokenByAnEnqueueThroughAnotherQueueObject) {
  Queue other(*store_);
  Claimed got(Status::Internal("not run"));
  std::thread waiter = StartClaim(got, "w", 60'000);
  AwaitWaiters(*clock_, 1);
  ASSERT_TRUE(Ok(other.Enqueue(kQ, "job", {.job_id = "job"})).created);
  waiter.join();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(Payloads(*got), std::vector<std::string>{"job"});
}

TEST_F(WaitingClaimTest, IsWokenAtADelayedJobsDueTime) {
  const std::int64_t t0 = Now();
  Add("job", {.delay_ms = 700});
  Claimed got(Status::Internal("not run"));
  std::thread waiter = StartClaim(got, "w", 60'000);
  AwaitWaiters(*clock_, 1);
  clock_->Set(t0 + 699);
  AwaitWaiters(*clock_, 1);
  clock_->Set(t0 + 700);
  waiter.join();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(Payloads(*got), std::vector<std::string>{"job"});
  EXPECT_EQ((*got)[0].deadline_ms, t0 + 700 + kVis) << "claimed at the due time";
}

TEST_F(WaitingClaimTest, IsWokenAtALeaseDeadline) {
  const std::int64_t t0 = Now();
  Add("job", {.backoff = NoBackoff()});
  const ClaimedJob held = ClaimOne("w1", "job");
  Claimed got(Status::Internal("not run"));
  std::thread waiter = StartClaim(got, "w2", 60'000);
  AwaitWaiters(*clock_, 1);
  clock_->Set(t0 + kVis);
  waiter.join();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].attempt, 2u);
  EXPECT_EQ((*got)[0].deadline_ms, t0 + 2 * kVis);
  EXPECT_EQ(Ok(queue_->Ack(held.ref)), OwnerResult::kNotOwner);
}

TEST_F(WaitingClaimTest, IsWokenAtALeaseDeadlineAfterReopen) {
  const std::int64_t t0 = Now();
  Add("job", {.backoff = NoBackoff()});
  (void)ClaimOne("w1", "job");
  Open();  // The lease deadlines a waiter times itself by are read back from the store.
  Claimed got(Status::Internal("not run"));
  std::thread waiter = StartClaim(got, "w2", 60'000);
  AwaitWaiters(*clock_, 1);
  clock_->Set(t0 + kVis - 1);
  AwaitWaiters(*clock_, 1);
  clock_->Set(t0 + kVis);
  waiter.join();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(Payloads(*got), std::vector<std::string>{"job"});
  EXPECT_EQ((*got)[0].attempt, 2u);
  EXPECT_EQ((*got)[0].deadline_ms, t0 + 2 * kVis) << "claimed at the lease deadline";
}

TEST_F(WaitingClaimTest, IsWokenAtAnExtendedLeasesNewDeadline) {
  const std::int64_t t0 = Now();
  Add("job", {.backoff = NoBackoff()});
  const ClaimedJob held = ClaimOne("w1", "job");
  Claimed got(Status::Internal("not run"));
  std::thread waiter = StartClaim(got, "w2", 60'000);
  AwaitWaiters(*clock_, 1);
  ASSERT_EQ(Ok(queue_->Extend(held.ref, 3 * kVis)), OwnerResult::kDone);
  clock_->Set(t0 + kVis);  // The old deadline: nothing to take.
  AwaitWaiters(*clock_, 1);
  clock_->Set(t0 + 3 * kVis);
  waiter.join();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(Payloads(*got), std::vector<std::string>{"job"});
  EXPECT_EQ((*got)[0].deadline_ms, t0 + 4 * kVis);
}

TEST_F(WaitingClaimTest, IsWokenByARetry) {
  Add("job", {.backoff = NoBackoff()});
  const ClaimedJob held = ClaimOne("w1", "job");
  Claimed got(Status::Internal("not run"));
  std::thread waiter = StartClaim(got, "w2", 60'000);
  AwaitWaiters(*clock_, 1);
  const std::int64_t before = Now();
  ASSERT_EQ(Ok(queue_->Fail(held.ref, "retry me")), FailResult::kRetryScheduled);
  waiter.join();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].attempt, 2u);
  EXPECT_EQ((*got)[0].errors, (std::vector<JobError>{{1, before, "w1", "retry me"}}));
  EXPECT_EQ(Now(), before);
}

TEST_F(WaitingClaimTest, GivesUpAtItsDeadline) {
  const std::int64_t t0 = Now();
  Add("later", {.delay_ms = 800});  // Due after the wait ends.
  Claimed got(Status::Internal("not run"));
  std::thread waiter = StartClaim(got, "w", 500);
  AwaitWaiters(*clock_, 1);
  clock_->Set(t0 + 500);
  waiter.join();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(got->empty());
  EXPECT_EQ(TallyOf(), (Tally{0, 1, 0, 0}));
}

TEST_F(WaitingClaimTest, ReturnsEmptyWhenToldToStopAndWoken) {
  std::atomic<bool> stop{false};
  Claimed first(Status::Internal("not run")), second(Status::Internal("not run"));
  std::thread w1 = StartClaim(first, "w1", 60'000, &stop);
  AwaitWaiters(*clock_, 1);
  std::thread w2 = StartClaim(second, "w2", 60'000, &stop);
  AwaitWaiters(*clock_, 2);
  const std::int64_t before = Now();
  stop = true;
  queue_->WakeWaiters(kQ, kG);
  w1.join();
  w2.join();
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_TRUE(first->empty());
  EXPECT_TRUE(second->empty());
  EXPECT_EQ(Now(), before);
}

TEST_F(WaitingClaimTest, TwoWaitersEachGetOneOfTwoJobs) {
  Claimed first(Status::Internal("not run")), second(Status::Internal("not run"));
  std::thread w1 = StartClaim(first, "w1", 60'000);
  AwaitWaiters(*clock_, 1);
  std::thread w2 = StartClaim(second, "w2", 60'000);
  AwaitWaiters(*clock_, 2);
  const std::int64_t before = Now();
  Add("a");
  Add("b");
  w1.join();
  w2.join();
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  ASSERT_EQ(first->size(), 1u);
  ASSERT_EQ(second->size(), 1u);
  EXPECT_EQ((std::set<std::string>{(*first)[0].payload, (*second)[0].payload}),
            (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(Now(), before);
  EXPECT_EQ(TallyOf(), (Tally{0, 0, 2, 0}));
}

// ---- Validation ----

TEST_F(QueueTest, BadInputIsRefusedAndWritesNothing) {
  Add("held");
  const ClaimedJob held = ClaimOne("w", "held");
  Add("keep");
  constexpr StatusCode kInvalid = StatusCode::kInvalidArgument;
  const std::string long_name(kMaxQueueNameBytes + 1, 'n');

  // Names.
  EXPECT_EQ(CodeOf(queue_->Enqueue("", "p", {.job_id = "e1"})), kInvalid);
  EXPECT_EQ(CodeOf(queue_->Enqueue(long_name, "p", {.job_id = "e2"})), kInvalid);
  EXPECT_EQ(CodeOf(queue_->CreateGroup(kQ, "")), kInvalid);
  EXPECT_EQ(CodeOf(queue_->CreateGroup(kQ, long_name)), kInvalid);
  EXPECT_EQ(CodeOf(queue_->CreateGroup("", "g")), kInvalid);
  EXPECT_EQ(CodeOf(queue_->CreateGroup(kQ, "g", static_cast<GroupStart>(7))), kInvalid);
  EXPECT_EQ(CodeOf(queue_->Groups("")), kInvalid);
  EXPECT_EQ(CodeOf(queue_->Counts(long_name)), kInvalid);
  EXPECT_EQ(CodeOf(queue_->Claim(kQ, "", "w")), kInvalid);
  EXPECT_EQ(CodeOf(queue_->Claim("", kG, "w")), kInvalid);
  EXPECT_EQ(CodeOf(queue_->Claim(kQ, kG, long_name)), kInvalid);

  // Jobs.
  const auto enqueue = [&](EnqueueOptions o, std::string_view payload = "p") {
    return CodeOf(queue_->Enqueue(kQ, payload, o));
  };
  EXPECT_EQ(enqueue({.job_id = std::string(kMaxJobIdBytes + 1, 'i')}), kInvalid);
  EXPECT_EQ(enqueue({.job_id = "big"}, std::string(kMaxJobPayloadBytes + 1, 'p')), kInvalid);
  EXPECT_EQ(enqueue({.job_id = "bad", .max_attempts = 0}), kInvalid);
  EXPECT_EQ(enqueue({.job_id = "bad", .max_attempts = kMaxJobAttempts + 1}), kInvalid);
  EXPECT_EQ(enqueue({.job_id = "bad", .delay_ms = -1}), kInvalid);
  EXPECT_EQ(enqueue({.job_id = "bad", .delay_ms = kMaxJobDelayMs + 1}), kInvalid);
  EXPECT_EQ(enqueue({.job_id = "bad", .run_at_ms = -1}), kInvalid);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(enqueue({.job_id = "bad", .backoff = Backoff::Exponential(1000, 1000, nan)}), kInvalid);
  EXPECT_EQ(enqueue({.job_id = "bad", .backoff = Backoff::Exponential(1000, 1000, 1.5)}), kInvalid);
  EXPECT_EQ(enqueue({.job_id = "bad", .backoff = Backoff::Exponential(1000, 1000, -0.1)}),
            kInvalid);
  EXPECT_EQ(enqueue({.job_id = "bad", .backoff = Backoff::Exponential(1000, 999)}), kInvalid);
  EXPECT_EQ(enqueue({.job_id = "bad", .backoff = Backoff::Fixed(-1)}), kInvalid);
  EXPECT_EQ(enqueue({.job_id = "bad", .backoff = Backoff::Fixed(kMaxJobDelayMs + 1)}), kInvalid);
  EXPECT_EQ(enqueue({.job_id = "bad", .dedup_window_ms = -1}), kInvalid);
  EXPECT_EQ(enqueue({.job_id = "bad", .dedup_window_ms = kMaxDedupWindowMs + 1}), kInvalid);

  // Claims.
  const auto claim = [&](ClaimOptions o) { return CodeOf(queue_->Claim(kQ, kG, "w", o)); };
  EXPECT_EQ(claim({.visibility_ms = 0}), kInvalid);
  EXPECT_EQ(claim({.visibility_ms = -1}), kInvalid);
  EXPECT_EQ(claim({.visibility_ms = kMaxVisibilityMs + 1}), kInvalid);
  EXPECT_EQ(claim({.max_jobs = 0}), kInvalid);
  EXPECT_EQ(claim({.max_jobs = kMaxClaimBatch + 1}), kInvalid);
  EXPECT_EQ(claim({.wait_ms = -1}), kInvalid);
  EXPECT_EQ(claim({.wait_ms = kMaxVisibilityMs + 1}), kInvalid);

  // Leases.
  JobRef no_token = held.ref;
  no_token.token.clear();
  JobRef no_id = held.ref;
  no_id.job_id.clear();
  JobRef no_group = held.ref;
  no_group.group.clear();
  EXPECT_EQ(CodeOf(queue_->Ack(no_token)), kInvalid);
  EXPECT_EQ(CodeOf(queue_->Ack(no_id)), kInvalid);
  EXPECT_EQ(CodeOf(queue_->Ack(no_group)), kInvalid);
  EXPECT_EQ(CodeOf(queue_->Extend(no_token, kVis)), kInvalid);
  EXPECT_EQ(CodeOf(queue_->Fail(no_token, "x")), kInvalid);
  EXPECT_EQ(CodeOf(queue_->Fail(no_id, "x", false)), kInvalid);
  std::int64_t deadline = -1;
  EXPECT_EQ(CodeOf(queue_->Extend(held.ref, 0, &deadline)), kInvalid);
  EXPECT_EQ(CodeOf(queue_->Extend(held.ref, kMaxVisibilityMs + 1, &deadline)), kInvalid);
  EXPECT_EQ(deadline, -1);

  // Dead letters and lookups.
  EXPECT_EQ(CodeOf(queue_->Replay(kQ, kG, "")), kInvalid);
  EXPECT_EQ(CodeOf(queue_->Purge(kQ, kG, "")), kInvalid);
  EXPECT_EQ(CodeOf(queue_->PurgeAll(kQ, "")), kInvalid);
  EXPECT_EQ(CodeOf(queue_->ListDead(kQ, "")), kInvalid);
  EXPECT_EQ(CodeOf(queue_->GetJob(kQ, "")), kInvalid);
  EXPECT_EQ(CodeOf(queue_->GetJob("", "keep")), kInvalid);

  // Nothing was written, taken or changed.
  EXPECT_EQ(Ok(queue_->Groups(kQ)), std::vector<std::string>{std::string(kG)});
  EXPECT_EQ(TallyOf(), (Tally{1, 0, 1, 0}));
  for (const char* id : {"e1", "e2", "big", "bad"}) {
    EXPECT_EQ(Ok(queue_->GetJob(kQ, id)), std::nullopt) << id;
  }
  const DeliveryInfo keep = DeliveryOf("keep");
  EXPECT_EQ(keep.state, JobState::kReady);
  EXPECT_EQ(keep.attempts, 0u);
  const DeliveryInfo still_held = DeliveryOf("held");
  EXPECT_EQ(still_held.state, JobState::kInFlight);
  EXPECT_EQ(still_held.at_ms, held.deadline_ms);
  EXPECT_EQ(Ok(queue_->Ack(held.ref)), OwnerResult::kDone);
}

TEST_F(QueueTest, LimitsAreInclusive) {
  const std::string queue(kMaxQueueNameBytes, 'q');
  const std::string group(kMaxQueueNameBytes, 'g');
  const std::string consumer(kMaxQueueNameBytes, 'c');
  const std::string id(kMaxJobIdBytes, 'i');
  ASSERT_TRUE(Ok(queue_->CreateGroup(queue, group)));
  ASSERT_TRUE(
      Ok(queue_->Enqueue(queue, std::string(kMaxJobPayloadBytes, 'p'), {.job_id = id})).created);
  ASSERT_TRUE(
      Ok(queue_->Enqueue(queue, "far",
                         {.job_id = "far",
                          .delay_ms = kMaxJobDelayMs,
                          .max_attempts = kMaxJobAttempts,
                          .backoff = Backoff::Exponential(kMaxJobDelayMs, kMaxJobDelayMs, 1),
                          .dedup_window_ms = kMaxDedupWindowMs}))
          .created);
  ClaimOptions o;
  o.max_jobs = kMaxClaimBatch;
  o.visibility_ms = kMaxVisibilityMs;
  o.wait_ms = 0;
  std::vector<ClaimedJob> jobs = Ok(queue_->Claim(queue, group, consumer, o));
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].ref.job_id, id);
  EXPECT_EQ(jobs[0].payload.size(), kMaxJobPayloadBytes);
  EXPECT_EQ(jobs[0].deadline_ms, Now() + kMaxVisibilityMs);
  const std::vector<GroupCounts> counts = Ok(queue_->Counts(queue));
  ASSERT_EQ(counts.size(), 1u);
  EXPECT_EQ(counts[0].delayed, 1u);
  EXPECT_EQ(counts[0].in_flight, 1u);
}

// ---- Durability ----

TEST_F(QueueTest, AckedJobIsNeverDeliveredAgainAndAnUnackedOneIsAfterItsLease) {
  const std::int64_t t0 = Now();
  Add("a");
  Add("b", {.backoff = NoBackoff()});
  Add("c");
  ASSERT_EQ(Ok(queue_->Ack(ClaimOne("w1", "a").ref)), OwnerResult::kDone);
  const ClaimedJob b = ClaimOne("w1", "b");  // Never acked.

  Open();  // Close and reopen the store, on the same clock.
  EXPECT_EQ(Ok(queue_->Groups(kQ)), std::vector<std::string>{std::string(kG)});
  EXPECT_TRUE(Info("a").completed);
  EXPECT_EQ(TallyOf(), (Tally{1, 0, 1, 0}));
  const std::vector<ClaimedJob> c = Claim("w2", 10);
  ASSERT_EQ(Payloads(c), std::vector<std::string>{"c"});
  ASSERT_EQ(Ok(queue_->Ack(c[0].ref)), OwnerResult::kDone);
  clock_->Set(t0 + kVis - 1);
  EXPECT_TRUE(Claim("w2", 10).empty()) << "b's lease outlives the restart";
  clock_->Set(t0 + kVis);
  const std::vector<ClaimedJob> again = Claim("w2", 10);
  ASSERT_EQ(Payloads(again), std::vector<std::string>{"b"});
  EXPECT_EQ(again[0].attempt, 2u);
  ASSERT_EQ(again[0].errors.size(), 1u);
  EXPECT_EQ(again[0].errors[0].at_ms, t0 + kVis);
  EXPECT_EQ(again[0].errors[0].consumer, "w1");
  EXPECT_TRUE(IsLeaseExpiry(again[0].errors[0]));
  EXPECT_EQ(Ok(queue_->Ack(b.ref)), OwnerResult::kNotOwner);
  ASSERT_EQ(Ok(queue_->Ack(again[0].ref)), OwnerResult::kDone);

  Open();
  clock_->Advance(1'000'000);
  EXPECT_TRUE(Claim("w3", 10).empty());
  EXPECT_EQ(TallyOf(), (Tally{0, 0, 0, 0}));
  for (const char* id : {"a", "b", "c"}) EXPECT_TRUE(Info(id).completed) << id;
}

TEST_F(QueueTest, OrderDedupAndDeadLettersSurviveReopen) {
  const std::int64_t t0 = Now();
  Add("x", {.run_at_ms = t0 + 100});
  Add("dead", {.max_attempts = 1});
  ASSERT_EQ(Ok(queue_->Fail(ClaimOne("w", "dead").ref, "x")), FailResult::kDeadLettered);

  Open();
  Add("y", {.run_at_ms = t0 + 100});  // Same due time as x, enqueued after the restart.
  EXPECT_FALSE(Ok(queue_->Enqueue(kQ, "dup", {.job_id = "x"})).created);
  EXPECT_EQ(DeadIds(Dead()), std::vector<std::string>{"dead"});
  clock_->Set(t0 + 100);
  EXPECT_EQ(Payloads(Claim("w", 10)), (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(Ok(queue_->Replay(kQ, kG, "dead")));
  EXPECT_EQ(ClaimOne("w", "dead").attempt, 1u);
}

}  // namespace
}  // namespace cairn
