// idempotency_bench: Cairn's idempotency records beside the raw RocksDB transactions they are
// made of, in one binary, so that what IdempotencyStore adds can be read off as a ratio.
//
// The target is stated against "a raw RocksDB transaction commit pair": Claim and Complete are
// each one transaction that reads the record with GetForUpdate, decides, writes it back and
// commits. So the baseline of a claim+complete pair is BM_TxnPair_Raw: two rocksdb::Transaction
// on one fresh key, each GetForUpdate + Put (kRawRecordBytes) + Commit. BM_TxnPair_Records is
// the same pair through Cairn's public records API (Set if absent, then CompareAndSwap), a third
// reference point. Duplicates: Claim of an already completed key (a read and a decode, no
// write) beside a raw TransactionDB::Get, each call timed for p50/p99 latency counters.
// BM_Run_Cairn is the whole Run round trip (claim, a trivial fn, complete).
//
// Every benchmark takes the durability as its first argument (0 = always, 1 = everysec,
// 2 = none); all are registered with everysec, Cairn's default. The raw database is opened as
// lib/src/store_core.cc opens Cairn's (cairn_bench::RawTransactionDb, support/bench_support.h).
// Differences that remain, all part of what Cairn costs:
//   - Cairn's row key is the tagged, length-prefixed ("bench", "v1", key): 27 bytes; the raw
//     side uses the 11-byte key ("t0:00000042") as it is;
//   - Cairn's record is its cereal encoding behind a value header (about 115 bytes for a claim,
//     about 240 with a 100-byte outcome body); the raw side writes kRawRecordBytes each time;
//   - the Cairn benchmarks build an IdempotencyKey for each fresh key inside the loop, as a
//     caller does;
//   - Claim takes a fencing token from a persisted counter that reserves blocks of 1024 values
//     with one fsync'd write each (about one fsync per 1024 claims, whatever the durability).
//
// Threaded benchmarks (threads:2) share one store or database, each thread using its own keys.
// Each benchmark instance gets a fresh directory (mkdtemp under $TMPDIR), made by its Setup hook
// before its threads start and shared by its runs (the runs Google Benchmark makes while it
// settles on an iteration count, and repetitions); it is removed when the next instance starts.
// Times are wall-clock (UseRealTime); items/s counts pairs, lookups or round trips.
//
// Run:  idempotency_bench [--benchmark_filter=...] [--benchmark_min_time=...]

#include <benchmark/benchmark.h>
#include <rocksdb/db.h>
#include <rocksdb/utilities/transaction.h>
#include <rocksdb/utilities/transaction_db.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "cairn/fingerprint.h"
#include "cairn/idempotency.h"
#include "cairn/options.h"
#include "cairn/records.h"
#include "cairn/status.h"
#include "cairn/store.h"
#include "support/bench_support.h"

namespace {

using cairn_bench::CheckOk;
using cairn_bench::DurabilityArg;
using cairn_bench::Finish;
using cairn_bench::KeyBuffer;

// Idempotency keys are (kNamespace, kVersion, "t<thread>:%08d").
constexpr std::string_view kNamespace = "bench";
constexpr std::string_view kVersion = "v1";
// The request every claim carries; its fingerprint is computed once per benchmark run.
constexpr std::string_view kRequest =
    R"({"op":"charge","order":"ord-1234","amount":"19.99","currency":"EUR"})";
constexpr std::int64_t kLockTtlMs = 30'000;
constexpr std::int64_t kResultTtlMs = 24LL * 60 * 60 * 1000;
// Bytes of each value a raw or records transaction writes: about a Cairn record's size.
constexpr std::size_t kRawRecordBytes = 150;
// Completed keys (and raw keys) that duplicate lookups visit, in a scattered order.
constexpr std::int64_t kDuplicateKeys = 10'000;
// Raw keys per WriteBatch while preloading.
constexpr std::int64_t kPreloadBatch = 1'000;

// -------------------------------------------------------------------------------------------
// Helpers.

cairn::Fingerprint RequestFingerprint() { return cairn::Fingerprint::OfBytes(kRequest); }

// What Complete stores: an HTTP-like answer with a kValueBytes (100-byte) body.
cairn::Outcome CompletedOutcome() {
  cairn::Outcome outcome;
  outcome.status_code = 200;
  outcome.body = cairn_bench::ValueA();
  return outcome;
}

// Two distinct kRawRecordBytes values: the first and second write of a pair.
const std::string& FirstValue() {
  static const std::string value(kRawRecordBytes, 'p');
  return value;
}
const std::string& SecondValue() {
  static const std::string value(kRawRecordBytes, 'q');
  return value;
}

// Keys of one benchmark thread: "t<thread>:%08d".
KeyBuffer ThreadKeys(const benchmark::State& state) {
  return KeyBuffer("t" + std::to_string(state.thread_index()) + ":");
}

// Keys of the duplicate-lookup benchmarks: "dup:%08d".
KeyBuffer DuplicateKeys() { return KeyBuffer("dup:"); }

cairn::IdempotencyKey MakeKey(std::string_view key) {
  cairn::Result<cairn::IdempotencyKey> made =
      cairn::IdempotencyKey::Make(kNamespace, kVersion, key);
  CheckOk(made.status(), "make idempotency key");
  return std::move(made).value();
}

// Claims key (which must be fresh) and completes it with outcome.
cairn::Status ClaimAndComplete(cairn::IdempotencyStore& idempotency,
                               const cairn::IdempotencyKey& key,
                               const cairn::Fingerprint& fingerprint,
                               const cairn::Outcome& outcome) {
  cairn::Result<cairn::ClaimResult> claim = idempotency.Claim(key, fingerprint, kLockTtlMs);
  if (!claim.ok()) return claim.status();
  const auto* claimed = std::get_if<cairn::Claimed>(&*claim);
  if (claimed == nullptr) return cairn::Status::Internal("claim of a fresh key was not Claimed");
  cairn::Result<cairn::OwnerResult> done =
      idempotency.Complete(key, claimed->claim_id, outcome, kResultTtlMs);
  if (!done.ok()) return done.status();
  if (*done != cairn::OwnerResult::kDone) return cairn::Status::Internal("complete: not owner");
  return cairn::Status::Ok();
}

// One raw transaction: GetForUpdate(key), which must find nothing (expected == nullptr) or
// *expected, then Put(value) and Commit.
rocksdb::Status RawTransaction(cairn_bench::RawTransactionDb& raw, std::string_view key,
                               const std::string* expected, const std::string& value) {
  std::unique_ptr<rocksdb::Transaction> txn = raw.Begin();
  std::string current;
  rocksdb::Status s = txn->GetForUpdate(raw.read_options(), raw.cf(), key, &current);
  if (expected == nullptr ? s.IsNotFound() : s.ok() && current == *expected) {
    s = txn->Put(raw.cf(), key, value);
    if (s.ok()) s = txn->Commit();
  } else if (s.ok() || s.IsNotFound()) {
    s = rocksdb::Status::Aborted(expected == nullptr ? "key was not fresh" : "value mismatch");
  }
  return s;
}

// Records p50_us and p99_us (nearest rank) of latencies (nanoseconds) as counters.
void ReportLatencies(benchmark::State& state, std::vector<std::int64_t>& latencies) {
  if (latencies.empty()) return;
  const auto percentile_us = [&](double p) {
    const std::size_t rank =
        static_cast<std::size_t>(std::ceil(p * static_cast<double>(latencies.size())));
    const auto nth =
        latencies.begin() + static_cast<std::ptrdiff_t>(std::max<std::size_t>(rank, 1) - 1);
    std::nth_element(latencies.begin(), nth, latencies.end());
    return static_cast<double>(*nth) / 1000.0;
  };
  state.counters["p50_us"] = percentile_us(0.50);
  state.counters["p99_us"] = percentile_us(0.99);
}

// -------------------------------------------------------------------------------------------
// Fixtures. Each is made by the benchmark's Setup hook (once, before its threads start) and
// found by every thread through cairn_bench::CurrentFixture().

// The next key index of each benchmark thread, each on its own cache line.
class ThreadedFixture : public cairn_bench::Fixture {
 public:
  explicit ThreadedFixture(int threads) : next_(static_cast<std::size_t>(threads)) {}

  std::int64_t Next(const benchmark::State& state) {
    return next_[static_cast<std::size_t>(state.thread_index())].value++;
  }

 private:
  struct alignas(64) Counter {
    std::int64_t value = 0;
  };
  std::vector<Counter> next_;
};

// A Cairn store with an IdempotencyStore over it.
class IdempotencyFixture : public ThreadedFixture {
 public:
  IdempotencyFixture(cairn::Durability durability, int threads)
      : ThreadedFixture(threads), store_(durability), idempotency_(store_.store()) {}

  cairn::Store& store() { return store_.store(); }
  cairn::IdempotencyStore& idempotency() { return idempotency_; }

 private:
  cairn_bench::TempStore store_;
  cairn::IdempotencyStore idempotency_;  // After the store it works on.
};

// An IdempotencyFixture with kDuplicateKeys completed keys.
class CompletedKeysFixture final : public IdempotencyFixture {
 public:
  CompletedKeysFixture(cairn::Durability durability, int threads)
      : IdempotencyFixture(durability, threads) {
    const cairn::Fingerprint fingerprint = RequestFingerprint();
    const cairn::Outcome outcome = CompletedOutcome();
    KeyBuffer names = DuplicateKeys();
    keys_.reserve(kDuplicateKeys);
    for (std::int64_t i = 0; i < kDuplicateKeys; ++i) {
      keys_.push_back(MakeKey(names.Key(i)));
      CheckOk(ClaimAndComplete(idempotency(), keys_.back(), fingerprint, outcome),
              "preload: claim and complete");
    }
  }

  const cairn::IdempotencyKey& key(std::int64_t i) const {
    return keys_[static_cast<std::size_t>(i)];
  }

 private:
  std::vector<cairn::IdempotencyKey> keys_;
};

// A raw TransactionDB.
class RawFixture : public ThreadedFixture {
 public:
  RawFixture(cairn::Durability durability, int threads)
      : ThreadedFixture(threads), raw_(durability) {}

  cairn_bench::RawTransactionDb& raw() { return raw_; }

 private:
  cairn_bench::RawTransactionDb raw_;
};

// A RawFixture with FirstValue() under kDuplicateKeys keys.
class RawKeysFixture final : public RawFixture {
 public:
  RawKeysFixture(cairn::Durability durability, int threads) : RawFixture(durability, threads) {
    KeyBuffer names = DuplicateKeys();
    keys_.reserve(kDuplicateKeys);
    for (std::int64_t first = 0; first < kDuplicateKeys; first += kPreloadBatch) {
      rocksdb::WriteBatch batch;
      for (std::int64_t i = first; i < first + kPreloadBatch && i < kDuplicateKeys; ++i) {
        keys_.emplace_back(names.Key(i));
        CheckOk(batch.Put(raw().cf(), keys_.back(), FirstValue()), "preload: batch");
      }
      CheckOk(raw().db().Write(raw().write_options(), &batch), "preload: write");
    }
  }

  const std::string& key(std::int64_t i) const { return keys_[static_cast<std::size_t>(i)]; }

 private:
  std::vector<std::string> keys_;
};

// A Cairn store alone, for the records API.
class StoreFixture final : public ThreadedFixture {
 public:
  StoreFixture(cairn::Durability durability, int threads)
      : ThreadedFixture(threads), store_(durability) {}

  cairn::Store& store() { return store_.store(); }

 private:
  cairn_bench::TempStore store_;
};

// Makes the fixture of benchmark `name` (one per durability and thread count) unless its
// previous run made it. For Setup hooks: runs on the main thread before the benchmark's threads.
template <typename F>
void Prepare(const benchmark::State& state, std::string_view name) {
  std::string id = std::string(name) + "/" + std::to_string(state.range(0)) +
                   "/threads:" + std::to_string(state.threads());
  cairn_bench::SharedFixture<F>(
      std::move(id), [&] { return std::make_unique<F>(DurabilityArg(state), state.threads()); });
}

template <typename F>
F& Current() {
  return static_cast<F&>(cairn_bench::CurrentFixture());
}

// Ends the benchmark loop with an error; returns true if status is not OK.
template <typename S>
bool Failed(benchmark::State& state, const S& status) {
  if (status.ok()) return false;
  state.SkipWithError(status.ToString().c_str());
  return true;
}

// -------------------------------------------------------------------------------------------
// Claim + Complete of a fresh key vs a pair of raw transactions vs Set-if-absent + CAS.

void BM_ClaimComplete_Cairn(benchmark::State& state) {
  auto& fx = Current<IdempotencyFixture>();
  KeyBuffer names = ThreadKeys(state);
  const cairn::Fingerprint fingerprint = RequestFingerprint();
  const cairn::Outcome outcome = CompletedOutcome();
  for ([[maybe_unused]] auto _ : state) {
    cairn::Result<cairn::IdempotencyKey> key =
        cairn::IdempotencyKey::Make(kNamespace, kVersion, names.Key(fx.Next(state)));
    if (Failed(state, key.status())) break;
    if (Failed(state, ClaimAndComplete(fx.idempotency(), *key, fingerprint, outcome))) break;
  }
  Finish(state);
}

void BM_TxnPair_Raw(benchmark::State& state) {
  auto& fx = Current<RawFixture>();
  KeyBuffer names = ThreadKeys(state);
  for ([[maybe_unused]] auto _ : state) {
    const std::string_view key = names.Key(fx.Next(state));
    rocksdb::Status s = RawTransaction(fx.raw(), key, nullptr, FirstValue());
    if (s.ok()) s = RawTransaction(fx.raw(), key, &FirstValue(), SecondValue());
    if (Failed(state, s)) break;
  }
  Finish(state);
}

void BM_TxnPair_Records(benchmark::State& state) {
  auto& fx = Current<StoreFixture>();
  KeyBuffer names = ThreadKeys(state);
  cairn::SetOptions if_absent;
  if_absent.condition = cairn::SetCondition::kIfAbsent;
  for ([[maybe_unused]] auto _ : state) {
    const std::string_view key = names.Key(fx.Next(state));
    cairn::Result<cairn::SetResult> set = fx.store().Set(key, FirstValue(), if_absent);
    if (Failed(state, set.status())) break;
    if (!set->applied) {
      state.SkipWithError("key was not fresh");
      break;
    }
    cairn::Result<cairn::CasResult> cas =
        fx.store().CompareAndSwap(key, FirstValue(), SecondValue());
    if (Failed(state, cas.status())) break;
    if (!cas->swapped) {
      state.SkipWithError("value mismatch");
      break;
    }
  }
  Finish(state);
}

// -------------------------------------------------------------------------------------------
// Claim of a completed key (the duplicate answer) vs TransactionDB::Get, with latencies.

void BM_DuplicateLookup_Cairn(benchmark::State& state) {
  auto& fx = Current<CompletedKeysFixture>();
  const cairn::Fingerprint fingerprint = RequestFingerprint();
  std::vector<std::int64_t> latencies;
  latencies.reserve(static_cast<std::size_t>(state.max_iterations));
  for ([[maybe_unused]] auto _ : state) {
    const cairn::IdempotencyKey& key =
        fx.key(cairn_bench::Scattered(fx.Next(state), kDuplicateKeys));
    const auto start = std::chrono::steady_clock::now();
    cairn::Result<cairn::ClaimResult> claim = fx.idempotency().Claim(key, fingerprint, kLockTtlMs);
    const auto end = std::chrono::steady_clock::now();
    latencies.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
    if (Failed(state, claim.status())) break;
    if (!std::holds_alternative<cairn::Completed>(*claim)) {
      state.SkipWithError("claim of a completed key was not Completed");
      break;
    }
  }
  ReportLatencies(state, latencies);
  Finish(state);
}

void BM_DuplicateLookup_RawGet(benchmark::State& state) {
  auto& fx = Current<RawKeysFixture>();
  std::vector<std::int64_t> latencies;
  latencies.reserve(static_cast<std::size_t>(state.max_iterations));
  for ([[maybe_unused]] auto _ : state) {
    const std::string& key = fx.key(cairn_bench::Scattered(fx.Next(state), kDuplicateKeys));
    std::string value;
    const auto start = std::chrono::steady_clock::now();
    rocksdb::Status s = fx.raw().db().Get(fx.raw().read_options(), fx.raw().cf(), key, &value);
    const auto end = std::chrono::steady_clock::now();
    latencies.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
    if (Failed(state, s)) break;
    benchmark::DoNotOptimize(value.data());
  }
  ReportLatencies(state, latencies);
  Finish(state);
}

// -------------------------------------------------------------------------------------------
// Run of a fresh key: claim, a trivial fn, complete.

void BM_Run_Cairn(benchmark::State& state) {
  auto& fx = Current<IdempotencyFixture>();
  KeyBuffer names = ThreadKeys(state);
  const cairn::Fingerprint fingerprint = RequestFingerprint();
  cairn::Outcome small;
  small.status_code = 200;
  small.body = "ok";
  const cairn::IdempotencyStore::RunFn fn =
      [&small](const cairn::Claimed&) -> cairn::Result<cairn::Outcome> { return small; };
  for ([[maybe_unused]] auto _ : state) {
    cairn::Result<cairn::IdempotencyKey> key =
        cairn::IdempotencyKey::Make(kNamespace, kVersion, names.Key(fx.Next(state)));
    if (Failed(state, key.status())) break;
    cairn::Result<cairn::Outcome> outcome = fx.idempotency().Run(*key, fingerprint, fn);
    if (Failed(state, outcome.status())) break;
    benchmark::DoNotOptimize(outcome->body.data());
  }
  Finish(state);
}

// -------------------------------------------------------------------------------------------
// Registration: durability everysec, wall-clock time; --benchmark_min_time applies (default
// 0.5 s). The Setup hooks make each instance's fixture before its threads start.

void EverySec(benchmark::internal::Benchmark* b) {
  b->ArgName("durability")->Arg(1)->UseRealTime();
}
void OneAndTwoThreads(benchmark::internal::Benchmark* b) { b->Threads(1)->Threads(2); }

BENCHMARK(BM_ClaimComplete_Cairn)
    ->Apply(EverySec)
    ->Apply(OneAndTwoThreads)
    ->Setup([](const benchmark::State& state) {
      Prepare<IdempotencyFixture>(state, "ClaimComplete_Cairn");
    });
BENCHMARK(BM_TxnPair_Raw)
    ->Apply(EverySec)
    ->Apply(OneAndTwoThreads)
    ->Setup([](const benchmark::State& state) { Prepare<RawFixture>(state, "TxnPair_Raw"); });
BENCHMARK(BM_TxnPair_Records)
    ->Apply(EverySec)
    ->Apply(OneAndTwoThreads)
    ->Setup([](const benchmark::State& state) { Prepare<StoreFixture>(state, "TxnPair_Records"); });
BENCHMARK(BM_DuplicateLookup_Cairn)->Apply(EverySec)->Setup([](const benchmark::State& state) {
  Prepare<CompletedKeysFixture>(state, "DuplicateLookup_Cairn");
});
BENCHMARK(BM_DuplicateLookup_RawGet)->Apply(EverySec)->Setup([](const benchmark::State& state) {
  Prepare<RawKeysFixture>(state, "DuplicateLookup_RawGet");
});
BENCHMARK(BM_Run_Cairn)->Apply(EverySec)->Setup([](const benchmark::State& state) {
  Prepare<IdempotencyFixture>(state, "Run_Cairn");
});

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("durability_arg", cairn_bench::kDurabilityArgMeaning);
  benchmark::AddCustomContext("outcome_body_bytes", std::to_string(cairn_bench::kValueBytes));
  benchmark::AddCustomContext("raw_value_bytes", std::to_string(kRawRecordBytes));
  benchmark::AddCustomContext("duplicate_keys", std::to_string(kDuplicateKeys));
  benchmark::RunSpecifiedBenchmarks();
  cairn_bench::ReleaseFixture();  // Closes and removes the last benchmark's directory.
  benchmark::Shutdown();
  return 0;
}
