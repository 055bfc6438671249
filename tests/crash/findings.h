// What the crash harness found wrong: an acknowledged write that is gone, a state the model
// cannot explain, a reply that contradicts the model. Any finding fails the run. Client threads
// add to it concurrently.
#pragma once

#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace cairn::crash {

struct Finding {
  std::string what;      // e.g. "acknowledged write lost"
  std::string key;       // the key, job or resource, with its kind
  std::string expected;  // what the model accepts
  std::string found;     // what the server has or said
};

class Findings {
 public:
  void Add(Finding finding) {
    std::lock_guard<std::mutex> lock(mu_);
    list_.push_back(std::move(finding));
  }
  std::vector<Finding> Take() {
    std::lock_guard<std::mutex> lock(mu_);
    return std::exchange(list_, {});
  }
  bool empty() const {
    std::lock_guard<std::mutex> lock(mu_);
    return list_.empty();
  }

 private:
  mutable std::mutex mu_;
  std::vector<Finding> list_;
};

}  // namespace cairn::crash
