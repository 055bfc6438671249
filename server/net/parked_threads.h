// The threads that run the library's parked waits (commands/parked_call.h: QUEUE.CLAIM with
// BLOCK), one per waiting client, so that a wait never holds the executor or
// an io thread. (Clients blocked on keys are waiter entries and hold no thread.) Each ends when its call returns; JoinAll,
// at shutdown after every connection has been told to stop, waits for the last of them so
// that none outlives the store it waits on. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace cairn::server {

class ParkedThreads {
 public:
  ParkedThreads() = default;
  ~ParkedThreads() { JoinAll(); }
  ParkedThreads(const ParkedThreads&) = delete;
  ParkedThreads& operator=(const ParkedThreads&) = delete;

  // Runs fn on a new thread.
  void Run(std::function<void()> fn);
  // Waits for every thread started so far.
  void JoinAll();

 private:
  std::mutex mu_;
  std::uint64_t next_id_ = 0;
  std::map<std::uint64_t, std::thread> running_;
  std::vector<std::thread> finished_;  // Done with their call; joined on the next Run.
};

}  // namespace cairn::server
