// bench_support: what Cairn's benchmark programs share — fatal checks, the durability argument,
// key and value helpers, a fresh temporary directory, a Cairn store in one, a raw RocksDB
// TransactionDB configured the way lib/src/store_core.cc configures Cairn's (with the
// once-a-second WAL syncer of durability everysec), and fixtures kept alive across the runs of
// one benchmark.
//
// The raw side includes RocksDB headers directly, which only bench/ may do. The raw database
// matches Cairn's: the same DB options, block cache, bloom filter, six column families plus
// default, lock timeouts, WriteOptions.sync only for always, and for everysec a thread that calls
// SyncWAL once a second. Cairn's TTL compaction filter is private to the library, so the raw
// column families have none (it runs only during compactions, which short runs barely reach).
#pragma once

#include <benchmark/benchmark.h>
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/utilities/transaction.h>
#include <rocksdb/utilities/transaction_db.h>

#include <array>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "cairn/options.h"
#include "cairn/status.h"
#include "cairn/store.h"

namespace cairn_bench {

// -------------------------------------------------------------------------------------------
// Fatal checks: a benchmark whose setup fails has nothing to measure.

// Prints "<program>: <what>" to stderr and aborts.
[[noreturn]] void Die(const std::string& what);
void CheckOk(const rocksdb::Status& s, const char* what);
void CheckOk(const cairn::Status& s, const char* what);

// -------------------------------------------------------------------------------------------
// The durability argument: a benchmark's first argument, 0 = always, 1 = everysec, 2 = none.

inline constexpr std::array<cairn::Durability, 3> kDurabilities = {
    cairn::Durability::kAlways, cairn::Durability::kEverySec, cairn::Durability::kNone};
inline constexpr char kDurabilityArgMeaning[] = "0=always 1=everysec 2=none";

// The durability that state.range(0) names; dies on any other value.
cairn::Durability DurabilityArg(const benchmark::State& state);

// Reports iterations × items_per_iteration items and labels the run with its durability.
void Finish(benchmark::State& state, std::int64_t items_per_iteration = 1);

// -------------------------------------------------------------------------------------------
// Keys and values.

// Position i of a scattered visit order of [0, key_space): coprime with the stride, so each pass
// of key_space consecutive i touches every key once. Inline: it runs inside measured loops.
inline std::int64_t Scattered(std::int64_t i, std::int64_t key_space) {
  constexpr std::int64_t kStride = 7'919;  // Prime.
  return (i % key_space) * kStride % key_space;
}

// prefix followed by the index as 8 decimal digits ("key:00000042"), without snprintf, so that
// making keys costs every benchmark next to nothing. The view stays valid until the next Key.
class KeyBuffer {
 public:
  static constexpr std::size_t kMaxPrefixBytes = 24;

  explicit KeyBuffer(std::string_view prefix = "key:");

  std::string_view Key(std::int64_t index) {
    char* p = buf_.data() + size_;
    for (int digit = 0; digit < 8; ++digit) {
      *--p = static_cast<char>('0' + index % 10);
      index /= 10;
    }
    return {buf_.data(), size_};
  }

 private:
  std::array<char, kMaxPrefixBytes + 8> buf_ = {};
  std::size_t size_ = 0;
};

// Bytes of ValueA() and ValueB().
inline constexpr std::size_t kValueBytes = 100;
// Two distinct kValueBytes-byte values ('a'… and 'b'…). Inline: measured loops pass them.
inline const std::string& ValueA() {
  static const std::string value(kValueBytes, 'a');
  return value;
}
inline const std::string& ValueB() {
  static const std::string value(kValueBytes, 'b');
  return value;
}

// -------------------------------------------------------------------------------------------
// Directories, stores and databases.

// A fresh directory under $TMPDIR (default /tmp) named cairn_<program>_XXXXXX, removed with its
// contents on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A Cairn store in a TempDir of its own, opened with default options but for durability.
class TempStore {
 public:
  explicit TempStore(cairn::Durability durability);
  TempStore(const TempStore&) = delete;
  TempStore& operator=(const TempStore&) = delete;

  cairn::Store& store() { return *store_; }

 private:
  TempDir dir_;  // Outlives the store.
  std::unique_ptr<cairn::Store> store_;
};

// Durability everysec for a raw database, as Cairn's WalSyncer does it: SyncWAL once a second.
class RawWalSyncer {
 public:
  explicit RawWalSyncer(rocksdb::DB* db);
  ~RawWalSyncer();
  RawWalSyncer(const RawWalSyncer&) = delete;
  RawWalSyncer& operator=(const RawWalSyncer&) = delete;

 private:
  void Run();

  rocksdb::DB* db_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;  // Last: starts after the members it uses.
};

// A TransactionDB in a TempDir of its own, opened like lib/src/store_core.cc opens Cairn's (see
// the comment at the top of this file), with a RawWalSyncer running from the start under
// everysec. Thread-safe as TransactionDB is.
class RawTransactionDb {
 public:
  explicit RawTransactionDb(cairn::Durability durability);
  ~RawTransactionDb();
  RawTransactionDb(const RawTransactionDb&) = delete;
  RawTransactionDb& operator=(const RawTransactionDb&) = delete;

  rocksdb::TransactionDB& db() { return *db_; }
  // "records", the column family of Cairn's keyspace (and of its idempotency records).
  rocksdb::ColumnFamilyHandle* cf() { return cf_; }
  const rocksdb::ReadOptions& read_options() const { return read_options_; }
  const rocksdb::WriteOptions& write_options() const { return write_options_; }

  // A transaction with Cairn's write and transaction options (deadlock detection, lock timeout).
  std::unique_ptr<rocksdb::Transaction> Begin() {
    return std::unique_ptr<rocksdb::Transaction>(
        db_->BeginTransaction(write_options_, txn_options_));
  }

 private:
  TempDir dir_;  // Outlives the database.
  std::shared_ptr<rocksdb::Cache> block_cache_;
  std::unique_ptr<rocksdb::TransactionDB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  rocksdb::ColumnFamilyHandle* cf_ = nullptr;
  rocksdb::ReadOptions read_options_;
  rocksdb::WriteOptions write_options_;
  rocksdb::TransactionOptions txn_options_;
  std::unique_ptr<RawWalSyncer> syncer_;
};

// -------------------------------------------------------------------------------------------
// Fixtures kept across runs. Google Benchmark runs a benchmark several times while it settles on
// an iteration count (and once per repetition); those runs share one fixture, so that fresh keys
// stay fresh and preloading happens once. One fixture is alive at a time: the one of the
// benchmark that is running. A benchmark's next fixture replaces it (the old one is destroyed
// first, closing its database and removing its directory).

class Fixture {
 public:
  virtual ~Fixture() = default;
};

// The alive fixture if its id is `id`, else nullptr.
Fixture* FindFixture(std::string_view id);
// Destroys the alive fixture, then makes `fixture` the alive one under id.
Fixture& InstallFixture(std::string id, std::unique_ptr<Fixture> fixture);
// The alive fixture; dies if there is none.
Fixture& CurrentFixture();
// Destroys the alive fixture, if any. Call before main returns.
void ReleaseFixture();

// The fixture named id, made by make() (returning std::unique_ptr<F>) unless it is alive already.
template <typename F, typename Make>
F& SharedFixture(std::string id, Make&& make) {
  if (Fixture* alive = FindFixture(id)) return static_cast<F&>(*alive);
  ReleaseFixture();  // Close and remove the previous benchmark's store before making this one.
  std::unique_ptr<F> made = std::forward<Make>(make)();
  return static_cast<F&>(InstallFixture(std::move(id), std::move(made)));
}

}  // namespace cairn_bench
