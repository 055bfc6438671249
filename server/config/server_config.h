// cairn-server's configuration, read the way redis-server reads its own: an optional config
// file as the first argument (Redis-style "name value" lines) and "--name value" flags that
// override it. Each parameter is declared once in a table (name, default, parser, whether
// CONFIG SET may change it at run time) that the file, the flags, CONFIG GET and CONFIG SET
// all use. Bad input names the parameter and the value. Thread-compatible.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cairn/options.h"
#include "cairn/result.h"

namespace cairn::server {

// One class of Redis's client-output-buffer-limit: a client whose unsent output reaches
// `hard_bytes`, or stays at or above `soft_bytes` for more than `soft_seconds`, is
// disconnected. 0 bytes: no such limit.
struct OutputBufferLimit {
  std::int64_t hard_bytes = 0;
  std::int64_t soft_bytes = 0;
  std::int64_t soft_seconds = 0;
  bool operator==(const OutputBufferLimit&) const = default;
};

// The client classes client-output-buffer-limit names, in the order CONFIG GET lists them.
enum class ClientClass { kNormal = 0, kReplica = 1, kPubSub = 2 };
inline constexpr std::size_t kClientClasses = 3;

struct ServerConfig {
  std::string bind = "127.0.0.1";  // One or more addresses, space-separated (Redis `bind`).
  int port = 6379;                 // 0: listen on a free port and print it (see main.cc).
  std::string dir = "./cairn-data";
  Durability durability = Durability::kEverySec;  // `appendfsync` is accepted as an alias.
  std::string requirepass;                        // Empty: no password.
  int threads = 0;                                // io threads; 0: chosen from the core count.
  int maxclients = 10000;
  std::int64_t timeout_s = 0;  // Idle seconds before a client is closed; 0: never.
  std::size_t proto_max_bulk_len = 512ull * 1024 * 1024;
  // The most input one client may have buffered (Redis's client-query-buffer-limit): a client
  // past it is closed.
  std::size_t client_query_buffer_limit = 1024ull * 1024 * 1024;
  // TCP keepalive probes on client sockets, about every this many seconds (Redis's
  // tcp-keepalive); 0: off.
  std::int64_t tcp_keepalive_s = 300;
  // Refuse a non-loopback bind without requirepass at start, and answer any client that is not
  // on a loopback address with -DENIED while no password is set (also after CONFIG SET).
  bool protected_mode = true;
  std::string logfile;                                // Empty: stderr.
  std::size_t row_cache_bytes = 32ull * 1024 * 1024;  // Options::row_cache_bytes; 0: off.
  // Options::min_free_disk_bytes: writes are refused with -MISCONF while the data directory's
  // file system has less free space than this; 0: no guard.
  std::uint64_t min_free_disk_bytes = 64ull * 1024 * 1024;
  // For tests: the store runs over a FaultInjection (cairn/fault_injection.h) that DEBUG FAULT
  // drives. Never for production: any client could then fail the disk or cut the power.
  bool fault_injection = false;
  // Scripts: how long one may run before it is stopped (and rolled back), 0 for no limit;
  // how much memory each Lua state may hold.
  std::int64_t lua_time_limit_ms = 5000;
  // Redis's busy-reply-threshold: once a script has run this long, the clients that wait for
  // it are answered -BUSY instead (all but SCRIPT KILL, SHUTDOWN NOSAVE and the commands Redis
  // lets through). 0: at once.
  std::int64_t busy_reply_threshold_ms = 5000;
  std::size_t lua_memory_limit = 64ull * 1024 * 1024;
  // The memory a script's writes may hold outside Lua until it commits: the rows its
  // transaction buffers and the copies its save points keep (a script that rewrites a large
  // value in a loop). Past it the script fails and is rolled back.
  std::size_t lua_write_buffer_limit = 256ull * 1024 * 1024;
  // client-output-buffer-limit, per ClientClass, with Redis's defaults. pubsub is enforced on
  // the messages waiting for a subscriber (pubsub/mailbox.h), normal on the replies waiting
  // for a client (net/connection.h); there are no replicas, so that class is kept only so
  // that a redis.conf loads and CONFIG GET shows what was set.
  std::array<OutputBufferLimit, kClientClasses> output_buffer_limits = {{
      {0, 0, 0},
      {256ll * 1024 * 1024, 64ll * 1024 * 1024, 60},
      {32ll * 1024 * 1024, 8ll * 1024 * 1024, 60},
  }};
  const OutputBufferLimit& pubsub_output_limit() const {
    return output_buffer_limits[static_cast<std::size_t>(ClientClass::kPubSub)];
  }
  const OutputBufferLimit& normal_output_limit() const {
    return output_buffer_limits[static_cast<std::size_t>(ClientClass::kNormal)];
  }
};

// The addresses of config.bind, in order (it holds them separated by single spaces).
std::vector<std::string> BindAddresses(const ServerConfig& config);

enum class LaunchAction { kRun, kHelp, kVersion };

struct Launch {
  LaunchAction action = LaunchAction::kRun;
  ServerConfig config;
};

// Parses argv (argv[0] is the program): `[config-file] [--name value ...]`, `--help`, `-h`,
// `--version`, `-v`. The config file, if any, is argv[1] and does not start with '-'; it is
// applied first, then the flags in order. A flag takes exactly one value, except --bind, which
// takes every following argument up to the next "--" one. --help or --version anywhere (or -h,
// -v as argv[1]) wins over everything else, and no file is read then.
// kInvalidArgument names the bad option (and, in a file, the file and line); kIOError when the
// config file cannot be read.
Result<Launch> ParseLaunch(const std::vector<std::string>& argv);

// Parses config-file text ("name value" lines, # comments, Redis quoting) onto config.
// source_name (usually the path) appears in error messages with the line number. Stops at the
// first bad line; lines before it have been applied.
Status ApplyConfigText(std::string_view text, std::string_view source_name, ServerConfig* config);

// One parameter by name (case-insensitive), as CONFIG SET would: kInvalidArgument with Redis's
// wording for an unknown name or a bad value; kFailedPrecondition when it cannot change at run
// time (`runtime` true). config is unchanged on error. For bind, `value` holds the addresses
// separated by spaces.
Status SetParameter(std::string_view name, std::string_view value, bool runtime,
                    ServerConfig* config);

// CONFIG GET: (name, value) pairs for every parameter whose name matches the glob `pattern`
// (Redis glob rules, case-insensitive), in table order. An alias (appendfsync) is reported
// under the alias when the pattern matches it but not the parameter's own name.
std::vector<std::pair<std::string, std::string>> GetParameters(std::string_view pattern,
                                                               const ServerConfig& config);

// What --help and --version print. VersionText names both versions of server_version.h:
// "cairn-server v=0.1.0 bits=64 (Redis compatibility target: redis_version 7.2.4)".
std::string HelpText();
std::string VersionText();

// Redis glob matching (stringmatchlen): `*` any run, `?` any byte, `[abc]`, `[^abc]`, `[a-z]`
// classes, `\` escapes the next byte. An unterminated class runs to the end of the pattern.
// Runs in O(|pattern|·|text|) whatever the pattern, so untrusted patterns (KEYS, SCAN MATCH)
// are safe. Unlike Redis's raw function, an all-`*` pattern also matches the empty text
// (Redis special-cases "*" in its callers to the same effect).
bool GlobMatch(std::string_view pattern, std::string_view text, bool nocase);

// Splits one config line into arguments with Redis's quoting (sdssplitargs): words separated
// by blanks; "double quotes" with \n \r \t \b \a \\ \" and \xHH escapes; 'single quotes' with
// \' only. A closing quote must be followed by a blank or the end. kInvalidArgument
// ("unbalanced quotes") otherwise.
Result<std::vector<std::string>> SplitConfigLine(std::string_view line);

// Parses a Redis memory value: digits with an optional unit, case-insensitive: b (bytes),
// k = 1000, kb = 1024, m = 1000², mb = 1024², g = 1000³, gb = 1024³. kInvalidArgument for
// anything else (signs, fractions, spaces) or a result beyond INT64_MAX.
Result<std::int64_t> ParseMemorySize(std::string_view text);

}  // namespace cairn::server
