// One client process of the lock check: takes leases over its own RESP connection, writes
// through them with LEASE.FENCEDSET, sometimes extends them, releases most and lets some lapse,
// and records every command in its history file (history.h). It runs until the parent sets
// `stop`; the parent may SIGSTOP it at any moment, most often while it holds a lease (it says
// so in `holding`), so that it resumes past its TTL still believing it holds it.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace cairn::lockcheck {

inline constexpr int kMaxClients = 256;

// In memory shared by the parent and its client processes (mmap MAP_SHARED, before fork).
struct SharedState {
  std::atomic<bool> stop{false};
  std::atomic<bool> holding[kMaxClients];
};

struct WorkerConfig {
  int id = 0;
  int port = 0;
  std::vector<int> limits;  // Per resource: its LIMIT (1: a lease).
  int ttl_ms = 150;
  std::uint64_t seed = 0;
  std::string history_path;
  SharedState* shared = nullptr;
};

// The resource names and their data keys, for the worker and the final read.
std::string ResourceName(int resource);
std::string DataKey(int resource);

// Runs until shared->stop; 0 when it ran to the end, 2 when it could not connect or write
// its history.
int RunWorker(const WorkerConfig& config);

}  // namespace cairn::lockcheck
