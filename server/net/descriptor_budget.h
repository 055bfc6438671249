// Shares the process's file descriptors out between clients and the store before the server
// starts, as Redis does for maxclients: each client takes one, the store takes its table files
// and a few more, and the server itself a few (listeners, io threads' event descriptors). The
// open-file limit (RLIMIT_NOFILE) is raised as far as needed and allowed; when it still falls
// short, maxclients is lowered to what fits, so that the server refuses extra clients with an
// error instead of failing to open a file or accept a connection.
#pragma once

#include <string>

#include "cairn/result.h"

namespace cairn::server {

struct DescriptorBudget {
  int maxclients = 0;             // Clients the server may serve (at most the number asked for).
  int store_table_files = 0;      // Options::max_open_files for the store.
  long long open_file_limit = 0;  // The limit in force after raising it.
  std::string note;               // Empty, or what was raised or lowered, for the log.
};

// REQUIRES: requested_maxclients >= 1. kInvalidArgument when the limit leaves no room even for
// one client and the store's minimum (it says how far to raise `ulimit -n`).
Result<DescriptorBudget> ShareDescriptors(int requested_maxclients);

// The descriptors set aside besides clients, and the most table files the store gets.
inline constexpr int kServerDescriptors = 32;
inline constexpr int kStoreOtherFiles = 64;  // WAL, MANIFEST, LOG, LOCK, directories.
inline constexpr int kStoreTableFilesMax = 1000;
inline constexpr int kStoreTableFilesMin = 20;  // RocksDB's own minimum.

}  // namespace cairn::server
