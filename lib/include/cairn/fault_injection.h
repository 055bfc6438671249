// FaultInjection: a store's disk misbehaving on purpose, for tests of what Cairn (and a program
// built on it) does when storage fails. Give one to Options::fault_injection and every file
// operation of that store goes through it: it can fail writes, fsyncs or reads the way a full,
// broken or read-only disk fails them, report any free space, and simulate a power cut —
// everything written since the last fsync is lost, as on a real machine whose page cache dies
// with it.
//
// A power cut, step by step: CutPower() (from here on no write reaches the disk, as if the
// machine were already off), destroy the Store (it cannot flush or sync anything now),
// DropUnsyncedData() (the files go back to what was fsynced), then open the store again.
//
// It models what a power cut does to the bytes of each file and to the files created since
// their directory was last fsynced (they vanish). It does not undo renames and deletions made
// since the directory's last fsync: RocksDB fsyncs the directory after each of those it
// depends on (a new CURRENT, a new table file), so what it could lose there it never relied on.
//
// Thread-safe. Not for production: each file operation takes a lock.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "cairn/status.h"

namespace cairn {

namespace internal {
class FaultState;
}

class FaultInjection {
 public:
  // How an injected failure presents itself.
  enum class Fault {
    kNone,      // No failure.
    kNoSpace,   // ENOSPC: the disk is full.
    kIOError,   // EIO: the device failed.
    kReadOnly,  // EROFS: the file system was remounted read-only.
  };

  static std::shared_ptr<FaultInjection> Create();

  // From now until changed: every write-side operation (creating, appending to, renaming or
  // truncating a file) fails with `fault`. kNone stops it.
  void FailWrites(Fault fault);
  // From now until changed: every fsync (of a file or a directory) fails with `fault`.
  void FailSyncs(Fault fault);
  // From now until changed: reads of existing files fail with EIO.
  void FailReads(bool fail);
  // What the file system reports as free space from now on; nullopt: the real figure.
  void SetFreeSpace(std::optional<std::uint64_t> bytes);
  // Ends every injected failure and restores the real free space (not a power cut).
  void Clear();

  // The power goes off: every later write-side operation and fsync fails (with EIO) and
  // changes nothing on disk, until DropUnsyncedData.
  void CutPower();
  bool power_cut() const;
  // What a machine finds when it boots after the cut: every file written through this
  // injector is cut back to its size at its last fsync, and every file created since its
  // directory was last fsynced is deleted. Then, with `power_back_on`, the power is on again
  // (no fault is left).
  // REQUIRES: CutPower() was called, and no store is open on the files — or the process ends
  // right after without the power back on (DEBUG FAULT POWERCUT): an open store can change
  // nothing on disk while the power is off.
  Status DropUnsyncedData(bool power_back_on = true);

  // Bytes written since their file's last fsync, in all files: what a power cut would lose.
  std::uint64_t unsynced_bytes() const;
  // Operations failed on purpose so far.
  std::uint64_t injected_failures() const;

  // For the library.
  internal::FaultState& state() { return *state_; }

 private:
  FaultInjection();
  std::shared_ptr<internal::FaultState> state_;
};

// "none", "nospace", "eio" or "erofs".
std::string FaultName(FaultInjection::Fault fault);

}  // namespace cairn
