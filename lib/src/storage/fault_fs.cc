#include "storage/fault_fs.h"

#include <filesystem>
#include <system_error>
#include <utility>

namespace cairn::internal {
namespace {

using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

std::string Normalize(const std::string& path) {
  return std::filesystem::path(path).lexically_normal().string();
}

std::string Parent(const std::string& path) {
  return std::filesystem::path(path).parent_path().string();
}

// A file opened for writing: each append and fsync is checked, and what succeeds is counted.
class FaultWritableFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  FaultWritableFile(std::unique_ptr<rocksdb::FSWritableFile> file, std::string path,
                    std::shared_ptr<FaultState> state)
      : FSWritableFileOwnerWrapper(std::move(file)),
        path_(std::move(path)),
        state_(std::move(state)) {}

  IOStatus Append(const Slice& data, const IOOptions& options, IODebugContext* dbg) override {
    const auto hold = state_->Hold();
    IOStatus s = state_->CheckWrite("append to " + path_);
    if (s.ok()) s = target()->Append(data, options, dbg);
    if (s.ok()) state_->Appended(path_, data.size());
    return s;
  }
  IOStatus Append(const Slice& data, const IOOptions& options,
                  const rocksdb::DataVerificationInfo& info, IODebugContext* dbg) override {
    const auto hold = state_->Hold();
    IOStatus s = state_->CheckWrite("append to " + path_);
    if (s.ok()) s = target()->Append(data, options, info, dbg);
    if (s.ok()) state_->Appended(path_, data.size());
    return s;
  }
  IOStatus PositionedAppend(const Slice& data, std::uint64_t offset, const IOOptions& options,
                            IODebugContext* dbg) override {
    const auto hold = state_->Hold();
    IOStatus s = state_->CheckWrite("append to " + path_);
    if (s.ok()) s = target()->PositionedAppend(data, offset, options, dbg);
    if (s.ok()) state_->Truncated(path_, offset + data.size());
    return s;
  }
  IOStatus PositionedAppend(const Slice& data, std::uint64_t offset, const IOOptions& options,
                            const rocksdb::DataVerificationInfo& info,
                            IODebugContext* dbg) override {
    const auto hold = state_->Hold();
    IOStatus s = state_->CheckWrite("append to " + path_);
    if (s.ok()) s = target()->PositionedAppend(data, offset, options, info, dbg);
    if (s.ok()) state_->Truncated(path_, offset + data.size());
    return s;
  }
  IOStatus Truncate(std::uint64_t size, const IOOptions& options, IODebugContext* dbg) override {
    const auto hold = state_->Hold();
    IOStatus s = state_->CheckWrite("truncate " + path_);
    if (s.ok()) s = target()->Truncate(size, options, dbg);
    if (s.ok()) state_->Truncated(path_, size);
    return s;
  }
  IOStatus Sync(const IOOptions& options, IODebugContext* dbg) override {
    const auto hold = state_->Hold();
    IOStatus s = state_->CheckSync("fsync " + path_);
    if (s.ok()) s = target()->Sync(options, dbg);
    if (s.ok()) state_->Synced(path_);
    return s;
  }
  IOStatus Fsync(const IOOptions& options, IODebugContext* dbg) override {
    const auto hold = state_->Hold();
    IOStatus s = state_->CheckSync("fsync " + path_);
    if (s.ok()) s = target()->Fsync(options, dbg);
    if (s.ok()) state_->Synced(path_);
    return s;
  }
  // A range sync starts writeback; it promises nothing about durability, so it syncs nothing
  // here either. After a power cut it must not touch the disk.
  IOStatus RangeSync(std::uint64_t offset, std::uint64_t nbytes, const IOOptions& options,
                     IODebugContext* dbg) override {
    const auto hold = state_->Hold();
    if (state_->power_cut()) return state_->CheckSync("range sync " + path_);
    return target()->RangeSync(offset, nbytes, options, dbg);
  }

 private:
  const std::string path_;
  const std::shared_ptr<FaultState> state_;
};

class FaultRandomAccessFile : public rocksdb::FSRandomAccessFileOwnerWrapper {
 public:
  FaultRandomAccessFile(std::unique_ptr<rocksdb::FSRandomAccessFile> file, std::string path,
                        std::shared_ptr<FaultState> state)
      : FSRandomAccessFileOwnerWrapper(std::move(file)),
        path_(std::move(path)),
        state_(std::move(state)) {}

  IOStatus Read(std::uint64_t offset, std::size_t n, const IOOptions& options, Slice* result,
                char* scratch, IODebugContext* dbg) const override {
    IOStatus s = state_->CheckRead("read " + path_);
    if (!s.ok()) return s;
    return target()->Read(offset, n, options, result, scratch, dbg);
  }
  IOStatus MultiRead(rocksdb::FSReadRequest* reqs, std::size_t num_reqs, const IOOptions& options,
                     IODebugContext* dbg) override {
    IOStatus s = state_->CheckRead("read " + path_);
    if (!s.ok()) {
      for (std::size_t i = 0; i < num_reqs; ++i) reqs[i].status = s;
      return s;
    }
    return target()->MultiRead(reqs, num_reqs, options, dbg);
  }

 private:
  const std::string path_;
  const std::shared_ptr<FaultState> state_;
};

class FaultSequentialFile : public rocksdb::FSSequentialFileOwnerWrapper {
 public:
  FaultSequentialFile(std::unique_ptr<rocksdb::FSSequentialFile> file, std::string path,
                      std::shared_ptr<FaultState> state)
      : FSSequentialFileOwnerWrapper(std::move(file)),
        path_(std::move(path)),
        state_(std::move(state)) {}

  IOStatus Read(std::size_t n, const IOOptions& options, Slice* result, char* scratch,
                IODebugContext* dbg) override {
    IOStatus s = state_->CheckRead("read " + path_);
    if (!s.ok()) return s;
    return target()->Read(n, options, result, scratch, dbg);
  }
  IOStatus PositionedRead(std::uint64_t offset, std::size_t n, const IOOptions& options,
                          Slice* result, char* scratch, IODebugContext* dbg) override {
    IOStatus s = state_->CheckRead("read " + path_);
    if (!s.ok()) return s;
    return target()->PositionedRead(offset, n, options, result, scratch, dbg);
  }

 private:
  const std::string path_;
  const std::shared_ptr<FaultState> state_;
};

class FaultDirectory : public rocksdb::FSDirectoryWrapper {
 public:
  FaultDirectory(std::unique_ptr<rocksdb::FSDirectory> dir, std::string path,
                 std::shared_ptr<FaultState> state)
      : FSDirectoryWrapper(std::move(dir)), path_(std::move(path)), state_(std::move(state)) {}

  IOStatus Fsync(const IOOptions& options, IODebugContext* dbg) override {
    const auto hold = state_->Hold();
    IOStatus s = state_->CheckSync("fsync directory " + path_);
    if (s.ok()) s = FSDirectoryWrapper::Fsync(options, dbg);
    if (s.ok()) state_->DirectorySynced(path_);
    return s;
  }
  IOStatus FsyncWithDirOptions(const IOOptions& options, IODebugContext* dbg,
                               const rocksdb::DirFsyncOptions& dir_options) override {
    const auto hold = state_->Hold();
    IOStatus s = state_->CheckSync("fsync directory " + path_);
    if (s.ok()) s = FSDirectoryWrapper::FsyncWithDirOptions(options, dbg, dir_options);
    if (s.ok()) state_->DirectorySynced(path_);
    return s;
  }

 private:
  const std::string path_;
  const std::shared_ptr<FaultState> state_;
};

class FaultFileSystem : public rocksdb::FileSystemWrapper {
 public:
  FaultFileSystem(std::shared_ptr<rocksdb::FileSystem> base, std::shared_ptr<FaultState> state)
      : FileSystemWrapper(std::move(base)), state_(std::move(state)) {}

  const char* Name() const override { return "CairnFaultFileSystem"; }

  IOStatus NewWritableFile(const std::string& f, const rocksdb::FileOptions& options,
                           std::unique_ptr<rocksdb::FSWritableFile>* result,
                           IODebugContext* dbg) override {
    const std::string path = Normalize(f);
    const auto hold = state_->Hold();
    IOStatus s = state_->CheckWrite("create " + path);
    if (s.ok()) s = target()->NewWritableFile(f, options, result, dbg);
    if (!s.ok()) return s;
    state_->Created(path);
    *result = std::make_unique<FaultWritableFile>(std::move(*result), path, state_);
    return s;
  }
  IOStatus ReopenWritableFile(const std::string& f, const rocksdb::FileOptions& options,
                              std::unique_ptr<rocksdb::FSWritableFile>* result,
                              IODebugContext* dbg) override {
    const std::string path = Normalize(f);
    const auto hold = state_->Hold();
    IOStatus s = state_->CheckWrite("reopen " + path);
    if (s.ok()) s = target()->ReopenWritableFile(f, options, result, dbg);
    if (!s.ok()) return s;
    *result = std::make_unique<FaultWritableFile>(std::move(*result), path, state_);
    return s;
  }
  IOStatus ReuseWritableFile(const std::string& f, const std::string& old,
                             const rocksdb::FileOptions& options,
                             std::unique_ptr<rocksdb::FSWritableFile>* result,
                             IODebugContext* dbg) override {
    const std::string path = Normalize(f);
    const auto hold = state_->Hold();
    IOStatus s = state_->CheckWrite("reuse " + path);
    if (s.ok()) s = target()->ReuseWritableFile(f, old, options, result, dbg);
    if (!s.ok()) return s;
    state_->Deleted(Normalize(old));
    state_->Created(path);
    *result = std::make_unique<FaultWritableFile>(std::move(*result), path, state_);
    return s;
  }
  IOStatus NewRandomRWFile(const std::string& f, const rocksdb::FileOptions& options,
                           std::unique_ptr<rocksdb::FSRandomRWFile>* result,
                           IODebugContext* dbg) override {
    const auto hold = state_->Hold();
    IOStatus s = state_->CheckWrite("open for writing " + f);
    if (!s.ok()) return s;
    return target()->NewRandomRWFile(f, options, result, dbg);
  }
  IOStatus NewRandomAccessFile(const std::string& f, const rocksdb::FileOptions& options,
                               std::unique_ptr<rocksdb::FSRandomAccessFile>* result,
                               IODebugContext* dbg) override {
    const std::string path = Normalize(f);
    IOStatus s = state_->CheckRead("open " + path);
    if (s.ok()) s = target()->NewRandomAccessFile(f, options, result, dbg);
    if (!s.ok()) return s;
    *result = std::make_unique<FaultRandomAccessFile>(std::move(*result), path, state_);
    return s;
  }
  IOStatus NewSequentialFile(const std::string& f, const rocksdb::FileOptions& options,
                             std::unique_ptr<rocksdb::FSSequentialFile>* result,
                             IODebugContext* dbg) override {
    const std::string path = Normalize(f);
    IOStatus s = state_->CheckRead("open " + path);
    if (s.ok()) s = target()->NewSequentialFile(f, options, result, dbg);
    if (!s.ok()) return s;
    *result = std::make_unique<FaultSequentialFile>(std::move(*result), path, state_);
    return s;
  }
  IOStatus NewDirectory(const std::string& name, const IOOptions& options,
                        std::unique_ptr<rocksdb::FSDirectory>* result,
                        IODebugContext* dbg) override {
    IOStatus s = target()->NewDirectory(name, options, result, dbg);
    if (!s.ok()) return s;
    *result = std::make_unique<FaultDirectory>(std::move(*result), Normalize(name), state_);
    return s;
  }
  IOStatus DeleteFile(const std::string& f, const IOOptions& options,
                      IODebugContext* dbg) override {
    // Deleting needs no free space: only a power cut or a read-only file system stops it.
    const auto hold = state_->Hold();
    IOStatus s = state_->power_cut() ? state_->CheckWrite("delete " + f) : IOStatus::OK();
    if (s.ok()) s = target()->DeleteFile(f, options, dbg);
    if (s.ok()) state_->Deleted(Normalize(f));
    return s;
  }
  IOStatus RenameFile(const std::string& from, const std::string& to, const IOOptions& options,
                      IODebugContext* dbg) override {
    const auto hold = state_->Hold();
    IOStatus s = state_->CheckWrite("rename " + from);
    if (s.ok()) s = target()->RenameFile(from, to, options, dbg);
    if (s.ok()) state_->Renamed(Normalize(from), Normalize(to));
    return s;
  }
  IOStatus LinkFile(const std::string& from, const std::string& to, const IOOptions& options,
                    IODebugContext* dbg) override {
    const auto hold = state_->Hold();
    IOStatus s = state_->CheckWrite("link " + from);
    if (!s.ok()) return s;
    return target()->LinkFile(from, to, options, dbg);
  }
  IOStatus Truncate(const std::string& f, std::size_t size, const IOOptions& options,
                    IODebugContext* dbg) override {
    const auto hold = state_->Hold();
    IOStatus s = state_->CheckWrite("truncate " + f);
    if (s.ok()) s = target()->Truncate(f, size, options, dbg);
    if (s.ok()) state_->Truncated(Normalize(f), size);
    return s;
  }
  IOStatus CreateDir(const std::string& d, const IOOptions& options, IODebugContext* dbg) override {
    const auto hold = state_->Hold();
    IOStatus s = state_->CheckWrite("create directory " + d);
    if (!s.ok()) return s;
    return target()->CreateDir(d, options, dbg);
  }
  IOStatus CreateDirIfMissing(const std::string& d, const IOOptions& options,
                              IODebugContext* dbg) override {
    const auto hold = state_->Hold();
    IOStatus s = state_->CheckWrite("create directory " + d);
    if (!s.ok()) return s;
    return target()->CreateDirIfMissing(d, options, dbg);
  }
  IOStatus GetFreeSpace(const std::string& path, const IOOptions& options, std::uint64_t* diskfree,
                        IODebugContext* dbg) override {
    if (std::optional<std::uint64_t> free = state_->free_space()) {
      *diskfree = *free;
      return IOStatus::OK();
    }
    return target()->GetFreeSpace(path, options, diskfree, dbg);
  }

 private:
  const std::shared_ptr<FaultState> state_;
};

}  // namespace

IOStatus FaultState::Failure(Fault fault, const std::string& what) {
  failures_.fetch_add(1);
  const std::string context = "injected fault: " + what;
  switch (fault) {
    case Fault::kNoSpace:
      return IOStatus::NoSpace(context, "No space left on device");
    case Fault::kReadOnly:
      return IOStatus::IOError(context, "Read-only file system");
    case Fault::kIOError:
    case Fault::kNone:
      break;
  }
  return IOStatus::IOError(context, "Input/output error");
}

IOStatus FaultState::CheckWrite(const std::string& what) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (power_cut_) return Failure(Fault::kIOError, what + " (the power is off)");
  if (write_fault_ != Fault::kNone) return Failure(write_fault_, what);
  return IOStatus::OK();
}

IOStatus FaultState::CheckSync(const std::string& what) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (power_cut_) return Failure(Fault::kIOError, what + " (the power is off)");
  if (sync_fault_ != Fault::kNone) return Failure(sync_fault_, what);
  return IOStatus::OK();
}

IOStatus FaultState::CheckRead(const std::string& what) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (read_fault_) return Failure(Fault::kIOError, what);
  return IOStatus::OK();
}

std::optional<std::uint64_t> FaultState::free_space() const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return free_space_;
}

void FaultState::Created(const std::string& path) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  files_[path] = File{};
}

void FaultState::Appended(const std::string& path, std::uint64_t bytes) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  auto it = files_.find(path);
  if (it != files_.end()) it->second.size += bytes;
}

void FaultState::Truncated(const std::string& path, std::uint64_t size) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) return;
  it->second.size = size;
  if (it->second.synced > size) it->second.synced = size;
}

void FaultState::Synced(const std::string& path) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  auto it = files_.find(path);
  if (it != files_.end()) it->second.synced = it->second.size;
}

void FaultState::DirectorySynced(const std::string& dir) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  for (auto& [path, file] : files_) {
    if (Parent(path) == dir) file.new_since_directory_sync = false;
  }
}

void FaultState::Deleted(const std::string& path) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  files_.erase(path);
}

void FaultState::Renamed(const std::string& from, const std::string& to) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  auto it = files_.find(from);
  if (it == files_.end()) {
    files_.erase(to);  // Renamed over a file we tracked: its bytes are gone.
    return;
  }
  File file = it->second;
  files_.erase(it);
  files_[to] = file;
}

void FaultState::SetWriteFault(Fault fault) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  write_fault_ = fault;
}

void FaultState::SetSyncFault(Fault fault) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  sync_fault_ = fault;
}

void FaultState::SetReadFault(bool fail) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  read_fault_ = fail;
}

void FaultState::SetFreeSpace(std::optional<std::uint64_t> bytes) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  free_space_ = bytes;
}

void FaultState::Clear() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  write_fault_ = sync_fault_ = Fault::kNone;
  read_fault_ = false;
  free_space_.reset();
}

void FaultState::CutPower() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  power_cut_ = true;
}

bool FaultState::power_cut() const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return power_cut_;
}

Status FaultState::DropUnsyncedData(bool power_back_on) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (!power_cut_) {
    return Status::FailedPrecondition("DropUnsyncedData needs a power cut first (CutPower)");
  }
  for (const auto& [path, file] : files_) {
    std::error_code ec;
    if (file.new_since_directory_sync) {
      std::filesystem::remove(path, ec);
    } else if (std::filesystem::exists(path, ec) &&
               std::filesystem::file_size(path, ec) > file.synced) {
      std::filesystem::resize_file(path, file.synced, ec);
    }
    if (ec)
      return Status::IOError("simulated power loss: cannot cut back " + path + ": " + ec.message());
  }
  files_.clear();
  power_cut_ = !power_back_on;
  write_fault_ = sync_fault_ = Fault::kNone;
  read_fault_ = false;
  free_space_.reset();
  return Status::Ok();
}

std::uint64_t FaultState::unsynced_bytes() const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  std::uint64_t total = 0;
  for (const auto& [path, file] : files_) total += file.size - file.synced;
  return total;
}

std::shared_ptr<rocksdb::FileSystem> NewFaultFileSystem(std::shared_ptr<rocksdb::FileSystem> base,
                                                        std::shared_ptr<FaultState> state) {
  return std::make_shared<FaultFileSystem>(std::move(base), std::move(state));
}

}  // namespace cairn::internal

// The public face (cairn/fault_injection.h).
namespace cairn {

FaultInjection::FaultInjection() : state_(std::make_shared<internal::FaultState>()) {}

std::shared_ptr<FaultInjection> FaultInjection::Create() {
  return std::shared_ptr<FaultInjection>(new FaultInjection());
}

void FaultInjection::FailWrites(Fault fault) { state_->SetWriteFault(fault); }
void FaultInjection::FailSyncs(Fault fault) { state_->SetSyncFault(fault); }
void FaultInjection::FailReads(bool fail) { state_->SetReadFault(fail); }
void FaultInjection::SetFreeSpace(std::optional<std::uint64_t> bytes) {
  state_->SetFreeSpace(bytes);
}
void FaultInjection::Clear() { state_->Clear(); }
void FaultInjection::CutPower() { state_->CutPower(); }
bool FaultInjection::power_cut() const { return state_->power_cut(); }
Status FaultInjection::DropUnsyncedData(bool power_back_on) {
  return state_->DropUnsyncedData(power_back_on);
}
std::uint64_t FaultInjection::unsynced_bytes() const { return state_->unsynced_bytes(); }
std::uint64_t FaultInjection::injected_failures() const { return state_->injected_failures(); }

std::string FaultName(FaultInjection::Fault fault) {
  switch (fault) {
    case FaultInjection::Fault::kNone:
      return "none";
    case FaultInjection::Fault::kNoSpace:
      return "nospace";
    case FaultInjection::Fault::kIOError:
      return "eio";
    case FaultInjection::Fault::kReadOnly:
      return "erofs";
  }
  return "none";
}

}  // namespace cairn
