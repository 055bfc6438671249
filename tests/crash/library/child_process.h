// The parent's handle on one library-mode child: this same binary run again with --child, its
// stdin and stdout on pipes to the parent (the power-cut word in, the call lines out), its
// stderr appended to a log. A new program rather than a fork: the parent has had a store open,
// and RocksDB's threads do not survive a fork.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace cairn::crash::library {

class ChildProcess {
 public:
  // Starts `program` with `args`; ok() says whether it started, error() why not.
  ChildProcess(const std::string& program, const std::vector<std::string>& args,
               const std::string& log_path);
  ~ChildProcess();  // kills and reaps a child still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool ok() const { return pid_ > 0; }
  const std::string& error() const { return error_; }
  pid_t pid() const { return pid_; }

  // Reads what the child wrote, waiting up to timeout_ms. Appends whole lines (without their
  // newline) to *lines; false at end of file (the child is gone).
  bool ReadLines(int timeout_ms, std::vector<std::string>* lines);
  // Writes one byte to the child's stdin (it may be gone already: then nothing happens).
  void Send(char c);
  void Kill(int signal);
  // Reaps the child: its wait status.
  int Wait();

 private:
  pid_t pid_ = -1;
  int in_ = -1;   // the child's stdin
  int out_ = -1;  // the child's stdout
  std::string pending_;
  std::string error_;
};

// The path of the running program (to start it again as the child).
std::string SelfPath();

}  // namespace cairn::crash::library
