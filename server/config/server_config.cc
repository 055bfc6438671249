#include "config/server_config.h"

#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <utility>

#include "server_version.h"

namespace cairn::server {
namespace {

// ---------------------------------------------------------------------------------------------
// Small text helpers. Config names and the glob's nocase mode fold ASCII only, as Redis does
// with tolower() in the C locale: the server's behaviour must not depend on the host's locale.

char FoldAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = FoldAscii(c);
  return out;
}

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (FoldAscii(a[i]) != FoldAscii(b[i])) return false;
  }
  return true;
}

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A value quoted for an error message. Values come from users and files, so control bytes are
// escaped (an error message stays on one line) and very long values are cut.
std::string Quoted(std::string_view value) {
  constexpr std::size_t kMaxShown = 128;
  std::string out = "'";
  for (std::size_t i = 0; i < value.size() && i < kMaxShown; ++i) {
    unsigned char c = static_cast<unsigned char>(value[i]);
    if (c < 0x20 || c == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (value.size() > kMaxShown) out += "...";
  out += "'";
  return out;
}

std::optional<std::int64_t> ParseInt64(std::string_view text) {
  std::int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

// 1073741824 -> "1gb": how a memory bound reads best in a message.
std::string HumanBytes(std::int64_t bytes) {
  if (bytes > 0 && bytes % (1ll << 30) == 0) return std::to_string(bytes >> 30) + "gb";
  if (bytes > 0 && bytes % (1ll << 20) == 0) return std::to_string(bytes >> 20) + "mb";
  if (bytes > 0 && bytes % (1ll << 10) == 0) return std::to_string(bytes >> 10) + "kb";
  return std::to_string(bytes);
}

std::vector<std::string> SplitBlanks(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsBlank(s[i])) ++i;
    std::size_t start = i;
    while (i < s.size() && !IsBlank(s[i])) ++i;
    if (i > start) out.emplace_back(s.substr(start, i - start));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The parameter table.

enum class Kind {
  kText,        // Any string; min is the shortest length allowed.
  kAddresses,   // Words separated by blanks; min..max is how many. Stored single-spaced.
  kInteger,     // A decimal integer in [min, max].
  kMemory,      // A Redis memory value (ParseMemorySize) in [min, max] bytes.
  kYesNo,       // yes or no, case-insensitive.
  kDurability,  // always, everysec or none (also Redis's "no" for appendfsync).
  // client-output-buffer-limit: groups of "<class> <hard> <soft> <soft-seconds>"; a value
  // changes only the classes it names, as in Redis.
  kBufferLimits,
};

// A parsed value; which member is meaningful depends on the parameter's Kind.
struct Value {
  std::string text;         // kText, kAddresses.
  std::int64_t number = 0;  // kInteger, kMemory, kYesNo (1 = yes).
  Durability durability = Durability::kEverySec;
  std::array<std::optional<OutputBufferLimit>, kClientClasses> limits;  // kBufferLimits.
};

struct Param {
  std::string_view name;
  std::string_view alias;  // Another accepted name, or empty.
  Kind kind;
  bool runtime;  // CONFIG SET may change it while the server runs.
  std::int64_t min;
  std::int64_t max;
  std::string_view help;  // One line for HelpText.
  // Moving a value between the Value and the ServerConfig field; parsing and formatting are
  // shared per Kind so that every parameter of a kind behaves (and fails) alike.
  void (*store)(const Value& value, ServerConfig* config);
  Value (*load)(const ServerConfig& config);
};

Value Text(std::string s) {
  Value v;
  v.text = std::move(s);
  return v;
}

Value Number(std::int64_t n) {
  Value v;
  v.number = n;
  return v;
}

constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
// Redis caps bind at 16 addresses (CONFIG_BINDADDR_MAX).
constexpr std::int64_t kMaxBindAddresses = 16;
constexpr std::int64_t kMaxThreads = 64;

// Order matters: CONFIG GET and HelpText list parameters in this order.
constexpr std::array<Param, 21> kParams = {{
    {"bind", "", Kind::kAddresses, false, 1, kMaxBindAddresses,
     "Addresses to listen on (several allowed)",
     [](const Value& v, ServerConfig* c) { c->bind = v.text; },
     [](const ServerConfig& c) { return Text(c.bind); }},
    {"port", "", Kind::kInteger, false, 0, 65535, "TCP port; 0 picks a free port",
     [](const Value& v, ServerConfig* c) { c->port = static_cast<int>(v.number); },
     [](const ServerConfig& c) { return Number(c.port); }},
    {"dir", "", Kind::kText, false, 1, 0, "Data directory of the store",
     [](const Value& v, ServerConfig* c) { c->dir = v.text; },
     [](const ServerConfig& c) { return Text(c.dir); }},
    {"durability", "appendfsync", Kind::kDurability, false, 0, 0,
     "fsync policy: always, everysec or none (alias: appendfsync)",
     [](const Value& v, ServerConfig* c) { c->durability = v.durability; },
     [](const ServerConfig& c) {
       Value v;
       v.durability = c.durability;
       return v;
     }},
    {"requirepass", "", Kind::kText, true, 0, 0, "Password clients must AUTH with; empty: none",
     [](const Value& v, ServerConfig* c) { c->requirepass = v.text; },
     [](const ServerConfig& c) { return Text(c.requirepass); }},
    {"threads", "", Kind::kInteger, false, 0, kMaxThreads,
     "I/O threads; 0 chooses from the number of cores",
     [](const Value& v, ServerConfig* c) { c->threads = static_cast<int>(v.number); },
     [](const ServerConfig& c) { return Number(c.threads); }},
    {"maxclients", "", Kind::kInteger, true, 1, kIntMax, "Most clients connected at once",
     [](const Value& v, ServerConfig* c) { c->maxclients = static_cast<int>(v.number); },
     [](const ServerConfig& c) { return Number(c.maxclients); }},
    {"timeout", "", Kind::kInteger, true, 0, kIntMax,
     "Seconds a client may stay idle before it is closed; 0: never",
     [](const Value& v, ServerConfig* c) { c->timeout_s = v.number; },
     [](const ServerConfig& c) { return Number(c.timeout_s); }},
    // The 1mb floor is Redis's: a smaller limit would refuse ordinary commands.
    {"proto-max-bulk-len", "", Kind::kMemory, true, 1 << 20, kInt64Max,
     "Longest string a client may send (512mb, 1gb, ...)",
     [](const Value& v, ServerConfig* c) {
       c->proto_max_bulk_len = static_cast<std::size_t>(v.number);
     },
     [](const ServerConfig& c) { return Number(static_cast<std::int64_t>(c.proto_max_bulk_len)); }},
    // The 1mb floor is Redis's.
    {"client-query-buffer-limit", "", Kind::kMemory, true, 1 << 20, kInt64Max,
     "Most input one client may have buffered; a client past it is closed",
     [](const Value& v, ServerConfig* c) {
       c->client_query_buffer_limit = static_cast<std::size_t>(v.number);
     },
     [](const ServerConfig& c) {
       return Number(static_cast<std::int64_t>(c.client_query_buffer_limit));
     }},
    {"tcp-keepalive", "", Kind::kInteger, true, 0, kIntMax,
     "Seconds between TCP keepalive probes of idle clients; 0: off",
     [](const Value& v, ServerConfig* c) { c->tcp_keepalive_s = v.number; },
     [](const ServerConfig& c) { return Number(c.tcp_keepalive_s); }},
    {"protected-mode", "", Kind::kYesNo, true, 0, 0,
     "Refuse non-loopback clients when no password is set",
     [](const Value& v, ServerConfig* c) { c->protected_mode = v.number != 0; },
     [](const ServerConfig& c) { return Number(c.protected_mode ? 1 : 0); }},
    {"logfile", "", Kind::kText, false, 0, 0, "Log file; empty: standard error",
     [](const Value& v, ServerConfig* c) { c->logfile = v.text; },
     [](const ServerConfig& c) { return Text(c.logfile); }},
    {"row-cache", "", Kind::kMemory, false, 0, kInt64Max,
     "Memory for recently read keys, answered without a store lookup; 0: off",
     [](const Value& v, ServerConfig* c) {
       c->row_cache_bytes = static_cast<std::size_t>(v.number);
     },
     [](const ServerConfig& c) { return Number(static_cast<std::int64_t>(c.row_cache_bytes)); }},
    {"min-free-disk", "", Kind::kMemory, false, 0, kInt64Max,
     "Writes are refused (-MISCONF) while the disk has less free space; 0: no guard",
     [](const Value& v, ServerConfig* c) {
       c->min_free_disk_bytes = static_cast<std::uint64_t>(v.number);
     },
     [](const ServerConfig& c) {
       return Number(static_cast<std::int64_t>(c.min_free_disk_bytes));
     }},
    {"fault-injection", "", Kind::kYesNo, false, 0, 0,
     "Tests only: DEBUG FAULT may fail the store's disk operations and cut its power",
     [](const Value& v, ServerConfig* c) { c->fault_injection = v.number != 0; },
     [](const ServerConfig& c) { return Number(c.fault_injection ? 1 : 0); }},
    {"lua-time-limit", "", Kind::kInteger, true, 0, kInt64Max,
     "Milliseconds a script may run before it is stopped and rolled back; 0: no limit",
     [](const Value& v, ServerConfig* c) { c->lua_time_limit_ms = v.number; },
     [](const ServerConfig& c) { return Number(c.lua_time_limit_ms); }},
    {"busy-reply-threshold", "", Kind::kInteger, true, 0, kInt64Max,
     "Milliseconds a script runs before waiting clients are answered -BUSY",
     [](const Value& v, ServerConfig* c) { c->busy_reply_threshold_ms = v.number; },
     [](const ServerConfig& c) { return Number(c.busy_reply_threshold_ms); }},
    // The 1mb floor leaves room for the sandbox itself (about 100 KiB) and a useful script.
    {"lua-memory-limit", "", Kind::kMemory, true, 1 << 20, kInt64Max,
     "Memory each Lua state of the scripts may hold (64mb, ...)",
     [](const Value& v, ServerConfig* c) {
       c->lua_memory_limit = static_cast<std::size_t>(v.number);
     },
     [](const ServerConfig& c) { return Number(static_cast<std::int64_t>(c.lua_memory_limit)); }},
    {"lua-write-buffer-limit", "", Kind::kMemory, true, 1 << 20, kInt64Max,
     "Memory a script's uncommitted writes may hold outside Lua (256mb, ...)",
     [](const Value& v, ServerConfig* c) {
       c->lua_write_buffer_limit = static_cast<std::size_t>(v.number);
     },
     [](const ServerConfig& c) {
       return Number(static_cast<std::int64_t>(c.lua_write_buffer_limit));
     }},
    {"client-output-buffer-limit", "", Kind::kBufferLimits, true, 0, 0,
     "Per client class (normal, replica, pubsub): hard limit, soft limit, soft seconds; a "
     "subscriber past them is disconnected",
     [](const Value& v, ServerConfig* c) {
       for (std::size_t i = 0; i < kClientClasses; ++i) {
         if (v.limits[i]) c->output_buffer_limits[i] = *v.limits[i];
       }
     },
     [](const ServerConfig& c) {
       Value v;
       for (std::size_t i = 0; i < kClientClasses; ++i) v.limits[i] = c.output_buffer_limits[i];
       return v;
     }},
}};

const Param* FindParam(std::string_view name) {
  for (const Param& p : kParams) {
    if (EqualsNoCase(name, p.name) || (!p.alias.empty() && EqualsNoCase(name, p.alias))) {
      return &p;
    }
  }
  return nullptr;
}

// The class names of client-output-buffer-limit; "slave" is how Redis shows replicas.
constexpr std::array<std::string_view, kClientClasses> kClassNames = {"normal", "slave", "pubsub"};

std::optional<std::size_t> ClientClassIndex(std::string_view name) {
  if (EqualsNoCase(name, "replica")) return static_cast<std::size_t>(ClientClass::kReplica);
  for (std::size_t i = 0; i < kClientClasses; ++i) {
    if (EqualsNoCase(name, kClassNames[i])) return i;
  }
  return std::nullopt;  // Redis refuses "master" here too.
}

// client-output-buffer-limit's value, all groups or nothing, with Redis's CONFIG SET wording.
Result<Value> ParseBufferLimits(std::string_view text) {
  if (text.empty()) return Value();  // Redis's CONFIG SET takes "" as changing no class.
  const std::vector<std::string> words = SplitBlanks(text);
  if (words.empty() || words.size() % 4 != 0) {
    return Status::InvalidArgument("Wrong number of arguments in buffer limit configuration.");
  }
  Value v;
  for (std::size_t i = 0; i < words.size(); i += 4) {
    const std::optional<std::size_t> cls = ClientClassIndex(words[i]);
    if (!cls) {
      return Status::InvalidArgument(
          "Invalid client class specified in buffer limit configuration.");
    }
    Result<std::int64_t> hard = ParseMemorySize(words[i + 1]);
    Result<std::int64_t> soft = ParseMemorySize(words[i + 2]);
    const std::optional<std::int64_t> seconds = ParseInt64(words[i + 3]);
    if (!hard.ok() || !soft.ok() || !seconds || *seconds < 0) {
      return Status::InvalidArgument(
          "Error in hard, soft or soft_seconds setting in buffer limit configuration.");
    }
    v.limits[*cls] = OutputBufferLimit{*hard, *soft, *seconds};
  }
  return v;
}

// "normal 0 0 0 slave 268435456 67108864 60 pubsub …"; with `human`, sizes with units.
std::string FormatBufferLimits(const Value& v, bool human) {
  std::string out;
  for (std::size_t i = 0; i < kClientClasses; ++i) {
    const OutputBufferLimit limit = v.limits[i].value_or(OutputBufferLimit{});
    auto bytes = [&](std::int64_t n) { return human ? HumanBytes(n) : std::to_string(n); };
    if (!out.empty()) out += ' ';
    out += std::string(kClassNames[i]) + " " + bytes(limit.hard_bytes) + " " +
           bytes(limit.soft_bytes) + " " + std::to_string(limit.soft_seconds);
  }
  return out;
}

// Parses text for p. On failure the status message is the reason in Redis's CONFIG SET
// wording ("argument must be ..."), which callers wrap with the name and where it came from.
Result<Value> ParseValue(const Param& p, std::string_view text) {
  Value v;
  switch (p.kind) {
    case Kind::kText:
      if (static_cast<std::int64_t>(text.size()) < p.min) {
        return Status::InvalidArgument("argument must not be empty");
      }
      v.text = std::string(text);
      return v;
    case Kind::kAddresses: {
      std::vector<std::string> words = SplitBlanks(text);
      auto count = static_cast<std::int64_t>(words.size());
      if (count < p.min || count > p.max) {
        return Status::InvalidArgument("argument must be " + std::to_string(p.min) + " to " +
                                       std::to_string(p.max) + " addresses separated by spaces");
      }
      for (const std::string& w : words) v.text += (v.text.empty() ? "" : " ") + w;
      return v;
    }
    case Kind::kInteger:
    case Kind::kMemory: {
      std::optional<std::int64_t> n;
      if (p.kind == Kind::kInteger) {
        n = ParseInt64(text);
        if (!n) return Status::InvalidArgument("argument couldn't be parsed into an integer");
      } else {
        Result<std::int64_t> bytes = ParseMemorySize(text);
        if (!bytes.ok()) return Status::InvalidArgument("argument must be a memory value");
        n = *bytes;
      }
      if (*n < p.min || *n > p.max) {
        return Status::InvalidArgument("argument must be between " + std::to_string(p.min) +
                                       " and " + std::to_string(p.max) + " inclusive");
      }
      v.number = *n;
      return v;
    }
    case Kind::kYesNo:
      if (EqualsNoCase(text, "yes")) {
        v.number = 1;
      } else if (EqualsNoCase(text, "no")) {
        v.number = 0;
      } else {
        return Status::InvalidArgument("argument must be 'yes' or 'no'");
      }
      return v;
    case Kind::kDurability: {
      // "no" is appendfsync's spelling in redis.conf; accepting it lets such a file load.
      if (EqualsNoCase(text, "no")) {
        v.durability = Durability::kNone;
        return v;
      }
      Result<Durability> d = ParseDurability(text);
      if (!d.ok()) {
        return Status::InvalidArgument(
            "argument(s) must be one of the following: always, everysec, none");
      }
      v.durability = *d;
      return v;
    }
    case Kind::kBufferLimits:
      return ParseBufferLimits(text);
  }
  return Status::Internal("unhandled parameter kind");
}

// What p accepts, as a phrase for launch errors ("must be <phrase>").
std::string Expectation(const Param& p) {
  switch (p.kind) {
    case Kind::kText:
      return p.min > 0 ? "a non-empty string" : "a string";
    case Kind::kAddresses:
      return std::to_string(p.min) + " to " + std::to_string(p.max) + " addresses";
    case Kind::kInteger:
      return "an integer between " + std::to_string(p.min) + " and " + std::to_string(p.max);
    case Kind::kMemory:
      return "a size in bytes, optionally with a unit (k, kb, m, mb, g, gb), of at least " +
             HumanBytes(p.min);
    case Kind::kYesNo:
      return "yes or no";
    case Kind::kDurability:
      return "always, everysec or none";
    case Kind::kBufferLimits:
      return "groups of <class> <hard> <soft> <soft-seconds>, the class normal, replica or "
             "pubsub, the limits sizes with an optional unit, the seconds an integer of at "
             "least 0 (e.g. pubsub 32mb 8mb 60)";
  }
  return "valid";
}

// How CONFIG GET shows a value: integers in plain decimal (memory values in bytes, as Redis
// does), booleans as yes/no.
std::string Format(const Param& p, const ServerConfig& config) {
  Value v = p.load(config);
  switch (p.kind) {
    case Kind::kText:
    case Kind::kAddresses:
      return v.text;
    case Kind::kInteger:
    case Kind::kMemory:
      return std::to_string(v.number);
    case Kind::kYesNo:
      return v.number != 0 ? "yes" : "no";
    case Kind::kDurability:
      return std::string(DurabilityName(v.durability));
    case Kind::kBufferLimits:
      return FormatBufferLimits(v, /*human=*/false);
  }
  return {};
}

// Applies one directive from a file or the command line. `shown` is the name as the user wrote
// it ("port" or "--port"); values are joined with spaces (only bind accepts several).
Status ApplyDirective(const Param& p, std::string_view shown, std::string_view bare_name,
                      const std::vector<std::string>& values, ServerConfig* config) {
  if (values.empty()) return Status::InvalidArgument("missing value for " + Quoted(shown));
  if (values.size() > 1 && p.kind != Kind::kAddresses && p.kind != Kind::kBufferLimits) {
    return Status::InvalidArgument(Quoted(shown) + " takes one value, got " +
                                   std::to_string(values.size()));
  }
  std::string joined;
  for (const std::string& v : values) joined += (joined.empty() ? "" : " ") + v;
  Result<Value> value = ParseValue(p, joined);
  if (!value.ok()) {
    return Status::InvalidArgument("invalid value " + Quoted(joined) + " for " + Quoted(bare_name) +
                                   ": must be " + Expectation(p));
  }
  p.store(*value, config);
  return Status::Ok();
}

Result<std::string> ReadFile(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return Status::IOError("can't open config file " + Quoted(path) + ": " + std::strerror(errno));
  }
  std::string text;
  char buf[8192];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  // A directory opens fine on Linux and fails only here (EISDIR).
  int err = std::ferror(f) ? errno : 0;
  std::fclose(f);
  if (err != 0) {
    return Status::IOError("can't read config file " + Quoted(path) + ": " + std::strerror(err));
  }
  return text;
}

bool StartsWithDashes(std::string_view arg) { return arg.size() >= 2 && arg.substr(0, 2) == "--"; }

// ---------------------------------------------------------------------------------------------
// Glob matching.

// Matches byte c against the class whose body starts at pattern[i] (just after '['). Sets *next
// to the index after the closing ']', or to the pattern's end when the class is unterminated.
// Follows Redis's reading of a class: a '\' escape is compared exactly; "x-y" is a range (its
// ends swapped if reversed) whenever a '-' follows and a third byte exists, even if that byte
// is ']'; the first ']' always closes, so "[]" matches nothing and "[^]" any byte.
bool MatchClass(std::string_view pattern, std::size_t i, char c, bool nocase, std::size_t* next) {
  bool negate = i < pattern.size() && pattern[i] == '^';
  if (negate) ++i;
  bool match = false;
  while (i < pattern.size()) {
    std::size_t left = pattern.size() - i;
    if (pattern[i] == '\\' && left >= 2) {
      if (pattern[i + 1] == c) match = true;
      i += 2;
    } else if (pattern[i] == ']') {
      ++i;
      break;
    } else if (left >= 3 && pattern[i + 1] == '-') {
      // Redis compares a range's bytes as C's (signed) chars: "[a-\xe9]" is the range from
      // \xe9 (-23) to 'a', which holds 0x00–0x61 and 0xe9–0xff. KEYS and SCAN MATCH must
      // select the same keys as Redis does.
      auto lo = static_cast<signed char>(pattern[i]);
      auto hi = static_cast<signed char>(pattern[i + 2]);
      auto b = static_cast<signed char>(c);
      if (lo > hi) std::swap(lo, hi);
      if (nocase) {
        lo = static_cast<signed char>(FoldAscii(static_cast<char>(lo)));
        hi = static_cast<signed char>(FoldAscii(static_cast<char>(hi)));
        b = static_cast<signed char>(FoldAscii(c));
      }
      if (b >= lo && b <= hi) match = true;
      i += 3;
    } else {
      if (nocase ? FoldAscii(pattern[i]) == FoldAscii(c) : pattern[i] == c) match = true;
      ++i;
    }
  }
  *next = i;
  return negate ? !match : match;
}

// Matches byte c against the single-byte token (not '*') at pattern[i]; sets *next past it.
bool MatchToken(std::string_view pattern, std::size_t i, char c, bool nocase, std::size_t* next) {
  switch (pattern[i]) {
    case '?':
      *next = i + 1;
      return true;
    case '[':
      return MatchClass(pattern, i + 1, c, nocase, next);
    case '\\':
      // A trailing '\' stands for itself.
      if (i + 1 < pattern.size()) ++i;
      break;
    default:
      break;
  }
  *next = i + 1;
  return nocase ? FoldAscii(pattern[i]) == FoldAscii(c) : pattern[i] == c;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

std::vector<std::string> BindAddresses(const ServerConfig& config) {
  return SplitBlanks(config.bind);
}

bool GlobMatch(std::string_view pattern, std::string_view text, bool nocase) {
  // Every token but '*' consumes exactly one byte, so when a later token fails it is enough
  // to let the most recent '*' swallow one more byte and retry from there: earlier stars never
  // need revisiting. That bounds the work by |pattern|·|text| where Redis's recursive version
  // can go exponential on "a*a*a*...b" (it caps recursion depth instead).
  std::size_t p = 0;
  std::size_t t = 0;
  std::size_t star_p = std::string_view::npos;  // Pattern index just after the last '*' run.
  std::size_t star_t = 0;                       // Text index that '*' run resumes from.
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      while (p < pattern.size() && pattern[p] == '*') ++p;
      if (p == pattern.size()) return true;
      star_p = p;
      star_t = t;
      continue;
    }
    std::size_t next = 0;
    if (p < pattern.size() && MatchToken(pattern, p, text[t], nocase, &next)) {
      p = next;
      ++t;
      continue;
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p;
    t = ++star_t;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

Result<std::vector<std::string>> SplitConfigLine(std::string_view line) {
  std::vector<std::string> args;
  std::size_t i = 0;
  const std::size_t n = line.size();
  auto unbalanced = [] { return Status::InvalidArgument("unbalanced quotes"); };
  while (true) {
    while (i < n && IsBlank(line[i])) ++i;
    if (i == n) return args;
    std::string cur;
    bool in_double = false;
    bool in_single = false;
    bool done = false;
    while (!done) {
      if (in_double) {
        if (i == n) return unbalanced();
        if (line[i] == '\\' && i + 3 < n && line[i + 1] == 'x' && HexDigit(line[i + 2]) >= 0 &&
            HexDigit(line[i + 3]) >= 0) {
          cur += static_cast<char>(HexDigit(line[i + 2]) * 16 + HexDigit(line[i + 3]));
          i += 3;
        } else if (line[i] == '\\' && i + 1 < n) {
          ++i;
          switch (line[i]) {
            case 'n':
              cur += '\n';
              break;
            case 'r':
              cur += '\r';
              break;
            case 't':
              cur += '\t';
              break;
            case 'b':
              cur += '\b';
              break;
            case 'a':
              cur += '\a';
              break;
            default:
              cur += line[i];
              break;
          }
        } else if (line[i] == '"') {
          // "foo"bar would be ambiguous; Redis refuses it, and so do we.
          if (i + 1 < n && !IsBlank(line[i + 1])) return unbalanced();
          done = true;
        } else {
          cur += line[i];
        }
      } else if (in_single) {
        if (i == n) return unbalanced();
        if (line[i] == '\\' && i + 1 < n && line[i + 1] == '\'') {
          ++i;
          cur += '\'';
        } else if (line[i] == '\'') {
          if (i + 1 < n && !IsBlank(line[i + 1])) return unbalanced();
          done = true;
        } else {
          cur += line[i];
        }
      } else {
        if (i == n) break;
        switch (line[i]) {
          case ' ':
          case '\n':
          case '\r':
          case '\t':
            done = true;
            break;
          case '"':
            in_double = true;
            break;
          case '\'':
            in_single = true;
            break;
          default:
            cur += line[i];
            break;
        }
      }
      if (i < n) ++i;
    }
    args.push_back(std::move(cur));
  }
}

Result<std::int64_t> ParseMemorySize(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  std::string unit = Lower(text.substr(digits));
  std::uint64_t mul = 0;
  if (unit.empty() || unit == "b") {
    mul = 1;
  } else if (unit == "k") {
    mul = 1000;
  } else if (unit == "kb") {
    mul = 1024;
  } else if (unit == "m") {
    mul = 1000ull * 1000;
  } else if (unit == "mb") {
    mul = 1024ull * 1024;
  } else if (unit == "g") {
    mul = 1000ull * 1000 * 1000;
  } else if (unit == "gb") {
    mul = 1024ull * 1024 * 1024;
  }
  std::uint64_t n = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + digits, n);
  if (mul == 0 || digits == 0 || ec != std::errc() || ptr != text.data() + digits) {
    return Status::InvalidArgument("invalid memory value " + Quoted(text) +
                                   ": expected digits with an optional unit b, k, kb, m, mb, "
                                   "g or gb");
  }
  if (n > static_cast<std::uint64_t>(kInt64Max) / mul) {
    return Status::InvalidArgument("memory value " + Quoted(text) + " is too large");
  }
  return static_cast<std::int64_t>(n * mul);
}

Status ApplyConfigText(std::string_view text, std::string_view source_name, ServerConfig* config) {
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    auto fail = [&](const Status& s) {
      return Status(s.code(), "error in config file " + Quoted(source_name) + " at line " +
                                  std::to_string(line_no) + ": " + s.message());
    };
    while (!line.empty() && IsBlank(line.front())) line.remove_prefix(1);
    while (!line.empty() && IsBlank(line.back())) line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    Result<std::vector<std::string>> args = SplitConfigLine(line);
    if (!args.ok()) return fail(args.status());
    const std::string& name = args->front();
    const Param* p = FindParam(name);
    if (p == nullptr) return fail(Status::InvalidArgument("unknown option " + Quoted(name)));
    std::vector<std::string> values(args->begin() + 1, args->end());
    Status s = ApplyDirective(*p, name, name, values, config);
    if (!s.ok()) return fail(s);
  }
  return Status::Ok();
}

Result<Launch> ParseLaunch(const std::vector<std::string>& argv) {
  Launch launch;
  std::vector<std::string> args;
  if (argv.size() > 1) args.assign(argv.begin() + 1, argv.end());

  // Asking for help must work whatever else is on the line (and without reading the file):
  // "--help" and "--version" can never be values, "-h" and "-v" only count first, as in Redis.
  if (!args.empty() && (args[0] == "-h" || args[0] == "-v")) {
    launch.action = args[0] == "-h" ? LaunchAction::kHelp : LaunchAction::kVersion;
    return launch;
  }
  for (const std::string& a : args) {
    if (a == "--help" || a == "--version") {
      launch.action = a == "--help" ? LaunchAction::kHelp : LaunchAction::kVersion;
      return launch;
    }
  }

  std::size_t i = 0;
  if (!args.empty() && !StartsWithDashes(args[0])) {
    if (args[0].size() > 0 && args[0][0] == '-') {
      // Reading the config from standard input ("-") is not supported; a file whose name
      // starts with '-' can still be given as ./-name.
      return Status::InvalidArgument("unknown option " + Quoted(args[0]));
    }
    Result<std::string> text = ReadFile(args[0]);
    if (!text.ok()) return text.status();
    Status s = ApplyConfigText(*text, args[0], &launch.config);
    if (!s.ok()) return s;
    i = 1;
  }
  while (i < args.size()) {
    const std::string& flag = args[i];
    if (!StartsWithDashes(flag)) {
      return Status::InvalidArgument("unexpected argument " + Quoted(flag) +
                                     " (options are written --name value; a config file must "
                                     "come first)");
    }
    std::string_view name = std::string_view(flag).substr(2);
    const Param* p = FindParam(name);
    if (p == nullptr) return Status::InvalidArgument("unknown option " + Quoted(flag));
    std::vector<std::string> values;
    for (++i; i < args.size() && !StartsWithDashes(args[i]); ++i) values.push_back(args[i]);
    Status s = ApplyDirective(*p, flag, name, values, &launch.config);
    if (!s.ok()) return s;
  }
  return launch;
}

Status SetParameter(std::string_view name, std::string_view value, bool runtime,
                    ServerConfig* config) {
  const Param* p = FindParam(name);
  // Redis quotes the name back as the client sent it.
  if (p == nullptr) {
    return Status::InvalidArgument("Unknown option or number of arguments for CONFIG SET - '" +
                                   std::string(name) + "'");
  }
  std::string prefix =
      "CONFIG SET failed (possibly related to argument '" + std::string(name) + "') - ";
  if (runtime && !p->runtime) {
    return Status::FailedPrecondition(prefix + "can't set immutable config");
  }
  Result<Value> v = ParseValue(*p, value);
  if (!v.ok()) return Status::InvalidArgument(prefix + v.status().message());
  p->store(*v, config);
  return Status::Ok();
}

std::vector<std::pair<std::string, std::string>> GetParameters(std::string_view pattern,
                                                               const ServerConfig& config) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Param& p : kParams) {
    if (GlobMatch(pattern, p.name, /*nocase=*/true)) {
      out.emplace_back(p.name, Format(p, config));
    } else if (!p.alias.empty() && GlobMatch(pattern, p.alias, /*nocase=*/true)) {
      out.emplace_back(p.alias, Format(p, config));
    }
  }
  return out;
}

std::string HelpText() {
  std::string out =
      "Usage: cairn-server [/path/to/cairn.conf] [options]\n"
      "       cairn-server -v or --version\n"
      "       cairn-server -h or --help\n"
      "\n"
      "Examples:\n"
      "       cairn-server (run the server with the default configuration)\n"
      "       cairn-server /etc/cairn/cairn.conf\n"
      "       cairn-server --port 7777 --dir /var/lib/cairn\n"
      "       cairn-server --bind 127.0.0.1 ::1 --requirepass s3cret\n"
      "       cairn-server /etc/cairn/cairn.conf --port 0 --durability always\n"
      "\n"
      "The config file holds one \"name value\" directive per line (# starts a comment line;\n"
      "quote values with spaces). Options on the command line override the file.\n"
      "\n"
      "Options (default in brackets; * = can be changed at run time with CONFIG SET):\n";
  const ServerConfig defaults;
  for (const Param& p : kParams) {
    std::string left = "  --" + std::string(p.name) + (p.runtime ? " *" : "");
    if (left.size() < 24) left.resize(24, ' ');
    // Sizes read better with a unit here; CONFIG GET shows bytes as Redis does.
    std::string shown = p.kind == Kind::kMemory         ? HumanBytes(p.load(defaults).number)
                        : p.kind == Kind::kBufferLimits ? FormatBufferLimits(p.load(defaults), true)
                                                        : Format(p, defaults);
    out += left + " " + std::string(p.help) + " [" + (shown.empty() ? "\"\"" : shown) + "]\n";
  }
  return out;
}

std::string VersionText() {
  return "cairn-server v=" + std::string(kCairnVersion) +
         " bits=" + std::to_string(sizeof(void*) * 8) +
         " (Redis compatibility target: redis_version " + std::string(kRedisVersion) + ")";
}

}  // namespace cairn::server
