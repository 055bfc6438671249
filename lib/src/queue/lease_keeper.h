// LeaseKeeper: extends the leases of jobs whose handlers are still running, each every
// visibility/3 on the store's Clock, from one thread (Run) for a whole worker pool. A lease
// that cannot be extended (lost, or the job finished meanwhile) is dropped from the watch.
// Thread-safe: Track/Untrack from handler threads, Run on its own thread, Stop from anywhere.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "cairn/clock.h"
#include "cairn/queue.h"

namespace cairn::internal {

class LeaseKeeper {
 public:
  LeaseKeeper(Queue& queue, const Clock& clock, std::int64_t visibility_ms);

  void Track(const JobRef& job);
  void Untrack(const JobRef& job);

  // Extends due leases until Stop.
  void Run();
  void Stop();

 private:
  struct Watched {
    JobRef job;
    std::int64_t next_extend_ms = 0;
  };

  std::int64_t Interval() const;

  Queue& queue_;
  const Clock& clock_;
  const std::int64_t visibility_ms_;
  Wakeup wakeup_;
  std::mutex mu_;
  std::map<std::string, Watched> watched_;  // By lease token.
  std::int64_t planned_wake_ms_ = 0;        // When Run will next look, if not woken.
  bool stopping_ = false;
};

}  // namespace cairn::internal
