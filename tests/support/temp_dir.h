// A fresh directory under the system temp dir, removed with everything in it on destruction,
// so that every test has its own data directory and ctest -j is safe.
#pragma once

#include <memory>
#include <string>

#include "cairn/clock.h"
#include "cairn/store.h"

namespace cairn::test {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // A path inside the directory.
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Options for a store in dir, on the given clock, with durability none (tests that are about
// durability set it themselves).
Options TestOptions(const std::string& dir, std::shared_ptr<Clock> clock = nullptr);

// Opens a store or fails the current test (fatal).
std::unique_ptr<Store> OpenOrDie(const Options& options);

}  // namespace cairn::test
