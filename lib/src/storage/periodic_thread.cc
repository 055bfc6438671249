#include "storage/periodic_thread.h"

#include <pthread.h>

#include <utility>

namespace cairn::internal {

PeriodicThread::PeriodicThread(const std::string& name, std::chrono::milliseconds period,
                               std::function<void()> task)
    : period_(period), task_(std::move(task)), thread_([this] { Run(); }) {
  pthread_setname_np(thread_.native_handle(), name.substr(0, 15).c_str());
}

PeriodicThread::~PeriodicThread() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void PeriodicThread::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, period_, [this] { return stop_; })) {
    lock.unlock();
    task_();
    lock.lock();
  }
}

}  // namespace cairn::internal
