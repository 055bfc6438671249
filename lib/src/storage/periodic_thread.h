// PeriodicThread: runs a task on a thread of its own once per period until destroyed. Behind
// Durability::kEverySec (an fsync of the write-ahead log each second) and the store's health
// check (free space, resuming writes).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace cairn::internal {

class PeriodicThread {
 public:
  // `name`: the thread's name, for ps and debuggers (at most 15 characters).
  PeriodicThread(const std::string& name, std::chrono::milliseconds period,
                 std::function<void()> task);
  ~PeriodicThread();  // Stops the thread, after the task's current run if one is under way.
  PeriodicThread(const PeriodicThread&) = delete;
  PeriodicThread& operator=(const PeriodicThread&) = delete;

 private:
  void Run();

  const std::chrono::milliseconds period_;
  const std::function<void()> task_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace cairn::internal
