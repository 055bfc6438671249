// queue_crash_consumer: the child process of queue_crash_test. It consumes the jobs of a
// queue with several threads and logs every claim and every ack (queue_crash_protocol.h), so
// that the test can kill it with SIGKILL in the middle of a job and then check, on the
// reopened store, that no job is lost and none is acknowledged twice.
//
// Usage: queue_crash_consumer <data_dir> <log_path> <threads> <visibility_ms>
//
// Opens the store (durability always, system clock) and runs <threads> consumers of group
// kGroup of queue kQueue. Each claims one job at a time with a lease of <visibility_ms>,
// logs "claimed", works on it for up to 2 ms, acks it and logs "acked". When the queue is
// empty they wait in Claim, so the program runs until it is killed. On any error it prints
// the error to stderr and exits with status 1.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "cairn/options.h"
#include "cairn/queue.h"
#include "cairn/status.h"
#include "cairn/store.h"
#include "queue_crash_protocol.h"

namespace {

using cairn::queue_crash::kConsumerPrefix;
using cairn::queue_crash::kGroup;
using cairn::queue_crash::kQueue;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "queue_crash_consumer: %s\n", what.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

int log_fd = -1;

// Appends line to the log with one write(2): the file is opened with O_APPEND, so concurrent
// lines do not interleave, and the line is in the file before this returns.
void Log(const std::string& line) {
  const ssize_t written = write(log_fd, line.data(), line.size());
  if (written < 0) Die(std::string("write to the log: ") + std::strerror(errno));
  if (static_cast<std::size_t>(written) != line.size()) Die("short write to the log");
}

void Consume(cairn::Queue& queue, int thread, std::int64_t visibility_ms) {
  const std::string consumer = std::string(kConsumerPrefix) + std::to_string(thread);
  const std::string suffix = " " + std::to_string(thread);
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> work_us(0, 2000);
  cairn::ClaimOptions options;
  options.max_jobs = 1;
  options.visibility_ms = visibility_ms;
  options.wait_ms = 1000;
  for (;;) {
    auto claimed = queue.Claim(kQueue, kGroup, consumer, options);
    if (!claimed.ok()) Die("Claim: " + claimed.status().ToString());
    for (const cairn::ClaimedJob& job : *claimed) {
      const std::string& id = job.ref.job_id;
      Log("claimed " + id + " " + std::to_string(job.attempt) + suffix + " " +
          std::to_string(job.deadline_ms) + "\n");
      // The "work": long enough that a kill often lands in the middle of a job.
      std::this_thread::sleep_for(std::chrono::microseconds(work_us(rng)));
      auto acked = queue.Ack(job.ref);
      if (!acked.ok()) Die("Ack " + id + ": " + acked.status().ToString());
      Log((*acked == cairn::OwnerResult::kDone ? "acked " : "notowner ") + id + suffix + "\n");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr,
                 "usage: queue_crash_consumer <data_dir> <log_path> <threads> <visibility_ms>\n");
    return 1;
  }
  const int threads = std::atoi(argv[3]);
  const std::int64_t visibility_ms = std::atoll(argv[4]);
  if (threads < 1 || visibility_ms < 1) Die("threads and visibility_ms must be positive");

  log_fd = open(argv[2], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) Die(std::string("open ") + argv[2] + ": " + std::strerror(errno));

  cairn::Options options;
  options.data_dir = argv[1];
  options.create_if_missing = false;
  options.durability = cairn::Durability::kAlways;
  auto opened = cairn::Store::Open(options);
  if (!opened.ok()) Die("Store::Open: " + opened.status().ToString());
  std::unique_ptr<cairn::Store> store = std::move(opened).value();
  cairn::Queue queue(*store);

  std::vector<std::thread> consumers;
  for (int t = 0; t < threads; ++t) {
    consumers.emplace_back([&queue, t, visibility_ms] { Consume(queue, t, visibility_ms); });
  }
  for (std::thread& consumer : consumers) consumer.join();  // Never: they run until killed.
  return 0;
}
