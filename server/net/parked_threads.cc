#include "net/parked_threads.h"

namespace cairn::server {

void ParkedThreads::Run(std::function<void()> fn) {
  std::vector<std::thread> done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    done.swap(finished_);
    const std::uint64_t id = next_id_++;
    // The thread files itself under finished_ when its call returns; it takes mu_ to do so,
    // so it cannot get there before it is filed under running_.
    running_.emplace(id, std::thread([this, id, fn = std::move(fn)] {
                       fn();
                       std::lock_guard<std::mutex> done_lock(mu_);
                       auto it = running_.find(id);
                       if (it == running_.end()) return;  // JoinAll has it and joins it.
                       finished_.push_back(std::move(it->second));
                       running_.erase(it);
                     }));
  }
  for (std::thread& t : done) t.join();  // Already past their call: this returns at once.
}

void ParkedThreads::JoinAll() {
  while (true) {
    std::vector<std::thread> all;
    {
      std::lock_guard<std::mutex> lock(mu_);
      all.swap(finished_);
      for (auto& [id, t] : running_) all.push_back(std::move(t));
      running_.clear();
      if (all.empty()) return;
    }
    for (std::thread& t : all) t.join();
  }
}

}  // namespace cairn::server
