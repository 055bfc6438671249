#include "store_core.h"

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/table_properties_collectors.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>

#include "storage/btree_memtable.h"
#include "storage/fault_fs.h"
#include "storage/indexed_memtable.h"
#include "storage/key_codec.h"
#include "storage/member_prefix.h"
#include "storage/resumable_fs.h"
#include "storage/rocks_status.h"
#include "storage/schema.h"
#include "util/status_macros.h"

namespace cairn::internal {
namespace {

constexpr std::int64_t kMaxLockTimeoutMs = 60'000;

Status ValidateOptions(const Options& options) {
  if (options.data_dir.empty()) {
    return Status::InvalidArgument(
        "Options::data_dir is empty; name the directory to store data in");
  }
  if (options.block_cache_bytes == 0) {
    return Status::InvalidArgument("Options::block_cache_bytes must be greater than 0");
  }
  if (options.max_open_files != -1 && options.max_open_files < 20) {
    return Status::InvalidArgument("Options::max_open_files is " +
                                   std::to_string(options.max_open_files) +
                                   "; it must be -1 (no bound) or at least 20");
  }
  if (options.lock_timeout_ms < 1 || options.lock_timeout_ms > kMaxLockTimeoutMs) {
    return Status::InvalidArgument("Options::lock_timeout_ms is " +
                                   std::to_string(options.lock_timeout_ms) +
                                   "; it must be between 1 and 60000");
  }
  if (options.caller_serializes_keyspace && !options.serialize_keyspace) {
    return Status::InvalidArgument(
        "Options::caller_serializes_keyspace requires Options::serialize_keyspace");
  }
  switch (options.durability) {
    case Durability::kAlways:
    case Durability::kEverySec:
    case Durability::kNone:
      return Status::Ok();
  }
  return Status::InvalidArgument("Options::durability is not one of always, everysec, none");
}

bool Contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool IsCairnColumnFamily(std::string_view name) {
  return std::find(kColumnFamilyNames.begin(), kColumnFamilyNames.end(), name) !=
         kColumnFamilyNames.end();
}

// True when the database's default column family holds no row (read-only look).
Result<bool> DefaultColumnFamilyIsEmpty(const rocksdb::DBOptions& db_options,
                                        const std::string& dir) {
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::OpenForReadOnly(
      rocksdb::Options(db_options, rocksdb::ColumnFamilyOptions()), dir, &raw);
  if (!s.ok()) return FromRocks(s, "inspect " + dir);
  std::unique_ptr<rocksdb::DB> db(raw);
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
  it->SeekToFirst();
  const bool empty = !it->Valid();
  CAIRN_RETURN_IF_ERROR(FromRocks(it->status(), "inspect " + dir));
  return empty;
}

// Decides whether an existing database is a Cairn store. Returns whether column families must
// be created: RocksDB creates them one by one after CURRENT exists, so a process killed during
// the very first Open leaves some missing. Such a directory holds only Cairn's column families
// and an empty default one; anything else is some other program's database and is refused.
Result<bool> CheckExistingColumnFamilies(const rocksdb::DBOptions& db_options,
                                         const std::string& dir,
                                         const std::vector<std::string>& existing) {
  std::string missing;
  for (std::string_view name : kColumnFamilyNames) {
    if (!Contains(existing, name)) missing = name;
  }
  if (missing.empty()) return false;
  bool only_ours = true;
  for (const std::string& name : existing) {
    only_ours =
        only_ours && (name == rocksdb::kDefaultColumnFamilyName || IsCairnColumnFamily(name));
  }
  if (only_ours) {
    CAIRN_ASSIGN_OR_RETURN(bool empty, DefaultColumnFamilyIsEmpty(db_options, dir));
    if (empty) return true;  // An interrupted creation: finish it.
  }
  return Status::InvalidArgument(dir + " holds a RocksDB database that is not a Cairn store " +
                                 "(it has no column family '" + missing + "')");
}

// The rows read by key, which the row cache keeps: all but a sorted set's score index and a
// stream's entries, which are walked in order (a stream entry is read by key only by XDEL),
// and a consumer group's pending rows, each written once on delivery, read once on
// acknowledgement and deleted. Caching those would cost every write of
// them a cache update and push out rows that are read again.
bool PointReadRow(std::string_view key) {
  if (key.empty()) return true;
  switch (static_cast<RowTag>(key.front())) {
    case RowTag::kZSetScore:
    case RowTag::kStreamEntry:
    case RowTag::kStreamPending:
      return false;
    default:
      return true;
  }
}

// The memtable of a keyspace column family (records, members).
void SetKeyspaceMemtable(ColumnFamily family, bool serialized,
                         rocksdb::ColumnFamilyOptions& cf_options) {
  const bool records = family == ColumnFamily::kRecords;
  if (serialized && records) {
    // A row rewritten at no greater size (a lock's or a counter's new expiry or value, a
    // list's new ends) replaces its memtable entry: the memtable keeps one entry per hot
    // key instead of one per write, and stays small and quick to search. RocksDB allows it
    // only where no reader sees a row change under it: here every reader and writer of the
    // keyspace takes its turn at the gate, and point reads from elsewhere (the members
    // compaction filter) take RocksDB's per-key in-place lock. Not for `members`: their
    // iterators walk backwards too (ZREVRANGE, XREVRANGE, LRANGE from the tail), which
    // RocksDB refuses over a memtable that updates in place.
    cf_options.inplace_update_support = true;
    // And that rewrite, and most point reads, find the row by a hash probe; new rows go into
    // a B+tree (storage/indexed_memtable.h).
    cf_options.memtable_factory = NewIndexedMemTableFactory();
    return;
  }
  if (serialized) {
    // Members go in at random places (a new member of a big set) as often as in order;
    // a B+tree finds the place with a few cache misses where the skiplist took ~20.
    cf_options.memtable_factory = NewBTreeMemTableFactory(/*concurrent_readers=*/false);
    return;
  }
  // Point reads that miss the row cache mostly look for rows that are not there (under
  // BullMQ nearly all do: a script probes keys and hash fields a job has not got, its
  // lock, its dependencies, fields never set), and each searched the whole skiplist; a
  // bloom filter over the memtable's keys (about 1.3 MiB per 64 MiB memtable) answers
  // most of them without. (The B+trees above need none: the records one answers them with a
  // probe of its index, the members one with a search of a few nodes that costs less than
  // adding every new row to a filter.)
  cf_options.memtable_prefix_bloom_size_ratio = 0.02;
  cf_options.memtable_whole_key_filtering = true;
  if (records) {
    // Hot keys (a counter, a flag, a session written again and again) put entry after entry
    // of one key into the memtable; with a hint per key the next one goes in next to the
    // last instead of being searched for from the top of the skiplist.
    cf_options.memtable_insert_with_hint_prefix_extractor.reset(rocksdb::NewNoopTransform());
  } else {
    // A value's members are mostly written next to each other (storage/member_prefix.h).
    cf_options.memtable_insert_with_hint_prefix_extractor = NewMemberPrefixTransform();
  }
}

std::shared_ptr<Clock> ClockOf(const Options& options) {
  return options.clock ? options.clock : DefaultClock();
}

}  // namespace

StoreCore::StoreCore(const Options& options)
    : options_(options),
      keyspace_gate_(options.serialize_keyspace, options.caller_serializes_keyspace,
                     options.lock_timeout_ms),
      health_(ClockOf(options), options.min_free_disk_bytes, options.on_health_change) {
  options_.clock = ClockOf(options);
  ttl_filter_ = std::make_shared<TtlCompactionFilter>(options_.clock);
  member_filter_ = std::make_shared<MemberFilterFactory>(options_.clock);
  block_cache_ = rocksdb::NewLRUCache(options_.block_cache_bytes);
  if (options_.row_cache_bytes > 0) {
    row_cache_ = std::make_unique<RowCache>(options_.row_cache_bytes, &PointReadRow);
  }
  write_options_.sync = options_.durability == Durability::kAlways;
  txn_options_.deadlock_detect = true;
  txn_options_.lock_timeout = options_.lock_timeout_ms;
}

StoreCore::~StoreCore() { (void)Close(); }

Result<std::unique_ptr<StoreCore>> StoreCore::Open(const Options& options) {
  CAIRN_RETURN_IF_ERROR(ValidateOptions(options));
  std::unique_ptr<StoreCore> core(new StoreCore(options));
  CAIRN_RETURN_IF_ERROR(core->OpenDb());
  return core;
}

Status StoreCore::OpenDb() {
  namespace fs = std::filesystem;
  const std::string& dir = options_.data_dir;
  std::error_code ec;
  const bool exists = fs::exists(fs::path(dir) / "CURRENT", ec);
  if (!exists && !options_.create_if_missing) {
    return Status::NotFound("no Cairn store in " + dir +
                            " and Options::create_if_missing is false");
  }
  if (!exists) {
    fs::create_directories(dir, ec);
    if (ec) return Status::IOError("cannot create data directory " + dir + ": " + ec.message());
  }

  MakeFileSystem();
  rocksdb::DBOptions db_options;
  db_options.env = env_.get();
  db_options.listeners.push_back(StorageHealth::NewListener(&health_));
  // Writes stopped by a storage error are resumed by CheckHealth (DB::Resume), once a second,
  // not by RocksDB's own recovery thread: in RocksDB 7.8 a close that cancels that thread can
  // wait for it for ever (ErrorHandler::RecoverFromRetryableBGIOError returns on
  // end_recovery_ without clearing recovery_in_prog_, which DBImpl::CloseHelper waits on).
  db_options.max_bgerror_resume_count = 0;
  db_options.create_if_missing = !exists;
  db_options.create_missing_column_families = !exists;
  db_options.max_background_jobs = 2;
  db_options.max_open_files = options_.max_open_files;
  db_options.keep_log_file_num = 4;
  // A column family that is rarely written would otherwise keep old WAL files alive.
  db_options.max_total_wal_size = 128ull << 20;
  // In-place memtable updates (below) need memtable inserts made one batch at a time.
  if (options_.serialize_keyspace) db_options.allow_concurrent_memtable_write = false;

  std::vector<std::string> existing;
  if (exists) {
    rocksdb::Status s = rocksdb::DB::ListColumnFamilies(db_options, dir, &existing);
    if (!s.ok()) return FromRocks(s, "open " + dir);
    CAIRN_ASSIGN_OR_RETURN(db_options.create_missing_column_families,
                           CheckExistingColumnFamilies(db_options, dir, existing));
  }

  rocksdb::BlockBasedTableOptions table_options;
  table_options.block_cache = block_cache_;
  table_options.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  auto table_factory =
      std::shared_ptr<rocksdb::TableFactory>(rocksdb::NewBlockBasedTableFactory(table_options));

  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (std::size_t i = 0; i < kColumnFamilyCount; ++i) {
    const auto family = static_cast<ColumnFamily>(i);
    rocksdb::ColumnFamilyOptions cf_options;
    cf_options.table_factory = table_factory;
    if (family == ColumnFamily::kMembers) {
      // Decides expiry like the TTL filter, and also removes members no live key reaches.
      cf_options.compaction_filter_factory = member_filter_;
      cf_options.periodic_compaction_seconds = kPeriodicCompactionSeconds;
    } else if (HasTtlFilter(family)) {
      cf_options.compaction_filter = ttl_filter_.get();
      cf_options.periodic_compaction_seconds = kPeriodicCompactionSeconds;
    }
    if (IsKeyspace(family)) SetKeyspaceMemtable(family, options_.serialize_keyspace, cf_options);
    if (family == ColumnFamily::kQueues) {
      // A queue deletes what it claimed; files dense with tombstones are compacted early so
      // that scans for the next ready job do not wade through them.
      cf_options.table_properties_collector_factories.push_back(
          rocksdb::NewCompactOnDeletionCollectorFactory(/*sliding_window_size=*/1024,
                                                        /*deletion_trigger=*/256));
    }
    descriptors.emplace_back(std::string(kColumnFamilyNames[i]), cf_options);
  }
  descriptors.emplace_back(rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions());
  for (const std::string& name : existing) {
    bool known = name == rocksdb::kDefaultColumnFamilyName;
    for (std::string_view ours : kColumnFamilyNames) known = known || name == ours;
    if (!known) descriptors.emplace_back(name, rocksdb::ColumnFamilyOptions());
  }

  rocksdb::TransactionDBOptions txn_db_options;
  txn_db_options.transaction_lock_timeout = options_.lock_timeout_ms;
  txn_db_options.default_lock_timeout = options_.lock_timeout_ms;

  rocksdb::Options open_options(db_options, rocksdb::ColumnFamilyOptions());
  rocksdb::TransactionDB* raw = nullptr;
  rocksdb::Status s =
      rocksdb::TransactionDB::Open(open_options, txn_db_options, dir, descriptors, &handles_, &raw);
  if (!s.ok()) return FromRocks(s, "open " + dir);
  db_.reset(raw);
  cached_handles_ = {cf(ColumnFamily::kRecords), cf(ColumnFamily::kMembers)};

  Status schema = CheckOrWriteSchema(db_.get(), cf(ColumnFamily::kMeta), dir);
  if (!schema.ok()) {
    (void)Close();
    return schema;
  }
  fencing_counter_ =
      std::make_unique<MonotonicCounter>(db_.get(), cf(ColumnFamily::kMeta), "fencing");
  version_counter_ = std::make_unique<MonotonicCounter>(db_.get(), cf(ColumnFamily::kMeta),
                                                        "versions", kVersionBlock);
  member_filter_->Attach(db_.get(), cf(ColumnFamily::kRecords),
                         [this](std::uint64_t sequence) { return MakeDurable(sequence); });
  if (options_.durability == Durability::kEverySec) {
    syncer_ = std::make_unique<PeriodicThread>("cairn-walsync", std::chrono::seconds(1),
                                               [this] { SyncIfWritten(); });
  }
  CheckHealth();  // A store opened on a full disk refuses writes from the start.
  health_thread_ = std::make_unique<PeriodicThread>("cairn-health", std::chrono::seconds(1),
                                                    [this] { CheckHealth(); });
  return Status::Ok();
}

void StoreCore::MakeFileSystem() {
  std::shared_ptr<rocksdb::FileSystem> fs = rocksdb::FileSystem::Default();
  if (options_.fault_injection) {
    // Shares the injector's ownership: the file system may outlive this Options copy.
    fs = NewFaultFileSystem(
        std::move(fs),
        std::shared_ptr<FaultState>(options_.fault_injection, &options_.fault_injection->state()));
  }
  fs_ = NewResumableFileSystem(std::move(fs));
  env_ = rocksdb::NewCompositeEnv(fs_);
}

void StoreCore::CheckHealth() {
  std::uint64_t free_bytes = 0;
  const rocksdb::IOStatus measured =
      fs_->GetFreeSpace(options_.data_dir, rocksdb::IOOptions(), &free_bytes, nullptr);
  std::optional<std::uint64_t> free;
  if (measured.ok()) free = free_bytes;
  health_.FreeSpaceMeasured(free);
  // RocksDB 7.8 leaves a write-ahead log whose write failed only by switching to a new one,
  // which its resume does when it flushes a memtable that holds something; resumed on the
  // failed log, the next write asserts (WritableFileWriter::AssertFalseAndGetStatusForPrevError)
  // — and a log with a torn record in its middle would lose what follows at recovery. So the
  // store keeps one small row in memory while it takes writes (the anchor, rewritten after
  // each flush), and when the log failed with every memtable empty all the same (within a
  // second of a flush), it does not resume: reopening it is the way back.
  if (!health_.storage_failed()) {
    if (health_.writable() && MemtablesEmpty()) {
      rocksdb::WriteOptions no_sync;
      (void)db_->Put(no_sync, cf(ColumnFamily::kMeta), EncodeRowKey(RowTag::kMeta, "log_anchor"),
                     "");
    }
    return;
  }
  // Resume only with room to flush into: the resume writes every memtable out.
  if (free && options_.min_free_disk_bytes > 0 && *free < options_.min_free_disk_bytes) return;
  if (health_.log_failed() && MemtablesEmpty()) return health_.NeedsReopen();
  // The root database: TransactionDB does not pass Resume on (its DB::Resume is NotSupported).
  // Resume is OK also when RocksDB was not stopped (yet: the listener hears of an error before
  // RocksDB stops writes): the empty synced write that follows is refused while it is.
  if (db_->GetRootDB()->Resume().ok() && SyncLog().ok()) health_.StorageRecovered();
}

bool StoreCore::MemtablesEmpty() const {
  for (rocksdb::ColumnFamilyHandle* handle : column_families()) {
    std::uint64_t entries = 0;
    if (!db_->GetIntProperty(handle, "rocksdb.num-entries-active-mem-table", &entries) ||
        entries > 0) {
      return false;
    }
  }
  return true;
}

// An empty batch written with sync: RocksDB syncs the log in its write path, in turn with the
// writers, and refuses the call (with the error) once a failed write has stopped the database.
// DB::SyncWAL runs beside the writers instead, and in RocksDB 7.8 it asserts — ending the
// process, as Debian's build keeps assertions — when it meets a log file whose last write
// failed (WritableFileWriter::AssertFalseAndGetStatusForPrevError): a full disk under
// `always` or `everysec` would take the whole process down.
Status StoreCore::SyncLog(bool wait_out_stalls) {
  // Every write published by now is in the log already (RocksDB appends before it inserts and
  // publishes), so the fsync below covers it.
  const std::uint64_t covered = db_->GetLatestSequenceNumber();
  rocksdb::WriteOptions sync;
  sync.sync = true;
  sync.no_slowdown = !wait_out_stalls;
  rocksdb::WriteBatch empty;
  Status s = FromRocks(db_->GetRootDB()->Write(sync, &empty), "fsync write-ahead log");
  if (!s.ok()) return s;
  std::uint64_t durable = durable_sequence_.load();
  while (durable < covered && !durable_sequence_.compare_exchange_weak(durable, covered)) {
  }
  return s;
}

bool StoreCore::MakeDurable(std::uint64_t sequence) {
  if (DurablePosition() >= sequence) return true;
  // Called from a compaction: under `everysec` and `none` this is a sync of Cairn's own
  // beyond the mode's, taken only when a compaction is about to drop rows on a verdict the
  // log does not hold durably yet (storage/member_filter.h).
  return SyncLog(/*wait_out_stalls=*/false).ok() && DurablePosition() >= sequence;
}

std::uint64_t StoreCore::VisiblePosition() const {
  return db_ == nullptr ? 0 : db_->GetLatestSequenceNumber();
}

std::uint64_t StoreCore::DurablePosition() const {
  if (options_.durability == Durability::kAlways) return VisiblePosition();
  return durable_sequence_.load();
}

void StoreCore::SyncIfWritten() {
  if (db_->GetLatestSequenceNumber() <= durable_sequence_.load()) return;
  // A failure stops writes and is reported through health_; the resume that ends it flushes
  // what the log held to table files.
  (void)SyncLog();
}

Status StoreCore::CheckOpen() const {
  if (closed()) return Status::FailedPrecondition("the store is closed");
  return Status::Ok();
}

RowTransaction StoreCore::BeginRows(ColumnFamily family) const {
  std::unique_ptr<rocksdb::Transaction> locks;
  if (!IsKeyspace(family) || !keyspace_gate_.serialized()) {
    locks.reset(db_->BeginTransaction(write_options_, txn_options_));
  }
  return RowTransaction(db_.get(), write_options_, std::move(locks), &health_);
}

Status StoreCore::Sync() {
  CAIRN_RETURN_IF_ERROR(CheckOpen());
  return SyncLog();
}

Status StoreCore::Compact() {
  CAIRN_RETURN_IF_ERROR(CheckOpen());
  rocksdb::CompactRangeOptions compact;
  compact.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  for (std::size_t i = 0; i < kColumnFamilyCount; ++i) {
    rocksdb::Status s = db_->CompactRange(compact, handles_[i], nullptr, nullptr);
    if (!s.ok()) return FromRocks(s, "compact " + std::string(kColumnFamilyNames[i]));
  }
  return Status::Ok();
}

Status StoreCore::Close() {
  if (!db_) return Status::Ok();
  health_thread_.reset();
  syncer_.reset();
  fencing_counter_.reset();
  version_counter_.reset();
  Status result;
  rocksdb::FlushOptions flush;
  flush.wait = true;
  rocksdb::Status s = db_->Flush(flush, handles_);
  if (!s.ok()) result = FromRocks(s, "flush on close");
  Status synced = SyncLog();
  if (!synced.ok() && result.ok()) result = synced;
  // Running compactions' member filters read through the records handle: stop them first.
  member_filter_->Detach();
  rocksdb::CancelAllBackgroundWork(db_.get(), /*wait=*/true);
  for (rocksdb::ColumnFamilyHandle* handle : handles_) {
    s = db_->DestroyColumnFamilyHandle(handle);
    if (!s.ok() && result.ok()) result = FromRocks(s, "close column family");
  }
  handles_.clear();
  s = db_->Close();
  if (!s.ok() && result.ok()) result = FromRocks(s, "close");
  db_.reset();
  return result;
}

}  // namespace cairn::internal
