// lease_bench: leases under load — uncontended acquire+release, contended throughput of 2 and 4
// threads on one resource, and how long a parked waiter takes to wake after a release.
//
// Durability everysec (the default). Contended threads use Acquire with a wait, so they queue
// and are woken by releases (no polling). The wake-up latency is measured on a ManualClock
// store: time never moves there, so the waiter can only be woken by the release itself; the
// figure is from just before Release to the moment the waiter's Acquire returns the lease.
//
// Run:  lease_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cairn/lease.h"
#include "cairn/store.h"
#include "support/bench_support.h"

namespace {

using cairn_bench::CheckOk;
using cairn_bench::Die;

constexpr std::int64_t kTtlMs = 30'000;
constexpr std::int64_t kWaitMs = 60'000;

// One store and manager shared by every thread and run of a benchmark.
struct Shared {
  cairn_bench::TempStore store{cairn::Durability::kEverySec};
  cairn::LeaseManager leases{store.store()};
};

// Created on first use, destroyed by main after the runs (not at static destruction, where
// RocksDB's own statics may already be gone).
std::unique_ptr<Shared>& SharedSlot() {
  static std::unique_ptr<Shared> shared;
  return shared;
}

Shared& SharedFixture() {
  static std::once_flag once;
  std::call_once(once, [] { SharedSlot() = std::make_unique<Shared>(); });
  return *SharedSlot();
}

void AcquireRelease(cairn::LeaseManager& leases, const std::string& resource,
                    const std::string& owner, bool wait) {
  auto acquired = wait ? leases.Acquire(resource, owner, kTtlMs, kWaitMs)
                       : leases.TryAcquire(resource, owner, kTtlMs);
  if (!acquired.ok()) Die(acquired.status().ToString());
  const auto* lease = std::get_if<cairn::Lease>(&*acquired);
  if (lease == nullptr) Die("lease unexpectedly busy");
  auto released = leases.Release(resource, lease->token);
  if (!released.ok() || *released != cairn::OwnerResult::kDone) Die("release failed");
}

void BM_AcquireRelease_Uncontended(benchmark::State& state) {
  Shared& shared = SharedFixture();
  const std::string resource = "uncontended";
  for (auto _ : state) AcquireRelease(shared.leases, resource, "owner", /*wait=*/false);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AcquireRelease_Uncontended)->UseRealTime();

void BM_AcquireRelease_Contended(benchmark::State& state) {
  Shared& shared = SharedFixture();
  const std::string owner = "t" + std::to_string(state.thread_index());
  for (auto _ : state) AcquireRelease(shared.leases, "hot", owner, /*wait=*/true);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AcquireRelease_Contended)->Threads(2)->Threads(4)->UseRealTime();

void BM_WaiterWakeLatency(benchmark::State& state) {
  cairn_bench::TempDir dir;
  auto clock = std::make_shared<cairn::ManualClock>();
  cairn::Options options;
  options.data_dir = dir.path();
  options.clock = clock;
  auto opened = cairn::Store::Open(options);
  if (!opened.ok()) Die(opened.status().ToString());
  cairn::LeaseManager leases(**opened);

  std::atomic<bool> go{false}, done{false}, stop{false};
  std::atomic<std::int64_t> woke_ns{0};
  std::thread waiter([&] {
    while (true) {
      while (!go.load() && !stop.load()) std::this_thread::yield();
      if (stop.load()) return;
      go = false;
      auto got = leases.Acquire("r", "waiter", kTtlMs, kWaitMs);
      woke_ns = std::chrono::steady_clock::now().time_since_epoch().count();
      if (!got.ok() || !std::holds_alternative<cairn::Lease>(*got)) Die("waiter did not get it");
      CheckOk(leases.Release("r", std::get<cairn::Lease>(*got).token).status(), "release");
      done = true;
    }
  });
  std::vector<double> latencies_us;
  for (auto _ : state) {
    auto held = leases.TryAcquire("r", "holder", kTtlMs);
    if (!held.ok() || !std::holds_alternative<cairn::Lease>(*held)) Die("holder did not get it");
    done = false;
    go = true;
    while (clock->waiters() == 0) std::this_thread::yield();  // The waiter is parked.
    const std::int64_t released_ns = std::chrono::steady_clock::now().time_since_epoch().count();
    CheckOk(leases.Release("r", std::get<cairn::Lease>(*held).token).status(), "release");
    while (!done.load()) std::this_thread::yield();
    const double seconds = static_cast<double>(woke_ns.load() - released_ns) / 1e9;
    state.SetIterationTime(seconds);
    latencies_us.push_back(seconds * 1e6);
  }
  stop = true;
  waiter.join();
  std::sort(latencies_us.begin(), latencies_us.end());
  if (!latencies_us.empty()) {
    state.counters["p50_us"] = latencies_us[latencies_us.size() / 2];
    state.counters["p99_us"] = latencies_us[latencies_us.size() * 99 / 100];
  }
}
BENCHMARK(BM_WaiterWakeLatency)->UseManualTime()->Iterations(2000);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  SharedSlot().reset();
  benchmark::Shutdown();
  return 0;
}
