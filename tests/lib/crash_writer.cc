// crash_writer: the child process of crash_safety_test. It writes to a Cairn store without end
// and reports each write on stdout only once the store has acknowledged it, so that the test
// can kill it with SIGKILL at any moment and then check that every reported write survived.
//
// Usage: crash_writer <data_dir> <always|everysec|none>
//
// Write n (n = 0, 1, 2, ...) stores the value ValueFor(n). Nine writes in ten are one
// Store::Set of "k<n>", reported as the line "<n>"; every tenth (n % 10 == 9) is a transaction
// that sets "t<n>a" and "t<n>b", reported as "t<n>" after Commit returned OK. On any error the
// program prints it to stderr and exits with status 1.
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "cairn/options.h"
#include "cairn/status.h"
#include "cairn/store.h"
#include "cairn/transaction.h"
#include "crash_protocol.h"

namespace {

using cairn::crash::IsTransaction;
using cairn::crash::ValueFor;

int Fail(std::string_view what, const cairn::Status& status) {
  std::fprintf(stderr, "crash_writer: %.*s: %s\n", static_cast<int>(what.size()), what.data(),
               status.ToString().c_str());
  return 1;
}

// Writes line to stdout with write(2), unbuffered, so that it is in the pipe before the next
// store call starts. False (errno set) on failure.
bool Report(std::string_view line) {
  while (!line.empty()) {
    const ssize_t written = write(STDOUT_FILENO, line.data(), line.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    line.remove_prefix(static_cast<std::size_t>(written));
  }
  return true;
}

// Commits one transaction that sets name + "a" and name + "b" to value.
cairn::Status WritePair(cairn::Store& store, const std::string& name, const std::string& value) {
  auto txn = store.BeginTransaction();
  if (!txn.ok()) return txn.status();
  for (const char* suffix : {"a", "b"}) {
    auto set = (*txn)->Set(name + suffix, value);
    if (!set.ok()) return set.status();
    if (!set->applied) return cairn::Status::Internal("transaction Set was not applied");
  }
  return (*txn)->Commit();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: crash_writer <data_dir> <always|everysec|none>\n");
    return 1;
  }
  auto durability = cairn::ParseDurability(argv[2]);
  if (!durability.ok()) return Fail("durability", durability.status());

  cairn::Options options;
  options.data_dir = argv[1];
  options.durability = *durability;
  auto opened = cairn::Store::Open(options);
  if (!opened.ok()) return Fail("Store::Open", opened.status());
  std::unique_ptr<cairn::Store> store = std::move(opened).value();

  for (std::uint64_t n = 0;; ++n) {
    const std::string value = ValueFor(n);
    std::string line;
    if (IsTransaction(n)) {
      line = "t" + std::to_string(n);
      cairn::Status status = WritePair(*store, line, value);
      if (!status.ok()) return Fail("transaction " + line, status);
    } else {
      const std::string key = "k" + std::to_string(n);
      auto set = store->Set(key, value);
      if (!set.ok()) return Fail("Set " + key, set.status());
      if (!set->applied) return Fail("Set " + key, cairn::Status::Internal("not applied"));
      line = std::to_string(n);
    }
    line += '\n';
    if (!Report(line)) {
      std::fprintf(stderr, "crash_writer: write to stdout: %s\n", std::strerror(errno));
      return 1;
    }
  }
}
