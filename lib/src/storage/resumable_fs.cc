#include "storage/resumable_fs.h"

#include <string>
#include <utility>

namespace cairn::internal {

using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

IOStatus MakeRetryable(IOStatus status) {
  if (!status.IsIOError()) return status;  // OK, or not a failure of the device.
  IOStatus out = status;
  if (status.IsNoSpace()) {
    const char* state = status.getState();
    out = IOStatus::IOError(state == nullptr ? "No space left on device" : state);
  }
  out.SetRetryable(true);
  return out;
}

namespace {

class ResumableWritableFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  explicit ResumableWritableFile(std::unique_ptr<rocksdb::FSWritableFile> file)
      : FSWritableFileOwnerWrapper(std::move(file)) {}

  IOStatus Append(const Slice& data, const IOOptions& options, IODebugContext* dbg) override {
    return MakeRetryable(target()->Append(data, options, dbg));
  }
  IOStatus Append(const Slice& data, const IOOptions& options,
                  const rocksdb::DataVerificationInfo& info, IODebugContext* dbg) override {
    return MakeRetryable(target()->Append(data, options, info, dbg));
  }
  IOStatus PositionedAppend(const Slice& data, std::uint64_t offset, const IOOptions& options,
                            IODebugContext* dbg) override {
    return MakeRetryable(target()->PositionedAppend(data, offset, options, dbg));
  }
  IOStatus PositionedAppend(const Slice& data, std::uint64_t offset, const IOOptions& options,
                            const rocksdb::DataVerificationInfo& info,
                            IODebugContext* dbg) override {
    return MakeRetryable(target()->PositionedAppend(data, offset, options, info, dbg));
  }
  IOStatus Truncate(std::uint64_t size, const IOOptions& options, IODebugContext* dbg) override {
    return MakeRetryable(target()->Truncate(size, options, dbg));
  }
  IOStatus Close(const IOOptions& options, IODebugContext* dbg) override {
    return MakeRetryable(target()->Close(options, dbg));
  }
  IOStatus Flush(const IOOptions& options, IODebugContext* dbg) override {
    return MakeRetryable(target()->Flush(options, dbg));
  }
  IOStatus Sync(const IOOptions& options, IODebugContext* dbg) override {
    return MakeRetryable(target()->Sync(options, dbg));
  }
  IOStatus Fsync(const IOOptions& options, IODebugContext* dbg) override {
    return MakeRetryable(target()->Fsync(options, dbg));
  }
  IOStatus RangeSync(std::uint64_t offset, std::uint64_t nbytes, const IOOptions& options,
                     IODebugContext* dbg) override {
    return MakeRetryable(target()->RangeSync(offset, nbytes, options, dbg));
  }
  IOStatus Allocate(std::uint64_t offset, std::uint64_t len, const IOOptions& options,
                    IODebugContext* dbg) override {
    return MakeRetryable(target()->Allocate(offset, len, options, dbg));
  }
};

class ResumableDirectory : public rocksdb::FSDirectoryWrapper {
 public:
  explicit ResumableDirectory(std::unique_ptr<rocksdb::FSDirectory> dir)
      : FSDirectoryWrapper(std::move(dir)) {}

  IOStatus Fsync(const IOOptions& options, IODebugContext* dbg) override {
    return MakeRetryable(FSDirectoryWrapper::Fsync(options, dbg));
  }
  IOStatus FsyncWithDirOptions(const IOOptions& options, IODebugContext* dbg,
                               const rocksdb::DirFsyncOptions& dir_options) override {
    return MakeRetryable(FSDirectoryWrapper::FsyncWithDirOptions(options, dbg, dir_options));
  }
};

class ResumableFileSystem : public rocksdb::FileSystemWrapper {
 public:
  explicit ResumableFileSystem(std::shared_ptr<rocksdb::FileSystem> base)
      : FileSystemWrapper(std::move(base)) {}

  const char* Name() const override { return "CairnResumableFileSystem"; }

  IOStatus NewWritableFile(const std::string& f, const rocksdb::FileOptions& options,
                           std::unique_ptr<rocksdb::FSWritableFile>* result,
                           IODebugContext* dbg) override {
    IOStatus s = MakeRetryable(target()->NewWritableFile(f, options, result, dbg));
    if (s.ok()) *result = std::make_unique<ResumableWritableFile>(std::move(*result));
    return s;
  }
  IOStatus ReopenWritableFile(const std::string& f, const rocksdb::FileOptions& options,
                              std::unique_ptr<rocksdb::FSWritableFile>* result,
                              IODebugContext* dbg) override {
    IOStatus s = MakeRetryable(target()->ReopenWritableFile(f, options, result, dbg));
    if (s.ok()) *result = std::make_unique<ResumableWritableFile>(std::move(*result));
    return s;
  }
  IOStatus ReuseWritableFile(const std::string& f, const std::string& old,
                             const rocksdb::FileOptions& options,
                             std::unique_ptr<rocksdb::FSWritableFile>* result,
                             IODebugContext* dbg) override {
    IOStatus s = MakeRetryable(target()->ReuseWritableFile(f, old, options, result, dbg));
    if (s.ok()) *result = std::make_unique<ResumableWritableFile>(std::move(*result));
    return s;
  }
  IOStatus NewDirectory(const std::string& name, const IOOptions& options,
                        std::unique_ptr<rocksdb::FSDirectory>* result,
                        IODebugContext* dbg) override {
    IOStatus s = target()->NewDirectory(name, options, result, dbg);
    if (s.ok()) *result = std::make_unique<ResumableDirectory>(std::move(*result));
    return s;
  }
  IOStatus RenameFile(const std::string& from, const std::string& to, const IOOptions& options,
                      IODebugContext* dbg) override {
    return MakeRetryable(target()->RenameFile(from, to, options, dbg));
  }
  IOStatus LinkFile(const std::string& from, const std::string& to, const IOOptions& options,
                    IODebugContext* dbg) override {
    return MakeRetryable(target()->LinkFile(from, to, options, dbg));
  }
  IOStatus Truncate(const std::string& f, std::size_t size, const IOOptions& options,
                    IODebugContext* dbg) override {
    return MakeRetryable(target()->Truncate(f, size, options, dbg));
  }
};

}  // namespace

std::shared_ptr<rocksdb::FileSystem> NewResumableFileSystem(
    std::shared_ptr<rocksdb::FileSystem> base) {
  return std::make_shared<ResumableFileSystem>(std::move(base));
}

}  // namespace cairn::internal
