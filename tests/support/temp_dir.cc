#include "support/temp_dir.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <string_view>

namespace cairn::test {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "cairn-test-XXXXXX").string();
  char* made = mkdtemp(pattern.data());
  if (made == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = made;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

Options TestOptions(const std::string& dir, std::shared_ptr<Clock> clock) {
  Options options;
  options.data_dir = dir;
  options.durability = Durability::kNone;
  options.block_cache_bytes = 8 << 20;
  options.clock = std::move(clock);
  const char* serialized = std::getenv("CAIRN_TEST_SERIALIZE_KEYSPACE");
  options.serialize_keyspace = serialized != nullptr && std::string_view(serialized) == "1";
  return options;
}

std::unique_ptr<Store> OpenOrDie(const Options& options) {
  auto store = Store::Open(options);
  if (!store.ok()) {
    ADD_FAILURE() << "Store::Open failed: " << store.status().ToString();
    throw std::runtime_error(store.status().ToString());
  }
  return std::move(store).value();
}

}  // namespace cairn::test
