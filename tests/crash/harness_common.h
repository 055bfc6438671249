// What the crash harness's two modes (cairn-server, tests/crash; the library in-process,
// tests/crash/library) share: the kill choice and its parsing, integer options, and the words
// for how a process ended and what its log said last.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cairn::crash {

enum class KillChoice { kSigkill, kPowercut, kBoth };

// "sigkill", "powercut" or "both"; false for anything else.
bool ParseKillChoice(std::string_view text, KillChoice* out);
// A decimal integer from min to max, the whole text.
bool ParseInt(std::string_view text, long long min, long long max, long long* out);
// A waitpid status in words ("exit code 1", "signal 9"); -1: still running after 30 s.
std::string StatusText(int status);
// The last `lines` lines of a log file, indented for a report.
std::string LogTail(const std::string& path, std::size_t lines);

}  // namespace cairn::crash
