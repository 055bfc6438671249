#include "cairn/queue.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>

#include "queue/delivery_policy.h"
#include "queue/queue_keys.h"
#include "queue/queue_rows.h"
#include "queue/queue_runtime.h"
#include "storage/rocks_status.h"
#include "store_core.h"
#include "transaction_core.h"
#include "util/printable.h"
#include "util/random_id.h"
#include "util/range_check.h"
#include "util/status_macros.h"

namespace cairn {

using internal::ColumnFamily;
using internal::DeliveryRow;
using internal::DeliveryStage;
using internal::IndexHints;
using internal::JobRow;
using LeaseEntry = internal::LeaseDeadlines::Entry;
using internal::Lock;
using internal::Printable;
using internal::QueueMetaRow;
using internal::Rows;

namespace {

constexpr std::size_t kMaxTokenBytes = 64;
constexpr std::size_t kPurgeBatch = 500;
constexpr std::size_t kMaxDeadPage = 1000;
// Lapsed leases settled per transaction: bounds a claim's transaction after many leases lapse
// at once (a crashed consumer's); the rest are settled by the next pass.
constexpr std::size_t kMaxLapsesPerPass = 512;
constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

Status ValidateName(std::string_view what, std::string_view name) {
  return internal::CheckSize(what, name.size(), 1, kMaxQueueNameBytes);
}

Status ValidateScope(std::string_view queue, std::string_view group) {
  CAIRN_RETURN_IF_ERROR(ValidateName("queue name", queue));
  return ValidateName("consumer group name", group);
}

Status ValidateJobId(std::string_view job_id) {
  return internal::CheckSize("job id", job_id.size(), 1, kMaxJobIdBytes);
}

Status ValidateBackoff(const Backoff& b) {
  CAIRN_RETURN_IF_ERROR(internal::CheckRange("backoff base", b.base_ms, 0, kMaxJobDelayMs, " ms"));
  if (b.kind == Backoff::Kind::kExponential) {
    CAIRN_RETURN_IF_ERROR(
        internal::CheckRange("backoff max", b.max_ms, b.base_ms, kMaxJobDelayMs, " ms"));
  } else if (b.kind != Backoff::Kind::kFixed) {
    return Status::InvalidArgument("backoff kind must be fixed or exponential");
  }
  if (!(b.jitter >= 0 && b.jitter <= 1)) {  // Also refuses NaN.
    return Status::InvalidArgument("backoff jitter must be between 0 and 1, got " +
                                   std::to_string(b.jitter));
  }
  return Status::Ok();
}

Status ValidateEnqueue(std::string_view payload, const EnqueueOptions& o) {
  CAIRN_RETURN_IF_ERROR(internal::CheckSize("job payload", payload.size(), 0, kMaxJobPayloadBytes));
  if (!o.job_id.empty()) CAIRN_RETURN_IF_ERROR(ValidateJobId(o.job_id));
  CAIRN_RETURN_IF_ERROR(internal::CheckRange("job delay", o.delay_ms, 0, kMaxJobDelayMs, " ms"));
  if (o.run_at_ms) {
    CAIRN_RETURN_IF_ERROR(
        internal::CheckRange("job run_at", *o.run_at_ms, 0, 1000 * kMaxJobDelayMs, " ms"));
  }
  CAIRN_RETURN_IF_ERROR(internal::CheckRange("max_attempts", o.max_attempts, 1, kMaxJobAttempts));
  CAIRN_RETURN_IF_ERROR(ValidateBackoff(o.backoff));
  return internal::CheckRange("dedup window", o.dedup_window_ms, 0, kMaxDedupWindowMs, " ms");
}

Status ValidateRef(const JobRef& ref) {
  CAIRN_RETURN_IF_ERROR(ValidateScope(ref.queue, ref.group));
  CAIRN_RETURN_IF_ERROR(ValidateJobId(ref.job_id));
  return internal::CheckSize("lease token", ref.token.size(), 1, kMaxTokenBytes);
}

Status ValidateVisibility(std::int64_t visibility_ms) {
  return internal::CheckRange("visibility timeout", visibility_ms, 1, kMaxVisibilityMs, " ms");
}

Status NoSuchGroup(std::string_view queue, std::string_view group) {
  return Status::NotFound("consumer group '" + Printable(group) + "' of queue '" +
                          Printable(queue) + "' does not exist; create it with CreateGroup");
}

bool Holds(const std::optional<DeliveryRow>& d, std::string_view token) {
  return d && d->stage == DeliveryStage::kInFlight && d->token == token;
}

std::string HexSeq(std::uint64_t seq) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, seq >>= 4) out[static_cast<std::size_t>(i)] = kDigits[seq & 15];
  return out;
}

Result<std::uint64_t> ParseCursor(std::string_view cursor) {
  if (cursor.empty()) return std::uint64_t{0};
  std::uint64_t seq = 0;
  bool valid = cursor.size() == 16;
  for (char c : cursor) {
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    valid = valid && digit >= 0;
    seq = (seq << 4) | static_cast<std::uint64_t>(digit & 15);
  }
  if (!valid) {
    return Status::InvalidArgument("dead-letter cursor '" + Printable(cursor) +
                                   "' is not one that ListDead returned");
  }
  return seq;
}

}  // namespace

class Queue::Impl {
 private:
  // What a transaction did to the ready and lease indexes, published after its commit: an
  // added ready entry lowers its group's ready hint and wakes the group's first waiting
  // claimer; lease entries update the group's lease hint and deadlines.
  struct Touched {
    std::vector<std::pair<std::string, std::string>> ready_added;  // (scope, index position)
    std::vector<std::pair<std::string, LeaseEntry>> leases_added, leases_removed;
    void Clear() {
      ready_added.clear();
      leases_added.clear();
      leases_removed.clear();
    }
  };

  // Runs fn(rows, now, touched) as one transaction over `queues`; after a commit, runs
  // before_publish() and then publishes what it added.
  template <typename Fn, typename BeforePublish>
  auto Run(Fn&& fn, BeforePublish&& before_publish) {
    Touched touched;
    auto result =
        internal::RunInTransaction(core_, ColumnFamily::kQueues, [&](Rows& rows, std::int64_t now) {
          touched.Clear();
          return fn(rows, now, touched);
        });
    if (result.ok()) {
      before_publish();
      for (const auto& [scope, position] : touched.ready_added) {
        runtime_.ready_hints().Lower(scope, position);
        runtime_.waiters().NotifyFirst(scope);
      }
      for (const auto& [scope, entry] : touched.leases_removed) {
        runtime_.leases().Remove(scope, entry);
      }
      for (const auto& [scope, entry] : touched.leases_added) {
        runtime_.lease_hints().Lower(scope, internal::IndexPosition(entry.first, entry.second));
        // A waiting claimer's timer may be set past this deadline.
        if (runtime_.leases().Add(scope, entry)) runtime_.waiters().NotifyFirst(scope);
      }
    }
    return result;
  }
  template <typename Fn>
  auto Run(Fn&& fn) {
    return Run(std::forward<Fn>(fn), [] {});
  }

 public:
  explicit Impl(Store& store)
      : store_(store), core_(store.core()), runtime_(core_.Shared<internal::QueueRuntime>()) {}

  Store& store() const { return store_; }

  // ---- Writing ----

  struct JobView {
    std::string_view payload;
    const EnqueueOptions* options;
  };

  Result<std::vector<EnqueueResult>> Enqueue(std::string_view queue,
                                             const std::vector<JobView>& jobs) {
    CAIRN_RETURN_IF_ERROR(ValidateName("queue name", queue));
    CAIRN_RETURN_IF_ERROR(internal::CheckRange("enqueue batch size",
                                               static_cast<std::int64_t>(jobs.size()), 0,
                                               static_cast<std::int64_t>(kMaxEnqueueBatch)));
    std::vector<std::string> ids;
    ids.reserve(jobs.size());
    for (const JobView& job : jobs) {
      CAIRN_RETURN_IF_ERROR(ValidateEnqueue(job.payload, *job.options));
      ids.push_back(job.options->job_id.empty() ? internal::RandomId() : job.options->job_id);
    }
    return Run(
        [&](Rows& rows, std::int64_t now, Touched& touched) -> Result<std::vector<EnqueueResult>> {
          // A shared lock: enqueues proceed together, CreateGroup waits for them (and they for it),
          // so every job lands in exactly the groups that exist when it commits.
          CAIRN_ASSIGN_OR_RETURN(std::optional<QueueMetaRow> meta,
                                 internal::LoadQueueMeta(rows, queue, Lock::kShared));
          std::vector<EnqueueResult> results;
          results.reserve(jobs.size());
          for (std::size_t i = 0; i < jobs.size(); ++i) {
            const EnqueueOptions& o = *jobs[i].options;
            CAIRN_ASSIGN_OR_RETURN(std::optional<JobRow> existing,
                                   internal::LoadJob(rows, now, queue, ids[i], Lock::kExclusive));
            if (existing) {
              results.push_back({ids[i], false});
              continue;
            }
            CAIRN_ASSIGN_OR_RETURN(std::uint64_t seq, runtime_.sequence().Next());
            JobRow job;
            job.seq = seq;
            job.payload = std::string(jobs[i].payload);
            job.enqueued_at_ms = now;
            job.due_ms = o.run_at_ms ? *o.run_at_ms : now + o.delay_ms;
            job.max_attempts = o.max_attempts;
            job.backoff = o.backoff;
            job.dedup_window_ms = o.dedup_window_ms;
            job.outstanding = meta ? static_cast<std::uint32_t>(meta->groups.size()) : 0;
            CAIRN_RETURN_IF_ERROR(internal::StoreJob(rows, queue, ids[i], job));
            if (meta) {
              for (const internal::GroupRow& group : meta->groups) {
                CAIRN_RETURN_IF_ERROR(AddDelivery(
                    rows, touched, internal::GroupScope(queue, group.name), ids[i], job));
              }
            }
            results.push_back({ids[i], true});
          }
          return results;
        });
  }

  Result<bool> CreateGroup(std::string_view queue, std::string_view group, GroupStart start) {
    CAIRN_RETURN_IF_ERROR(ValidateScope(queue, group));
    if (start != GroupStart::kNewJobs && start != GroupStart::kAllJobs) {
      return Status::InvalidArgument("group start must be kNewJobs or kAllJobs");
    }
    return Run([&](Rows& rows, std::int64_t now, Touched& touched) -> Result<bool> {
      CAIRN_ASSIGN_OR_RETURN(std::optional<QueueMetaRow> meta,
                             internal::LoadQueueMeta(rows, queue, Lock::kExclusive));
      if (!meta) meta.emplace();
      if (meta->Has(group)) return false;
      meta->groups.push_back({std::string(group), now});
      CAIRN_RETURN_IF_ERROR(internal::StoreQueueMeta(rows, queue, *meta));
      if (start == GroupStart::kAllJobs) {
        const std::string scope = internal::GroupScope(queue, group);
        CAIRN_ASSIGN_OR_RETURN(std::vector<std::string> ids, JobIds(rows, queue));
        for (const std::string& id : ids) {
          CAIRN_ASSIGN_OR_RETURN(std::optional<JobRow> job,
                                 internal::LoadJob(rows, now, queue, id, Lock::kExclusive));
          if (!job || job->completed) continue;
          ++job->outstanding;
          CAIRN_RETURN_IF_ERROR(internal::StoreJob(rows, queue, id, *job));
          CAIRN_RETURN_IF_ERROR(AddDelivery(rows, touched, scope, id, *job));
        }
      }
      return true;
    });
  }

  // What Claim and TryClaim check of their arguments.
  Status ValidateClaim(std::string_view queue, std::string_view group, std::string_view consumer,
                       const ClaimOptions& o) {
    CAIRN_RETURN_IF_ERROR(ValidateScope(queue, group));
    CAIRN_RETURN_IF_ERROR(
        internal::CheckSize("consumer name", consumer.size(), 0, kMaxQueueNameBytes));
    CAIRN_RETURN_IF_ERROR(internal::CheckRange("max_jobs", o.max_jobs, 1, kMaxClaimBatch));
    return ValidateVisibility(o.visibility_ms);
  }

  Result<std::vector<ClaimedJob>> Claim(std::string_view queue, std::string_view group,
                                        std::string_view consumer, const ClaimOptions& o) {
    CAIRN_RETURN_IF_ERROR(ValidateClaim(queue, group, consumer, o));
    CAIRN_RETURN_IF_ERROR(
        internal::CheckRange("claim wait", o.wait_ms, 0, kMaxVisibilityMs, " ms"));
    const std::string scope = internal::GroupScope(queue, group);
    PassInfo pass;
    if (o.wait_ms == 0) return ClaimOnce(queue, group, scope, consumer, o, Mode::kClaim, &pass);

    const Clock& clock = core_.clock();
    const std::int64_t deadline = clock.NowMs() + o.wait_ms;
    Wakeup wakeup;
    internal::WakeupRegistry::Entry ticket(runtime_.waiters(), scope, &wakeup);
    while (true) {
      if (o.stop != nullptr && o.stop->load()) return std::vector<ClaimedJob>();
      const std::int64_t now = clock.NowMs();
      if (!ticket.first() && now < deadline) {
        // Waiters take turns: the first one looks; the others wait until it leaves.
        clock.WaitUntil(wakeup, deadline);
        continue;
      }
      Result<std::vector<ClaimedJob>> claimed =
          ClaimOnce(queue, group, scope, consumer, o, Mode::kClaim, &pass);
      if (!claimed.ok() || !claimed->empty() || now >= deadline) return claimed;
      // Woken by a write that adds a claimable entry, or at the next due time (a delayed
      // job, a retry, a lease deadline), or at our deadline.
      clock.WaitUntil(wakeup, std::min(deadline, pass.next_due));
    }
  }

  Result<std::vector<ClaimedJob>> TryClaim(std::string_view queue, std::string_view group,
                                           std::string_view consumer, ClaimOptions o,
                                           std::int64_t* next_due_ms) {
    o.wait_ms = 0;
    o.stop = nullptr;
    CAIRN_RETURN_IF_ERROR(ValidateClaim(queue, group, consumer, o));
    PassInfo pass;
    Result<std::vector<ClaimedJob>> claimed = ClaimOnce(
        queue, group, internal::GroupScope(queue, group), consumer, o, Mode::kClaim, &pass);
    // Lapsed leases left for another pass: look again at once.
    *next_due_ms = pass.leases_settled ? pass.next_due : core_.clock().NowMs();
    return claimed;
  }

  Result<OwnerResult> Ack(const JobRef& ref) {
    CAIRN_RETURN_IF_ERROR(ValidateRef(ref));
    const std::string scope = internal::GroupScope(ref.queue, ref.group);
    return Run([&](Rows& rows, std::int64_t now, Touched& touched) -> Result<OwnerResult> {
      CAIRN_ASSIGN_OR_RETURN(std::optional<DeliveryRow> d,
                             internal::LoadDelivery(rows, scope, ref.job_id, Lock::kExclusive));
      if (!Holds(d, ref.token)) return OwnerResult::kNotOwner;
      CAIRN_RETURN_IF_ERROR(RemoveIndex(rows, touched, scope, *d));
      CAIRN_RETURN_IF_ERROR(RemoveDelivery(rows, scope, ref.job_id));
      CAIRN_RETURN_IF_ERROR(FinishForGroup(rows, now, ref.queue, ref.job_id));
      return OwnerResult::kDone;
    });
  }

  Result<OwnerResult> Extend(const JobRef& ref, std::int64_t visibility_ms,
                             std::int64_t* deadline_ms) {
    CAIRN_RETURN_IF_ERROR(ValidateRef(ref));
    CAIRN_RETURN_IF_ERROR(ValidateVisibility(visibility_ms));
    const std::string scope = internal::GroupScope(ref.queue, ref.group);
    return Run([&](Rows& rows, std::int64_t now, Touched& touched) -> Result<OwnerResult> {
      CAIRN_ASSIGN_OR_RETURN(std::optional<DeliveryRow> d,
                             internal::LoadDelivery(rows, scope, ref.job_id, Lock::kExclusive));
      if (!Holds(d, ref.token)) return OwnerResult::kNotOwner;
      CAIRN_RETURN_IF_ERROR(RemoveIndex(rows, touched, scope, *d));
      d->at_ms = now + visibility_ms;
      CAIRN_RETURN_IF_ERROR(PutDelivery(rows, touched, scope, ref.job_id, *d));
      if (deadline_ms != nullptr) *deadline_ms = d->at_ms;
      return OwnerResult::kDone;
    });
  }

  Result<FailResult> Fail(const JobRef& ref, std::string_view error, bool retry) {
    CAIRN_RETURN_IF_ERROR(ValidateRef(ref));
    const std::string scope = internal::GroupScope(ref.queue, ref.group);
    return Run([&](Rows& rows, std::int64_t now, Touched& touched) -> Result<FailResult> {
      CAIRN_ASSIGN_OR_RETURN(std::optional<DeliveryRow> d,
                             internal::LoadDelivery(rows, scope, ref.job_id, Lock::kExclusive));
      if (!Holds(d, ref.token)) return FailResult::kNotOwner;
      CAIRN_ASSIGN_OR_RETURN(JobRow job, LoadLiveJob(rows, now, ref.queue, ref.job_id));
      CAIRN_RETURN_IF_ERROR(RemoveIndex(rows, touched, scope, *d));
      const auto after = internal::ApplyFailure(*d, job, now, error, retry);
      CAIRN_RETURN_IF_ERROR(PutDelivery(rows, touched, scope, ref.job_id, *d));
      return after == internal::AfterFailure::kDead ? FailResult::kDeadLettered
                                                    : FailResult::kRetryScheduled;
    });
  }

  Result<bool> Replay(std::string_view queue, std::string_view group, std::string_view job_id) {
    CAIRN_RETURN_IF_ERROR(ValidateScope(queue, group));
    CAIRN_RETURN_IF_ERROR(ValidateJobId(job_id));
    const std::string scope = internal::GroupScope(queue, group);
    CAIRN_RETURN_IF_ERROR(RecoverLapsed(queue, group, scope));
    return Run([&](Rows& rows, std::int64_t now, Touched& touched) -> Result<bool> {
      CAIRN_ASSIGN_OR_RETURN(std::optional<DeliveryRow> d,
                             internal::LoadDelivery(rows, scope, job_id, Lock::kExclusive));
      if (!d || d->stage != DeliveryStage::kDead) return false;
      CAIRN_RETURN_IF_ERROR(RemoveIndex(rows, touched, scope, *d));
      d->stage = DeliveryStage::kPending;
      d->attempts = 0;
      d->at_ms = now;
      CAIRN_RETURN_IF_ERROR(PutDelivery(rows, touched, scope, job_id, *d));
      return true;
    });
  }

  Result<bool> Purge(std::string_view queue, std::string_view group, std::string_view job_id) {
    CAIRN_RETURN_IF_ERROR(ValidateScope(queue, group));
    CAIRN_RETURN_IF_ERROR(ValidateJobId(job_id));
    const std::string scope = internal::GroupScope(queue, group);
    CAIRN_RETURN_IF_ERROR(RecoverLapsed(queue, group, scope));
    return Run([&](Rows& rows, std::int64_t now, Touched& touched) -> Result<bool> {
      return PurgeOne(rows, now, touched, queue, scope, job_id);
    });
  }

  Result<std::uint64_t> PurgeAll(std::string_view queue, std::string_view group) {
    CAIRN_RETURN_IF_ERROR(ValidateScope(queue, group));
    const std::string scope = internal::GroupScope(queue, group);
    CAIRN_RETURN_IF_ERROR(RecoverLapsed(queue, group, scope));
    struct Batch {
      std::size_t seen = 0, purged = 0;
    };
    std::uint64_t purged = 0;
    while (true) {
      // Batches keep each transaction small; each is atomic on its own.
      Result<Batch> batch =
          Run([&](Rows& rows, std::int64_t now, Touched& touched) -> Result<Batch> {
            CAIRN_ASSIGN_OR_RETURN(std::vector<std::string> ids,
                                   IndexedIds(rows, internal::DeadPrefix(scope), "", kPurgeBatch));
            Batch b{ids.size(), 0};
            for (const std::string& id : ids) {
              CAIRN_ASSIGN_OR_RETURN(bool done, PurgeOne(rows, now, touched, queue, scope, id));
              b.purged += done ? 1 : 0;
            }
            return b;
          });
      if (!batch.ok()) return batch.status();
      if (batch->seen == 0) return purged;
      purged += batch->purged;
    }
  }

  void WakeWaiters(std::string_view queue, std::string_view group) {
    runtime_.waiters().NotifyAll(internal::GroupScope(queue, group));
  }

  // ---- Reading ----

  Result<std::vector<std::string>> Groups(std::string_view queue) {
    CAIRN_RETURN_IF_ERROR(ValidateName("queue name", queue));
    CAIRN_RETURN_IF_ERROR(core_.CheckOpen());
    internal::DbRows rows = ReadRows();
    CAIRN_ASSIGN_OR_RETURN(std::optional<QueueMetaRow> meta,
                           internal::LoadQueueMeta(rows, queue, Lock::kNone));
    std::vector<std::string> names;
    if (meta) {
      for (const internal::GroupRow& g : meta->groups) names.push_back(g.name);
    }
    return names;
  }

  Result<std::vector<GroupCounts>> Counts(std::string_view queue) {
    CAIRN_ASSIGN_OR_RETURN(std::vector<std::string> groups, Groups(queue));
    internal::DbRows rows = ReadRows();
    const std::int64_t now = core_.clock().NowMs();
    std::vector<GroupCounts> counts;
    for (const std::string& group : groups) {
      const std::string scope = internal::GroupScope(queue, group);
      GroupCounts c{group};
      const std::string ready_prefix = internal::ReadyPrefix(scope);
      std::unique_ptr<rocksdb::Iterator> it = rows.NewPrefixIterator(ready_prefix);
      for (it->Seek(ready_prefix + runtime_.ready_hints().Begin(scope).start); it->Valid();
           it->Next()) {
        const std::string_view key = it->key().ToStringView();
        const auto pos = internal::DecodePositionKey(key, ready_prefix.size());
        if (!pos) return MalformedIndexKey(key);
        Tally(c, pos->due_ms <= now ? JobState::kReady : JobState::kDelayed);
      }
      CAIRN_RETURN_IF_ERROR(IteratorStatus(*it));
      const std::string lease_prefix = internal::LeasePrefix(scope);
      it = rows.NewPrefixIterator(lease_prefix);
      for (it->Seek(lease_prefix + runtime_.lease_hints().Begin(scope).start); it->Valid();
           it->Next()) {
        const std::string_view key = it->key().ToStringView();
        const auto pos = internal::DecodePositionKey(key, lease_prefix.size());
        if (!pos) return MalformedIndexKey(key);
        JobState state = JobState::kInFlight;
        if (pos->due_ms <= now) {  // Lapsed: counted as what settling it will make of it.
          CAIRN_ASSIGN_OR_RETURN(internal::IndexValue entry,
                                 internal::DecodeIndexValue(it->value().ToStringView(), key));
          CAIRN_ASSIGN_OR_RETURN(DeliveryRow viewed,
                                 ViewDelivery(rows, now, queue, scope, entry.job_id));
          state = internal::StateAt(viewed, now);
        }
        Tally(c, state);
      }
      CAIRN_RETURN_IF_ERROR(IteratorStatus(*it));
      CAIRN_ASSIGN_OR_RETURN(std::vector<std::string> dead,
                             IndexedIds(rows, internal::DeadPrefix(scope), "", SIZE_MAX));
      c.dead += dead.size();
      counts.push_back(std::move(c));
    }
    return counts;
  }

  Result<std::optional<JobInfo>> GetJob(std::string_view queue, std::string_view job_id) {
    CAIRN_RETURN_IF_ERROR(ValidateName("queue name", queue));
    CAIRN_RETURN_IF_ERROR(ValidateJobId(job_id));
    CAIRN_ASSIGN_OR_RETURN(std::vector<std::string> groups, Groups(queue));
    internal::DbRows rows = ReadRows();
    const std::int64_t now = core_.clock().NowMs();
    CAIRN_ASSIGN_OR_RETURN(std::optional<JobRow> job,
                           internal::LoadJob(rows, now, queue, job_id, Lock::kNone));
    if (!job) return std::optional<JobInfo>();
    JobInfo info;
    info.job_id = std::string(job_id);
    info.completed = job->completed;
    if (job->completed) return std::optional<JobInfo>(std::move(info));
    info.payload = std::move(job->payload);
    info.enqueued_at_ms = job->enqueued_at_ms;
    info.max_attempts = job->max_attempts;
    info.backoff = job->backoff;
    for (const std::string& group : groups) {
      CAIRN_ASSIGN_OR_RETURN(
          std::optional<DeliveryRow> d,
          internal::LoadDelivery(rows, internal::GroupScope(queue, group), job_id, Lock::kNone));
      if (!d) continue;
      const DeliveryRow viewed = internal::ViewAt(*d, *job, now);
      const JobState state = internal::StateAt(viewed, now);
      info.deliveries.push_back(DeliveryInfo{group, state, viewed.attempts, viewed.at_ms,
                                             viewed.consumer, viewed.errors});
    }
    return std::optional<JobInfo>(std::move(info));
  }

  Result<DeadPage> ListDead(std::string_view queue, std::string_view group, std::string_view cursor,
                            std::size_t limit) {
    CAIRN_RETURN_IF_ERROR(ValidateScope(queue, group));
    CAIRN_RETURN_IF_ERROR(internal::CheckRange("dead-letter page size",
                                               static_cast<std::int64_t>(limit), 1,
                                               static_cast<std::int64_t>(kMaxDeadPage)));
    CAIRN_ASSIGN_OR_RETURN(std::uint64_t from, ParseCursor(cursor));
    const std::string scope = internal::GroupScope(queue, group);
    CAIRN_RETURN_IF_ERROR(RecoverLapsed(queue, group, scope));
    internal::DbRows rows = ReadRows();
    const std::int64_t now = core_.clock().NowMs();
    const std::string prefix = internal::DeadPrefix(scope);
    DeadPage page;
    std::unique_ptr<rocksdb::Iterator> it = rows.NewPrefixIterator(prefix);
    for (it->Seek(prefix + internal::SeqBytes(from)); it->Valid(); it->Next()) {
      const std::string_view key = it->key().ToStringView();
      const auto seq = internal::DecodeDeadKey(key, prefix.size());
      if (!seq) return MalformedIndexKey(key);
      if (page.jobs.size() == limit) {
        page.next_cursor = HexSeq(*seq);
        break;
      }
      CAIRN_ASSIGN_OR_RETURN(internal::IndexValue entry,
                             internal::DecodeIndexValue(it->value().ToStringView(), key));
      const std::string id(entry.job_id);
      CAIRN_ASSIGN_OR_RETURN(std::optional<DeliveryRow> d,
                             internal::LoadDelivery(rows, scope, id, Lock::kNone));
      if (!d || d->stage != DeliveryStage::kDead) continue;  // Replayed or purged meanwhile.
      CAIRN_ASSIGN_OR_RETURN(std::optional<JobRow> job,
                             internal::LoadJob(rows, now, queue, id, Lock::kNone));
      page.jobs.push_back(DeadJob{id, std::string(group), job ? job->payload : std::string(),
                                  d->attempts, d->at_ms, d->errors});
    }
    CAIRN_RETURN_IF_ERROR(IteratorStatus(*it));
    return page;
  }

 private:
  enum class Mode {
    kClaim,    // Take due jobs (recovering lapsed leases on the way).
    kRecover,  // Only turn lapsed leases into retries or dead letters; claim nothing.
  };

  // What a pass tells a waiting claimer.
  struct PassInfo {
    // When to look again: the group's next due job or lease deadline (kNever: none).
    std::int64_t next_due = kNever;
    bool leases_settled = true;  // False: more lapsed leases are left for another pass.
  };

  // One transaction: settles the group's lapsed leases, then (kClaim) claims its due jobs.
  Result<std::vector<ClaimedJob>> ClaimOnce(std::string_view queue, std::string_view group,
                                            const std::string& scope, std::string_view consumer,
                                            const ClaimOptions& o, Mode mode, PassInfo* pass) {
    std::lock_guard<std::mutex> claiming(runtime_.ClaimMutex(scope));
    CAIRN_RETURN_IF_ERROR(LoadLeaseDeadlines(scope));
    const IndexHints::Snapshot ready_hint = runtime_.ready_hints().Begin(scope);
    const IndexHints::Snapshot lease_hint = runtime_.lease_hints().Begin(scope);
    LapseSweep sweep;
    std::string ready_stop;
    std::int64_t next_ready = kNever;
    std::int64_t pass_now = 0;
    auto body = [&](Rows& rows, std::int64_t now,
                    Touched& touched) -> Result<std::vector<ClaimedJob>> {
      CAIRN_ASSIGN_OR_RETURN(std::optional<QueueMetaRow> meta,
                             internal::LoadQueueMeta(rows, queue, Lock::kNone));
      if (!meta || !meta->Has(group)) return NoSuchGroup(queue, group);
      pass_now = now;
      // Both scans stop before this position, so neither steps over the tombstones of entries
      // taken or acked with a later time.
      const std::string bound = internal::IndexPosition(now + 1, 0);
      CAIRN_ASSIGN_OR_RETURN(
          sweep, SettleLapsed(rows, now, touched, queue, scope, lease_hint.start, bound));
      std::vector<ClaimedJob> claimed;
      if (mode == Mode::kRecover) return claimed;

      const std::string prefix = internal::ReadyPrefix(scope);
      ready_stop = bound;
      next_ready = kNever;
      std::unique_ptr<rocksdb::Iterator> it = rows.NewIterator(prefix + bound);
      for (it->Seek(prefix + std::min(ready_hint.start, sweep.lowest_ready)); it->Valid();
           it->Next()) {
        // Copied: the writes below may move the buffer of a key this transaction wrote.
        std::string position = it->key().ToString().substr(prefix.size());
        CAIRN_ASSIGN_OR_RETURN(
            std::optional<Indexed> entry,
            LockIndexed(rows, scope, *it, prefix.size(), DeliveryStage::kPending));
        if (!entry) continue;
        const std::string& id = entry->job_id;
        DeliveryRow* d = &entry->delivery;
        CAIRN_ASSIGN_OR_RETURN(JobRow job, LoadLiveJob(rows, now, queue, id));
        CAIRN_RETURN_IF_ERROR(RemoveIndex(rows, touched, scope, *d));
        d->stage = DeliveryStage::kInFlight;
        ++d->attempts;
        d->token = internal::RandomId();
        d->consumer = std::string(consumer);
        d->at_ms = now + o.visibility_ms;
        CAIRN_RETURN_IF_ERROR(PutDelivery(rows, touched, scope, id, *d));
        claimed.push_back(ClaimedJob{JobRef{std::string(queue), std::string(group), id, d->token},
                                     std::move(job.payload), d->attempts, job.max_attempts,
                                     d->at_ms, job.enqueued_at_ms, d->errors});
        if (claimed.size() == o.max_jobs) {
          // Nothing live lies before this entry (now taken). Stop here rather than step past
          // what follows.
          ready_stop = std::move(position);
          break;
        }
      }
      CAIRN_RETURN_IF_ERROR(IteratorStatus(*it));
      if (claimed.empty()) {
        // The first delayed job: the future part of the ready index holds no tombstones
        // (entries leave it only once due), so this seek is short.
        it = rows.NewPrefixIterator(prefix);
        it->Seek(prefix + std::max(bound, ready_hint.start));
        if (it->Valid()) {
          const auto pos = internal::DecodePositionKey(it->key().ToStringView(), prefix.size());
          if (!pos) return MalformedIndexKey(it->key().ToStringView());
          next_ready = pos->due_ms;
        }
        CAIRN_RETURN_IF_ERROR(IteratorStatus(*it));
      }
      return claimed;
    };
    Result<std::vector<ClaimedJob>> claimed = Run(body, [&] {
      runtime_.lease_hints().Raise(scope, lease_hint, sweep.stop);
      if (sweep.settled) runtime_.leases().SettledThrough(scope, pass_now);
      // A recovery pass does not scan the ready index, so it learns nothing of it.
      if (mode == Mode::kClaim) runtime_.ready_hints().Raise(scope, ready_hint, ready_stop);
    });
    if (claimed.ok()) {
      pass->leases_settled = sweep.settled;
      const std::optional<std::int64_t> lease = runtime_.leases().Earliest(scope);
      pass->next_due = std::min(next_ready, lease.value_or(kNever));
    }
    return claimed;
  }

  // Where a sweep of lapsed leases stopped, and where it put the jobs it made ready again.
  struct LapseSweep {
    std::string stop = IndexHints::End();  // Nothing live in the lease index before this.
    bool settled = true;                   // Every lease due by now is settled.
    std::string lowest_ready = IndexHints::End();
  };

  // Settles the group's lapsed leases from lease-index position `start` up to `bound`: each is
  // a failed attempt, with the usual backoff and dead-letter rules.
  Result<LapseSweep> SettleLapsed(Rows& rows, std::int64_t now, Touched& touched,
                                  std::string_view queue, const std::string& scope,
                                  const std::string& start, const std::string& bound) {
    const std::string prefix = internal::LeasePrefix(scope);
    LapseSweep sweep;
    sweep.stop = bound;
    std::size_t settled = 0;
    std::unique_ptr<rocksdb::Iterator> it = rows.NewIterator(prefix + bound);
    for (it->Seek(prefix + start); it->Valid(); it->Next()) {
      if (settled == kMaxLapsesPerPass) {
        sweep.stop = it->key().ToString().substr(prefix.size());
        sweep.settled = false;
        break;
      }
      CAIRN_ASSIGN_OR_RETURN(
          std::optional<Indexed> entry,
          LockIndexed(rows, scope, *it, prefix.size(), DeliveryStage::kInFlight));
      if (!entry) continue;
      const std::string& id = entry->job_id;
      DeliveryRow* d = &entry->delivery;
      CAIRN_ASSIGN_OR_RETURN(JobRow job, LoadLiveJob(rows, now, queue, id));
      CAIRN_RETURN_IF_ERROR(RemoveIndex(rows, touched, scope, *d));
      internal::ApplyLapse(*d, job);
      CAIRN_RETURN_IF_ERROR(PutDelivery(rows, touched, scope, id, *d));
      if (d->stage == DeliveryStage::kPending) {
        sweep.lowest_ready =
            std::min(sweep.lowest_ready, internal::IndexPosition(d->at_ms, d->seq));
      }
      ++settled;
    }
    CAIRN_RETURN_IF_ERROR(IteratorStatus(*it));
    return sweep;
  }

  struct Indexed {
    std::string job_id;
    DeliveryRow delivery;
  };

  // The delivery that the ready- or lease-index entry under the iterator stands for, locked.
  // nullopt when the entry is stale: the iterator may show an entry that a write committed
  // since has moved or removed, and the locked row is the truth.
  Result<std::optional<Indexed>> LockIndexed(Rows& rows, const std::string& scope,
                                             const rocksdb::Iterator& it, std::size_t prefix_size,
                                             DeliveryStage stage) {
    const std::string_view key = it.key().ToStringView();
    const auto pos = internal::DecodePositionKey(key, prefix_size);
    if (!pos) return MalformedIndexKey(key);
    CAIRN_ASSIGN_OR_RETURN(internal::IndexValue value,
                           internal::DecodeIndexValue(it.value().ToStringView(), key));
    Indexed entry{std::string(value.job_id), {}};
    CAIRN_ASSIGN_OR_RETURN(std::optional<DeliveryRow> d,
                           internal::LoadDelivery(rows, scope, entry.job_id, Lock::kExclusive));
    if (!d || d->stage != stage || d->at_ms != pos->due_ms || d->seq != pos->seq) {
      return std::optional<Indexed>();
    }
    entry.delivery = std::move(*d);
    return std::optional<Indexed>(std::move(entry));
  }

  // Settles all of the group's lapsed leases, so that what the dead-letter queue holds is what
  // Counts and GetJob show. kNotFound if the group does not exist.
  Status RecoverLapsed(std::string_view queue, std::string_view group, const std::string& scope) {
    PassInfo pass;
    do {
      Result<std::vector<ClaimedJob>> none =
          ClaimOnce(queue, group, scope, "", ClaimOptions{}, Mode::kRecover, &pass);
      if (!none.ok()) return none.status();
    } while (!pass.leases_settled);
    return Status::Ok();
  }

  // Fills the group's in-memory lease deadlines from its lease index, once per open store.
  Status LoadLeaseDeadlines(const std::string& scope) {
    return runtime_.leases().EnsureLoaded(
        scope, [&](const std::function<void(LeaseEntry)>& add) -> Status {
          CAIRN_RETURN_IF_ERROR(core_.CheckOpen());
          internal::DbRows rows = ReadRows();
          const std::string prefix = internal::LeasePrefix(scope);
          std::unique_ptr<rocksdb::Iterator> it = rows.NewPrefixIterator(prefix);
          for (it->Seek(prefix); it->Valid(); it->Next()) {
            const auto pos = internal::DecodePositionKey(it->key().ToStringView(), prefix.size());
            if (!pos) return MalformedIndexKey(it->key().ToStringView());
            add({pos->due_ms, pos->seq});
          }
          return IteratorStatus(*it);
        });
  }

  // The index entry of a delivery: ready index when pending, lease index in flight, else the
  // dead-letter list.
  static std::string IndexKey(const std::string& scope, const DeliveryRow& d) {
    switch (d.stage) {
      case DeliveryStage::kPending:
        return internal::ReadyPrefix(scope) + internal::IndexPosition(d.at_ms, d.seq);
      case DeliveryStage::kInFlight:
        return internal::LeasePrefix(scope) + internal::IndexPosition(d.at_ms, d.seq);
      case DeliveryStage::kDead:
        break;
    }
    return internal::DeadPrefix(scope) + internal::SeqBytes(d.seq);
  }

  // Writes the delivery row and its index entry.
  Status PutDelivery(Rows& rows, Touched& touched, const std::string& scope,
                     std::string_view job_id, const DeliveryRow& d) {
    CAIRN_RETURN_IF_ERROR(internal::StoreDelivery(rows, scope, job_id, d));
    if (d.stage == DeliveryStage::kPending) {
      touched.ready_added.emplace_back(scope, internal::IndexPosition(d.at_ms, d.seq));
    } else if (d.stage == DeliveryStage::kInFlight) {
      touched.leases_added.emplace_back(scope, LeaseEntry{d.at_ms, d.seq});
    }
    return FromWrite(rows.Write(IndexKey(scope, d), internal::EncodeIndexValue(d.stage, job_id)));
  }

  // Removes the index entry that PutDelivery wrote for d.
  Status RemoveIndex(Rows& rows, Touched& touched, const std::string& scope, const DeliveryRow& d) {
    if (d.stage == DeliveryStage::kInFlight) {
      touched.leases_removed.emplace_back(scope, LeaseEntry{d.at_ms, d.seq});
    }
    return FromWrite(rows.Remove(IndexKey(scope, d)));
  }

  Status RemoveDelivery(Rows& rows, const std::string& scope, std::string_view job_id) {
    return FromWrite(rows.Remove(internal::DeliveryKey(scope, job_id)));
  }

  Status AddDelivery(Rows& rows, Touched& touched, const std::string& scope,
                     std::string_view job_id, const JobRow& job) {
    DeliveryRow d;
    d.seq = job.seq;
    d.at_ms = job.due_ms;
    return PutDelivery(rows, touched, scope, job_id, d);
  }

  // A group is done with the job (acked or purged): the last group to finish removes it,
  // leaving a tombstone that reserves its id for the dedup window.
  Status FinishForGroup(Rows& rows, std::int64_t now, std::string_view queue,
                        std::string_view job_id) {
    CAIRN_ASSIGN_OR_RETURN(std::optional<JobRow> job,
                           internal::LoadJob(rows, now, queue, job_id, Lock::kExclusive));
    if (!job || job->completed) return MissingJob(queue, job_id);
    if (job->outstanding > 1) {
      --job->outstanding;
      return internal::StoreJob(rows, queue, job_id, *job);
    }
    if (job->dedup_window_ms == 0) return FromWrite(rows.Remove(internal::JobKey(queue, job_id)));
    JobRow tombstone;
    tombstone.seq = job->seq;
    tombstone.completed = true;
    return internal::StoreJob(rows, queue, job_id, tombstone, now + job->dedup_window_ms);
  }

  Result<bool> PurgeOne(Rows& rows, std::int64_t now, Touched& touched, std::string_view queue,
                        const std::string& scope, std::string_view job_id) {
    CAIRN_ASSIGN_OR_RETURN(std::optional<DeliveryRow> d,
                           internal::LoadDelivery(rows, scope, job_id, Lock::kExclusive));
    if (!d || d->stage != DeliveryStage::kDead) return false;
    CAIRN_RETURN_IF_ERROR(RemoveIndex(rows, touched, scope, *d));
    CAIRN_RETURN_IF_ERROR(RemoveDelivery(rows, scope, job_id));
    CAIRN_RETURN_IF_ERROR(FinishForGroup(rows, now, queue, job_id));
    return true;
  }

  Result<JobRow> LoadLiveJob(Rows& rows, std::int64_t now, std::string_view queue,
                             std::string_view job_id) {
    CAIRN_ASSIGN_OR_RETURN(std::optional<JobRow> job,
                           internal::LoadJob(rows, now, queue, job_id, Lock::kNone));
    if (!job || job->completed) return MissingJob(queue, job_id);
    return std::move(*job);
  }

  Result<DeliveryRow> ViewDelivery(Rows& rows, std::int64_t now, std::string_view queue,
                                   const std::string& scope, std::string_view job_id) {
    CAIRN_ASSIGN_OR_RETURN(std::optional<DeliveryRow> d,
                           internal::LoadDelivery(rows, scope, job_id, Lock::kNone));
    if (!d) return MissingJob(queue, job_id);
    CAIRN_ASSIGN_OR_RETURN(JobRow job, LoadLiveJob(rows, now, queue, job_id));
    return internal::ViewAt(*d, job, now);
  }

  // The ids of the jobs a queue holds (live or tombstones).
  Result<std::vector<std::string>> JobIds(Rows& rows, std::string_view queue) {
    const std::string prefix = internal::JobPrefix(queue);
    std::vector<std::string> ids;
    std::unique_ptr<rocksdb::Iterator> it = rows.NewPrefixIterator(prefix);
    for (it->Seek(prefix); it->Valid(); it->Next()) {
      ids.emplace_back(it->key().ToStringView().substr(prefix.size()));
    }
    CAIRN_RETURN_IF_ERROR(IteratorStatus(*it));
    return ids;
  }

  // Job ids of the index entries under prefix, from start, at most limit.
  Result<std::vector<std::string>> IndexedIds(Rows& rows, const std::string& prefix,
                                              const std::string& start, std::size_t limit) {
    std::vector<std::string> ids;
    std::unique_ptr<rocksdb::Iterator> it = rows.NewPrefixIterator(prefix);
    for (it->Seek(prefix + start); it->Valid() && ids.size() < limit; it->Next()) {
      CAIRN_ASSIGN_OR_RETURN(
          internal::IndexValue entry,
          internal::DecodeIndexValue(it->value().ToStringView(), it->key().ToStringView()));
      ids.emplace_back(entry.job_id);
    }
    CAIRN_RETURN_IF_ERROR(IteratorStatus(*it));
    return ids;
  }

  static void Tally(GroupCounts& c, JobState state) {
    switch (state) {
      case JobState::kReady:
        ++c.ready;
        break;
      case JobState::kDelayed:
        ++c.delayed;
        break;
      case JobState::kInFlight:
        ++c.in_flight;
        break;
      case JobState::kDead:
        ++c.dead;
        break;
    }
  }

  internal::DbRows ReadRows() {
    return internal::DbRows(core_.db(), core_.cf(ColumnFamily::kQueues), core_.read_options(),
                            core_.write_options(), core_.row_cache(ColumnFamily::kQueues),
                            core_.health());
  }

  static Status FromWrite(const rocksdb::Status& s) {
    return s.ok() ? Status::Ok() : internal::FromRocks(s, "write queue row");
  }
  static Status IteratorStatus(rocksdb::Iterator& it) {
    return it.status().ok() ? Status::Ok() : internal::FromRocks(it.status(), "scan queue rows");
  }
  static Status MalformedIndexKey(std::string_view key) {
    return Status::Corruption("queue index key '" + Printable(key) + "' is malformed");
  }
  static Status MissingJob(std::string_view queue, std::string_view job_id) {
    return Status::Corruption("job '" + Printable(job_id) + "' of queue '" + Printable(queue) +
                              "' has a delivery but no job row");
  }

  Store& store_;
  internal::StoreCore& core_;
  internal::QueueRuntime& runtime_;
};

Queue::Queue(Store& store) : impl_(std::make_unique<Impl>(store)) {}
Queue::~Queue() = default;

Result<EnqueueResult> Queue::Enqueue(std::string_view queue, std::string_view payload,
                                     const EnqueueOptions& options) {
  Result<std::vector<EnqueueResult>> results = impl_->Enqueue(queue, {{payload, &options}});
  if (!results.ok()) return results.status();
  return std::move(results->front());
}

Result<std::vector<EnqueueResult>> Queue::EnqueueBatch(std::string_view queue,
                                                       const std::vector<NewJob>& jobs) {
  if (jobs.empty()) return std::vector<EnqueueResult>();
  std::vector<Impl::JobView> views;
  views.reserve(jobs.size());
  for (const NewJob& job : jobs) views.push_back({job.payload, &job.options});
  return impl_->Enqueue(queue, views);
}

Result<bool> Queue::CreateGroup(std::string_view queue, std::string_view group, GroupStart start) {
  return impl_->CreateGroup(queue, group, start);
}

Result<std::vector<std::string>> Queue::Groups(std::string_view queue) {
  return impl_->Groups(queue);
}

Result<std::vector<ClaimedJob>> Queue::Claim(std::string_view queue, std::string_view group,
                                             std::string_view consumer,
                                             const ClaimOptions& options) {
  return impl_->Claim(queue, group, consumer, options);
}

Result<std::vector<ClaimedJob>> Queue::TryClaim(std::string_view queue, std::string_view group,
                                                std::string_view consumer,
                                                const ClaimOptions& options,
                                                std::int64_t* next_due_ms) {
  return impl_->TryClaim(queue, group, consumer, options, next_due_ms);
}

Result<OwnerResult> Queue::Ack(const JobRef& job) { return impl_->Ack(job); }

Result<OwnerResult> Queue::Extend(const JobRef& job, std::int64_t visibility_ms,
                                  std::int64_t* deadline_ms) {
  return impl_->Extend(job, visibility_ms, deadline_ms);
}

Result<FailResult> Queue::Fail(const JobRef& job, std::string_view error, bool retry) {
  return impl_->Fail(job, error, retry);
}

Result<std::vector<GroupCounts>> Queue::Counts(std::string_view queue) {
  return impl_->Counts(queue);
}

Result<std::optional<JobInfo>> Queue::GetJob(std::string_view queue, std::string_view job_id) {
  return impl_->GetJob(queue, job_id);
}

Result<DeadPage> Queue::ListDead(std::string_view queue, std::string_view group,
                                 std::string_view cursor, std::size_t limit) {
  return impl_->ListDead(queue, group, cursor, limit);
}

Result<bool> Queue::Replay(std::string_view queue, std::string_view group,
                           std::string_view job_id) {
  return impl_->Replay(queue, group, job_id);
}

Result<bool> Queue::Purge(std::string_view queue, std::string_view group, std::string_view job_id) {
  return impl_->Purge(queue, group, job_id);
}

Result<std::uint64_t> Queue::PurgeAll(std::string_view queue, std::string_view group) {
  return impl_->PurgeAll(queue, group);
}

Store& Queue::store() const { return impl_->store(); }

void Queue::WakeWaiters(std::string_view queue, std::string_view group) {
  impl_->WakeWaiters(queue, group);
}

}  // namespace cairn
