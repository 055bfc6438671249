// Store: an open Cairn data directory.
//
// Store::Open opens (or creates) a RocksDB TransactionDB with one column family per kind of
// data. Every Records call on a Store is atomic on its own and safe to call from any number of
// threads at once. Several calls that must happen together go in a Transaction
// (BeginTransaction, or RunTransaction which also retries on conflicts).
//
// Durability follows Options::durability. Sync() makes everything acknowledged so far durable,
// so a caller writing under kNone or kEverySec can pay one fsync for a whole group of writes.
//
// The data directory carries a schema version; Open refuses a directory written by a newer
// Cairn with kFailedPrecondition rather than reinterpreting it. Closing (Close or the
// destructor) flushes everything to disk; reopening finds every record and its expiry.
#pragma once

#include <functional>
#include <memory>

#include "cairn/options.h"
#include "cairn/records.h"
#include "cairn/transaction.h"

namespace cairn {

namespace internal {
class StoreCore;
}

// RunTransaction's default number of attempts.
inline constexpr int kDefaultTransactionAttempts = 8;

class Store final : public Records {
 public:
  // Opens the store in options.data_dir. Fails with kInvalidArgument (bad options or a
  // directory that is not a Cairn store), kNotFound (no store and create_if_missing is false),
  // kFailedPrecondition (written by a newer Cairn), kCorruption or kIOError.
  static Result<std::unique_ptr<Store>> Open(const Options& options);

  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Flushes and closes. Later calls on the Store fail with kFailedPrecondition. Idempotent.
  // REQUIRES: no Transaction of this store is alive.
  Status Close();

  // The Records calls (records.h), each atomic on its own.

  // Starts a transaction. Its commit is durable as Options::durability says.
  Result<std::unique_ptr<Transaction>> BeginTransaction();

  // Runs fn in a fresh transaction and commits it. When fn or the commit fails with kBusy, the
  // transaction is rolled back and fn runs again, up to max_attempts times in all, with a short
  // randomized pause between attempts. Any other error from fn rolls back and is returned.
  // fn must not keep the Transaction beyond its call.
  Status RunTransaction(const std::function<Status(Transaction&)>& fn,
                        int max_attempts = kDefaultTransactionAttempts);

  // Makes every write acknowledged so far durable (one fsync of the write-ahead log).
  Status Sync();

  // Positions in the store's history of writes, for a program that answers a reader only once
  // what it read is durable (cairn-server under `always`, whose writers sync after they
  // commit, so a reader on another thread can see a write before its sync). Every write that a
  // read could see before VisiblePosition() is called is at or below it; a Sync() makes every
  // write at or below the VisiblePosition() of its start durable and raises DurablePosition()
  // to it. Under Durability::kAlways every write is durable before it is visible, and the two
  // are equal.
  std::uint64_t VisiblePosition() const;
  std::uint64_t DurablePosition() const;

  // Whether the store takes writes now and, if not, why (cairn/store_health.h). While it
  // takes none, every write fails with the same kIOError; reads go on.
  StoreHealth Health() const;
  // Health().writable(), as one atomic load: cheap enough to ask before every write.
  bool Writable() const;
  // Measures free disk space and, if a storage error stopped writes and its cause is gone,
  // resumes them — now, instead of at the store's own check a second later.
  void CheckHealth();

  // Compacts every column family fully, so that expired records leave the disk now rather
  // than when RocksDB would next compact their files.
  Status Compact();

  const Options& options() const;

  // For the library's own engines.
  internal::StoreCore& core() { return *core_; }

 private:
  explicit Store(std::unique_ptr<internal::StoreCore> core);

  std::unique_ptr<internal::StoreCore> core_;
};

}  // namespace cairn
