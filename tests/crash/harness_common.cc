#include "crash/harness_common.h"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <vector>

namespace cairn::crash {

bool ParseKillChoice(std::string_view text, KillChoice* out) {
  if (text == "sigkill") {
    *out = KillChoice::kSigkill;
  } else if (text == "powercut") {
    *out = KillChoice::kPowercut;
  } else if (text == "both") {
    *out = KillChoice::kBoth;
  } else {
    return false;
  }
  return true;
}

bool ParseInt(std::string_view text, long long min, long long max, long long* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  const std::string s(text);
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (end == nullptr || *end != '\0' || v < min || v > max) return false;
  *out = v;
  return true;
}

std::string StatusText(int status) {
  if (status == -1) return "still running after 30 s";
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

std::string LogTail(const std::string& path, std::size_t lines) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(line);
  std::string out;
  for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) {
    out += "    | " + all[i] + "\n";
  }
  return out;
}

}  // namespace cairn::crash
