// records_bench: Cairn's record operations beside the raw RocksDB operation each one wraps, in
// one binary, so that the cost Cairn adds (validation, row keys, value headers, status
// translation, one transaction per read-modify-write) can be read off as a ratio.
//
// Every benchmark takes the durability as its first argument: 0 = always, 1 = everysec,
// 2 = none (the run's label names it too). The raw baseline opens its TransactionDB the way
// lib/src/store_core.cc does (cairn_bench::RawTransactionDb in support/bench_support.h, shared
// with idempotency_bench): the same DB options, block cache, bloom filter, six column families
// plus default, lock timeouts, WriteOptions.sync only for always, and for everysec a thread that
// calls SyncWAL once a second. Two differences remain and are deliberate:
//   - Cairn's TTL compaction filter is private to the library, so the raw column families have
//     none (it runs only during compactions, which these short runs barely reach);
//   - the raw side stores the caller's 12-byte key and 100-byte value as they are; Cairn stores
//     a 13-byte row key and a 110-byte value (its expiry header). That is part of Cairn's cost.
//
// Each benchmark gets its own fresh directory (mkdtemp under $TMPDIR, default /tmp), preloaded
// once where the operation needs existing keys. Google Benchmark runs a benchmark several
// times while it settles on an iteration count; those runs share the directory, which is
// removed when the next benchmark starts. Times are wall-clock (UseRealTime): under always the
// cost is an fsync the benchmark thread waits for, not CPU time.
//
// Run:  records_bench [--benchmark_filter=...] [--benchmark_min_time=...]
// Durability always is bounded by kAlwaysMinTimeSeconds whatever --benchmark_min_time says.

#include <benchmark/benchmark.h>
#include <rocksdb/db.h>
#include <rocksdb/utilities/transaction.h>
#include <rocksdb/utilities/transaction_db.h>
#include <rocksdb/write_batch.h>

#include <charconv>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "cairn/options.h"
#include "cairn/records.h"
#include "cairn/status.h"
#include "cairn/store.h"
#include "cairn/transaction.h"
#include "support/bench_support.h"

namespace {

using cairn_bench::CheckOk;
using cairn_bench::DurabilityArg;
using cairn_bench::Finish;
using cairn_bench::KeyBuffer;
using cairn_bench::kValueBytes;
using cairn_bench::ValueA;
using cairn_bench::ValueB;

// Keys that Get, CompareAndSwap and IncrBy work on (preloaded) and that Set overwrites.
constexpr std::int64_t kKeySpace = 100'000;
// Keys per commit while preloading.
constexpr std::int64_t kPreloadBatch = 1'000;
// Minimum run time of each durability-always benchmark: every commit waits for an fsync.
constexpr double kAlwaysMinTimeSeconds = 0.3;

// -------------------------------------------------------------------------------------------
// Helpers.

// Position in the scattered visit order of the key space: each pass of kKeySpace iterations
// touches every key once.
std::int64_t Scattered(std::int64_t i) { return cairn_bench::Scattered(i, kKeySpace); }

// What a fixture writes before the first run.
enum class Preload {
  kNothing,
  kValues,    // ValueA() under every key of the key space.
  kCounters,  // "0" under every key of the key space.
};

const std::string& PreloadValue(Preload preload) {
  static const std::string zero = "0";
  return preload == Preload::kCounters ? zero : ValueA();
}

// -------------------------------------------------------------------------------------------
// Fixtures. One is alive at a time: the one of the benchmark that is running.

class Fixture : public cairn_bench::Fixture {
 public:
  // Where the benchmark continues its key sequence: runs of one benchmark share the fixture,
  // so fresh keys stay fresh and CompareAndSwap knows which value each key holds.
  std::int64_t next = 0;
};

// The fixture named id, made by F(durability, preload) unless the previous run made it.
template <typename F>
F& FixtureFor(const benchmark::State& state, std::string_view name, Preload preload,
              std::int64_t extra_arg = -1) {
  std::string id =
      std::string(name) + "/" + std::to_string(state.range(0)) + "/" + std::to_string(extra_arg);
  return cairn_bench::SharedFixture<F>(
      std::move(id), [&] { return std::make_unique<F>(DurabilityArg(state), preload); });
}

class CairnFixture final : public Fixture {
 public:
  CairnFixture(cairn::Durability durability, Preload preload) : store_(durability) {
    if (preload != Preload::kNothing) Load(PreloadValue(preload));
  }

  cairn::Store& store() { return store_.store(); }

 private:
  void Load(const std::string& value) {
    KeyBuffer keys;
    for (std::int64_t first = 0; first < kKeySpace; first += kPreloadBatch) {
      cairn::Result<std::unique_ptr<cairn::Transaction>> txn = store().BeginTransaction();
      CheckOk(txn.status(), "preload: begin");
      for (std::int64_t i = first; i < first + kPreloadBatch && i < kKeySpace; ++i) {
        CheckOk((*txn)->Set(keys.Key(i), value).status(), "preload: set");
      }
      CheckOk((*txn)->Commit(), "preload: commit");
    }
  }

  cairn_bench::TempStore store_;
};

// A TransactionDB opened like lib/src/store_core.cc opens Cairn's.
class RawFixture final : public Fixture {
 public:
  RawFixture(cairn::Durability durability, Preload preload) : raw_(durability) {
    if (preload != Preload::kNothing) Load(PreloadValue(preload));
  }

  rocksdb::TransactionDB& db() { return raw_.db(); }
  rocksdb::ColumnFamilyHandle* cf() { return raw_.cf(); }
  const rocksdb::ReadOptions& read_options() const { return raw_.read_options(); }
  const rocksdb::WriteOptions& write_options() const { return raw_.write_options(); }
  std::unique_ptr<rocksdb::Transaction> Begin() { return raw_.Begin(); }

 private:
  void Load(const std::string& value) {
    KeyBuffer keys;
    for (std::int64_t first = 0; first < kKeySpace; first += kPreloadBatch) {
      rocksdb::WriteBatch batch;
      for (std::int64_t i = first; i < first + kPreloadBatch && i < kKeySpace; ++i) {
        CheckOk(batch.Put(cf(), keys.Key(i), value), "preload: batch");
      }
      CheckOk(db().Write(write_options(), &batch), "preload: write");
    }
  }

  cairn_bench::RawTransactionDb raw_;
};

// -------------------------------------------------------------------------------------------
// Set (unconditional) vs TransactionDB::Put.

void BM_Set_Cairn(benchmark::State& state) {
  auto& fx = FixtureFor<CairnFixture>(state, "Set_Cairn", Preload::kNothing);
  KeyBuffer keys;
  for ([[maybe_unused]] auto _ : state) {
    cairn::Result<cairn::SetResult> r = fx.store().Set(keys.Key(Scattered(fx.next++)), ValueA());
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
  }
  Finish(state);
}

void BM_Set_Raw(benchmark::State& state) {
  auto& fx = FixtureFor<RawFixture>(state, "Set_Raw", Preload::kNothing);
  KeyBuffer keys;
  for ([[maybe_unused]] auto _ : state) {
    rocksdb::Status s =
        fx.db().Put(fx.write_options(), fx.cf(), keys.Key(Scattered(fx.next++)), ValueA());
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
  }
  Finish(state);
}

// -------------------------------------------------------------------------------------------
// Get of existing keys vs TransactionDB::Get.

void BM_Get_Cairn(benchmark::State& state) {
  auto& fx = FixtureFor<CairnFixture>(state, "Get_Cairn", Preload::kValues);
  KeyBuffer keys;
  for ([[maybe_unused]] auto _ : state) {
    cairn::Result<std::optional<std::string>> r = fx.store().Get(keys.Key(Scattered(fx.next++)));
    if (!r.ok() || !r->has_value()) {
      state.SkipWithError(r.ok() ? "key missing" : r.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(r->value().data());
  }
  Finish(state);
}

void BM_Get_Raw(benchmark::State& state) {
  auto& fx = FixtureFor<RawFixture>(state, "Get_Raw", Preload::kValues);
  KeyBuffer keys;
  for ([[maybe_unused]] auto _ : state) {
    std::string value;
    rocksdb::Status s =
        fx.db().Get(fx.read_options(), fx.cf(), keys.Key(Scattered(fx.next++)), &value);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(value.data());
  }
  Finish(state);
}

// -------------------------------------------------------------------------------------------
// Set with SetCondition::kIfAbsent on fresh keys vs GetForUpdate + Put + Commit.

void BM_SetIfAbsent_Cairn(benchmark::State& state) {
  auto& fx = FixtureFor<CairnFixture>(state, "SetIfAbsent_Cairn", Preload::kNothing);
  KeyBuffer keys;
  cairn::SetOptions options;
  options.condition = cairn::SetCondition::kIfAbsent;
  for ([[maybe_unused]] auto _ : state) {
    cairn::Result<cairn::SetResult> r = fx.store().Set(keys.Key(fx.next++), ValueA(), options);
    if (!r.ok() || !r->applied) {
      state.SkipWithError(r.ok() ? "key was not fresh" : r.status().ToString().c_str());
      break;
    }
  }
  Finish(state);
}

void BM_SetIfAbsent_Raw(benchmark::State& state) {
  auto& fx = FixtureFor<RawFixture>(state, "SetIfAbsent_Raw", Preload::kNothing);
  KeyBuffer keys;
  for ([[maybe_unused]] auto _ : state) {
    const std::string_view key = keys.Key(fx.next++);
    std::unique_ptr<rocksdb::Transaction> txn = fx.Begin();
    std::string current;
    rocksdb::Status s = txn->GetForUpdate(fx.read_options(), fx.cf(), key, &current);
    if (s.IsNotFound()) {
      s = txn->Put(fx.cf(), key, ValueA());
      if (s.ok()) s = txn->Commit();
    } else if (s.ok()) {
      s = rocksdb::Status::Aborted("key was not fresh");
    }
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
  }
  Finish(state);
}

// -------------------------------------------------------------------------------------------
// CompareAndSwap (always succeeding) vs GetForUpdate + compare + Put + Commit. Every key holds
// ValueA() on even passes over the key space and ValueB() on odd ones.

void BM_CompareAndSwap_Cairn(benchmark::State& state) {
  auto& fx = FixtureFor<CairnFixture>(state, "CompareAndSwap_Cairn", Preload::kValues);
  KeyBuffer keys;
  for ([[maybe_unused]] auto _ : state) {
    const std::int64_t i = fx.next++;
    const bool even = (i / kKeySpace) % 2 == 0;
    cairn::Result<cairn::CasResult> r = fx.store().CompareAndSwap(
        keys.Key(Scattered(i)), even ? ValueA() : ValueB(), even ? ValueB() : ValueA());
    if (!r.ok() || !r->swapped) {
      state.SkipWithError(r.ok() ? "value did not match" : r.status().ToString().c_str());
      break;
    }
  }
  Finish(state);
}

void BM_CompareAndSwap_Raw(benchmark::State& state) {
  auto& fx = FixtureFor<RawFixture>(state, "CompareAndSwap_Raw", Preload::kValues);
  KeyBuffer keys;
  for ([[maybe_unused]] auto _ : state) {
    const std::int64_t i = fx.next++;
    const bool even = (i / kKeySpace) % 2 == 0;
    const std::string& expected = even ? ValueA() : ValueB();
    const std::string& desired = even ? ValueB() : ValueA();
    const std::string_view key = keys.Key(Scattered(i));
    std::unique_ptr<rocksdb::Transaction> txn = fx.Begin();
    std::string current;
    rocksdb::Status s = txn->GetForUpdate(fx.read_options(), fx.cf(), key, &current);
    if (s.ok() && current == expected) {
      s = txn->Put(fx.cf(), key, desired);
      if (s.ok()) s = txn->Commit();
    } else if (s.ok() || s.IsNotFound()) {
      s = rocksdb::Status::Aborted("value did not match");
    }
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
  }
  Finish(state);
}

// -------------------------------------------------------------------------------------------
// IncrBy of existing counters vs GetForUpdate + parse + Put + Commit.

void BM_IncrBy_Cairn(benchmark::State& state) {
  auto& fx = FixtureFor<CairnFixture>(state, "IncrBy_Cairn", Preload::kCounters);
  KeyBuffer keys;
  for ([[maybe_unused]] auto _ : state) {
    cairn::Result<std::int64_t> r = fx.store().IncrBy(keys.Key(Scattered(fx.next++)), 1);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(*r);
  }
  Finish(state);
}

void BM_IncrBy_Raw(benchmark::State& state) {
  auto& fx = FixtureFor<RawFixture>(state, "IncrBy_Raw", Preload::kCounters);
  KeyBuffer keys;
  for ([[maybe_unused]] auto _ : state) {
    const std::string_view key = keys.Key(Scattered(fx.next++));
    std::unique_ptr<rocksdb::Transaction> txn = fx.Begin();
    std::string current;
    rocksdb::Status s = txn->GetForUpdate(fx.read_options(), fx.cf(), key, &current);
    std::int64_t value = 0;
    if (s.ok()) {
      const char* end = current.data() + current.size();
      auto [ptr, ec] = std::from_chars(current.data(), end, value);
      if (ec != std::errc() || ptr != end) s = rocksdb::Status::Corruption("not an integer");
    } else if (s.IsNotFound()) {
      s = rocksdb::Status::OK();
    }
    if (s.ok() && __builtin_add_overflow(value, 1, &value)) {
      s = rocksdb::Status::InvalidArgument("overflow");
    }
    if (s.ok()) {
      char buf[24];
      auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), value);
      s = txn->Put(fx.cf(), key, rocksdb::Slice(buf, static_cast<std::size_t>(ptr - buf)));
    }
    if (s.ok()) s = txn->Commit();
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(value);
  }
  Finish(state);
}

// -------------------------------------------------------------------------------------------
// A transaction of N unconditional Sets vs a rocksdb::Transaction of N Puts. items/s counts
// Sets (Puts), not commits. Second argument: N.

void BM_Transaction_Cairn(benchmark::State& state) {
  const std::int64_t sets = state.range(1);
  auto& fx = FixtureFor<CairnFixture>(state, "Transaction_Cairn", Preload::kNothing, sets);
  KeyBuffer keys;
  for ([[maybe_unused]] auto _ : state) {
    cairn::Result<std::unique_ptr<cairn::Transaction>> txn = fx.store().BeginTransaction();
    cairn::Status s = txn.status();
    for (std::int64_t j = 0; s.ok() && j < sets; ++j) {
      s = (*txn)->Set(keys.Key(Scattered(fx.next++)), ValueA()).status();
    }
    if (s.ok()) s = (*txn)->Commit();
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
  }
  Finish(state, sets);
}

void BM_Transaction_Raw(benchmark::State& state) {
  const std::int64_t puts = state.range(1);
  auto& fx = FixtureFor<RawFixture>(state, "Transaction_Raw", Preload::kNothing, puts);
  KeyBuffer keys;
  for ([[maybe_unused]] auto _ : state) {
    std::unique_ptr<rocksdb::Transaction> txn = fx.Begin();
    rocksdb::Status s;
    for (std::int64_t j = 0; s.ok() && j < puts; ++j) {
      s = txn->Put(fx.cf(), keys.Key(Scattered(fx.next++)), ValueA());
    }
    if (s.ok()) s = txn->Commit();
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
  }
  Finish(state, puts);
}

// -------------------------------------------------------------------------------------------
// Registration. Durability always runs first and is bounded by kAlwaysMinTimeSeconds; everysec
// and none follow --benchmark_min_time (default 0.5 s).

void Always(benchmark::internal::Benchmark* b) {
  b->ArgName("durability")->Arg(0)->UseRealTime()->MinTime(kAlwaysMinTimeSeconds);
}
void EverySecAndNone(benchmark::internal::Benchmark* b) {
  b->ArgName("durability")->Arg(1)->Arg(2)->UseRealTime();
}

#define CAIRN_RECORDS_BENCHMARK(fn) \
  BENCHMARK(fn)->Apply(Always);     \
  BENCHMARK(fn)->Apply(EverySecAndNone)

CAIRN_RECORDS_BENCHMARK(BM_Set_Cairn);
CAIRN_RECORDS_BENCHMARK(BM_Set_Raw);
CAIRN_RECORDS_BENCHMARK(BM_Get_Cairn);
CAIRN_RECORDS_BENCHMARK(BM_Get_Raw);
CAIRN_RECORDS_BENCHMARK(BM_SetIfAbsent_Cairn);
CAIRN_RECORDS_BENCHMARK(BM_SetIfAbsent_Raw);
CAIRN_RECORDS_BENCHMARK(BM_CompareAndSwap_Cairn);
CAIRN_RECORDS_BENCHMARK(BM_CompareAndSwap_Raw);
CAIRN_RECORDS_BENCHMARK(BM_IncrBy_Cairn);
CAIRN_RECORDS_BENCHMARK(BM_IncrBy_Raw);

void TransactionsAlways(benchmark::internal::Benchmark* b) {
  b->ArgNames({"durability", "sets"})->UseRealTime()->MinTime(kAlwaysMinTimeSeconds);
  for (int sets : {1, 16, 64}) b->Args({0, sets});
}
void TransactionsEverySecAndNone(benchmark::internal::Benchmark* b) {
  b->ArgNames({"durability", "sets"})->UseRealTime();
  for (int durability : {1, 2}) {
    for (int sets : {1, 16, 64}) b->Args({durability, sets});
  }
}

BENCHMARK(BM_Transaction_Cairn)->Apply(TransactionsAlways);
BENCHMARK(BM_Transaction_Cairn)->Apply(TransactionsEverySecAndNone);
BENCHMARK(BM_Transaction_Raw)->Apply(TransactionsAlways);
BENCHMARK(BM_Transaction_Raw)->Apply(TransactionsEverySecAndNone);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("durability_arg", cairn_bench::kDurabilityArgMeaning);
  benchmark::AddCustomContext("key_space", std::to_string(kKeySpace));
  benchmark::AddCustomContext("value_bytes", std::to_string(kValueBytes));
  benchmark::RunSpecifiedBenchmarks();
  cairn_bench::ReleaseFixture();  // Closes and removes the last benchmark's directory.
  benchmark::Shutdown();
  return 0;
}
