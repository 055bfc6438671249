#include "storage/wal_syncer.h"

#include <pthread.h>

#include "storage/rocks_status.h"

namespace cairn::internal {

WalSyncer::WalSyncer(rocksdb::DB* db, std::chrono::milliseconds period)
    : db_(db), period_(period), thread_([this] { Run(); }) {
  pthread_setname_np(thread_.native_handle(), "cairn-walsync");
}

WalSyncer::~WalSyncer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

Status WalSyncer::last_error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_error_;
}

void WalSyncer::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, period_, [this] { return stop_; })) {
    lock.unlock();
    Status s = FromRocks(db_->SyncWAL(), "background WAL fsync");
    lock.lock();
    if (!s.ok()) last_error_ = std::move(s);
  }
}

}  // namespace cairn::internal
