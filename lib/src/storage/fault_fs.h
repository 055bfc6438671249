// The file system behind a FaultInjection (cairn/fault_injection.h): a RocksDB FileSystem
// wrapper that fails operations on request and keeps, per file written through it, how many of
// its bytes were fsynced, so that a simulated power cut can drop the rest — in the manner of
// RocksDB's own FaultInjectionTestFS (which Debian does not ship).
#pragma once

#include <rocksdb/file_system.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "cairn/fault_injection.h"

namespace cairn::internal {

class FaultState {
 public:
  using Fault = FaultInjection::Fault;

  // Held by a wrapper across an operation's check, the operation and its bookkeeping, so that
  // a power cut falls before or after it, never in between: an fsync that returned OK is
  // counted as synced before CutPower can run, and one that starts after fails. (All file
  // operations through the injector take turns; it is a test tool.)
  std::unique_lock<std::recursive_mutex> Hold() { return std::unique_lock(mu_); }

  // The error to fail an operation of each kind with now, or OK. `what` names the operation
  // and file for the message.
  rocksdb::IOStatus CheckWrite(const std::string& what);
  rocksdb::IOStatus CheckSync(const std::string& what);
  rocksdb::IOStatus CheckRead(const std::string& what);
  std::optional<std::uint64_t> free_space() const;

  // What happened to the files, as the wrapper saw it succeed.
  void Created(const std::string& path);
  void Appended(const std::string& path, std::uint64_t bytes);
  void Truncated(const std::string& path, std::uint64_t size);
  void Synced(const std::string& path);
  void DirectorySynced(const std::string& dir);
  void Deleted(const std::string& path);
  void Renamed(const std::string& from, const std::string& to);

  // FaultInjection's calls.
  void SetWriteFault(Fault fault);
  void SetSyncFault(Fault fault);
  void SetReadFault(bool fail);
  void SetFreeSpace(std::optional<std::uint64_t> bytes);
  void Clear();
  void CutPower();
  bool power_cut() const;
  Status DropUnsyncedData(bool power_back_on);
  std::uint64_t unsynced_bytes() const;
  std::uint64_t injected_failures() const { return failures_.load(); }

 private:
  struct File {
    std::uint64_t size = 0;
    std::uint64_t synced = 0;
    bool new_since_directory_sync = true;
  };
  rocksdb::IOStatus Failure(Fault fault, const std::string& what);

  mutable std::recursive_mutex mu_;
  Fault write_fault_ = Fault::kNone;
  Fault sync_fault_ = Fault::kNone;
  bool read_fault_ = false;
  bool power_cut_ = false;
  std::optional<std::uint64_t> free_space_;
  std::map<std::string, File> files_;  // By normalized path.
  std::atomic<std::uint64_t> failures_{0};
};

// `base` with `state`'s faults injected.
std::shared_ptr<rocksdb::FileSystem> NewFaultFileSystem(std::shared_ptr<rocksdb::FileSystem> base,
                                                        std::shared_ptr<FaultState> state);

}  // namespace cairn::internal
