#include "commands/keyspace_scan.h"

#include <string>

namespace cairn::server {

Status ScanKeyspace(Records& data, std::string_view prefix, std::optional<std::size_t> limit,
                    const std::function<bool(const ScanEntry&)>& visit) {
  std::string cursor;
  std::size_t visited = 0;
  do {
    ScanRequest request;
    request.prefix = prefix;
    request.cursor = cursor;
    request.count = 1000;
    Result<ScanPage> page = data.Scan(request);
    if (!page.ok()) return page.status();
    for (const ScanEntry& e : page->entries) {
      if (limit && visited >= *limit) return Status::Ok();
      ++visited;
      if (!visit(e)) return Status::Ok();
    }
    cursor = std::move(page->cursor);
  } while (!cursor.empty());
  return Status::Ok();
}

}  // namespace cairn::server
