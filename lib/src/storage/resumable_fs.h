// The file system a store runs on: the given one (the machine's, or a test's fault injector)
// with the errors of its write-side operations marked retryable.
//
// Why: RocksDB stops writes on a background error and decides by the error's kind whether it
// may ever take them up again. An error that is not retryable — EIO, EROFS, and ENOSPC in a
// compaction of a TransactionDB (two-phase commit makes it fatal) — stops the database until it
// is reopened. A retryable one stops writes too, but RocksDB then resumes them on its own, once
// a second, as soon as a retry succeeds. Its resume flushes every memtable to new, fsynced
// table files before writes go on: whatever the failed write-ahead-log append or fsync may have
// lost (after a failed fsync Linux may drop the dirty pages, so a second fsync proves nothing)
// is made durable from memory, not trusted to the log. That is what a full disk that gets
// cleaned up, a file system remounted read-write, or a flaky device needs.
//
// ENOSPC loses its "no space" mark on the way (its message stays): RocksDB handles that mark on
// a path of its own, which resumes only with an SstFileManager and never in a TransactionDB's
// compactions. Reads are left alone: a failed read is reported to its reader.
#pragma once

#include <rocksdb/file_system.h>

#include <memory>

namespace cairn::internal {

std::shared_ptr<rocksdb::FileSystem> NewResumableFileSystem(
    std::shared_ptr<rocksdb::FileSystem> base);

// `status` as the wrapper passes it on (exposed for its test).
rocksdb::IOStatus MakeRetryable(rocksdb::IOStatus status);

}  // namespace cairn::internal
