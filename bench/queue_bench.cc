// queue_bench: the durable job queue under load — enqueue throughput (single jobs and batches),
// claim+ack throughput with one and two consumer threads, the latency from Enqueue to the return
// of a waiting Claim, raw RocksDB transactions doing the same reads and writes, and whether
// claims stay cheap as a queue is drained.
//
// Every benchmark takes the durability as its first argument (0 = always, 1 = everysec,
// 2 = none). One queue ("jobs") with one consumer group ("workers", created before anything is
// enqueued); payloads are cairn_bench::ValueA(), 100 bytes; job ids are Cairn's random ones;
// claims use the default 30 s visibility. Times are wall-clock (UseRealTime, or manual time
// where stated); items/s counts jobs.
//
//   BM_Enqueue              one Enqueue per iteration.
//   BM_EnqueueBatch         one EnqueueBatch of `batch` jobs per iteration (the vector is built
//                           before the loop).
//   BM_ClaimAck             Claim(max_jobs) + one Ack per claimed job, from a queue filled before
//                           the timed loop (thread 0 tops it up to what the run will take, while
//                           the other threads wait at the loop's start barrier); 1 and 2 threads
//                           on one group. A claim that comes back short fails the benchmark.
//   BM_RawEnqueue, BM_RawClaimAck
//                           the same reads and writes as raw rocksdb::Transactions on a
//                           TransactionDB configured like Cairn's (cairn_bench::RawTransactionDb):
//                           enqueue = shared-lock read of the queue row, GetForUpdate of the job
//                           id, Put job + delivery + index entry, Commit; claim = Get of the queue
//                           row, an iterator Seek from a remembered start position (Cairn's hint),
//                           per job GetForUpdate delivery + Get job + Delete index entry + Put
//                           delivery + Put in-flight index entry, Commit (under a mutex, as Cairn
//                           serialises one group's claims); ack = GetForUpdate delivery, Delete
//                           index entry, Delete delivery, GetForUpdate job, Put job tombstone,
//                           Commit. Shorter keys than Cairn's (no tag, no length prefixes), values
//                           of about Cairn's sizes, no cereal encoding.
//   BM_EnqueueToClaimLatency
//                           a consumer thread blocks in Claim(wait_ms = 60 s); the producer waits
//                           until it is parked, takes the time just before Enqueue; the consumer
//                           takes the time when Claim returns (then acks, untimed, and claims
//                           again). On a ManualClock store, as in lease_bench, so that only the
//                           enqueue can wake the claimer. 2,000 samples; p50/p99 µs counters, and
//                           the p50 of the first and of the last 200 samples.
//   BM_DrainFlatness        claim(max_jobs)+ack through 100,000 jobs enqueued beforehand on a
//                           fresh store (untimed); counters give the rate of the first and of the
//                           last 10,000 jobs, and the draining thread's CPU time per job in each.
//   BM_RawDrainFlatness     the same through the raw transactions of BM_RawClaimAck.
//   BM_WorkerClaimsAfterDrain
//                           on a ManualClock store (durability none) where `drained` jobs were
//                           claimed and acked (untimed), each iteration enqueues one job
//                           (untimed), then does what a worker loop does: Claim(max_jobs = 1)
//                           takes it, Ack (untimed), then Claim(max_jobs = 1) finds nothing (the
//                           look before a worker parks). Manual time = the two claims; counters
//                           give the p50 of each. 100 iterations.
//
// Run:  queue_bench [--benchmark_filter=...] [--benchmark_min_time=...]

#include <benchmark/benchmark.h>
#include <rocksdb/db.h>
#include <rocksdb/utilities/transaction.h>
#include <rocksdb/utilities/transaction_db.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "cairn/clock.h"
#include "cairn/options.h"
#include "cairn/ownership.h"
#include "cairn/queue.h"
#include "cairn/status.h"
#include "cairn/store.h"
#include "support/bench_support.h"

namespace {

using cairn_bench::CheckOk;
using cairn_bench::Die;
using cairn_bench::DurabilityArg;
using cairn_bench::Finish;

constexpr std::string_view kQueue = "jobs";
constexpr std::string_view kGroup = "workers";
// Jobs per EnqueueBatch when filling a queue before a timed loop (and raw jobs per WriteBatch).
constexpr std::int64_t kFillBatch = 1'000;
// Extra jobs a fill leaves beyond what the run will claim.
constexpr std::int64_t kFillMargin = 1'000;
constexpr std::int64_t kWaitMs = 60'000;
constexpr std::int64_t kLatencySamples = 2'000;
constexpr std::int64_t kDrainJobs = 100'000;
constexpr std::int64_t kDrainWindow = 10'000;
constexpr std::int64_t kAfterDrainIterations = 100;

const std::string& Payload() { return cairn_bench::ValueA(); }

// -------------------------------------------------------------------------------------------
// Helpers.

// Ends the benchmark loop with an error; returns true if status is not OK.
template <typename S>
bool Failed(benchmark::State& state, const S& status) {
  if (status.ok()) return false;
  state.SkipWithError(status.ToString().c_str());
  return true;
}

std::int64_t NowNs() { return std::chrono::steady_clock::now().time_since_epoch().count(); }

// The nearest-rank percentile p (0..1) of samples (nanoseconds), in microseconds.
double PercentileUs(std::vector<std::int64_t>& samples, double p) {
  if (samples.empty()) return 0;
  const std::size_t rank =
      static_cast<std::size_t>(std::ceil(p * static_cast<double>(samples.size())));
  const auto nth =
      samples.begin() + static_cast<std::ptrdiff_t>(std::max<std::size_t>(rank, 1) - 1);
  std::nth_element(samples.begin(), nth, samples.end());
  return static_cast<double>(*nth) / 1000.0;
}

// A Cairn store for `options`, dying if it does not open.
std::unique_ptr<cairn::Store> OpenStore(const cairn::Options& options) {
  cairn::Result<std::unique_ptr<cairn::Store>> store = cairn::Store::Open(options);
  CheckOk(store.status(), "open Cairn store");
  return std::move(store).value();
}

void CreateGroup(cairn::Queue& queue) {
  cairn::Result<bool> created = queue.CreateGroup(kQueue, kGroup);
  CheckOk(created.status(), "create consumer group");
}

// Enqueues `count` jobs in batches of kFillBatch.
void Fill(cairn::Queue& queue, std::int64_t count) {
  std::vector<cairn::NewJob> batch;
  while (count > 0) {
    batch.assign(static_cast<std::size_t>(std::min(count, kFillBatch)), {Payload(), {}});
    CheckOk(queue.EnqueueBatch(kQueue, batch).status(), "fill: enqueue batch");
    count -= static_cast<std::int64_t>(batch.size());
  }
}

// Claims up to max_jobs and acks each; returns how many it claimed, or a failed status.
cairn::Result<std::size_t> ClaimAndAck(cairn::Queue& queue, std::string_view consumer,
                                       const cairn::ClaimOptions& options) {
  cairn::Result<std::vector<cairn::ClaimedJob>> claimed =
      queue.Claim(kQueue, kGroup, consumer, options);
  if (!claimed.ok()) return claimed.status();
  for (const cairn::ClaimedJob& job : *claimed) {
    cairn::Result<cairn::OwnerResult> acked = queue.Ack(job.ref);
    if (!acked.ok()) return acked.status();
    if (*acked != cairn::OwnerResult::kDone) return cairn::Status::Internal("ack: not owner");
  }
  return claimed->size();
}

cairn::ClaimOptions ClaimUpTo(std::int64_t max_jobs) {
  cairn::ClaimOptions options;
  options.max_jobs = static_cast<std::uint32_t>(max_jobs);
  return options;
}

// -------------------------------------------------------------------------------------------
// Raw rows: the queue's reads and writes without Cairn. Keys are q:<queue>, j:<job id>,
// d:<job id> and r:<due ms><seq> (16 bytes big-endian); values are about the size of Cairn's.

constexpr std::string_view kRawQueueKey = "q:jobs";
constexpr std::string_view kRawIndexPrefix = "r:";

const std::string& RawQueueRow() {  // A queue row with one group.
  static const std::string value(40, 'q');
  return value;
}
const std::string& RawJobRow() {  // Payload plus the job's fields.
  static const std::string value(cairn_bench::kValueBytes + 60, 'j');
  return value;
}
const std::string& RawPendingDelivery() {
  static const std::string value(40, 'p');
  return value;
}
const std::string& RawInFlightDelivery() {  // With a 32-byte token and the consumer's name.
  static const std::string value(90, 'f');
  return value;
}
const std::string& RawJobTombstone() {
  static const std::string value(24, 't');
  return value;
}

std::string RawIndexKey(std::int64_t due_ms, std::uint64_t seq) {
  std::string key(kRawIndexPrefix);
  for (int shift = 56; shift >= 0; shift -= 8) {
    key.push_back(static_cast<char>(static_cast<std::uint64_t>(due_ms) >> shift));
  }
  for (int shift = 56; shift >= 0; shift -= 8) key.push_back(static_cast<char>(seq >> shift));
  return key;
}

// The big-endian 64-bit integer at p.
std::uint64_t ReadBigEndian64(const char* p) {
  std::uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value = (value << 8) | static_cast<unsigned char>(p[i]);
  return value;
}

std::int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// -------------------------------------------------------------------------------------------
// Fixtures. Each is made by the benchmark's Setup hook (once per run, before its threads start;
// runs of the same instance share it) and found by every thread through CurrentFixture().

// A store with the queue's group created.
class QueueFixture : public cairn_bench::Fixture {
 public:
  explicit QueueFixture(cairn::Durability durability) : store_(durability), queue_(store_.store()) {
    CreateGroup(queue_);
  }

  cairn::Queue& queue() { return queue_; }

  // Makes sure `needed` jobs are ready (beyond every job claimed so far). Call from one thread,
  // before the timed loop.
  void TopUp(std::int64_t needed) {
    const std::int64_t ready = filled_ - claimed_.load();
    if (ready >= needed) return;
    Fill(queue_, needed - ready + kFillMargin);
    filled_ += needed - ready + kFillMargin;
  }
  void Claimed(std::int64_t jobs) { claimed_ += jobs; }

 private:
  cairn_bench::TempStore store_;
  cairn::Queue queue_;  // After the store it works on.
  std::int64_t filled_ = 0;
  std::atomic<std::int64_t> claimed_{0};
};

// A raw TransactionDB with the queue row, an enqueue sequence and the claim hint.
class RawQueueFixture : public cairn_bench::Fixture {
 public:
  explicit RawQueueFixture(cairn::Durability durability) : raw_(durability) {
    CheckOk(raw_.db().Put(raw_.write_options(), raw_.cf(), kRawQueueKey, RawQueueRow()),
            "raw: put queue row");
  }

  cairn_bench::RawTransactionDb& raw() { return raw_; }

  // A fresh 32-byte job id and its seq.
  std::uint64_t NextSeq() { return ++seq_; }
  static std::string JobId(std::uint64_t seq) {
    std::string id(32, '0');
    for (std::size_t i = id.size(); i-- > 0 && seq != 0; seq /= 10) {
      id[i] = static_cast<char>('0' + seq % 10);
    }
    return id;
  }

  // One raw enqueue transaction of `count` jobs due now.
  rocksdb::Status Enqueue(std::int64_t count) {
    std::unique_ptr<rocksdb::Transaction> txn = raw_.Begin();
    std::string value;
    rocksdb::Status s = txn->GetForUpdate(raw_.read_options(), raw_.cf(), kRawQueueKey, &value,
                                          /*exclusive=*/false);
    const std::int64_t now = WallMs();
    for (std::int64_t i = 0; s.ok() && i < count; ++i) {
      const std::uint64_t seq = NextSeq();
      const std::string id = JobId(seq);
      const std::string job_key = "j:" + id;
      s = txn->GetForUpdate(raw_.read_options(), raw_.cf(), job_key, &value);
      if (!s.IsNotFound()) return s.ok() ? rocksdb::Status::Aborted("job id not fresh") : s;
      s = txn->Put(raw_.cf(), job_key, RawJobRow());
      if (s.ok()) s = txn->Put(raw_.cf(), "d:" + id, RawPendingDelivery());
      if (s.ok()) s = txn->Put(raw_.cf(), RawIndexKey(now, seq), id);
    }
    return s.ok() ? txn->Commit() : s;
  }

  // Makes sure `needed` jobs are ready (beyond every job claimed so far), written with
  // WriteBatches. Call from one thread, before the timed loop.
  void TopUp(std::int64_t needed) {
    const std::int64_t ready = filled_ - claimed_.load();
    if (ready >= needed) return;
    std::int64_t count = needed - ready + kFillMargin;
    filled_ += count;
    const std::int64_t now = WallMs();
    while (count > 0) {
      rocksdb::WriteBatch batch;
      for (std::int64_t i = 0; i < kFillBatch && count > 0; ++i, --count) {
        const std::uint64_t seq = NextSeq();
        const std::string id = JobId(seq);
        CheckOk(batch.Put(raw_.cf(), "j:" + id, RawJobRow()), "raw fill");
        CheckOk(batch.Put(raw_.cf(), "d:" + id, RawPendingDelivery()), "raw fill");
        CheckOk(batch.Put(raw_.cf(), RawIndexKey(now, seq), id), "raw fill");
      }
      CheckOk(raw_.db().Write(raw_.write_options(), &batch), "raw fill: write");
    }
  }
  void Claimed(std::int64_t jobs) { claimed_ += jobs; }

  struct RawClaimed {
    std::string id;
    std::string index_key;  // Of the in-flight entry.
  };

  // One raw claim transaction of up to max_jobs jobs, as Cairn's: one at a time per group.
  rocksdb::Status Claim(std::int64_t max_jobs, std::vector<RawClaimed>* claimed) {
    claimed->clear();
    std::lock_guard<std::mutex> lock(claim_mu_);
    std::unique_ptr<rocksdb::Transaction> txn = raw_.Begin();
    std::string value;
    rocksdb::Status s = txn->Get(raw_.read_options(), raw_.cf(), kRawQueueKey, &value);
    if (!s.ok()) return s;
    const std::int64_t now = WallMs();
    std::string stop = hint_;
    std::unique_ptr<rocksdb::Iterator> it(txn->GetIterator(raw_.read_options(), raw_.cf()));
    // Stops as soon as the batch is full (no Next() past the last job taken).
    for (it->Seek(hint_.empty() ? std::string(kRawIndexPrefix) : hint_);
         it->Valid() && it->key().starts_with(kRawIndexPrefix); it->Next()) {
      const std::string index_key = it->key().ToString();
      if (index_key.size() != kRawIndexPrefix.size() + 16) {
        return rocksdb::Status::Corruption("raw index key");
      }
      stop = index_key;
      const char* position = index_key.data() + kRawIndexPrefix.size();
      if (static_cast<std::int64_t>(ReadBigEndian64(position)) > now) break;  // Not due.
      const std::uint64_t seq = ReadBigEndian64(position + 8);
      const std::string id = it->value().ToString();
      s = txn->GetForUpdate(raw_.read_options(), raw_.cf(), "d:" + id, &value);
      if (s.ok()) s = txn->Get(raw_.read_options(), raw_.cf(), "j:" + id, &value);
      if (s.ok()) s = txn->Delete(raw_.cf(), index_key);
      if (s.ok()) s = txn->Put(raw_.cf(), "d:" + id, RawInFlightDelivery());
      RawClaimed job{id, RawIndexKey(now + 30'000, seq)};
      if (s.ok()) s = txn->Put(raw_.cf(), job.index_key, id);
      if (!s.ok()) return s;
      claimed->push_back(std::move(job));
      if (static_cast<std::int64_t>(claimed->size()) == max_jobs) break;
    }
    if (!it->status().ok()) return it->status();
    s = txn->Commit();
    if (s.ok()) hint_ = stop;
    return s;
  }

  rocksdb::Status Ack(const RawClaimed& job) {
    std::unique_ptr<rocksdb::Transaction> txn = raw_.Begin();
    std::string value;
    rocksdb::Status s = txn->GetForUpdate(raw_.read_options(), raw_.cf(), "d:" + job.id, &value);
    if (s.ok()) s = txn->Delete(raw_.cf(), job.index_key);
    if (s.ok()) s = txn->Delete(raw_.cf(), "d:" + job.id);
    if (s.ok()) s = txn->GetForUpdate(raw_.read_options(), raw_.cf(), "j:" + job.id, &value);
    if (s.ok()) s = txn->Put(raw_.cf(), "j:" + job.id, RawJobTombstone());
    return s.ok() ? txn->Commit() : s;
  }

 private:
  cairn_bench::RawTransactionDb raw_;
  std::atomic<std::uint64_t> seq_{0};
  std::int64_t filled_ = 0;
  std::atomic<std::int64_t> claimed_{0};
  std::mutex claim_mu_;
  std::string hint_;  // Under claim_mu_.
};

// Makes the fixture of benchmark `name` (one per argument list and thread count) unless its
// previous run made it. For Setup hooks: runs on the main thread before the benchmark's threads.
template <typename F>
void Prepare(const benchmark::State& state, std::string_view name) {
  std::string id = std::string(name) + "/" + std::to_string(state.range(0)) + "/" +
                   std::to_string(state.range(1)) + "/threads:" + std::to_string(state.threads());
  cairn_bench::SharedFixture<F>(std::move(id),
                                [&] { return std::make_unique<F>(DurabilityArg(state)); });
}

template <typename F>
F& Current() {
  return static_cast<F&>(cairn_bench::CurrentFixture());
}

// -------------------------------------------------------------------------------------------
// Enqueue.

void BM_Enqueue(benchmark::State& state) {
  cairn::Queue& queue = Current<QueueFixture>().queue();
  for ([[maybe_unused]] auto _ : state) {
    cairn::Result<cairn::EnqueueResult> enqueued = queue.Enqueue(kQueue, Payload());
    if (Failed(state, enqueued.status())) break;
  }
  Finish(state);
}

void BM_EnqueueBatch(benchmark::State& state) {
  cairn::Queue& queue = Current<QueueFixture>().queue();
  const std::vector<cairn::NewJob> jobs(static_cast<std::size_t>(state.range(1)),
                                        cairn::NewJob{Payload(), {}});
  for ([[maybe_unused]] auto _ : state) {
    cairn::Result<std::vector<cairn::EnqueueResult>> enqueued = queue.EnqueueBatch(kQueue, jobs);
    if (Failed(state, enqueued.status())) break;
  }
  Finish(state, state.range(1));
}

void BM_RawEnqueue(benchmark::State& state) {
  auto& fx = Current<RawQueueFixture>();
  const std::int64_t batch = state.range(1);
  for ([[maybe_unused]] auto _ : state) {
    if (Failed(state, fx.Enqueue(batch))) break;
  }
  Finish(state, batch);
}

// -------------------------------------------------------------------------------------------
// Claim + ack.

void BM_ClaimAck(benchmark::State& state) {
  auto& fx = Current<QueueFixture>();
  const std::int64_t max_jobs = state.range(1);
  // Thread 0 fills while the others wait at the loop's start barrier.
  if (state.thread_index() == 0) fx.TopUp(state.max_iterations * state.threads() * max_jobs);
  const std::string consumer = "c" + std::to_string(state.thread_index());
  const cairn::ClaimOptions options = ClaimUpTo(max_jobs);
  std::int64_t claimed = 0;
  for ([[maybe_unused]] auto _ : state) {
    cairn::Result<std::size_t> done = ClaimAndAck(fx.queue(), consumer, options);
    if (Failed(state, done.status())) break;
    claimed += static_cast<std::int64_t>(*done);
    if (static_cast<std::int64_t>(*done) != max_jobs) {
      state.SkipWithError("the queue ran dry: the fill was too small");
      break;
    }
  }
  fx.Claimed(claimed);
  Finish(state, max_jobs);
}

void BM_RawClaimAck(benchmark::State& state) {
  auto& fx = Current<RawQueueFixture>();
  const std::int64_t max_jobs = state.range(1);
  if (state.thread_index() == 0) fx.TopUp(state.max_iterations * state.threads() * max_jobs);
  std::vector<RawQueueFixture::RawClaimed> jobs;
  std::int64_t claimed = 0;
  for ([[maybe_unused]] auto _ : state) {
    if (Failed(state, fx.Claim(max_jobs, &jobs))) break;
    claimed += static_cast<std::int64_t>(jobs.size());
    if (static_cast<std::int64_t>(jobs.size()) != max_jobs) {
      state.SkipWithError("the raw queue ran dry: the fill was too small");
      break;
    }
    rocksdb::Status s;
    for (const auto& job : jobs) {
      s = fx.Ack(job);
      if (!s.ok()) break;
    }
    if (Failed(state, s)) break;
  }
  fx.Claimed(claimed);
  Finish(state, max_jobs);
}

// -------------------------------------------------------------------------------------------
// Enqueue → claim latency for a parked claimer.

void BM_EnqueueToClaimLatency(benchmark::State& state) {
  cairn_bench::ReleaseFixture();  // Close the previous benchmark's store first.
  cairn_bench::TempDir dir;
  auto clock = std::make_shared<cairn::ManualClock>();
  cairn::Options options;
  options.data_dir = dir.path();
  options.durability = DurabilityArg(state);
  options.clock = clock;
  std::unique_ptr<cairn::Store> store = OpenStore(options);
  {
    cairn::Queue queue(*store);
    CreateGroup(queue);

    std::atomic<bool> stop{false};
    std::atomic<bool> done{false};
    std::atomic<bool> exited{false};
    std::atomic<std::int64_t> claimed_ns{0};
    std::thread consumer([&] {
      cairn::ClaimOptions claim;
      claim.wait_ms = kWaitMs;
      claim.stop = &stop;
      while (true) {
        cairn::Result<std::vector<cairn::ClaimedJob>> got =
            queue.Claim(kQueue, kGroup, "waiter", claim);
        claimed_ns = NowNs();
        if (stop.load()) {
          exited = true;
          return;
        }
        if (!got.ok()) Die("waiting claim: " + got.status().ToString());
        if (got->size() != 1) Die("waiting claim returned no job");
        cairn::Result<cairn::OwnerResult> acked = queue.Ack(got->front().ref);
        if (!acked.ok() || *acked != cairn::OwnerResult::kDone) Die("ack after a waiting claim");
        done = true;
      }
    });

    std::vector<std::int64_t> latencies;
    latencies.reserve(static_cast<std::size_t>(state.max_iterations));
    for ([[maybe_unused]] auto _ : state) {
      done = false;
      while (clock->waiters() == 0) std::this_thread::yield();  // The claimer is parked.
      const std::int64_t enqueue_ns = NowNs();
      CheckOk(queue.Enqueue(kQueue, Payload()).status(), "enqueue");
      while (!done.load()) std::this_thread::yield();
      const std::int64_t latency_ns = claimed_ns.load() - enqueue_ns;
      state.SetIterationTime(static_cast<double>(latency_ns) / 1e9);
      latencies.push_back(latency_ns);
    }
    stop = true;
    while (!exited.load()) {  // Parked or about to park: wake it until it has seen stop.
      queue.WakeWaiters(kQueue, kGroup);
      std::this_thread::yield();
    }
    consumer.join();
    // The median of the first and of the last tenth of the samples, in order: whether the
    // latency grows as more jobs pass through the group.
    const std::ptrdiff_t tenth = static_cast<std::ptrdiff_t>(latencies.size() / 10);
    if (tenth > 0) {
      std::vector<std::int64_t> first(latencies.begin(), latencies.begin() + tenth);
      std::vector<std::int64_t> last(latencies.end() - tenth, latencies.end());
      state.counters["first_tenth_p50_us"] = PercentileUs(first, 0.50);
      state.counters["last_tenth_p50_us"] = PercentileUs(last, 0.50);
    }
    state.counters["p50_us"] = PercentileUs(latencies, 0.50);
    state.counters["p99_us"] = PercentileUs(latencies, 0.99);
  }
  state.SetLabel(std::string(cairn::DurabilityName(DurabilityArg(state))));
}

// -------------------------------------------------------------------------------------------
// Draining a large queue: is the last 10,000 as fast as the first?

std::int64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// Wall-clock rate and the draining thread's CPU time per job of each kDrainWindow jobs. The CPU
// time leaves out RocksDB's background threads and whatever else runs on the machine, so it
// shows the cost of a claim+ack itself more steadily than the rate does.
class DrainMeter {
 public:
  void Start() {
    windows_.clear();
    drained_ = 0;
    start_ns_ = wall_ns_ = NowNs();
    cpu_ns_ = ThreadCpuNs();
  }
  void Add(std::int64_t jobs) {
    const std::int64_t before = drained_;
    drained_ += jobs;
    if (drained_ / kDrainWindow == before / kDrainWindow) return;
    const std::int64_t wall = NowNs();
    const std::int64_t cpu = ThreadCpuNs();
    windows_.push_back(
        {static_cast<double>(kDrainWindow) * 1e9 / static_cast<double>(wall - wall_ns_),
         static_cast<double>(cpu - cpu_ns_) / 1e3 / kDrainWindow});
    wall_ns_ = wall;
    cpu_ns_ = cpu;
  }
  std::int64_t drained() const { return drained_; }
  double Seconds() const { return static_cast<double>(NowNs() - start_ns_) / 1e9; }
  void Report(benchmark::State& state) const {
    if (windows_.size() < 2) return;
    state.counters["first_10k_per_s"] = windows_.front().per_s;
    state.counters["last_10k_per_s"] = windows_.back().per_s;
    state.counters["last_over_first"] = windows_.back().per_s / windows_.front().per_s;
    state.counters["first_10k_cpu_us"] = windows_.front().cpu_us_per_job;
    state.counters["last_10k_cpu_us"] = windows_.back().cpu_us_per_job;
  }

 private:
  struct Window {
    double per_s;
    double cpu_us_per_job;
  };
  std::vector<Window> windows_;  // Of the last run.
  std::int64_t drained_ = 0;
  std::int64_t start_ns_ = 0;
  std::int64_t wall_ns_ = 0;
  std::int64_t cpu_ns_ = 0;
};

void BM_DrainFlatness(benchmark::State& state) {
  const cairn::ClaimOptions options = ClaimUpTo(state.range(1));
  DrainMeter meter;
  cairn_bench::ReleaseFixture();  // Close the previous benchmark's store first.
  for ([[maybe_unused]] auto _ : state) {
    // Manual time: making and filling the store is not counted.
    auto fx = std::make_unique<QueueFixture>(DurabilityArg(state));
    Fill(fx->queue(), kDrainJobs);
    meter.Start();
    while (meter.drained() < kDrainJobs) {
      cairn::Result<std::size_t> done = ClaimAndAck(fx->queue(), "c0", options);
      if (!done.ok()) Die("drain: " + done.status().ToString());
      if (*done == 0) Die("drain: the queue ran dry early");
      meter.Add(static_cast<std::int64_t>(*done));
    }
    state.SetIterationTime(meter.Seconds());
  }
  meter.Report(state);
  Finish(state, kDrainJobs);
}

// The same drain through the raw transactions of BM_RawClaimAck: how much of any slowdown is
// RocksDB's own (a growing memtable, flushes, compactions).
void BM_RawDrainFlatness(benchmark::State& state) {
  const std::int64_t max_jobs = state.range(1);
  DrainMeter meter;
  std::vector<RawQueueFixture::RawClaimed> jobs;
  cairn_bench::ReleaseFixture();
  for ([[maybe_unused]] auto _ : state) {
    auto fx = std::make_unique<RawQueueFixture>(DurabilityArg(state));
    fx->TopUp(kDrainJobs - kFillMargin);  // Exactly kDrainJobs.
    meter.Start();
    while (meter.drained() < kDrainJobs) {
      CheckOk(fx->Claim(max_jobs, &jobs), "raw drain: claim");
      if (jobs.empty()) Die("raw drain: the queue ran dry early");
      for (const auto& job : jobs) CheckOk(fx->Ack(job), "raw drain: ack");
      meter.Add(static_cast<std::int64_t>(jobs.size()));
    }
    state.SetIterationTime(meter.Seconds());
  }
  meter.Report(state);
  Finish(state, kDrainJobs);
}

// A store on a ManualClock with `drained` jobs claimed and acked (untimed), for
// BM_WorkerClaimsAfterDrain. Time stands still, so every lease those claims took still lies in
// the future, as it does on the real clock for the jobs acked within the last visibility period
// (30 s): the measurement does not depend on how long the fill and drain took.
class DrainedFixture final : public cairn_bench::Fixture {
 public:
  explicit DrainedFixture(std::int64_t drained) {
    cairn::Options options;
    options.data_dir = dir_.path();
    options.durability = cairn::Durability::kNone;
    options.clock = std::make_shared<cairn::ManualClock>();
    store_ = OpenStore(options);
    queue_ = std::make_unique<cairn::Queue>(*store_);
    CreateGroup(*queue_);
    Fill(*queue_, drained);
    const cairn::ClaimOptions options100 = ClaimUpTo(100);
    for (std::int64_t left = drained; left > 0;) {
      cairn::Result<std::size_t> done = ClaimAndAck(*queue_, "c0", options100);
      CheckOk(done.status(), "drain");
      if (*done == 0) Die("drain: the queue ran dry early");
      left -= static_cast<std::int64_t>(*done);
    }
  }

  cairn::Queue& queue() { return *queue_; }

 private:
  cairn_bench::TempDir dir_;  // Outlives the store.
  std::unique_ptr<cairn::Store> store_;
  std::unique_ptr<cairn::Queue> queue_;  // Destroyed before the store.
};

// After `drained` jobs went through claim+ack: what a worker loop's two claims per job cost.
void BM_WorkerClaimsAfterDrain(benchmark::State& state) {
  cairn::Queue& queue = Current<DrainedFixture>().queue();
  const cairn::ClaimOptions one = ClaimUpTo(1);
  std::vector<std::int64_t> taking, empty;
  for ([[maybe_unused]] auto _ : state) {
    CheckOk(queue.Enqueue(kQueue, Payload()).status(), "enqueue");
    const std::int64_t t0 = NowNs();
    cairn::Result<std::vector<cairn::ClaimedJob>> got = queue.Claim(kQueue, kGroup, "w", one);
    const std::int64_t t1 = NowNs();
    if (Failed(state, got.status())) break;
    if (got->size() != 1) {
      state.SkipWithError("the claim did not take the job");
      break;
    }
    cairn::Result<cairn::OwnerResult> acked = queue.Ack(got->front().ref);
    if (Failed(state, acked.status())) break;
    const std::int64_t t2 = NowNs();
    cairn::Result<std::vector<cairn::ClaimedJob>> none = queue.Claim(kQueue, kGroup, "w", one);
    const std::int64_t t3 = NowNs();
    if (Failed(state, none.status())) break;
    if (!none->empty()) {
      state.SkipWithError("the second claim found a job");
      break;
    }
    taking.push_back(t1 - t0);
    empty.push_back(t3 - t2);
    state.SetIterationTime(static_cast<double>((t1 - t0) + (t3 - t2)) / 1e9);
  }
  state.counters["claim_p50_us"] = PercentileUs(taking, 0.50);
  state.counters["empty_claim_p50_us"] = PercentileUs(empty, 0.50);
  Finish(state);
}

// -------------------------------------------------------------------------------------------
// Registration. Wall-clock time; --benchmark_min_time applies (default 0.5 s) except where a
// fixed number of iterations is set.

void AllDurabilities(benchmark::internal::Benchmark* b, const std::vector<std::int64_t>& second) {
  for (std::int64_t durability : {0, 1, 2}) {
    for (std::int64_t arg : second) b->Args({durability, arg});
  }
}

BENCHMARK(BM_Enqueue)
    ->Apply([](benchmark::internal::Benchmark* b) { AllDurabilities(b, {1}); })
    ->ArgNames({"durability", "batch"})
    ->UseRealTime()
    ->Setup([](const benchmark::State& state) { Prepare<QueueFixture>(state, "Enqueue"); });
BENCHMARK(BM_EnqueueBatch)
    ->Apply([](benchmark::internal::Benchmark* b) {
      AllDurabilities(b, {16, 100});
    })
    ->ArgNames({"durability", "batch"})
    ->UseRealTime()
    ->Setup([](const benchmark::State& state) { Prepare<QueueFixture>(state, "EnqueueBatch"); });
BENCHMARK(BM_RawEnqueue)
    ->Apply([](benchmark::internal::Benchmark* b) {
      AllDurabilities(b, {1, 16, 100});
    })
    ->ArgNames({"durability", "batch"})
    ->UseRealTime()
    ->Setup([](const benchmark::State& state) { Prepare<RawQueueFixture>(state, "RawEnqueue"); });
BENCHMARK(BM_ClaimAck)
    ->Apply([](benchmark::internal::Benchmark* b) {
      AllDurabilities(b, {1, 16});
    })
    ->ArgNames({"durability", "max_jobs"})
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime()
    ->Setup([](const benchmark::State& state) { Prepare<QueueFixture>(state, "ClaimAck"); });
BENCHMARK(BM_RawClaimAck)
    ->Apply([](benchmark::internal::Benchmark* b) {
      AllDurabilities(b, {1, 16});
    })
    ->ArgNames({"durability", "max_jobs"})
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime()
    ->Setup([](const benchmark::State& state) { Prepare<RawQueueFixture>(state, "RawClaimAck"); });
BENCHMARK(BM_EnqueueToClaimLatency)
    ->ArgName("durability")
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->UseManualTime()
    ->Iterations(kLatencySamples);
BENCHMARK(BM_DrainFlatness)
    ->ArgNames({"durability", "max_jobs"})
    ->Args({1, 1})
    ->Args({2, 1})
    ->Args({2, 16})
    ->UseManualTime()
    ->Iterations(1);
BENCHMARK(BM_RawDrainFlatness)
    ->ArgNames({"durability", "max_jobs"})
    ->Args({1, 1})
    ->Args({2, 1})
    ->Args({2, 16})
    ->UseManualTime()
    ->Iterations(1);
BENCHMARK(BM_WorkerClaimsAfterDrain)
    ->ArgNames({"durability", "drained"})
    ->Args({2, 0})
    ->Args({2, 1'000})
    ->Args({2, 10'000})
    ->Args({2, 50'000})
    ->UseManualTime()
    ->Iterations(kAfterDrainIterations)
    ->Setup([](const benchmark::State& state) {
      if (DurabilityArg(state) != cairn::Durability::kNone) Die("after-drain runs on none");
      std::string id = "WorkerClaimsAfterDrain/" + std::to_string(state.range(1));
      cairn_bench::SharedFixture<DrainedFixture>(
          std::move(id), [&] { return std::make_unique<DrainedFixture>(state.range(1)); });
    });

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("durability_arg", cairn_bench::kDurabilityArgMeaning);
  benchmark::AddCustomContext("payload_bytes", std::to_string(cairn_bench::kValueBytes));
  benchmark::RunSpecifiedBenchmarks();
  cairn_bench::ReleaseFixture();  // Closes and removes the last benchmark's directory.
  benchmark::Shutdown();
  return 0;
}
