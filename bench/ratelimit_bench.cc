// ratelimit_bench: takes per second for each algorithm, on one hot key and on 100,000 distinct
// keys, single-threaded, durability everysec (the default). Limits are set high enough that
// takes are admitted (a refused take writes nothing and would flatter the figure).
//
// Run:  ratelimit_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "cairn/ratelimit.h"
#include "cairn/store.h"
#include "support/bench_support.h"

namespace {

using cairn_bench::Die;

constexpr std::int64_t kDistinctKeys = 100'000;

cairn::Limit LimitFor(std::int64_t algorithm) {
  switch (algorithm) {
    case 0:
      return cairn::Limit::FixedWindow(1'000'000'000, 60'000);
    case 1:
      return cairn::Limit::SlidingWindow(1'000'000'000, 60'000);
    case 2:
      return cairn::Limit::TokenBucket(1'000'000'000, 1'000'000, 1'000);
    default:
      return cairn::Limit::Gcra(1'000'000, 1'000, 1'000'000'000);
  }
}

const char* NameOf(std::int64_t algorithm) {
  static const char* const kNames[] = {"fixed-window", "sliding-window", "token-bucket", "gcra"};
  return kNames[algorithm];
}

void Run(benchmark::State& state, std::int64_t key_space) {
  cairn_bench::TempStore temp(cairn::Durability::kEverySec);
  cairn::RateLimiter limiter(temp.store());
  const cairn::Limit limit = LimitFor(state.range(0));
  cairn_bench::KeyBuffer keys("rl:");
  std::int64_t i = 0;
  for (auto _ : state) {
    auto d = limiter.Take(keys.Key(cairn_bench::Scattered(i++, key_space)), limit);
    if (!d.ok() || !d->allowed) Die("take failed or was refused");
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(NameOf(state.range(0)));
}

void BM_Take_HotKey(benchmark::State& state) { Run(state, 1); }
void BM_Take_DistinctKeys(benchmark::State& state) { Run(state, kDistinctKeys); }

BENCHMARK(BM_Take_HotKey)->ArgName("algorithm")->DenseRange(0, 3)->UseRealTime();
BENCHMARK(BM_Take_DistinctKeys)->ArgName("algorithm")->DenseRange(0, 3)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
