#include "net/descriptor_budget.h"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace cairn::server {

Result<DescriptorBudget> ShareDescriptors(int requested_maxclients) {
  const long long fixed = kServerDescriptors + kStoreOtherFiles;
  const long long wanted = fixed + kStoreTableFilesMax + requested_maxclients;
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return Status::IOError(std::string("cannot read the open-file limit: ") + std::strerror(errno));
  }
  DescriptorBudget budget;
  std::string raised;
  if (limit.rlim_cur != RLIM_INFINITY && static_cast<long long>(limit.rlim_cur) < wanted) {
    rlimit more = limit;
    more.rlim_cur = limit.rlim_max == RLIM_INFINITY
                        ? static_cast<rlim_t>(wanted)
                        : std::min(static_cast<rlim_t>(wanted), limit.rlim_max);
    if (more.rlim_cur > limit.rlim_cur && setrlimit(RLIMIT_NOFILE, &more) == 0) {
      raised = "open-file limit raised from " + std::to_string(limit.rlim_cur) + " to " +
               std::to_string(more.rlim_cur);
      limit = more;
    }
  }
  const long long available =
      limit.rlim_cur == RLIM_INFINITY ? wanted : static_cast<long long>(limit.rlim_cur);
  budget.open_file_limit = available;
  if (available >= wanted) {
    budget.maxclients = requested_maxclients;
    budget.store_table_files = kStoreTableFilesMax;
    budget.note = raised;
    return budget;
  }
  // Short: the store keeps a quarter of what is left after the fixed needs (within its
  // bounds), the clients get the rest.
  const long long spare = available - fixed;
  const long long table_files =
      std::clamp<long long>(spare / 4, kStoreTableFilesMin, kStoreTableFilesMax);
  const long long clients = std::min<long long>(requested_maxclients, spare - table_files);
  if (clients < 1) {
    return Status::InvalidArgument(
        "the open-file limit is " + std::to_string(available) + ", too low to open the store " +
        "and serve one client: raise it (ulimit -n) to at least " +
        std::to_string(fixed + kStoreTableFilesMin + 1) + ", or better " + std::to_string(wanted));
  }
  budget.maxclients = static_cast<int>(clients);
  budget.store_table_files = static_cast<int>(table_files);
  budget.note = (raised.empty() ? "" : raised + "; ") + "the open-file limit " +
                std::to_string(available) + " cannot hold maxclients " +
                std::to_string(requested_maxclients) + ": maxclients lowered to " +
                std::to_string(clients) + " (raise the limit, ulimit -n, to at least " +
                std::to_string(wanted) + " to serve them all)";
  return budget;
}

}  // namespace cairn::server
