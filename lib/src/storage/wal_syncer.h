// The background thread behind Durability::kEverySec: fsyncs the write-ahead log once per
// period, so a power loss costs at most about one period of acknowledged writes.
//
// A failed fsync is kept for good and reported by last_error() (Store::Sync returns it): after a
// failed fsync Linux may have dropped the dirty pages, so a later fsync that succeeds does not
// prove the earlier writes reached the disk. Reopening the store is the way out.
#pragma once

#include <rocksdb/db.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "cairn/status.h"

namespace cairn::internal {

class WalSyncer {
 public:
  WalSyncer(rocksdb::DB* db, std::chrono::milliseconds period);
  ~WalSyncer();  // Stops the thread.
  WalSyncer(const WalSyncer&) = delete;
  WalSyncer& operator=(const WalSyncer&) = delete;

  // The most recent failed background fsync, or OK.
  Status last_error() const;

 private:
  void Run();

  rocksdb::DB* db_;
  const std::chrono::milliseconds period_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  Status last_error_;
  std::thread thread_;
};

}  // namespace cairn::internal
