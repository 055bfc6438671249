// cairn-server's configuration: Redis quoting of config lines, memory units, config files with
// comments and quotes, command-line flags over a file, bind with several addresses, CONFIG SET
// of mutable and immutable parameters with Redis 7's error wording, CONFIG GET patterns, the
// help and version texts, and the glob matcher (checked against a slow reference matcher and
// against patterns that make naive matchers take exponential time).
#include "config/server_config.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/temp_dir.h"

namespace cairn::server {

// Readable failure messages (found by ADL).
void PrintTo(LaunchAction action, std::ostream* os) {
  static constexpr const char* kNames[] = {"kRun", "kHelp", "kVersion"};
  *os << kNames[static_cast<int>(action)];
}

namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

std::vector<std::string> Argv(std::vector<std::string> args) {
  args.insert(args.begin(), "cairn-server");
  return args;
}

// Writes text to a file in dir and returns its path.
std::string WriteFile(const test::TempDir& dir, const std::string& name, const std::string& text) {
  std::string path = dir.Sub(name);
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  EXPECT_TRUE(out.good()) << path;
  return path;
}

// ---------------------------------------------------------------------------------------------
// GlobMatch

struct GlobCase {
  std::string pattern;
  std::string text;
  bool nocase;
  bool match;
};

TEST(GlobMatchTest, FollowsRedisRules) {
  const std::vector<GlobCase> cases = {
      // Literals and the empty cases.
      {"", "", false, true},
      {"", "a", false, false},
      {"a", "", false, false},
      {"abc", "abc", false, true},
      {"abc", "abd", false, false},
      {"abc", "abcd", false, false},
      // '*' runs, including empty ones and several in a row.
      {"*", "", false, true},
      {"**", "", false, true},
      {"*", "anything at all", false, true},
      {"a*", "a", false, true},
      {"a*", "ba", false, false},
      {"*a", "ba", false, true},
      {"*a", "ab", false, false},
      {"h*llo", "hllo", false, true},
      {"h*llo", "heeeello", false, true},
      {"a*b*c", "aXXbYYc", false, true},
      {"a*b*c", "aXXbYY", false, false},
      {"a*b*c", "abcbc", false, true},
      {"**a**", "bab", false, true},
      {"*.conf", "cairn.conf", false, true},
      {"*.conf", "cairn.conf.bak", false, false},
      // '?' is exactly one byte.
      {"h?llo", "hello", false, true},
      {"h?llo", "hllo", false, false},
      {"?", "", false, false},
      {"*?", "", false, false},
      {"*?", "a", false, true},
      {"???", "abc", false, true},
      // Classes.
      {"h[ae]llo", "hallo", false, true},
      {"h[ae]llo", "hello", false, true},
      {"h[ae]llo", "hillo", false, false},
      {"h[^e]llo", "hallo", false, true},
      {"h[^e]llo", "hello", false, false},
      {"h[a-b]llo", "hbllo", false, true},
      {"h[a-b]llo", "hcllo", false, false},
      {"h[b-a]llo", "hallo", false, true},  // A reversed range is swapped.
      {"[0-9][0-9]", "42", false, true},
      {"[0-9][0-9]", "4x", false, false},
      {"[a-cx-z]", "y", false, true},
      {"[a-cx-z]", "m", false, false},
      {"[^a-c]", "d", false, true},
      {"[^a-c]", "b", false, false},
      {"[\\]]", "]", false, true},
      {"[\\-]", "-", false, true},
      {"[\\-]", "a", false, false},
      {"[]", "a", false, false},   // The first ']' closes: an empty class.
      {"[^]", "a", false, true},   // ...and its negation matches any byte.
      {"[abc", "b", false, true},  // Unterminated: the class runs to the end.
      {"[abc", "d", false, false},
      {"[", "[", false, false},
      {"[a-]", "^", false, true},  // Redis reads "a-]" as the range ']'..'a'.
      {"[a-]", "-", false, false},
      // Escapes.
      {"h\\*llo", "h*llo", false, true},
      {"h\\*llo", "hello", false, false},
      {"\\?", "?", false, true},
      {"\\?", "a", false, false},
      {"a\\", "a\\", false, true},  // A trailing backslash is literal.
      {"\\[a]", "[a]", false, true},
      // Case folding.
      {"HELLO*", "hello world", true, true},
      {"HELLO*", "hello world", false, false},
      {"[A-C]", "b", true, true},
      {"[A-C]", "b", false, false},
      {"[xY]", "y", true, true},
      {"[xY]", "y", false, false},
      {"[\\A]", "a", true, false},  // Redis compares an escaped class member exactly.
      // Bytes beyond ASCII are plain bytes.
      {"\xff*", "\xff\x01", false, true},
      {"[\x80-\xff]", "\xc3", false, true},
      {"[\x80-\xff]", "a", false, false},
      // Redis orders a range's ends as signed chars (what redis-server 7 answers to KEYS).
      {"[a-\xe9]", "\x10", false, true},
      {"[a-\xe9]", "\xf0", false, true},
      {"[a-\xe9]", "b", false, false},
      {"[a-\xe9]", "\xe0", false, false},
      {"[\xe9-a]", "\x10", false, true},
  };
  for (const GlobCase& c : cases) {
    EXPECT_EQ(GlobMatch(c.pattern, c.text, c.nocase), c.match)
        << "pattern '" << c.pattern << "' text '" << c.text << "' nocase " << c.nocase;
  }
}

// A slow, obviously correct matcher over patterns built from whole tokens; it tries every way
// a '*' can split the text, so it checks the fast matcher's backtracking.
struct Token {
  std::string text;                // How it is written in a pattern.
  std::function<bool(char)> test;  // Empty for '*'.
};

bool Reference(const std::vector<Token>& pattern, std::size_t p, std::string_view text) {
  if (p == pattern.size()) return text.empty();
  if (!pattern[p].test) {
    for (std::size_t skip = 0; skip <= text.size(); ++skip) {
      if (Reference(pattern, p + 1, text.substr(skip))) return true;
    }
    return false;
  }
  return !text.empty() && pattern[p].test(text[0]) && Reference(pattern, p + 1, text.substr(1));
}

TEST(GlobMatchTest, AgreesWithReferenceOnRandomPatterns) {
  const std::vector<Token> tokens = {
      {"*", nullptr},
      {"a", [](char c) { return c == 'a'; }},
      {"b", [](char c) { return c == 'b'; }},
      {"?", [](char) { return true; }},
      {"[ab]", [](char c) { return c == 'a' || c == 'b'; }},
      {"[^a]", [](char c) { return c != 'a'; }},
      {"[b-c]", [](char c) { return c == 'b' || c == 'c'; }},
      {"\\*", [](char c) { return c == '*'; }},
  };
  std::mt19937 rng(20240607);
  const std::string alphabet = "abc*";
  for (int iter = 0; iter < 20000; ++iter) {
    std::vector<Token> pattern;
    std::string written;
    int len = static_cast<int>(rng() % 7);
    for (int i = 0; i < len; ++i) {
      pattern.push_back(tokens[rng() % tokens.size()]);
      written += pattern.back().text;
    }
    std::string text;
    int text_len = static_cast<int>(rng() % 8);
    for (int i = 0; i < text_len; ++i) text += alphabet[rng() % alphabet.size()];
    ASSERT_EQ(GlobMatch(written, text, false), Reference(pattern, 0, text))
        << "pattern '" << written << "' text '" << text << "'";
  }
}

TEST(GlobMatchTest, ManyStarsFinish) {
  // "a*a*...a*b" against a long run of 'a': a matcher that retries every split of every star
  // takes exponential time here and would not finish within ctest's timeout. (No timing is
  // asserted: tests never measure speed.)
  std::string pattern;
  for (int i = 0; i < 40; ++i) pattern += "a*";
  std::string text(20000, 'a');
  EXPECT_FALSE(GlobMatch(pattern + "b", text, false));
  EXPECT_TRUE(GlobMatch(pattern + "b", text + "b", false));
  EXPECT_FALSE(GlobMatch(pattern + "[b-c]?", text + "b", true));
  EXPECT_TRUE(GlobMatch(std::string(10000, '*') + "a", text, false));
}

// ---------------------------------------------------------------------------------------------
// SplitConfigLine

struct SplitCase {
  std::string line;
  std::vector<std::string> args;
};

TEST(SplitConfigLineTest, SplitsWithRedisQuoting) {
  const std::vector<SplitCase> cases = {
      {"", {}},
      {"   \t ", {}},
      {"port 6379", {"port", "6379"}},
      {"  bind\t127.0.0.1   ::1  ", {"bind", "127.0.0.1", "::1"}},
      {"requirepass \"with space\"", {"requirepass", "with space"}},
      {"x \"a\\nb\\r\\t\\b\\a\"", {"x", "a\nb\r\t\b\a"}},
      {"x \"\\x41\\x4a\\x7e\"", {"x", "AJ~"}},
      {"x \"\\x4\"", {"x", "x4"}},  // Not two hex digits: "\x" is just 'x'.
      {"x \"\\xzz\"", {"x", "xzz"}},
      {"x \"a\\\"b\\\\c\"", {"x", "a\"b\\c"}},
      {"x \"#not a comment\"", {"x", "#not a comment"}},
      {"x 'single \\' quote'", {"x", "single ' quote"}},
      {"x 'no \\n escape'", {"x", "no \\n escape"}},
      {"x \"\"", {"x", ""}},
      {"x ''", {"x", ""}},
      {"x foo\"bar baz\"", {"x", "foobar baz"}},
      {"x a#b", {"x", "a#b"}},
      {"\"quoted name\" v", {"quoted name", "v"}},
  };
  for (const SplitCase& c : cases) {
    Result<std::vector<std::string>> got = SplitConfigLine(c.line);
    ASSERT_TRUE(got.ok()) << c.line << ": " << got.status().ToString();
    EXPECT_EQ(*got, c.args) << c.line;
  }
}

TEST(SplitConfigLineTest, RefusesUnbalancedQuotes) {
  for (std::string line : {"x \"open", "x 'open", "x \"a\"b", "x 'a'b", "x \"a\\\"", "\""}) {
    Result<std::vector<std::string>> got = SplitConfigLine(line);
    ASSERT_FALSE(got.ok()) << line;
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument) << line;
    EXPECT_EQ(got.status().message(), "unbalanced quotes") << line;
  }
}

// ---------------------------------------------------------------------------------------------
// ParseMemorySize

TEST(ParseMemorySizeTest, ParsesRedisUnits) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  const std::vector<std::pair<std::string, std::int64_t>> good = {
      {"0", 0},
      {"1", 1},
      {"1b", 1},
      {"1B", 1},
      {"100k", 100000},
      {"1K", 1000},
      {"1kb", 1024},
      {"1kB", 1024},
      {"1m", 1000000},
      {"1mb", 1048576},
      {"512MB", 536870912},
      {"1g", 1000000000},
      {"1gb", 1073741824},
      {"2Gb", 2147483648},
      {"007", 7},
      {"9223372036854775807", kMax},
      {"8589934591gb", kMax - (1ll << 30) + 1},
  };
  for (const auto& [text, bytes] : good) {
    Result<std::int64_t> got = ParseMemorySize(text);
    ASSERT_TRUE(got.ok()) << text << ": " << got.status().ToString();
    EXPECT_EQ(*got, bytes) << text;
  }
  for (std::string text : {"", "mb", "-1", "+1", "1.5gb", "1 mb", " 1", "1mb ", "1tb", "1kk",
                           "0x10", "9223372036854775808", "8589934592gb", "99999999999999999999"}) {
    Result<std::int64_t> got = ParseMemorySize(text);
    EXPECT_FALSE(got.ok()) << text;
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument) << text;
  }
  EXPECT_EQ(ParseMemorySize("1tb").status().message(),
            "invalid memory value '1tb': expected digits with an optional unit b, k, kb, m, mb, "
            "g or gb");
  EXPECT_EQ(ParseMemorySize("8589934592gb").status().message(),
            "memory value '8589934592gb' is too large");
}

// ---------------------------------------------------------------------------------------------
// ApplyConfigText

TEST(ApplyConfigTextTest, ReadsEveryParameterWithCommentsAndQuotes) {
  const std::string text =
      "# cairn.conf\n"
      "\n"
      "   # an indented comment\n"
      "bind 10.0.0.1 ::1\r\n"  // CRLF files load too.
      "PORT 7000\n"            // Names are case-insensitive.
      "dir \"/var/lib/cairn data\"\n"
      "appendfsync always\n"
      "requirepass 'p@ss#word \\' x'\n"
      "\tthreads 8\n"
      "maxclients 50\n"
      "timeout 300\n"
      "proto-max-bulk-len 64mb\n"
      "protected-mode no\n"
      "logfile \"/var/log/cairn.log\"   \n"
      "row-cache 0\n";
  ServerConfig config;
  Status s = ApplyConfigText(text, "cairn.conf", &config);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(config.bind, "10.0.0.1 ::1");
  EXPECT_EQ(BindAddresses(config), (std::vector<std::string>{"10.0.0.1", "::1"}));
  EXPECT_EQ(config.port, 7000);
  EXPECT_EQ(config.dir, "/var/lib/cairn data");
  EXPECT_EQ(config.durability, Durability::kAlways);
  EXPECT_EQ(config.requirepass, "p@ss#word ' x");
  EXPECT_EQ(config.threads, 8);
  EXPECT_EQ(config.maxclients, 50);
  EXPECT_EQ(config.timeout_s, 300);
  EXPECT_EQ(config.proto_max_bulk_len, 64u * 1024 * 1024);
  EXPECT_FALSE(config.protected_mode);
  EXPECT_EQ(config.logfile, "/var/log/cairn.log");
  EXPECT_EQ(config.row_cache_bytes, 0u);
}

TEST(ApplyConfigTextTest, LaterLinesWinAndEmptyStringsAreValues) {
  ServerConfig config;
  config.requirepass = "old";
  config.logfile = "old.log";
  Status s = ApplyConfigText(
      "port 1\nport 2\nrequirepass \"\"\nlogfile ''\ndurability none\nappendfsync no\n", "t",
      &config);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(config.port, 2);
  EXPECT_EQ(config.requirepass, "");
  EXPECT_EQ(config.logfile, "");
  EXPECT_EQ(config.durability, Durability::kNone);
  // No trailing newline, and an empty text, are fine.
  ASSERT_TRUE(ApplyConfigText("port 3", "t", &config).ok());
  EXPECT_EQ(config.port, 3);
  ASSERT_TRUE(ApplyConfigText("", "t", &config).ok());
  EXPECT_EQ(config.port, 3);
}

struct TextErrorCase {
  std::string text;
  std::string message;
};

TEST(ApplyConfigTextTest, ErrorsNameFileLineOptionAndValue) {
  const std::string where = "error in config file 'my.conf' at line ";
  const std::vector<TextErrorCase> cases = {
      {"port 1\n# c\n\nprot 6379\n", where + "4: unknown option 'prot'"},
      {"include other.conf\n", where + "1: unknown option 'include'"},
      {"port abc\n", where + "1: invalid value 'abc' for 'port': must be an integer between 0 "
                             "and 65535"},
      {"Port 65536\n", where + "1: invalid value '65536' for 'Port': must be an integer between "
                               "0 and 65535"},
      {"port -1\n", where + "1: invalid value '-1' for 'port': must be an integer between 0 and "
                            "65535"},
      // A '#' after a value is not a comment (it may be part of a password), as in Redis.
      {"port 6379 # the port\n", where + "1: 'port' takes one value, got 4"},
      {"port\n", where + "1: missing value for 'port'"},
      {"bind\n", where + "1: missing value for 'bind'"},
      {"dir \"\"\n", where + "1: invalid value '' for 'dir': must be a non-empty string"},
      {"requirepass \"open\n", where + "1: unbalanced quotes"},
      {"durability sometimes\n", where + "1: invalid value 'sometimes' for 'durability': must be "
                                         "always, everysec or none"},
      {"appendfsync maybe\n", where + "1: invalid value 'maybe' for 'appendfsync': must be "
                                      "always, everysec or none"},
      {"threads 65\n", where + "1: invalid value '65' for 'threads': must be an integer between 0 "
                               "and 64"},
      {"maxclients 0\n", where + "1: invalid value '0' for 'maxclients': must be an integer "
                                 "between 1 and 2147483647"},
      {"timeout -5\n", where + "1: invalid value '-5' for 'timeout': must be an integer between 0 "
                               "and 2147483647"},
      {"proto-max-bulk-len 1000k\n",
       where + "1: invalid value '1000k' for 'proto-max-bulk-len': must be a size in bytes, "
               "optionally with a unit (k, kb, m, mb, g, gb), of at least 1mb"},
      {"protected-mode maybe\n",
       where + "1: invalid value 'maybe' for 'protected-mode': must be yes or no"},
      {"port \"\\x01\\n\"\n", where + "1: invalid value '\\x01\\x0a' for 'port': must be an "
                                      "integer between 0 and 65535"},
  };
  for (const TextErrorCase& c : cases) {
    ServerConfig config;
    Status s = ApplyConfigText(c.text, "my.conf", &config);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << c.text;
    EXPECT_EQ(s.message(), c.message) << c.text;
  }
}

TEST(ApplyConfigTextTest, BindTakesUpToSixteenAddresses) {
  std::string sixteen;
  for (int i = 0; i < 16; ++i) sixteen += " 10.0.0." + std::to_string(i);
  ServerConfig config;
  ASSERT_TRUE(ApplyConfigText("bind" + sixteen, "t", &config).ok());
  EXPECT_EQ(BindAddresses(config).size(), 16u);
  Status s = ApplyConfigText("bind" + sixteen + " 10.0.0.16", "t", &config);
  // The message shows at most 128 bytes of a value.
  std::string shown = (sixteen.substr(1) + " 10.0.0.16").substr(0, 128) + "...";
  EXPECT_EQ(s.message(), "error in config file 't' at line 1: invalid value '" + shown +
                             "' for 'bind': must be 1 to 16 addresses");
  EXPECT_EQ(BindAddresses(config).size(), 16u);  // Unchanged by the refused line.
  // One quoted argument holding several addresses is split, as Redis does.
  ASSERT_TRUE(ApplyConfigText("bind \"  127.0.0.1   ::1 \"", "t", &config).ok());
  EXPECT_EQ(config.bind, "127.0.0.1 ::1");
}

// ---------------------------------------------------------------------------------------------
// ParseLaunch

TEST(ParseLaunchTest, NoArgumentsGiveDefaults) {
  for (const std::vector<std::string>& argv : {std::vector<std::string>{}, Argv({})}) {
    Result<Launch> launch = ParseLaunch(argv);
    ASSERT_TRUE(launch.ok()) << launch.status().ToString();
    EXPECT_EQ(launch->action, LaunchAction::kRun);
    const ServerConfig& c = launch->config;
    EXPECT_EQ(c.bind, "127.0.0.1");
    EXPECT_EQ(c.port, 6379);
    EXPECT_EQ(c.dir, "./cairn-data");
    EXPECT_EQ(c.durability, Durability::kEverySec);
    EXPECT_EQ(c.requirepass, "");
    EXPECT_EQ(c.threads, 0);
    EXPECT_EQ(c.maxclients, 10000);
    EXPECT_EQ(c.timeout_s, 0);
    EXPECT_EQ(c.proto_max_bulk_len, 512u * 1024 * 1024);
    EXPECT_TRUE(c.protected_mode);
    EXPECT_EQ(c.logfile, "");
  }
}

TEST(ParseLaunchTest, HelpAndVersion) {
  const std::vector<std::pair<std::vector<std::string>, LaunchAction>> cases = {
      {{"-h"}, LaunchAction::kHelp},
      {{"--help"}, LaunchAction::kHelp},
      {{"-v"}, LaunchAction::kVersion},
      {{"--version"}, LaunchAction::kVersion},
      // They win over anything else, even a bad option or a missing file.
      {{"--port", "1", "--help"}, LaunchAction::kHelp},
      {{"--prot", "x", "--version"}, LaunchAction::kVersion},
      {{"/no/such/cairn.conf", "--help"}, LaunchAction::kHelp},
      {{"--version", "--help"}, LaunchAction::kVersion},
  };
  for (const auto& [args, action] : cases) {
    Result<Launch> launch = ParseLaunch(Argv(args));
    ASSERT_TRUE(launch.ok()) << args[0] << ": " << launch.status().ToString();
    EXPECT_EQ(launch->action, action) << args[0];
  }
  // Elsewhere, -h and -v are values.
  Result<Launch> launch = ParseLaunch(Argv({"--requirepass", "-v"}));
  ASSERT_TRUE(launch.ok()) << launch.status().ToString();
  EXPECT_EQ(launch->action, LaunchAction::kRun);
  EXPECT_EQ(launch->config.requirepass, "-v");
}

TEST(ParseLaunchTest, FlagsSetEveryParameter) {
  Result<Launch> launch = ParseLaunch(Argv({
      "--bind",
      "127.0.0.1",
      "::1",
      "192.168.1.2",  //
      "--port",
      "0",  //
      "--dir",
      "/data/my cairn",  //
      "--durability",
      "NONE",  //
      "--requirepass",
      "-starts-with-dash",  //
      "--threads",
      "64",  //
      "--maxclients",
      "1",  //
      "--timeout",
      "2147483647",  //
      "--proto-max-bulk-len",
      "1gb",  //
      "--protected-mode",
      "No",  //
      "--LOGFILE",
      "",  //
  }));
  ASSERT_TRUE(launch.ok()) << launch.status().ToString();
  const ServerConfig& c = launch->config;
  EXPECT_EQ(c.bind, "127.0.0.1 ::1 192.168.1.2");
  EXPECT_EQ(BindAddresses(c), (std::vector<std::string>{"127.0.0.1", "::1", "192.168.1.2"}));
  EXPECT_EQ(c.port, 0);
  EXPECT_EQ(c.dir, "/data/my cairn");
  EXPECT_EQ(c.durability, Durability::kNone);
  EXPECT_EQ(c.requirepass, "-starts-with-dash");
  EXPECT_EQ(c.threads, 64);
  EXPECT_EQ(c.maxclients, 1);
  EXPECT_EQ(c.timeout_s, 2147483647);
  EXPECT_EQ(c.proto_max_bulk_len, 1024u * 1024 * 1024);
  EXPECT_FALSE(c.protected_mode);
  EXPECT_EQ(c.logfile, "");
}

TEST(ParseLaunchTest, FlagsOverrideTheFileAndLaterFlagsWin) {
  test::TempDir dir;
  std::string path = WriteFile(dir, "cairn.conf",
                               "# test config\n"
                               "port 7000\n"
                               "dir /from/file\n"
                               "bind 10.0.0.1 10.0.0.2\n"
                               "requirepass \"file secret\"\n");
  Result<Launch> launch = ParseLaunch(Argv({path, "--port", "7001", "--bind", "127.0.0.1", "--port",
                                            "7002", "--appendfsync", "always"}));
  ASSERT_TRUE(launch.ok()) << launch.status().ToString();
  EXPECT_EQ(launch->action, LaunchAction::kRun);
  EXPECT_EQ(launch->config.port, 7002);
  EXPECT_EQ(launch->config.dir, "/from/file");
  EXPECT_EQ(launch->config.bind, "127.0.0.1");
  EXPECT_EQ(launch->config.requirepass, "file secret");
  EXPECT_EQ(launch->config.durability, Durability::kAlways);

  // The file alone.
  launch = ParseLaunch(Argv({path}));
  ASSERT_TRUE(launch.ok()) << launch.status().ToString();
  EXPECT_EQ(launch->config.port, 7000);
  EXPECT_EQ(launch->config.bind, "10.0.0.1 10.0.0.2");
}

TEST(ParseLaunchTest, FileErrorsNameThePathAndLine) {
  test::TempDir dir;
  std::string path = WriteFile(dir, "bad.conf", "port 7000\n\n# comment\nmaxclients lots\n");
  Result<Launch> launch = ParseLaunch(Argv({path, "--port", "1"}));
  ASSERT_FALSE(launch.ok());
  EXPECT_EQ(launch.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(launch.status().message(),
            "error in config file '" + path +
                "' at line 4: invalid value 'lots' for 'maxclients': must be an integer between "
                "1 and 2147483647");

  std::string missing = dir.Sub("missing.conf");
  launch = ParseLaunch(Argv({missing}));
  ASSERT_FALSE(launch.ok());
  EXPECT_EQ(launch.status().code(), StatusCode::kIOError);
  EXPECT_EQ(launch.status().message(),
            "can't open config file '" + missing + "': No such file or directory");

  launch = ParseLaunch(Argv({dir.path()}));
  ASSERT_FALSE(launch.ok());
  EXPECT_EQ(launch.status().code(), StatusCode::kIOError);
  EXPECT_EQ(launch.status().message(),
            "can't read config file '" + dir.path() + "': Is a directory");
}

struct FlagErrorCase {
  std::vector<std::string> args;
  std::string message;
};

TEST(ParseLaunchTest, FlagErrorsNameTheOptionAndValue) {
  const std::vector<FlagErrorCase> cases = {
      {{"--prot", "6379"}, "unknown option '--prot'"},
      {{"--port", "1", "--"}, "unknown option '--'"},
      {{"-x"}, "unknown option '-x'"},
      {{"-"}, "unknown option '-'"},
      {{"--port", "abc"}, "invalid value 'abc' for 'port': must be an integer between 0 and 65535"},
      {{"--port", "99999"},
       "invalid value '99999' for 'port': must be an integer between 0 and 65535"},
      {{"--port", " 1"}, "invalid value ' 1' for 'port': must be an integer between 0 and 65535"},
      {{"--port"}, "missing value for '--port'"},
      {{"--port", "--dir", "x"}, "missing value for '--port'"},
      {{"--port", "1", "2"}, "'--port' takes one value, got 2"},
      {{"--port", "1", "extra.conf"}, "'--port' takes one value, got 2"},
      {{"--threads", "-1"},
       "invalid value '-1' for 'threads': must be an integer between 0 and 64"},
      {{"--proto-max-bulk-len", "1048575"},
       "invalid value '1048575' for 'proto-max-bulk-len': must be a size in bytes, optionally "
       "with a unit (k, kb, m, mb, g, gb), of at least 1mb"},
      {{"--protected-mode", "true"},
       "invalid value 'true' for 'protected-mode': must be yes or no"},
      {{"--Durability", "fast"},
       "invalid value 'fast' for 'Durability': must be always, everysec or none"},
      {{"--dir", ""}, "invalid value '' for 'dir': must be a non-empty string"},
  };
  for (const FlagErrorCase& c : cases) {
    Result<Launch> launch = ParseLaunch(Argv(c.args));
    ASSERT_FALSE(launch.ok()) << c.args[0];
    EXPECT_EQ(launch.status().code(), StatusCode::kInvalidArgument) << c.args[0];
    EXPECT_EQ(launch.status().message(), c.message) << c.args[0];
  }
  // A second positional argument after a config file.
  test::TempDir dir;
  std::string path = WriteFile(dir, "ok.conf", "port 1\n");
  Result<Launch> launch = ParseLaunch(Argv({path, "other.conf"}));
  ASSERT_FALSE(launch.ok());
  EXPECT_EQ(launch.status().message(),
            "unexpected argument 'other.conf' (options are written --name value; a config file "
            "must come first)");
}

struct MemoryFlagCase {
  std::string value;
  std::size_t bytes;
};

TEST(ParseLaunchTest, MemoryUnitsOnTheCommandLine) {
  const std::vector<MemoryFlagCase> cases = {
      {"1mb", 1u << 20},    {"1MB", 1u << 20},   {"1048576", 1u << 20},
      {"1000k", 0},  // Below 1mb (1000k = 1,000,000 bytes): refused.
      {"1024kb", 1u << 20}, {"2m", 2000000},     {"100m", 100000000},
      {"3g", 3000000000u},  {"2gb", 2ull << 30}, {"5000000b", 5000000},
  };
  for (const MemoryFlagCase& c : cases) {
    Result<Launch> launch = ParseLaunch(Argv({"--proto-max-bulk-len", c.value}));
    if (c.bytes == 0) {
      EXPECT_FALSE(launch.ok()) << c.value;
      continue;
    }
    ASSERT_TRUE(launch.ok()) << c.value << ": " << launch.status().ToString();
    EXPECT_EQ(launch->config.proto_max_bulk_len, c.bytes) << c.value;
  }
}

// ---------------------------------------------------------------------------------------------
// SetParameter (CONFIG SET)

TEST(SetParameterTest, ChangesMutableParametersAtRunTime) {
  ServerConfig config;
  ASSERT_TRUE(SetParameter("requirepass", "s3cret", true, &config).ok());
  EXPECT_EQ(config.requirepass, "s3cret");
  ASSERT_TRUE(SetParameter("MaxClients", "42", true, &config).ok());
  EXPECT_EQ(config.maxclients, 42);
  ASSERT_TRUE(SetParameter("timeout", "60", true, &config).ok());
  EXPECT_EQ(config.timeout_s, 60);
  ASSERT_TRUE(SetParameter("proto-max-bulk-len", "2mb", true, &config).ok());
  EXPECT_EQ(config.proto_max_bulk_len, 2u << 20);
  ASSERT_TRUE(SetParameter("protected-mode", "NO", true, &config).ok());
  EXPECT_FALSE(config.protected_mode);
  ASSERT_TRUE(SetParameter("protected-mode", "yes", true, &config).ok());
  EXPECT_TRUE(config.protected_mode);
  ASSERT_TRUE(SetParameter("requirepass", "", true, &config).ok());
  EXPECT_EQ(config.requirepass, "");
}

TEST(SetParameterTest, RefusesImmutableParametersAtRunTimeOnly) {
  const std::vector<std::pair<std::string, std::string>> immutable = {
      {"bind", "0.0.0.0"},      {"port", "7000"},          {"PORT", "7000"}, {"dir", "/x"},
      {"durability", "always"}, {"appendfsync", "always"}, {"threads", "4"}, {"logfile", "x.log"},
  };
  for (const auto& [name, value] : immutable) {
    ServerConfig config;
    Status s = SetParameter(name, value, /*runtime=*/true, &config);
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << name;
    EXPECT_EQ(s.message(), "CONFIG SET failed (possibly related to argument '" + name +
                               "') - can't set immutable config")
        << name;
    EXPECT_EQ(GetParameters("*", config), GetParameters("*", ServerConfig{})) << name;
    // Before the server runs (runtime false) they can be set.
    EXPECT_TRUE(SetParameter(name, value, /*runtime=*/false, &config).ok()) << name;
    EXPECT_NE(GetParameters("*", config), GetParameters("*", ServerConfig{})) << name;
  }
  ServerConfig config;
  ASSERT_TRUE(SetParameter("bind", " 10.0.0.1  ::1", false, &config).ok());
  EXPECT_EQ(config.bind, "10.0.0.1 ::1");
}

struct SetErrorCase {
  std::string name;
  std::string value;
  std::string message;
};

TEST(SetParameterTest, BadNamesAndValuesUseRedisWording) {
  const std::string failed = "CONFIG SET failed (possibly related to argument '";
  const std::vector<SetErrorCase> cases = {
      {"no-such-thing", "1",
       "Unknown option or number of arguments for CONFIG SET - "
       "'no-such-thing'"},
      {"maxclients", "lots", failed + "maxclients') - argument couldn't be parsed into an integer"},
      {"maxclients", "1.5", failed + "maxclients') - argument couldn't be parsed into an integer"},
      {"maxclients", "99999999999999999999",
       failed + "maxclients') - argument couldn't be parsed into an integer"},
      {"maxclients", "0",
       failed + "maxclients') - argument must be between 1 and 2147483647 "
                "inclusive"},
      {"Timeout", "-1",
       failed + "Timeout') - argument must be between 0 and 2147483647 "
                "inclusive"},
      {"proto-max-bulk-len", "12xb",
       failed + "proto-max-bulk-len') - argument must be a memory "
                "value"},
      {"proto-max-bulk-len", "1k",
       failed + "proto-max-bulk-len') - argument must be between "
                "1048576 and 9223372036854775807 inclusive"},
      {"protected-mode", "maybe", failed + "protected-mode') - argument must be 'yes' or 'no'"},
  };
  for (const SetErrorCase& c : cases) {
    ServerConfig config;
    Status s = SetParameter(c.name, c.value, true, &config);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << c.name << " " << c.value;
    EXPECT_EQ(s.message(), c.message) << c.name << " " << c.value;
    EXPECT_EQ(GetParameters("*", config), GetParameters("*", ServerConfig{})) << c.name;
  }
  // Values of immutable parameters are checked when set before the server runs.
  const std::vector<SetErrorCase> startup = {
      {"durability", "sometimes",
       failed + "durability') - argument(s) must be one of the "
                "following: always, everysec, none"},
      {"port", "65536", failed + "port') - argument must be between 0 and 65535 inclusive"},
      {"dir", "", failed + "dir') - argument must not be empty"},
      {"bind", " ", failed + "bind') - argument must be 1 to 16 addresses separated by spaces"},
  };
  for (const SetErrorCase& c : startup) {
    ServerConfig config;
    Status s = SetParameter(c.name, c.value, false, &config);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << c.name;
    EXPECT_EQ(s.message(), c.message) << c.name;
  }
}

// ---------------------------------------------------------------------------------------------
// client-output-buffer-limit: Redis's groups of four, each changing only the class it names.

TEST(OutputBufferLimitTest, EachGroupSetsOnlyItsClass) {
  ServerConfig config;
  const ServerConfig defaults;
  ASSERT_TRUE(
      SetParameter("client-output-buffer-limit", "pubsub 1mb 512kb 10", true, &config).ok());
  EXPECT_EQ(config.pubsub_output_limit(), (OutputBufferLimit{1 << 20, 512 << 10, 10}));
  EXPECT_EQ(config.output_buffer_limits[0], defaults.output_buffer_limits[0]);
  EXPECT_EQ(config.output_buffer_limits[1], defaults.output_buffer_limits[1]);
  // Several groups in one value; "replica" is "slave"; class names in any letter case.
  ASSERT_TRUE(SetParameter("client-output-buffer-limit",
                           "NORMAL 1k 2 3   replica 4kb 5 6\tPubSub 0 0 0", true, &config)
                  .ok());
  EXPECT_EQ(config.output_buffer_limits[0], (OutputBufferLimit{1000, 2, 3}));
  EXPECT_EQ(config.output_buffer_limits[1], (OutputBufferLimit{4096, 5, 6}));
  EXPECT_EQ(config.pubsub_output_limit(), (OutputBufferLimit{0, 0, 0}));
  EXPECT_EQ(GetParameters("client-output-buffer-limit", config),
            (Pairs{{"client-output-buffer-limit", "normal 1000 2 3 slave 4096 5 6 pubsub 0 0 0"}}));
  // An empty value names no class and changes nothing, as in Redis.
  const ServerConfig before = config;
  ASSERT_TRUE(SetParameter("client-output-buffer-limit", "", true, &config).ok());
  EXPECT_EQ(GetParameters("*", config), GetParameters("*", before));
}

TEST(OutputBufferLimitTest, ConfigLinesAndFlagsAccumulate) {
  ServerConfig config;
  Status s = ApplyConfigText(
      "client-output-buffer-limit normal 0 0 0\n"
      "client-output-buffer-limit replica 256mb 64mb 60\n"
      "client-output-buffer-limit pubsub 2mb 1mb 30\n",
      "redis.conf", &config);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(config.pubsub_output_limit(), (OutputBufferLimit{2 << 20, 1 << 20, 30}));
  // On the command line the group may be one quoted argument or four.
  Result<Launch> launch = ParseLaunch(
      Argv({"--client-output-buffer-limit", "pubsub", "64kb", "32kb", "5", "--port", "1"}));
  ASSERT_TRUE(launch.ok()) << launch.status().ToString();
  EXPECT_EQ(launch->config.pubsub_output_limit(), (OutputBufferLimit{64 << 10, 32 << 10, 5}));
  EXPECT_EQ(launch->config.port, 1);
  launch = ParseLaunch(Argv({"--client-output-buffer-limit", "pubsub 3mb 0 0"}));
  ASSERT_TRUE(launch.ok()) << launch.status().ToString();
  EXPECT_EQ(launch->config.pubsub_output_limit(), (OutputBufferLimit{3 << 20, 0, 0}));
}

TEST(OutputBufferLimitTest, BadGroupsUseRedisWordingAndChangeNothing) {
  const std::string failed =
      "CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - ";
  const std::string count = "Wrong number of arguments in buffer limit configuration.";
  const std::string cls = "Invalid client class specified in buffer limit configuration.";
  const std::string value =
      "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {" ", count},
      {"pubsub 1mb 512kb", count},
      {"pubsub 1mb 512kb 10 normal", count},
      {"bogus 1mb 512kb 10", cls},
      {"master 1mb 512kb 10", cls},
      // A bad later group leaves the earlier one unapplied too.
      {"normal 1 1 1 pubsub x 512kb 10", value},
      {"pubsub 1mb -1 10", value},
      {"pubsub 1mb 512kb -1", value},
      {"pubsub 1mb 512kb 1.5", value},
  };
  for (const auto& [text, message] : cases) {
    ServerConfig config;
    Status s = SetParameter("client-output-buffer-limit", text, true, &config);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << text;
    EXPECT_EQ(s.message(), failed + message) << text;
    EXPECT_EQ(GetParameters("*", config), GetParameters("*", ServerConfig{})) << text;
  }
  Result<Launch> launch = ParseLaunch(Argv({"--client-output-buffer-limit", "pubsub", "1mb"}));
  ASSERT_FALSE(launch.ok());
  EXPECT_NE(launch.status().message().find("'client-output-buffer-limit'"), std::string::npos)
      << launch.status().ToString();
  EXPECT_NE(launch.status().message().find("groups of <class> <hard> <soft> <soft-seconds>"),
            std::string::npos)
      << launch.status().ToString();
}

// ---------------------------------------------------------------------------------------------
// GetParameters (CONFIG GET)

TEST(GetParametersTest, AllParametersInTableOrderWithDefaults) {
  const Pairs expected = {
      {"bind", "127.0.0.1"},
      {"port", "6379"},
      {"dir", "./cairn-data"},
      {"durability", "everysec"},
      {"requirepass", ""},
      {"threads", "0"},
      {"maxclients", "10000"},
      {"timeout", "0"},
      {"proto-max-bulk-len", "536870912"},
      {"client-query-buffer-limit", "1073741824"},
      {"tcp-keepalive", "300"},
      {"protected-mode", "yes"},
      {"logfile", ""},
      {"row-cache", "33554432"},
      {"min-free-disk", "67108864"},
      {"fault-injection", "no"},
      {"lua-time-limit", "5000"},
      {"busy-reply-threshold", "5000"},
      {"lua-memory-limit", "67108864"},
      {"lua-write-buffer-limit", "268435456"},
      {"client-output-buffer-limit",
       "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
  };
  EXPECT_EQ(GetParameters("*", ServerConfig{}), expected);
}

TEST(GetParametersTest, PatternsSelectByName) {
  const ServerConfig config;
  const std::vector<std::pair<std::string, Pairs>> cases = {
      {"port", {{"port", "6379"}}},
      {"PORT", {{"port", "6379"}}},
      {"*max*", {{"maxclients", "10000"}, {"proto-max-bulk-len", "536870912"}}},
      {"p*", {{"port", "6379"}, {"proto-max-bulk-len", "536870912"}, {"protected-mode", "yes"}}},
      {"[bd]*",
       {{"bind", "127.0.0.1"},
        {"dir", "./cairn-data"},
        {"durability", "everysec"},
        {"busy-reply-threshold", "5000"}}},
      {"?ir", {{"dir", "./cairn-data"}}},
      {"t*", {{"threads", "0"}, {"timeout", "0"}, {"tcp-keepalive", "300"}}},
      {"dur*", {{"durability", "everysec"}}},
      // The alias answers under its own name, and only when the real name does not match.
      {"appendfsync", {{"appendfsync", "everysec"}}},
      {"append*", {{"appendfsync", "everysec"}}},
      {"*sync", {{"appendfsync", "everysec"}}},
      {"nomatch", {}},
      {"", {}},
  };
  for (const auto& [pattern, expected] : cases) {
    EXPECT_EQ(GetParameters(pattern, config), expected) << pattern;
  }
  EXPECT_EQ(GetParameters("*", config).size(), 21u);
}

TEST(GetParametersTest, FormatsValuesAsRedisDoes) {
  ServerConfig config;
  ASSERT_TRUE(SetParameter("protected-mode", "no", false, &config).ok());
  ASSERT_TRUE(SetParameter("proto-max-bulk-len", "1gb", false, &config).ok());
  ASSERT_TRUE(SetParameter("bind", "10.0.0.1 ::1", false, &config).ok());
  ASSERT_TRUE(SetParameter("appendfsync", "always", false, &config).ok());
  EXPECT_EQ(GetParameters("protected-mode", config), (Pairs{{"protected-mode", "no"}}));
  EXPECT_EQ(GetParameters("proto-max-bulk-len", config),
            (Pairs{{"proto-max-bulk-len", "1073741824"}}));
  EXPECT_EQ(GetParameters("bind", config), (Pairs{{"bind", "10.0.0.1 ::1"}}));
  EXPECT_EQ(GetParameters("durability", config), (Pairs{{"durability", "always"}}));
}

TEST(GetParametersTest, EveryValueShownCanBeSetBack) {
  ServerConfig changed;
  Result<Launch> launch = ParseLaunch(
      Argv({"--bind", "10.0.0.1",         "::1",  "--port",        "0",    "--dir",
            "/d",     "--durability",     "none", "--requirepass", "pw",   "--threads",
            "3",      "--maxclients",     "7",    "--timeout",     "9",    "--proto-max-bulk-len",
            "3mb",    "--protected-mode", "no",   "--logfile",     "l.log"}));
  ASSERT_TRUE(launch.ok()) << launch.status().ToString();
  Pairs shown = GetParameters("*", launch->config);
  ServerConfig copy;
  for (const auto& [name, value] : shown) {
    Status s = SetParameter(name, value, false, &copy);
    ASSERT_TRUE(s.ok()) << name << " " << value << ": " << s.ToString();
  }
  EXPECT_EQ(GetParameters("*", copy), shown);
  EXPECT_NE(shown, GetParameters("*", ServerConfig{}));
}

// ---------------------------------------------------------------------------------------------
// HelpText, VersionText

TEST(HelpTextTest, ShowsUsageAndEveryOptionWithItsDefault) {
  std::string help = HelpText();
  EXPECT_EQ(help.rfind("Usage: cairn-server [/path/to/cairn.conf] [options]\n", 0), 0u) << help;
  for (std::string_view line : {"cairn-server -v or --version", "cairn-server -h or --help",
                                "Examples:", "cairn-server --port 7777"}) {
    EXPECT_NE(help.find(line), std::string::npos) << line;
  }
  for (const auto& [name, value] : GetParameters("*", ServerConfig{})) {
    std::string shown = value.empty() ? "\"\"" : value;
    if (name == "proto-max-bulk-len") shown = "512mb";  // Sizes are shown with a unit.
    if (name == "row-cache") shown = "32mb";
    if (name == "min-free-disk") shown = "64mb";
    if (name == "client-query-buffer-limit") shown = "1gb";
    if (name == "lua-memory-limit") shown = "64mb";
    if (name == "lua-write-buffer-limit") shown = "256mb";
    if (name == "client-output-buffer-limit")
      shown = "normal 0 0 0 slave 256mb 64mb 60 pubsub 32mb 8mb 60";
    EXPECT_NE(help.find("--" + name), std::string::npos) << name;
    EXPECT_NE(help.find("[" + shown + "]\n"), std::string::npos) << name;
  }
  // Options CONFIG SET may change are marked.
  EXPECT_NE(help.find("  --maxclients *"), std::string::npos);
  EXPECT_EQ(help.find("  --port *"), std::string::npos);
}

TEST(VersionTextTest, NamesVersionAndRedisTarget) {
  EXPECT_EQ(VersionText(), "cairn-server v=0.1.0 bits=" + std::to_string(sizeof(void*) * 8) +
                               " (Redis compatibility target: redis_version 7.2.4)");
}

}  // namespace
}  // namespace cairn::server
