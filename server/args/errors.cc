#include "args/errors.h"

namespace cairn::server {

std::string WrongArity(std::string_view name) {
  return "ERR wrong number of arguments for '" + std::string(name) + "' command";
}

std::string InvalidExpire(std::string_view name) {
  return "ERR invalid expire time in '" + std::string(name) + "' command";
}

std::string StorageRefusal(const Status& cause) {
  return "MISCONF Cairn cannot write to its disk, so commands that may modify the data set are "
         "refused until the cause is gone; reads still work (INFO persistence has the details): " +
         cause.message();
}

void ReplyStatus(resp::ReplyWriter& reply, const Status& status) {
  switch (status.code()) {
    case StatusCode::kWrongType:
      reply.Error(kWrongTypeError);
      return;
    case StatusCode::kOutOfRange:
      reply.Error(kOverflowError);
      return;
    default:
      reply.Error("ERR " + std::string(status.message()));
  }
}

}  // namespace cairn::server
