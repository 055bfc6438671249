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
// durability set it themselves). With CAIRN_TEST_SERIALIZE_KEYSPACE=1 in the environment, in
// the serialized keyspace (Options::serialize_keyspace, the mode cairn-server runs) instead
// of row locks: tools/test runs the data-type and engine tests once in each.
Options TestOptions(const std::string& dir, std::shared_ptr<Clock> clock = nullptr);

// Opens a store or fails the current test (fatal).
std::unique_ptr<Store> OpenOrDie(const Options& options);

}  // namespace cairn::test
