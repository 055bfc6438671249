// Queue commands: QUEUE.ADD, QUEUE.GROUP, QUEUE.GROUPS, QUEUE.CLAIM, QUEUE.ACK, QUEUE.EXTEND,
// QUEUE.FAIL, QUEUE.DLQ, QUEUE.STATS and QUEUE.GET, over the server's cairn::Queue (durable
// jobs, consumer groups, visibility leases, retries with backoff, a dead-letter queue).
// server/docs/queues.md is their reference.
//
// Each handler parses all of its arguments first and then makes one library call (the
// library checks names, sizes and ranges before it touches the store), so a bad argument
// never leaves half a change behind. Only QUEUE.CLAIM with BLOCK waits, and only when nothing
// is ready: it parks its connection (parked_call.h) as a waiter entry, holding no thread.
#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "args/arguments.h"
#include "args/ascii.h"
#include "args/errors.h"
#include "args/option_parser.h"
#include "cairn/queue.h"
#include "commands/all_commands.h"
#include "execution/block_wait.h"
#include "execution/command_table.h"
#include "execution/key_waiters.h"
#include "execution/parked_call.h"
#include "execution/server_state.h"

namespace cairn::server {
namespace {

// Exponential backoff's cap when BACKOFF EXPONENTIAL gives none: the library's default.
constexpr std::int64_t kDefaultBackoffMaxMs = Backoff{}.max_ms;
// QUEUE.DLQ LIST's page size when COUNT is not given, and its largest.
constexpr std::int64_t kDefaultDeadPage = 100;
constexpr std::int64_t kMaxDeadPage = 1000;
// Dead-letter cursors are the library's: 16 lower-case hex digits. "0" stands for the start
// and the end, as SCAN's cursor does.
constexpr std::size_t kDeadCursorLength = 16;

Queue& Queues(CommandContext& ctx) { return ctx.server.engines().queues; }

// As Redis's stream commands name a missing consumer group, so that clients can tell it from
// other errors (and create the group).
void ReplyNoGroup(resp::ReplyWriter& reply, std::string_view queue, std::string_view group) {
  reply.Error("NOGROUP No such consumer group '" + std::string(group) + "' for queue '" +
              std::string(queue) + "'; create it with QUEUE.GROUP");
}

// The library reports a missing group as kNotFound (and nothing else as kNotFound).
void ReplyGroupStatus(resp::ReplyWriter& reply, const Status& status, std::string_view queue,
                      std::string_view group) {
  if (status.code() == StatusCode::kNotFound) return ReplyNoGroup(reply, queue, group);
  ReplyStatus(reply, status);
}

// A stale delivery token is an error, not a 0: a worker whose lease lapsed may be racing the
// job's next delivery, and client libraries raise errors where they would let an integer pass.
void ReplyNotOwner(CommandContext& ctx, const JobRef& job) {
  ctx.reply.Error("NOTOWNER the token does not hold job '" + job.job_id + "' in group '" +
                  job.group + "' of queue '" + job.queue +
                  "': its lease lapsed, or it was acked or failed");
}

std::string_view StateName(JobState state) {
  switch (state) {
    case JobState::kReady:
      return "ready";
    case JobState::kDelayed:
      return "delayed";
    case JobState::kInFlight:
      return "in_flight";
    case JobState::kDead:
      return "dead";
  }
  return "unknown";
}

void WriteErrors(resp::ReplyWriter& reply, const std::vector<JobError>& errors) {
  reply.ArrayHeader(errors.size());
  for (const JobError& e : errors) {
    reply.MapHeader(4);
    reply.Bulk("attempt");
    reply.Integer(e.attempt);
    reply.Bulk("at_ms");
    reply.Integer(e.at_ms);
    reply.Bulk("consumer");
    reply.Bulk(e.consumer);
    reply.Bulk("message");
    reply.Bulk(e.message);
  }
}

// QUEUE.ADD queue payload [ID job_id] [DELAY ms | RUNAT unix_ms] [MAXATTEMPTS n]
//           [BACKOFF FIXED ms | BACKOFF EXPONENTIAL base_ms [max_ms]] [JITTER f]
//           [DEDUPWINDOW ms]
void Add(CommandContext& ctx) {
  const auto& args = ctx.args;
  EnqueueOptions options;
  bool has_id = false, has_due = false, has_attempts = false, has_backoff = false;
  bool has_dedup = false;
  std::optional<double> jitter;
  OptionParser p(args, 3);
  while (!p.Done()) {
    if (!has_id && p.Word("id")) {
      CAIRN_ARG_OR_REPLY(ctx.reply, const std::string_view id, p.Text());
      // The library reads an empty id as "pick a random one", which would silently drop the
      // deduplication the caller asked for.
      if (id.empty()) return ctx.reply.Error("ERR ID must not be empty");
      options.job_id = std::string(id);
      has_id = true;
    } else if (!has_due && p.Word("delay")) {
      CAIRN_ARG_OR_REPLY(ctx.reply, options.delay_ms, p.Integer());
      has_due = true;
    } else if (!has_due && p.Word("runat")) {
      CAIRN_ARG_OR_REPLY(ctx.reply, options.run_at_ms, p.Integer());
      has_due = true;
    } else if (!has_attempts && p.Word("maxattempts")) {
      CAIRN_ARG_OR_REPLY(ctx.reply, const std::int64_t n,
                         p.Integer(1, kMaxJobAttempts, "MAXATTEMPTS"));
      options.max_attempts = static_cast<std::uint32_t>(n);
      has_attempts = true;
    } else if (!has_backoff && p.Word("backoff")) {
      const std::optional<std::size_t> kind = p.OneOf({"fixed", "exponential"});
      if (!kind) return ctx.reply.Error(kSyntaxError);
      CAIRN_ARG_OR_REPLY(ctx.reply, const std::int64_t base, p.Integer());
      if (*kind == 0) {
        options.backoff = Backoff::Fixed(base);
      } else {
        // The cap is optional; the next argument is it when it is an integer (option words
        // never are). Without one, the library's default, raised to the base if need be.
        std::int64_t max_ms = std::max(base, kDefaultBackoffMaxMs);
        if (!p.Done() && ParseInt64(args[p.Position()])) max_ms = *p.Integer();
        options.backoff = Backoff::Exponential(base, max_ms);
      }
      has_backoff = true;
    } else if (!jitter && p.Word("jitter")) {
      CAIRN_ARG_OR_REPLY(ctx.reply, jitter, p.Double());
    } else if (!has_dedup && p.Word("dedupwindow")) {
      CAIRN_ARG_OR_REPLY(ctx.reply, options.dedup_window_ms, p.Integer());
      has_dedup = true;
    } else {
      return ctx.reply.Error(kSyntaxError);
    }
  }
  // After the loop: JITTER may come before BACKOFF, which replaces the whole policy.
  if (jitter) options.backoff.jitter = *jitter;
  Result<EnqueueResult> result = Queues(ctx).Enqueue(args[1], args[2], options);
  if (!result.ok()) return ReplyStatus(ctx.reply, result.status());
  ctx.reply.MapHeader(2);
  ctx.reply.Bulk("id");
  ctx.reply.Bulk(result->job_id);
  ctx.reply.Bulk("created");
  ctx.reply.Boolean(result->created);
}

// QUEUE.GROUP queue group [NEW | ALL]: 1 when created, 0 when it already existed, so that a
// retried creation is harmless.
void Group(CommandContext& ctx) {
  GroupStart start = GroupStart::kNewJobs;
  if (ctx.args.size() > 4) return ctx.reply.Error(kSyntaxError);
  if (ctx.args.size() == 4) {
    if (EqualsIgnoreCase(ctx.args[3], "all")) {
      start = GroupStart::kAllJobs;
    } else if (!EqualsIgnoreCase(ctx.args[3], "new")) {
      return ctx.reply.Error(kSyntaxError);
    }
  }
  Result<bool> created = Queues(ctx).CreateGroup(ctx.args[1], ctx.args[2], start);
  if (!created.ok()) return ReplyStatus(ctx.reply, created.status());
  ctx.reply.Integer(*created ? 1 : 0);
}

// QUEUE.GROUPS queue: the group names in creation order.
void Groups(CommandContext& ctx) {
  Result<std::vector<std::string>> groups = Queues(ctx).Groups(ctx.args[1]);
  if (!groups.ok()) return ReplyStatus(ctx.reply, groups.status());
  ctx.reply.ArrayHeader(groups->size());
  for (const std::string& name : *groups) ctx.reply.Bulk(name);
}

void WriteClaimed(resp::ReplyWriter& reply, const Result<std::vector<ClaimedJob>>& jobs,
                  std::string_view queue, std::string_view group) {
  if (!jobs.ok()) return ReplyGroupStatus(reply, jobs.status(), queue, group);
  reply.ArrayHeader(jobs->size());
  for (const ClaimedJob& job : *jobs) {
    reply.MapHeader(8);
    reply.Bulk("id");
    reply.Bulk(job.ref.job_id);
    reply.Bulk("payload");
    reply.Bulk(job.payload);
    reply.Bulk("attempt");
    reply.Integer(job.attempt);
    reply.Bulk("max_attempts");
    reply.Integer(job.max_attempts);
    reply.Bulk("token");
    reply.Bulk(job.ref.token);
    reply.Bulk("deadline_ms");
    reply.Integer(job.deadline_ms);
    reply.Bulk("enqueued_at_ms");
    reply.Integer(job.enqueued_at_ms);
    reply.Bulk("errors");
    WriteErrors(reply, job.errors);
  }
}

// When a job may fall due (Queue::TryClaim's next_due_ms, on the store's clock), on the
// waiters' clock; kNoDueTime: never.
KeyWaiters::Clock::time_point DueAt(const Clock& clock, std::int64_t next_due_ms) {
  if (next_due_ms == kNoDueTime) return KeyWaiters::Clock::time_point::max();
  return KeyWaiters::After(std::max<std::int64_t>(1, next_due_ms - clock.NowMs()));
}

// QUEUE.CLAIM with BLOCK, when nothing was ready: a waiter entry on the executor
// (key_waiters.h) in its group's line on the queue, the key of every command that can make a
// job ready (QUEUE.ADD, QUEUE.FAIL, QUEUE.DLQ REPLAY), and tried again when a delayed job or a
// retry falls due or a lease lapses (retry_at), until its BLOCK time is up.
ParkedCall ParkClaim(CommandContext& ctx, ClaimOptions options, std::int64_t block_ms,
                     std::int64_t next_due_ms) {
  Queue& queues = Queues(ctx);
  const int protocol = ctx.session.protocol;
  std::string queue(ctx.args[1]), group(ctx.args[2]), consumer(ctx.args[3]);
  const Clock& clock = ctx.server.clock();
  return ParkAsWaiter(ctx.server.key_waiters(), [&queues, &clock, protocol, queue, group, consumer,
                                                 options, block_ms,
                                                 next_due_ms](ParkedCall::Answer answer) {
    auto retry = std::make_shared<KeyWaiters::Clock::time_point>(DueAt(clock, next_due_ms));
    KeyWaiters::Waiter waiter;
    waiter.key_hashes = {KeyWaiters::KeyHash(queue)};
    waiter.line = group;  // A job one group takes is still there for the others.
    waiter.deadline = KeyWaiters::After(block_ms);
    waiter.try_serve = [&queues, &clock, protocol, queue, group, consumer, options, retry, answer] {
      std::int64_t due = kNoDueTime;
      Result<std::vector<ClaimedJob>> jobs = queues.TryClaim(queue, group, consumer, options, &due);
      if (jobs.ok() && jobs->empty()) {
        *retry = DueAt(clock, due);
        return false;
      }
      std::string out;
      resp::ReplyWriter reply(&out, protocol);
      WriteClaimed(reply, jobs, queue, group);
      answer(std::move(out));
      return true;
    };
    waiter.time_out = [protocol, queue, group, answer] {
      std::string out;
      resp::ReplyWriter reply(&out, protocol);
      WriteClaimed(reply, std::vector<ClaimedJob>(), queue, group);
      answer(std::move(out));
    };
    waiter.retry_at = [retry] { return *retry; };
    return waiter;
  });
}

// QUEUE.CLAIM queue group consumer [COUNT n] [VISIBILITY ms] [BLOCK ms]
void Claim(CommandContext& ctx) {
  ClaimOptions options;
  bool has_count = false, has_visibility = false;
  std::optional<std::int64_t> block_ms;
  OptionParser p(ctx.args, 4);
  while (!p.Done()) {
    if (!has_count && p.Word("count")) {
      CAIRN_ARG_OR_REPLY(ctx.reply, const std::int64_t n, p.Integer(1, kMaxClaimBatch, "COUNT"));
      options.max_jobs = static_cast<std::uint32_t>(n);
      has_count = true;
    } else if (!has_visibility && p.Word("visibility")) {
      CAIRN_ARG_OR_REPLY(ctx.reply, options.visibility_ms, p.Integer());
      has_visibility = true;
    } else if (!block_ms && p.Word("block")) {
      CAIRN_ARG_OR_REPLY(ctx.reply, const std::string_view timeout, p.Text());
      block_ms = ParseBlockMs(timeout, ctx.reply);
      if (!block_ms) return;
    } else {
      return ctx.reply.Error(kSyntaxError);
    }
  }
  // First without waiting: most claims find a job or an error at once.
  std::int64_t next_due_ms = kNoDueTime;
  Result<std::vector<ClaimedJob>> jobs =
      Queues(ctx).TryClaim(ctx.args[1], ctx.args[2], ctx.args[3], options, &next_due_ms);
  if (block_ms && jobs.ok() && jobs->empty()) {
    ctx.session.parked = ParkClaim(ctx, options, *block_ms, next_due_ms);
    return;
  }
  WriteClaimed(ctx.reply, jobs, ctx.args[1], ctx.args[2]);
}

// The delivery named by QUEUE.ACK / EXTEND / FAIL: queue group job_id token.
JobRef RefFromArgs(CommandContext& ctx) {
  return JobRef{std::string(ctx.args[1]), std::string(ctx.args[2]), std::string(ctx.args[3]),
                std::string(ctx.args[4])};
}

// QUEUE.ACK queue group job_id token
void Ack(CommandContext& ctx) {
  const JobRef job = RefFromArgs(ctx);
  Result<OwnerResult> result = Queues(ctx).Ack(job);
  if (!result.ok()) return ReplyStatus(ctx.reply, result.status());
  if (*result == OwnerResult::kNotOwner) return ReplyNotOwner(ctx, job);
  ctx.reply.Ok();
}

// QUEUE.EXTEND queue group job_id token ms: the new lease deadline (ms since the epoch).
void Extend(CommandContext& ctx) {
  CAIRN_ARG_OR_REPLY(ctx.reply, const std::int64_t ms, OptionParser(ctx.args, 5).Integer());
  const JobRef job = RefFromArgs(ctx);
  std::int64_t deadline_ms = 0;
  Result<OwnerResult> result = Queues(ctx).Extend(job, ms, &deadline_ms);
  if (!result.ok()) return ReplyStatus(ctx.reply, result.status());
  if (*result == OwnerResult::kNotOwner) return ReplyNotOwner(ctx, job);
  ctx.reply.Integer(deadline_ms);
}

// QUEUE.FAIL queue group job_id token error [NORETRY]: "retry" when another attempt is
// scheduled, "dead" when the job went to the dead-letter queue.
void Fail(CommandContext& ctx) {
  bool retry = true;
  if (ctx.args.size() > 7) return ctx.reply.Error(kSyntaxError);
  if (ctx.args.size() == 7) {
    if (!EqualsIgnoreCase(ctx.args[6], "noretry")) return ctx.reply.Error(kSyntaxError);
    retry = false;
  }
  const JobRef job = RefFromArgs(ctx);
  Result<FailResult> result = Queues(ctx).Fail(job, ctx.args[5], retry);
  if (!result.ok()) return ReplyStatus(ctx.reply, result.status());
  switch (*result) {
    case FailResult::kNotOwner:
      return ReplyNotOwner(ctx, job);
    case FailResult::kRetryScheduled:
      return ctx.reply.SimpleString("retry");
    case FailResult::kDeadLettered:
      return ctx.reply.SimpleString("dead");
  }
}

// QUEUE.DLQ LIST queue group [CURSOR c] [COUNT n]
void DeadList(CommandContext& ctx) {
  const std::string_view queue = ctx.args[2], group = ctx.args[3];
  std::string cursor;
  std::int64_t count = kDefaultDeadPage;
  bool has_cursor = false, has_count = false;
  OptionParser p(ctx.args, 4);
  while (!p.Done()) {
    if (!has_cursor && p.Word("cursor")) {
      CAIRN_ARG_OR_REPLY(ctx.reply, const std::string_view c, p.Text());
      if (c != "0") {
        bool valid = c.size() == kDeadCursorLength;
        for (char ch : c) valid = valid && ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'));
        if (!valid) return ctx.reply.Error("ERR invalid cursor");
        cursor = std::string(c);
      }
      has_cursor = true;
    } else if (!has_count && p.Word("count")) {
      CAIRN_ARG_OR_REPLY(ctx.reply, count, p.Integer(1, kMaxDeadPage, "COUNT"));
      has_count = true;
    } else {
      return ctx.reply.Error(kSyntaxError);
    }
  }
  Result<DeadPage> page =
      Queues(ctx).ListDead(queue, group, cursor, static_cast<std::size_t>(count));
  if (!page.ok()) return ReplyGroupStatus(ctx.reply, page.status(), queue, group);
  ctx.reply.MapHeader(2);
  ctx.reply.Bulk("cursor");
  ctx.reply.Bulk(page->next_cursor.empty() ? "0" : page->next_cursor);
  ctx.reply.Bulk("jobs");
  ctx.reply.ArrayHeader(page->jobs.size());
  for (const DeadJob& job : page->jobs) {
    ctx.reply.MapHeader(5);
    ctx.reply.Bulk("id");
    ctx.reply.Bulk(job.job_id);
    ctx.reply.Bulk("payload");
    ctx.reply.Bulk(job.payload);
    ctx.reply.Bulk("attempts");
    ctx.reply.Integer(job.attempts);
    ctx.reply.Bulk("died_at_ms");
    ctx.reply.Integer(job.died_at_ms);
    ctx.reply.Bulk("errors");
    WriteErrors(ctx.reply, job.errors);
  }
}

// QUEUE.DLQ LIST|REPLAY|PURGE|PURGEALL queue group …: the subcommand comes first, as in
// Redis's XGROUP, so the queue is argument 2.
void Dead(CommandContext& ctx) {
  const std::string_view sub = ctx.args[1];
  const std::size_t argc = ctx.args.size();
  auto wrong_arity = [&] { ctx.reply.Error(WrongArity("queue.dlq|" + ToLower(sub))); };
  if (EqualsIgnoreCase(sub, "list")) return DeadList(ctx);
  const std::string_view queue = ctx.args[2], group = ctx.args[3];
  if (EqualsIgnoreCase(sub, "replay") || EqualsIgnoreCase(sub, "purge")) {
    if (argc != 5) return wrong_arity();
    Result<bool> done = EqualsIgnoreCase(sub, "replay")
                            ? Queues(ctx).Replay(queue, group, ctx.args[4])
                            : Queues(ctx).Purge(queue, group, ctx.args[4]);
    if (!done.ok()) return ReplyGroupStatus(ctx.reply, done.status(), queue, group);
    return ctx.reply.Integer(*done ? 1 : 0);
  }
  if (EqualsIgnoreCase(sub, "purgeall")) {
    if (argc != 4) return wrong_arity();
    Result<std::uint64_t> purged = Queues(ctx).PurgeAll(queue, group);
    if (!purged.ok()) return ReplyGroupStatus(ctx.reply, purged.status(), queue, group);
    return ctx.reply.Integer(static_cast<std::int64_t>(*purged));
  }
  ctx.reply.Error("ERR unknown subcommand '" + std::string(sub) +
                  "'. Try QUEUE.DLQ LIST, REPLAY, PURGE or PURGEALL.");
}

// QUEUE.STATS queue: for each group (in creation order), its deliveries per state.
void Stats(CommandContext& ctx) {
  Result<std::vector<GroupCounts>> counts = Queues(ctx).Counts(ctx.args[1]);
  if (!counts.ok()) return ReplyStatus(ctx.reply, counts.status());
  ctx.reply.MapHeader(counts->size());
  for (const GroupCounts& c : *counts) {
    ctx.reply.Bulk(c.group);
    ctx.reply.MapHeader(4);
    ctx.reply.Bulk("ready");
    ctx.reply.Integer(static_cast<std::int64_t>(c.ready));
    ctx.reply.Bulk("delayed");
    ctx.reply.Integer(static_cast<std::int64_t>(c.delayed));
    ctx.reply.Bulk("in_flight");
    ctx.reply.Integer(static_cast<std::int64_t>(c.in_flight));
    ctx.reply.Bulk("dead");
    ctx.reply.Integer(static_cast<std::int64_t>(c.dead));
  }
}

// QUEUE.GET queue job_id: nil when the queue neither holds nor reserves the id.
void Get(CommandContext& ctx) {
  Result<std::optional<JobInfo>> info = Queues(ctx).GetJob(ctx.args[1], ctx.args[2]);
  if (!info.ok()) return ReplyStatus(ctx.reply, info.status());
  if (!*info) return ctx.reply.Null();
  const JobInfo& job = **info;
  if (job.completed) {  // Every group acked it; only its id is kept, for deduplication.
    ctx.reply.MapHeader(2);
    ctx.reply.Bulk("id");
    ctx.reply.Bulk(job.job_id);
    ctx.reply.Bulk("completed");
    ctx.reply.Boolean(true);
    return;
  }
  ctx.reply.MapHeader(7);
  ctx.reply.Bulk("id");
  ctx.reply.Bulk(job.job_id);
  ctx.reply.Bulk("completed");
  ctx.reply.Boolean(false);
  ctx.reply.Bulk("payload");
  ctx.reply.Bulk(job.payload);
  ctx.reply.Bulk("enqueued_at_ms");
  ctx.reply.Integer(job.enqueued_at_ms);
  ctx.reply.Bulk("max_attempts");
  ctx.reply.Integer(job.max_attempts);
  ctx.reply.Bulk("backoff");
  ctx.reply.MapHeader(4);
  ctx.reply.Bulk("kind");
  ctx.reply.Bulk(job.backoff.kind == Backoff::Kind::kFixed ? "fixed" : "exponential");
  ctx.reply.Bulk("base_ms");
  ctx.reply.Integer(job.backoff.base_ms);
  ctx.reply.Bulk("max_ms");
  ctx.reply.Integer(job.backoff.max_ms);
  ctx.reply.Bulk("jitter");
  ctx.reply.Double(job.backoff.jitter);
  ctx.reply.Bulk("deliveries");
  ctx.reply.ArrayHeader(job.deliveries.size());
  for (const DeliveryInfo& d : job.deliveries) {
    ctx.reply.MapHeader(6);
    ctx.reply.Bulk("group");
    ctx.reply.Bulk(d.group);
    ctx.reply.Bulk("state");
    ctx.reply.Bulk(StateName(d.state));
    ctx.reply.Bulk("attempts");
    ctx.reply.Integer(d.attempts);
    ctx.reply.Bulk("at_ms");
    ctx.reply.Integer(d.at_ms);
    ctx.reply.Bulk("consumer");
    ctx.reply.Bulk(d.consumer);
    ctx.reply.Bulk("errors");
    WriteErrors(ctx.reply, d.errors);
  }
}

}  // namespace

void RegisterQueueCommands(CommandTable& table) {
  table.Register(
      {"queue.add", -3, kWrite | kFast | kNative, 1, 1, 1, Add, "queue",
       "Adds a job to a queue, deduplicated by its ID; returns the job id and whether it was "
       "added.",
       kNativeSince});
  table.Register(
      {"queue.group", -3, kWrite | kNative, 1, 1, 1, Group, "queue",
       "Creates a consumer group of a queue, receiving new jobs or all jobs the queue holds.",
       kNativeSince});
  table.Register({"queue.groups", 2, kReadOnly | kFast | kNative, 1, 1, 1, Groups, "queue",
                  "Returns the consumer groups of a queue in creation order.", kNativeSince});
  table.Register(
      {"queue.claim", -4, kWrite | kBlocking | kNative, 1, 1, 1, Claim, "queue",
       "Leases up to COUNT ready jobs of a consumer group to a consumer; with BLOCK, waits for "
       "one when none is ready.",
       kNativeSince});
  table.Register({"queue.ack", 5, kWrite | kFast | kNative, 1, 1, 1, Ack, "queue",
                  "Marks a claimed job done for its consumer group.", kNativeSince});
  table.Register({"queue.extend", 6, kWrite | kFast | kNative, 1, 1, 1, Extend, "queue",
                  "Moves the lease deadline of a claimed job to now plus milliseconds.",
                  kNativeSince});
  table.Register(
      {"queue.fail", -6, kWrite | kFast | kNative, 1, 1, 1, Fail, "queue",
       "Records a failed attempt of a claimed job: retried after its backoff, or dead-lettered.",
       kNativeSince});
  table.Register({"queue.dlq", -4, kWrite | kNative, 2, 2, 1, Dead, "queue",
                  "Lists, replays or purges the dead-letter queue of a consumer group.",
                  kNativeSince});
  table.Register({"queue.stats", 2, kReadOnly | kNative, 1, 1, 1, Stats, "queue",
                  "Returns the number of jobs per state for each consumer group of a queue.",
                  kNativeSince});
  table.Register({"queue.get", 3, kReadOnly | kFast | kNative, 1, 1, 1, Get, "queue",
                  "Returns a job with its retry policy and its delivery to each consumer group.",
                  kNativeSince});
}

}  // namespace cairn::server
