// The config-file parser on any text (a config file is input from outside: a path on the
// command line, a file another program wrote). Beyond ASan and UBSan it checks that a file the
// parser accepts describes a configuration CONFIG GET can report and CONFIG SET (or a config
// file) can rebuild exactly: each parameter CONFIG GET lists, set on a fresh configuration,
// gives the same listing. Also drives the glob matcher (CONFIG GET patterns, KEYS, SCAN MATCH):
// outside classes, ignoring case must be matching in lower case, and a pattern without special
// characters matches only itself; and the memory-size and config-line parsers, with the same bytes.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/server_config.h"
#include "fuzz_support.h"

namespace {

using cairn::server::ServerConfig;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

void CheckRoundTrip(const ServerConfig& config) {
  const std::vector<std::pair<std::string, std::string>> listed =
      cairn::server::GetParameters("*", config);
  ServerConfig rebuilt;
  for (const auto& [name, value] : listed) {
    const cairn::Status set = cairn::server::SetParameter(name, value, /*runtime=*/false, &rebuilt);
    if (!set.ok()) {
      std::fprintf(stderr, "CONFIG GET gave %s=\"%s\", which cannot be set back: %s\n",
                   name.c_str(), value.c_str(), set.ToString().c_str());
    }
    FUZZ_CHECK(set.ok());
  }
  FUZZ_CHECK(cairn::server::GetParameters("*", rebuilt) == listed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  ServerConfig config;
  if (cairn::server::ApplyConfigText(text, "fuzz.conf", &config).ok()) CheckRoundTrip(config);

  // The first line as a glob pattern, the rest as the text it is matched against.
  const std::size_t newline = text.find('\n');
  const std::string_view pattern = text.substr(0, newline);
  const std::string_view subject =
      newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
  const bool exact = cairn::server::GlobMatch(pattern, subject, false);
  const bool nocase = cairn::server::GlobMatch(pattern, subject, true);
  // Outside classes and escapes, ignoring case is matching both in lower case. (Not inside:
  // as in Redis, a range's ends are ordered before they are folded, so "[Z-c]" ignoring case
  // matches nothing, and an escaped byte in a class is compared exactly.)
  if (pattern.find_first_of("[\\") == std::string_view::npos) {
    FUZZ_CHECK(nocase == cairn::server::GlobMatch(Lower(pattern), Lower(subject), false));
  }
  if (pattern.find_first_of("*?[\\") == std::string_view::npos) {
    FUZZ_CHECK(exact == (pattern == subject));  // No special characters: plain equality.
  }

  (void)cairn::server::ParseMemorySize(pattern);
  (void)cairn::server::SplitConfigLine(pattern);
  return 0;
}
