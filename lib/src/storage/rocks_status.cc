#include "storage/rocks_status.h"

#include <string>

namespace cairn::internal {

Status FromRocks(const rocksdb::Status& status, std::string_view context) {
  if (status.ok()) return Status::Ok();
  std::string message(context);
  message += ": ";
  if (status.IsDeadlock()) {
    return Status::Busy(message + "deadlock detected between transactions; retry");
  }
  if (status.IsTimedOut() || status.IsBusy() || status.IsTryAgain()) {
    return Status::Busy(message + "a key is locked by another transaction (" + status.ToString() +
                        "); retry");
  }
  message += status.ToString();
  if (status.IsNotFound()) return Status::NotFound(message);
  if (status.IsCorruption()) return Status::Corruption(message);
  if (status.IsInvalidArgument()) return Status::InvalidArgument(message);
  if (status.IsNotSupported()) return Status::NotSupported(message);
  if (status.IsIOError()) return Status::IOError(message);
  return Status::Internal(message);
}

}  // namespace cairn::internal
