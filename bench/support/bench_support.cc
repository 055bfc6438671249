// bench_support: shared helpers of Cairn's benchmark programs (see bench_support.h).

#include "support/bench_support.h"

#include <errno.h>  // program_invocation_short_name (GNU).
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>
#include <stdlib.h>  // mkdtemp

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace cairn_bench {
namespace {

// The column families of lib/src/storage/column_families.h, in its order.
constexpr std::array<std::string_view, 6> kColumnFamilies = {"records", "members", "leases",
                                                             "buckets", "queues",  "meta"};
// As lib/src/storage/column_families.h: every column family but meta has Cairn's TTL filter and
// is compacted at least this often.
constexpr std::uint64_t kPeriodicCompactionSeconds = std::uint64_t{12} * 60 * 60;

struct FixtureSlot {
  std::string id;
  std::unique_ptr<Fixture> fixture;
};

FixtureSlot& Slot() {
  static FixtureSlot* slot = new FixtureSlot();  // Emptied by ReleaseFixture, never destroyed.
  return *slot;
}

}  // namespace

// -------------------------------------------------------------------------------------------
// Fatal checks.

void Die(const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", program_invocation_short_name, what.c_str());
  std::abort();
}

void CheckOk(const rocksdb::Status& s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + s.ToString());
}

void CheckOk(const cairn::Status& s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + s.ToString());
}

// -------------------------------------------------------------------------------------------
// Durability argument.

cairn::Durability DurabilityArg(const benchmark::State& state) {
  const std::int64_t arg = state.range(0);
  if (arg < 0 || arg >= static_cast<std::int64_t>(kDurabilities.size())) {
    Die("durability argument must be 0, 1 or 2");
  }
  return kDurabilities[static_cast<std::size_t>(arg)];
}

void Finish(benchmark::State& state, std::int64_t items_per_iteration) {
  state.SetItemsProcessed(state.iterations() * items_per_iteration);
  state.SetLabel(std::string(cairn::DurabilityName(DurabilityArg(state))));
}

// -------------------------------------------------------------------------------------------
// Keys and values.

KeyBuffer::KeyBuffer(std::string_view prefix) {
  if (prefix.size() > kMaxPrefixBytes) Die("key prefix too long: " + std::string(prefix));
  prefix.copy(buf_.data(), prefix.size());
  size_ = prefix.size() + 8;
}

// -------------------------------------------------------------------------------------------
// Directories, stores and databases.

TempDir::TempDir() {
  const char* env = std::getenv("TMPDIR");
  std::string pattern = std::string(env != nullptr && *env != '\0' ? env : "/tmp") + "/cairn_" +
                        program_invocation_short_name + "_XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) Die("mkdtemp " + pattern + " failed");
  path_ = std::move(pattern);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

TempStore::TempStore(cairn::Durability durability) {
  cairn::Options options;
  options.data_dir = dir_.path();
  options.durability = durability;
  cairn::Result<std::unique_ptr<cairn::Store>> store = cairn::Store::Open(options);
  CheckOk(store.status(), "open Cairn store");
  store_ = std::move(store).value();
}

RawWalSyncer::RawWalSyncer(rocksdb::DB* db) : db_(db), thread_([this] { Run(); }) {}

RawWalSyncer::~RawWalSyncer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void RawWalSyncer::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stop_; })) {
    lock.unlock();
    CheckOk(db_->SyncWAL(), "background SyncWAL");
    lock.lock();
  }
}

RawTransactionDb::RawTransactionDb(cairn::Durability durability) {
  const cairn::Options defaults;
  block_cache_ = rocksdb::NewLRUCache(defaults.block_cache_bytes);

  rocksdb::DBOptions db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  db_options.max_background_jobs = 2;
  db_options.keep_log_file_num = 4;
  db_options.max_total_wal_size = 128ull << 20;

  rocksdb::BlockBasedTableOptions table_options;
  table_options.block_cache = block_cache_;
  table_options.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  auto table_factory =
      std::shared_ptr<rocksdb::TableFactory>(rocksdb::NewBlockBasedTableFactory(table_options));

  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (std::string_view name : kColumnFamilies) {
    rocksdb::ColumnFamilyOptions cf_options;
    cf_options.table_factory = table_factory;
    // Cairn also sets its TTL compaction filter here (not reachable from bench/).
    if (name != "meta") cf_options.periodic_compaction_seconds = kPeriodicCompactionSeconds;
    descriptors.emplace_back(std::string(name), cf_options);
  }
  descriptors.emplace_back(rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions());

  rocksdb::TransactionDBOptions txn_db_options;
  txn_db_options.transaction_lock_timeout = defaults.lock_timeout_ms;
  txn_db_options.default_lock_timeout = defaults.lock_timeout_ms;

  rocksdb::Options open_options(db_options, rocksdb::ColumnFamilyOptions());
  rocksdb::TransactionDB* raw = nullptr;
  CheckOk(rocksdb::TransactionDB::Open(open_options, txn_db_options, dir_.path(), descriptors,
                                       &handles_, &raw),
          "open raw TransactionDB");
  db_.reset(raw);
  cf_ = handles_[0];  // "records", as Cairn's keyspace.

  write_options_.sync = durability == cairn::Durability::kAlways;
  txn_options_.deadlock_detect = true;
  txn_options_.lock_timeout = defaults.lock_timeout_ms;
  if (durability == cairn::Durability::kEverySec) {
    syncer_ = std::make_unique<RawWalSyncer>(db_.get());
  }
}

RawTransactionDb::~RawTransactionDb() {
  syncer_.reset();
  for (rocksdb::ColumnFamilyHandle* handle : handles_) {
    CheckOk(db_->DestroyColumnFamilyHandle(handle), "close column family");
  }
  CheckOk(db_->Close(), "close raw TransactionDB");
  db_.reset();
}

// -------------------------------------------------------------------------------------------
// Fixtures.

Fixture* FindFixture(std::string_view id) {
  FixtureSlot& slot = Slot();
  return slot.fixture != nullptr && slot.id == id ? slot.fixture.get() : nullptr;
}

Fixture& InstallFixture(std::string id, std::unique_ptr<Fixture> fixture) {
  ReleaseFixture();
  if (fixture == nullptr) Die("InstallFixture: no fixture for " + id);
  FixtureSlot& slot = Slot();
  slot.fixture = std::move(fixture);
  slot.id = std::move(id);
  return *slot.fixture;
}

Fixture& CurrentFixture() {
  FixtureSlot& slot = Slot();
  if (slot.fixture == nullptr) Die("no fixture: the benchmark's Setup did not run");
  return *slot.fixture;
}

void ReleaseFixture() {
  Slot().fixture.reset();
  Slot().id.clear();
}

}  // namespace cairn_bench
