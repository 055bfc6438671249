#include "queue/lease_keeper.h"

#include <algorithm>
#include <vector>

namespace cairn::internal {

LeaseKeeper::LeaseKeeper(Queue& queue, const Clock& clock, std::int64_t visibility_ms)
    : queue_(queue), clock_(clock), visibility_ms_(visibility_ms) {}

std::int64_t LeaseKeeper::Interval() const { return std::max<std::int64_t>(1, visibility_ms_ / 3); }

void LeaseKeeper::Track(const JobRef& job) {
  const std::int64_t next = clock_.NowMs() + Interval();
  bool sooner = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    watched_[job.token] = Watched{job, next};
    sooner = next < planned_wake_ms_;
  }
  // Only when Run would otherwise sleep past this job's first extension.
  if (sooner) wakeup_.Notify();
}

void LeaseKeeper::Untrack(const JobRef& job) {
  std::lock_guard<std::mutex> lock(mu_);
  watched_.erase(job.token);
}

void LeaseKeeper::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wakeup_.Notify();
}

void LeaseKeeper::Run() {
  while (true) {
    std::vector<JobRef> due;
    std::int64_t wake = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
      const std::int64_t now = clock_.NowMs();
      wake = now + visibility_ms_;
      for (auto& [token, watched] : watched_) {
        if (watched.next_extend_ms <= now) {
          due.push_back(watched.job);
          watched.next_extend_ms = now + Interval();
        }
        wake = std::min(wake, watched.next_extend_ms);
      }
      planned_wake_ms_ = due.empty() ? wake : 0;
    }
    if (due.empty()) {
      clock_.WaitUntil(wakeup_, wake);
      continue;
    }
    for (const JobRef& job : due) {
      Result<OwnerResult> extended = queue_.Extend(job, visibility_ms_);
      if (extended.ok() && *extended == OwnerResult::kDone) continue;
      // Lost or already finished: the handler's verdict will find out; stop extending.
      Untrack(job);
    }
  }
}

}  // namespace cairn::internal
