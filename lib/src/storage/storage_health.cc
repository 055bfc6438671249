#include "storage/storage_health.h"

#include <string>
#include <utility>

#include "storage/rocks_status.h"

namespace cairn::internal {
namespace {

std::string Mebibytes(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

class HealthListener : public rocksdb::EventListener {
 public:
  explicit HealthListener(StorageHealth* health) : health_(health) {}

  const char* Name() const override { return "CairnHealthListener"; }

  void OnBackgroundError(rocksdb::BackgroundErrorReason reason, rocksdb::Status* error) override {
    // A compaction that fails for want of the device stops nothing: RocksDB goes on taking
    // writes and schedules the compaction again. Anything else (a failed log write or fsync,
    // a flush, the manifest) stops writes until RocksDB resumes.
    if (reason == rocksdb::BackgroundErrorReason::kCompaction && error->IsIOError()) return;
    health_->StorageFailed(FromRocks(*error, "storage failed"),
                           reason == rocksdb::BackgroundErrorReason::kWriteCallback);
  }

  void OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) override {
    if (info.new_bg_error.ok()) health_->StorageRecovered();
  }

 private:
  StorageHealth* const health_;
};

}  // namespace

StorageHealth::StorageHealth(std::shared_ptr<Clock> clock, std::uint64_t min_free_bytes,
                             std::function<void(const StoreHealth&)> on_change)
    : clock_(std::move(clock)), min_free_bytes_(min_free_bytes), on_change_(std::move(on_change)) {}

std::shared_ptr<rocksdb::EventListener> StorageHealth::NewListener(StorageHealth* health) {
  return std::make_shared<HealthListener>(health);
}

Status StorageHealth::WriteStatusLocked() const {
  if (!storage_error_.ok()) {
    if (state_.needs_reopen) {
      return Status::IOError(
          "writes are refused until the store is reopened (the server restarted): its "
          "write-ahead log failed with nothing in memory to flush into a new one: " +
          storage_error_.message());
    }
    return Status::IOError("writes are refused until the storage recovers: " +
                           storage_error_.message());
  }
  if (min_free_bytes_ > 0 && free_bytes_ && *free_bytes_ < min_free_bytes_) {
    return Status::IOError("writes are refused: the disk has " + Mebibytes(*free_bytes_) +
                           " free, less than the " + Mebibytes(min_free_bytes_) +
                           " the store keeps free (min_free_disk_bytes); free some space");
  }
  return Status::Ok();
}

Status StorageHealth::WriteStatus() const {
  if (writable()) return Status::Ok();
  std::lock_guard<std::mutex> lock(mu_);
  return WriteStatusLocked();
}

rocksdb::Status StorageHealth::CheckWrite() const {
  if (writable()) return rocksdb::Status::OK();
  const Status refused = WriteStatus();
  return refused.ok() ? rocksdb::Status::OK() : rocksdb::Status::IOError(refused.message());
}

StoreHealth StorageHealth::SnapshotLocked() const {
  StoreHealth out = state_;
  out.write_status = WriteStatusLocked();
  out.free_disk_bytes = free_bytes_;
  return out;
}

StoreHealth StorageHealth::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return SnapshotLocked();
}

bool StorageHealth::storage_failed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !storage_error_.ok();
}

void StorageHealth::StorageFailed(const Status& cause, bool log_write) {
  std::unique_lock<std::mutex> lock(mu_);
  log_failed_ = log_failed_ || log_write;
  if (!storage_error_.ok()) return;  // The first cause is the one to report.
  storage_error_ = cause;
  Changed(lock);
}

bool StorageHealth::log_failed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return log_failed_;
}

void StorageHealth::NeedsReopen() {
  std::lock_guard<std::mutex> lock(mu_);
  state_.needs_reopen = true;
}

void StorageHealth::StorageRecovered() {
  std::unique_lock<std::mutex> lock(mu_);
  if (storage_error_.ok()) return;
  storage_error_ = Status::Ok();
  log_failed_ = false;
  Changed(lock);
}

void StorageHealth::FreeSpaceMeasured(std::optional<std::uint64_t> free_bytes) {
  std::unique_lock<std::mutex> lock(mu_);
  free_bytes_ = free_bytes;
  Changed(lock);
}

void StorageHealth::Changed(std::unique_lock<std::mutex>& lock) {
  const bool now = WriteStatusLocked().ok();
  if (now == writable_.load(std::memory_order_relaxed)) return;
  writable_.store(now, std::memory_order_release);
  if (now) {
    state_.resumed_at_ms = clock_->NowMs();
  } else {
    state_.stopped_at_ms = clock_->NowMs();
    ++state_.stops;
  }
  const StoreHealth snapshot = SnapshotLocked();
  lock.unlock();
  if (on_change_) on_change_(snapshot);
}

}  // namespace cairn::internal
