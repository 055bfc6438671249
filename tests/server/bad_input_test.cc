// cairn-server against clients that misbehave, over real loopback sockets: seeded random and
// mutated byte streams, sizes declared over the limits, clients that write one byte at a time
// or stop reading their replies, connections that go idle in the middle of a frame, and
// connections dropped abruptly. The server must never crash, hang or grow without bound, and
// must go on serving everyone else.
//
// Every wait has a generous deadline (kHangMs) that only turns a hang into a failure; nothing
// here asserts how long anything took. The fuzz seed is printed and CAIRN_FUZZ_SEED overrides
// it (CAIRN_FUZZ_FRAMES overrides the volume), so a failure reproduces.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "server/support/inline_quote.h"
#include "server/support/raw_connection.h"
#include "server/support/reply_scan.h"
#include "server/support/resp_client.h"
#include "server/support/server_fixture.h"

namespace cairn::test {
namespace {

using Args = std::vector<std::string>;
using Io = RawConnection::Io;

// Only a hang detector: a healthy server answers in milliseconds.
constexpr int kHangMs = 10'000;
constexpr std::size_t kMiB = 1024 * 1024;

#if defined(CAIRN_SANITIZED)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

// ---------------------------------------------------------------------------------------------
// Seeds and volume.

// splitmix64: the same stream on every platform, unlike <random>'s distributions.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t Next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::size_t Below(std::size_t n) { return n == 0 ? 0 : Next() % n; }
  bool OneIn(std::size_t n) { return Below(n) == 0; }
  template <typename T, std::size_t N>
  const T& Pick(const T (&items)[N]) {
    return items[Below(N)];
  }

 private:
  std::uint64_t state_;
};

std::uint64_t EnvNumber(const char* name, std::uint64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  return std::strtoull(text, nullptr, 0);
}

std::uint64_t FuzzSeed() { return EnvNumber("CAIRN_FUZZ_SEED", 0xCA1D5EEDull); }

// Frames across the whole fuzz test. The sanitizers slow the server several times over, but
// they also stop it at the first bad access or undefined operation, which a release build may
// survive unnoticed: fewer frames find as much.
std::size_t FuzzFrames() { return EnvNumber("CAIRN_FUZZ_FRAMES", kSanitized ? 100'000 : 300'000); }

// Each connection's stream comes from its own seed, so one failing connection can be told
// apart (and regenerated) from the seed and its index alone.
std::uint64_t ConnectionSeed(std::uint64_t seed, std::uint64_t index) {
  return Rng(seed ^ (index * 0xD1B54A32D192ED03ull)).Next();
}

// Printable bytes for failure messages, cut at `max`.
std::string Escaped(std::string_view bytes, std::size_t max = 400) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size() && i < max; ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c < 0x20 || c > 0x7e) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (bytes.size() > max) out += "...(" + std::to_string(bytes.size()) + " bytes)";
  return out;
}

// ---------------------------------------------------------------------------------------------
// The fuzz corpus: commands from a whitelist that touch only the fuzz's own keys (k*, n*) and
// its own connection, never the server as a whole (no SHUTDOWN, CONFIG, CLIENT, FLUSH*,
// DEBUG, QUIT, and no native commands, whose blocking forms may park a connection). SETRANGE
// is left out too: an offset it accepts allocates up to 512 MiB, and an offset near INT64_MAX
// overflows (SetRangeWithAnOffsetNearInt64MaxIsRefused).

std::string Key(Rng& rng) { return "k" + std::to_string(rng.Below(8)); }
std::string Counter(Rng& rng) { return "n" + std::to_string(rng.Below(4)); }

std::string Value(Rng& rng) {
  static constexpr std::string_view kAlphabet = "abcxyz0123456789 -_:.";
  std::string v;
  const std::size_t n = rng.Below(24);
  for (std::size_t i = 0; i < n; ++i) {
    // Now and then any byte: \r, \n, NUL and quotes are all fine inside a bulk string.
    v += rng.OneIn(8) ? static_cast<char>(rng.Next() & 0xff)
                      : kAlphabet[rng.Below(kAlphabet.size())];
  }
  return v;
}

// Numbers where parsers and arithmetic go wrong.
std::string Number(Rng& rng) {
  static constexpr const char* kEdges[] = {"0",
                                           "1",
                                           "-1",
                                           "10",
                                           "100",
                                           "1000000",
                                           "2147483648",
                                           "9223372036854775807",
                                           "-9223372036854775808",
                                           "9223372036854775808",
                                           "-9223372036854775809",
                                           "18446744073709551616",
                                           "1.5",
                                           "-0",
                                           "+1",
                                           " 1",
                                           "1e3",
                                           "inf",
                                           "nan",
                                           "",
                                           "abc"};
  if (rng.OneIn(3)) return std::to_string(static_cast<std::int64_t>(rng.Next() % 2000) - 1000);
  return rng.Pick(kEdges);
}

std::string MixCase(std::string_view name, Rng& rng) {
  std::string out(name);
  if (rng.OneIn(2)) return out;
  for (char& c : out) {
    if (rng.OneIn(2)) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

Args ExpiryCommand(Rng& rng) {
  static constexpr const char* kNames[] = {"EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT"};
  static constexpr const char* kFlags[] = {"NX", "XX", "GT", "LT", "BOGUS"};
  Args a = {rng.Pick(kNames), Key(rng), Number(rng)};
  if (rng.OneIn(3)) a.push_back(rng.Pick(kFlags));
  return a;
}

Args SetCommand(Rng& rng) {
  static constexpr const char* kUnits[] = {"EX", "PX", "EXAT", "PXAT"};
  static constexpr const char* kFlags[] = {"NX", "XX", "GET", "KEEPTTL"};
  Args a = {"SET", Key(rng), Value(rng)};
  if (rng.OneIn(3)) a.insert(a.end(), {rng.Pick(kUnits), Number(rng)});
  if (rng.OneIn(3)) a.push_back(rng.Pick(kFlags));
  return a;
}

Args KeysCommand(Rng& rng, std::string_view name, bool with_values) {
  Args a = {std::string(name)};
  const std::size_t n = 1 + rng.Below(4);
  for (std::size_t i = 0; i < n; ++i) {
    a.push_back(Key(rng));
    if (with_values) a.push_back(Value(rng));
  }
  return a;
}

Args SafeCommand(Rng& rng) {
  switch (rng.Below(30)) {
    case 0:
      return rng.OneIn(2) ? Args{"PING"} : Args{"PING", Value(rng)};
    case 1:
      return {"ECHO", Value(rng)};
    case 2:
    case 3:
      return SetCommand(rng);
    case 4:
    case 5:
      return {"GET", Key(rng)};
    case 6:
      return {rng.OneIn(2) ? "INCR" : "DECR", Counter(rng)};
    case 7:
      return {rng.OneIn(2) ? "INCRBY" : "DECRBY", Counter(rng), Number(rng)};
    case 8:
      return {"INCRBYFLOAT", Counter(rng), Number(rng)};
    case 9:
      return {"APPEND", Key(rng), Value(rng)};
    case 10:
      return {"GETRANGE", Key(rng), Number(rng), Number(rng)};
    case 11:
      return KeysCommand(rng, "MSET", true);
    case 12:
      return KeysCommand(rng, rng.OneIn(2) ? "MGET" : "EXISTS", false);
    case 13:
      return KeysCommand(rng, rng.OneIn(2) ? "DEL" : "UNLINK", false);
    case 14:
      return ExpiryCommand(rng);
    case 15: {
      static constexpr const char* kNames[] = {"TTL",    "PTTL",   "TYPE",       "PERSIST",
                                               "STRLEN", "GETDEL", "EXPIRETIME", "PEXPIRETIME"};
      return {rng.Pick(kNames), Key(rng)};
    }
    case 16: {
      static constexpr const char* kOptions[] = {"EX", "PX", "EXAT", "PXAT"};
      if (rng.OneIn(3)) return {"GETEX", Key(rng), "PERSIST"};
      return {"GETEX", Key(rng), rng.Pick(kOptions), Number(rng)};
    }
    case 17:
      return {rng.OneIn(2) ? "SETEX" : "PSETEX", Key(rng), Number(rng), Value(rng)};
    case 18:
      return {rng.OneIn(2) ? "SETNX" : "GETSET", Key(rng), Value(rng)};
    case 19: {
      static constexpr const char* kVersions[] = {"2", "3", "4", "x", "-1"};
      if (rng.OneIn(4)) return {"HELLO"};
      Args a = {"HELLO", rng.Pick(kVersions)};
      if (rng.OneIn(3)) a.insert(a.end(), {"SETNAME", "fuzz"});
      return a;
    }
    case 20:
      return {"MULTI"};
    case 21:
      return {rng.OneIn(3) ? "DISCARD" : "EXEC"};
    case 22:
      return rng.OneIn(2) ? Args{"WATCH", Key(rng)} : Args{"UNWATCH"};
    case 23:
      return {rng.OneIn(2) ? "RENAME" : "RENAMENX", Key(rng), Key(rng)};
    case 24:
      return {"SELECT", rng.OneIn(2) ? "0" : Number(rng)};
    case 25: {
      static constexpr const char* kNames[] = {"DBSIZE", "TIME", "RANDOMKEY"};
      return {rng.Pick(kNames)};
    }
    case 26:
      return {"SCAN", Number(rng), "MATCH", "k*", "COUNT", Number(rng)};
    case 27:
      return {"KEYS", rng.OneIn(2) ? "k*" : "*"};
    case 28:
      return {"TOUCH", Key(rng)};
    default:
      return {"NOSUCHCOMMAND", Value(rng)};
  }
}

std::string Multibulk(const Args& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return out;
}

// An inline word that reads back as `word`: bare when it can be, else double-quoted.
std::string InlineWord(std::string_view word, Rng& rng) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return c > ' ' && c < 0x7f && c != '"' && c != '\'' && c != '\\';
  });
  if (plain && !rng.OneIn(4)) return std::string(word);
  return DoubleQuoted(word);
}

std::string Inline(const Args& args, Rng& rng) {
  std::string out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i > 0) out += rng.OneIn(8) ? "  \t" : " ";
    out += InlineWord(args[i], rng);
  }
  return out + (rng.OneIn(4) ? "\n" : "\r\n");
}

std::string ValidFrame(Rng& rng) {
  Args args = SafeCommand(rng);
  args[0] = MixCase(args[0], rng);
  return rng.OneIn(4) ? Inline(args, rng) : Multibulk(args);
}

std::string RandomBytes(Rng& rng, std::size_t max_len) {
  static constexpr std::string_view kSteering = "*$\r\n \"'\\0123456789-+:%~_";
  std::string out;
  const std::size_t n = 1 + rng.Below(max_len);
  for (std::size_t i = 0; i < n; ++i) {
    out += rng.OneIn(3) ? kSteering[rng.Below(kSteering.size())]
                        : static_cast<char>(rng.Next() & 0xff);
  }
  return out;
}

// Where a "*<n>" or "$<n>" header starts: the frame's start, or just after a '\n'.
std::vector<std::size_t> HeaderPositions(const std::string& frame) {
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < frame.size(); ++i) {
    if ((i == 0 || frame[i - 1] == '\n') && (frame[i] == '*' || frame[i] == '$')) at.push_back(i);
  }
  return at;
}

// Lengths and counts that overflow, go negative, or are not numbers at all. With the fuzz
// server's 1 MiB bulk limit, 1048576 and 1000000 are accepted and leave a bulk pending.
std::string BadNumber(Rng& rng) {
  static constexpr const char* kBad[] = {"2147483648",
                                         "4294967296",
                                         "9223372036854775807",
                                         "9223372036854775808",
                                         "18446744073709551616",
                                         "99999999999999999999999999999",
                                         "-1",
                                         "-2",
                                         "-9223372036854775808",
                                         "-9223372036854775809",
                                         "0",
                                         "-0",
                                         "+1",
                                         " 1",
                                         "1 ",
                                         "01",
                                         "0x10",
                                         "1e3",
                                         "",
                                         "abc",
                                         "3.0",
                                         "1048576",
                                         "1048577",
                                         "1000000",
                                         "65536"};
  if (rng.OneIn(4)) {
    std::string digits;
    const std::size_t n = 1 + rng.Below(30);
    for (std::size_t i = 0; i < n; ++i) digits += static_cast<char>('0' + rng.Below(10));
    if (rng.OneIn(3)) digits[rng.Below(digits.size())] = static_cast<char>(rng.Next() & 0xff);
    return digits;
  }
  return rng.Pick(kBad);
}

// RESP3 and reply types a client must not send, whole elements of them, and nested arrays.
std::string ForeignElement(Rng& rng) {
  static constexpr const char* kElements[] = {"%1\r\n$1\r\na\r\n$1\r\nb\r\n",
                                              "~1\r\n$1\r\na\r\n",
                                              "_\r\n",
                                              ",1.5\r\n",
                                              "#t\r\n",
                                              "(12345\r\n",
                                              "=7\r\ntxt:abc\r\n",
                                              "!3\r\nerr\r\n",
                                              ">1\r\n$1\r\na\r\n",
                                              "|1\r\n+a\r\n+b\r\n",
                                              ":1\r\n",
                                              "+OK\r\n",
                                              "-ERR x\r\n",
                                              "*1\r\n*1\r\n$4\r\nPING\r\n",
                                              "*-1\r\n",
                                              "*0\r\n",
                                              "$-1\r\n",
                                              "$0\r\n\r\n"};
  return rng.Pick(kElements);
}

void MutateOnce(std::string& frame, Rng& rng) {
  static constexpr std::string_view kTypes = "%~_,#(=!>|:+-*$";
  static constexpr const char* kLineBreaks[] = {"\r", "\n", "\r\n", "\n\r", "\r\r\n"};
  const std::vector<std::size_t> headers = HeaderPositions(frame);
  const std::size_t at = rng.Below(frame.size() + 1);
  switch (rng.Below(10)) {
    case 0: {  // A bit flip.
      if (frame.empty()) return;
      const std::size_t i = rng.Below(frame.size());
      frame[i] = static_cast<char>(frame[i] ^ (1 << rng.Below(8)));
      return;
    }
    case 1:  // Truncation: whatever follows on the stream continues the frame.
      frame.resize(at);
      return;
    case 2:
      frame.insert(at, rng.Pick(kLineBreaks));
      return;
    case 3: {  // A bad length or count in a header.
      if (headers.empty()) return;
      const std::size_t h = headers[rng.Below(headers.size())];
      const std::size_t cr = frame.find('\r', h);
      frame.replace(h + 1, cr == std::string::npos ? 0 : cr - h - 1, BadNumber(rng));
      return;
    }
    case 4: {  // A header's type byte replaced.
      if (headers.empty()) return;
      const std::size_t h = headers[rng.Below(headers.size())];
      frame[h] = kTypes[rng.Below(kTypes.size())];
      return;
    }
    case 5: {  // A foreign element where a bulk string belongs, or before the frame.
      const std::size_t h =
          headers.empty() || rng.OneIn(4) ? 0 : headers[rng.Below(headers.size())];
      frame.insert(h, ForeignElement(rng));
      return;
    }
    case 6: {
      const std::size_t n = std::min<std::size_t>(frame.size() - at, 1 + rng.Below(8));
      frame.erase(at, n);
      return;
    }
    case 7: {
      const std::size_t n = std::min<std::size_t>(frame.size() - at, 1 + rng.Below(16));
      frame.insert(at, frame.substr(at, n));
      return;
    }
    case 8:
      frame.insert(at, RandomBytes(rng, 8));
      return;
    default: {  // A header of garbage digits in place of the frame's start.
      // One draw per statement: the order of a call's arguments is unspecified, and the stream
      // must be the same whatever the compiler.
      const std::size_t cut = std::min<std::size_t>(frame.size(), rng.Below(6));
      std::string header(1, rng.OneIn(2) ? '*' : '$');
      header += BadNumber(rng);
      if (rng.OneIn(2)) header += "\r\n";
      frame.replace(0, cut, header);
      return;
    }
  }
}

std::string MutatedFrame(Rng& rng) {
  std::string frame = ValidFrame(rng);
  const std::size_t n = 1 + rng.Below(3);
  for (std::size_t i = 0; i < n; ++i) MutateOnce(frame, rng);
  return frame;
}

// Words that could reach a command changing the server for everyone (or closing the
// connection other than on a protocol error, which the checks rely on). Random bytes all but
// never spell one, but a fuzz run must not depend on luck: any occurrence, in any case, loses
// its first letter.
void Scrub(std::string& stream) {
  static constexpr std::string_view kWords[] = {
      "shutdown",    "flushall", "flushdb",   "config",  "debug",  "client", "quit",
      "requirepass", "monitor",  "replicaof", "slaveof", "lease.", "queue."};
  auto lower = [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  };
  for (std::size_t i = 0; i < stream.size(); ++i) {
    for (const std::string_view word : kWords) {
      if (stream.size() - i < word.size()) continue;
      bool same = true;
      for (std::size_t j = 0; j < word.size() && same; ++j) same = lower(stream[i + j]) == word[j];
      if (same) stream[i] = '#';
    }
  }
}

struct FuzzStream {
  std::string bytes;
  std::vector<std::size_t> frame_ends;  // Offset just past each frame.
};

FuzzStream BuildStream(Rng& rng) {
  FuzzStream s;
  // One connection in six carries random bytes only; the others mostly valid commands, so that
  // the server runs them and reaches deeper states (MULTI, RESP3) before a mutated frame lands.
  const bool random_only = rng.OneIn(6);
  const std::size_t frames = 1 + rng.Below(random_only ? 16 : 64);
  for (std::size_t i = 0; i < frames; ++i) {
    if (random_only || rng.OneIn(40)) {
      s.bytes += RandomBytes(rng, 256);
    } else if (rng.OneIn(12)) {
      s.bytes += MutatedFrame(rng);
    } else {
      s.bytes += ValidFrame(rng);
    }
    s.frame_ends.push_back(s.bytes.size());
  }
  Scrub(s.bytes);
  return s;
}

// ---------------------------------------------------------------------------------------------
// The fixture.

struct FuzzStats {
  std::size_t connections = 0;
  std::size_t frames = 0;  // Frames the kernel took before the server closed the connection.
  std::size_t bytes_sent = 0;
  std::size_t bytes_received = 0;
  std::size_t replies = 0;
  std::size_t protocol_errors = 0;
  std::map<std::string, std::size_t> protocol_error_kinds;  // Message -> times seen.
};

class BadInputTest : public ServerFixture {
 protected:
  // Start() for the tests that bound the server's memory. Under ASan the server gets a small
  // quarantine: the default one keeps up to 256 MiB of freed blocks from reuse, which would
  // read as the very growth these tests look for.
  void StartForMemoryCheck(const Args& extra) {
    if (!kSanitized) return Start(extra);
    const char* old = std::getenv("ASAN_OPTIONS");
    const std::string saved = old != nullptr ? old : "";
    const std::string small = saved + (saved.empty() ? "" : ":") + "quarantine_size_mb=8";
    ::setenv("ASAN_OPTIONS", small.c_str(), 1);
    Start(extra);
    if (old != nullptr) {
      ::setenv("ASAN_OPTIONS", saved.c_str(), 1);
    } else {
      ::unsetenv("ASAN_OPTIONS");
    }
  }

  std::size_t Rss() const { return ResidentBytes(server_->pid()); }

  std::string LogTail() const {
    std::ifstream log(dir_.Sub("server.log"));
    std::stringstream text;
    text << log.rdbuf();
    const std::string all = text.str();
    return all.size() > 8000 ? all.substr(all.size() - 8000) : all;
  }

  std::unique_ptr<RawConnection> RawConnect() {
    std::string error;
    std::unique_ptr<RawConnection> c = RawConnection::Connect(server_->port(), &error);
    EXPECT_NE(c, nullptr) << error;
    return c;
  }

  // The server runs, answers PING on a new connection and stores and returns a value.
  void ExpectHealthy(const std::string& tag) {
    ASSERT_TRUE(ProcessRunning(server_->pid()))
        << "cairn-server is gone (" << tag << "); its log ends with:\n"
        << LogTail();
    std::unique_ptr<RespClient> c = Connect();
    ASSERT_NE(c, nullptr);
    ASSERT_EQ(c->Call({"PING"}).ToString(), "PONG") << tag;
    const std::string key = "health:" + tag;
    ASSERT_EQ(c->Call({"SET", key, "v-" + tag}).ToString(), "OK") << tag;
    ASSERT_EQ(c->Call({"GET", key}).ToString(), "\"v-" + tag + "\"") << tag;
  }

  // Sends `bytes` (a frame's beginning, never its body) on a new connection and expects the
  // one reply "-ERR Protocol error: <error>", then the close.
  void ExpectRefused(const std::string& bytes, const std::string& error) {
    SCOPED_TRACE("input: " + Escaped(bytes, 60));
    std::unique_ptr<RawConnection> c = RawConnect();
    ASSERT_NE(c, nullptr);
    const Io sent = c->SendAll(bytes, kHangMs);
    ASSERT_NE(sent, Io::kTimeout);
    ASSERT_EQ(c->ReceiveUntilClosed(kHangMs), Io::kOk)
        << "no close; got: " << Escaped(c->received());
    EXPECT_EQ(c->received(), "-ERR Protocol error: " + error + "\r\n");
  }

  int ConnectedClients(RespClient& c) {
    const std::string info = c.Call({"INFO", "clients"}).str;
    const std::string field = "connected_clients:";
    const std::size_t at = info.find(field);
    return at == std::string::npos ? -1 : std::atoi(info.c_str() + at + field.size());
  }

  // Polls INFO until connected_clients is `n` (the asking connection included).
  void ExpectConnectedClientsReach(int n) {
    std::unique_ptr<RespClient> c = Connect();
    ASSERT_NE(c, nullptr);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kHangMs);
    int seen = ConnectedClients(*c);
    while (seen != n && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      seen = ConnectedClients(*c);
    }
    EXPECT_EQ(seen, n) << "connections the server still counts after their clients went away";
  }

  void FuzzOneConnection(std::uint64_t seed, std::size_t index, FuzzStats* stats);
};

// Sends one connection's stream in random pieces while reading whatever comes back, then
// ends its input and reads until the server closes. Checks that the replies are well-formed
// RESP, and that a connection the server closed on its own ended with exactly one protocol
// error, its last reply.
void BadInputTest::FuzzOneConnection(std::uint64_t seed, std::size_t index, FuzzStats* stats) {
  Rng rng(ConnectionSeed(seed, index));
  const FuzzStream stream = BuildStream(rng);
  SCOPED_TRACE("fuzz seed " + std::to_string(seed) + ", connection " + std::to_string(index) +
               ", stream: " + Escaped(stream.bytes));
  std::unique_ptr<RawConnection> c = RawConnect();
  ASSERT_NE(c, nullptr);
  std::size_t sent = 0;
  bool server_closed_first = false;
  while (sent < stream.bytes.size()) {
    const std::size_t piece =
        rng.OneIn(4) ? stream.bytes.size() - sent
                     : std::min(stream.bytes.size() - sent, 1 + rng.Below(rng.OneIn(4) ? 4 : 512));
    std::string_view pending(stream.bytes.data() + sent, piece);
    Io io = Io::kOk;
    while (!pending.empty() && io == Io::kOk) io = c->Exchange(&pending, kHangMs);
    sent += piece - pending.size();
    ASSERT_NE(io, Io::kTimeout) << "the server took no bytes and sent none for " << kHangMs
                                << " ms";
    if (io == Io::kClosed) {
      server_closed_first = true;
      break;
    }
  }
  if (!server_closed_first) c->ShutdownWrite();
  ASSERT_EQ(c->ReceiveUntilClosed(kHangMs), Io::kOk)
      << "the server did not close the connection after its input ended; got: "
      << Escaped(c->received());

  const std::string& got = c->received();
  const ReplyScan scan = ScanReplies(got);
  ASSERT_FALSE(scan.malformed) << "not RESP at byte " << scan.consumed << ": "
                               << Escaped(std::string_view(got).substr(scan.consumed));
  // A reset may cut the last reply short; a clean close may not.
  if (!c->peer_reset()) {
    EXPECT_FALSE(scan.incomplete_tail) << Escaped(got);
  }
  std::size_t protocol_errors = 0;
  for (std::size_t i = 0; i < scan.first_lines.size(); ++i) {
    if (!scan.first_lines[i].starts_with("-ERR Protocol error")) continue;
    ++protocol_errors;
    // "expected '$', got 'x'" counts once whatever x was.
    const std::string& line = scan.first_lines[i];
    ++stats->protocol_error_kinds[line.substr(0, line.find(", got"))];
    EXPECT_EQ(i + 1, scan.first_lines.size()) << "replies after a protocol error: " << Escaped(got);
  }
  EXPECT_LE(protocol_errors, 1u);
  if (server_closed_first) {
    EXPECT_EQ(protocol_errors, 1u)
        << "the server closed without a protocol error; got: " << Escaped(got);
  }

  ++stats->connections;
  stats->frames += static_cast<std::size_t>(
      std::upper_bound(stream.frame_ends.begin(), stream.frame_ends.end(), sent) -
      stream.frame_ends.begin());
  stats->bytes_sent += sent;
  stats->bytes_received += got.size();
  stats->replies += scan.complete;
  stats->protocol_errors += protocol_errors;
}

// ---------------------------------------------------------------------------------------------
// 1. Random and mutated streams.

TEST_F(BadInputTest, RandomAndMutatedStreamsNeitherCrashNorHangTheServer) {
  // A small bulk limit: a mutated length the server accepts makes it reserve that much for the
  // connection, and the fuzz should not need gigabytes.
  ASSERT_NO_FATAL_FAILURE(Start({"--proto-max-bulk-len", "1mb"}));
  const std::uint64_t seed = FuzzSeed();
  const std::size_t target = FuzzFrames();
  std::printf("bad_input_test: fuzz seed %llu, %zu frames (CAIRN_FUZZ_SEED, CAIRN_FUZZ_FRAMES)\n",
              static_cast<unsigned long long>(seed), target);
  constexpr int kBatches = 10;
  FuzzStats stats;
  std::size_t index = 0;
  for (int batch = 1; batch <= kBatches; ++batch) {
    while (stats.frames < target * batch / kBatches) {
      FuzzOneConnection(seed, index++, &stats);
      if (HasFailure()) {
        // Say whether the server died, and how: a sanitizer's report is in its log.
        EXPECT_TRUE(ProcessRunning(server_->pid())) << "cairn-server is gone; its log ends with:\n"
                                                    << LogTail();
        return;
      }
    }
    ASSERT_NO_FATAL_FAILURE(ExpectHealthy("fuzz-batch-" + std::to_string(batch)));
  }
  std::printf(
      "bad_input_test: %zu frames on %zu connections, %zu bytes sent, %zu replies (%zu bytes), "
      "%zu protocol errors\n",
      stats.frames, stats.connections, stats.bytes_sent, stats.replies, stats.bytes_received,
      stats.protocol_errors);
  for (const auto& [message, count] : stats.protocol_error_kinds) {
    std::printf("bad_input_test:   %7zu x %s\n", count, message.c_str());
  }
  // The corpus must reach both outcomes, and most of the parser's refusals, or it tests less
  // than it claims.
  EXPECT_GT(stats.protocol_errors, stats.connections / 20);
  EXPECT_GE(stats.protocol_error_kinds.size(), 5u);
  // (Many frames are swallowed: by a bulk of an accepted mutated length, an inline line of
  // random bytes that has not ended yet, or the connection closing on an earlier frame.)
  EXPECT_GT(stats.replies, stats.frames / 4);
  ExpectConnectedClientsReach(1);
}

// ---------------------------------------------------------------------------------------------
// 2. Declared sizes over the limits (server_test covers a 2 MB bulk in a GET).

TEST_F(BadInputTest, DeclaredSizesOverTheLimitsAreRefusedWithoutTheirBodies) {
  ASSERT_NO_FATAL_FAILURE(Start({"--proto-max-bulk-len", "1mb"}));
  ExpectRefused("*2000000000\r\n", "invalid multibulk length");
  ExpectRefused("*1048577\r\n", "invalid multibulk length");  // One over the argument limit.
  ExpectRefused("*9223372036854775808\r\n", "invalid multibulk length");
  ExpectRefused("*1\r\n$1048577\r\n", "invalid bulk length");  // One byte over 1mb.
  ExpectRefused("*1\r\n$9223372036854775807\r\n", "invalid bulk length");
  ExpectRefused("*1\r\n$18446744073709551617\r\n", "invalid bulk length");
  ExpectRefused("*1\r\n$-1\r\n", "invalid bulk length");
  ExpectRefused("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$-2\r\n", "invalid bulk length");
  // Header and inline lines longer than 64 KiB are refused before their end, not waited for.
  ExpectRefused("*" + std::string(70'000, '1'), "too big mbulk count string");
  ExpectRefused("*1\r\n$" + std::string(70'000, '1'), "too big bulk count string");
  ExpectRefused(std::string(70'000, 'a'), "too big inline request");
  ASSERT_NO_FATAL_FAILURE(ExpectHealthy("refused"));
}

TEST_F(BadInputTest, BulkExactlyAtTheLimitIsAccepted) {
  ASSERT_NO_FATAL_FAILURE(Start({"--proto-max-bulk-len", "1mb"}));
  std::unique_ptr<RespClient> c = Connect();
  const std::string value(kMiB, 'v');
  EXPECT_EQ(c->Call({"SET", "big", value}).ToString(), "OK");
  Reply got = c->Call({"STRLEN", "big"});
  EXPECT_EQ(got.integer, static_cast<std::int64_t>(kMiB)) << got.ToString();
}

TEST_F(BadInputTest, RefusedAndPendingDeclarationsDoNotGrowTheServer) {
  ASSERT_NO_FATAL_FAILURE(StartForMemoryCheck({"--proto-max-bulk-len", "1mb", "--threads", "1"}));
  ASSERT_NO_FATAL_FAILURE(ExpectHealthy("before"));
  const std::size_t before = Rss();
  constexpr int kEach = 64;
  for (int i = 0; i < kEach; ++i) {
    ASSERT_NO_FATAL_FAILURE(ExpectRefused("*2000000000\r\n", "invalid multibulk length"));
    ASSERT_NO_FATAL_FAILURE(ExpectRefused("*1\r\n$2000000000\r\n", "invalid bulk length"));
  }
  // Counts at the limit are accepted and left waiting for their arguments: the server must
  // size its argument list by the bytes that came, not by the count it was told.
  std::vector<std::unique_ptr<RawConnection>> pending;
  for (int i = 0; i < kEach; ++i) {
    pending.push_back(RawConnect());
    ASSERT_NE(pending.back(), nullptr);
    ASSERT_EQ(pending.back()->SendAll("*1048576\r\n$4\r\nPING\r\n", kHangMs), Io::kOk);
  }
  // A command through the same (only) io thread, sent after those bytes: by its reply the
  // server has read them.
  std::unique_ptr<RespClient> probe = Connect();
  ASSERT_EQ(probe->Call({"PING"}).ToString(), "PONG");
  ExpectConnectedClientsReach(kEach + 2);
  const std::size_t after = Rss();
  EXPECT_LT(after, before + 64 * kMiB) << "RSS grew from " << before << " to " << after;
}

// A frame may declare as much as the limits allow, but what the server commits to it must
// follow the bytes that arrived, as in Redis (which allocates the query buffer for a large
// bulk up front, but never touches the pages the body has not filled).
TEST_F(BadInputTest, DeclaredBulkWithinTheLimitCommitsNoMemoryBeforeItsBytesArrive) {
  // The input buffer grows with the bytes that arrive (at most doubling), not to the
  // declared size: 8 x 64 MiB declared and one byte each sent must not commit 512 MiB.
  ASSERT_NO_FATAL_FAILURE(StartForMemoryCheck({"--threads", "1"}));
  ASSERT_NO_FATAL_FAILURE(ExpectHealthy("before"));
  const std::size_t before = Rss();
  std::vector<std::unique_ptr<RawConnection>> pending;
  for (int i = 0; i < 8; ++i) {
    pending.push_back(RawConnect());
    ASSERT_NE(pending.back(), nullptr);
    ASSERT_EQ(pending.back()->SendAll("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$67108864\r\n", kHangMs),
              Io::kOk);
  }
  // A command through the same (only) io thread: by its reply, the headers were parsed.
  ASSERT_NO_FATAL_FAILURE(ExpectHealthy("headers"));
  for (auto& c : pending) ASSERT_EQ(c->SendAll("v", kHangMs), Io::kOk);
  ASSERT_NO_FATAL_FAILURE(ExpectHealthy("first-byte"));
  const std::size_t after = Rss();
  EXPECT_LT(after, before + 64 * kMiB) << "RSS grew from " << before << " to " << after
                                       << " for 8 x 64 MiB declared and 8 bytes sent";
}

// A command with as many arguments as the limit allows is a real command once they arrive.
TEST_F(BadInputTest, CommandWithArgumentsUpToTheLimitIsAnswered) {
  // 7 MiB of a million small arguments: the connection parses again only when the input
  // reaches the parser's lower bound for the command (ParseResult::at_least), not on every
  // read from the first byte, which made this take seconds of the io thread.
  ASSERT_NO_FATAL_FAILURE(Start({"--threads", "1"}));
  std::unique_ptr<RawConnection> c = RawConnect();
  ASSERT_NE(c, nullptr);
  std::string command = "*1048576\r\n$4\r\nPING\r\n";
  command.reserve(8 * kMiB);
  for (std::size_t i = 1; i < 1048576; ++i) command += "$1\r\nx\r\n";
  ASSERT_EQ(c->SendAll(command, kHangMs), Io::kOk);
  const std::string arity = "-ERR wrong number of arguments for 'ping' command\r\n";
  ASSERT_EQ(c->ReceiveAtLeast(arity.size(), kHangMs), Io::kOk) << Escaped(c->received());
  EXPECT_EQ(c->received(), arity);
  ASSERT_NO_FATAL_FAILURE(ExpectHealthy("after"));
}

// ---------------------------------------------------------------------------------------------
// Command arguments the fuzz keeps away from.

TEST_F(BadInputTest, SetRangeWithAnOffsetNearInt64MaxIsRefused) {
  // offset + length is checked without the addition, which overflowed (and the resize that
  // followed threw, killing the server).
  ASSERT_NO_FATAL_FAILURE(Start());
  std::unique_ptr<RespClient> c = Connect();
  EXPECT_EQ(c->Call({"SETRANGE", "k", "9223372036854775807", "x"}).ToString(),
            "(error) ERR string exceeds maximum allowed size (proto-max-bulk-len)");
  EXPECT_EQ(c->Call({"SETRANGE", "k", "9223372036854775800", "xxxxxxxxxx"}).ToString(),
            "(error) ERR string exceeds maximum allowed size (proto-max-bulk-len)");
  ASSERT_NO_FATAL_FAILURE(ExpectHealthy("setrange"));
}

// ---------------------------------------------------------------------------------------------
// 3. Slow clients.

TEST_F(BadInputTest, PipelineSentOneByteAtATimeIsAnsweredInOrder) {
  ASSERT_NO_FATAL_FAILURE(Start());
  std::string big(17'000, 'b');  // Larger than one read of the server (16 KiB).
  big[100] = '\r';
  big[101] = '\n';
  std::string pipeline;
  std::vector<std::string> expected;
  auto add = [&](const std::string& frame, const std::string& reply) {
    pipeline += frame;
    if (!reply.empty()) expected.push_back(reply);
  };
  add(Multibulk({"PING"}), "PONG");
  add("PING\r\n", "PONG");
  add(Multibulk({"SET", "key", "a\r\nb"}), "OK");
  add(Multibulk({"GET", "key"}), "\"a\r\nb\"");
  add("ECHO \"x\\ty\" 'z'\r\n", "(error) ERR wrong number of arguments for 'echo' command");
  add("ECHO \"x\\ty\"\n", "\"x\ty\"");
  add("\r\n", "");    // An empty inline line: no command, no reply.
  add("*0\r\n", "");  // Empty multibulks are skipped too.
  add("*-1\r\n", "");
  for (int i = 1; i <= 3; ++i) add(Multibulk({"INCR", "ctr"}), "(integer) " + std::to_string(i));
  add(Multibulk({"MULTI"}), "OK");
  add(Multibulk({"SET", "a", "1"}), "QUEUED");
  add(Multibulk({"INCR", "a"}), "QUEUED");
  add(Multibulk({"EXEC"}), "[OK, (integer) 2]");
  add(Multibulk({"SET", "big", big}), "OK");
  add(Multibulk({"STRLEN", "big"}), "(integer) 17000");
  add(Multibulk({"GETRANGE", "big", "99", "102"}), "\"b\r\nb\"");
  add(Multibulk({"NOPE"}), "(error) ERR unknown command 'NOPE', with args beginning with: ");
  add(Multibulk({"GET", "missing"}), "(nil)");
  add("PING last\r\n", "\"last\"");

  std::unique_ptr<RespClient> c = Connect();  // TCP_NODELAY: every send() is its own segment.
  for (const char byte : pipeline) ASSERT_TRUE(c->Send(std::string_view(&byte, 1)));
  for (std::size_t i = 0; i < expected.size(); ++i) {
    std::optional<Reply> r = c->Read();
    ASSERT_TRUE(r) << "reply " << i << " did not come";
    EXPECT_EQ(r->ToString(), expected[i]) << "reply " << i;
  }
  EXPECT_EQ(c->Call({"PING"}).ToString(), "PONG") << "nothing more was pending";
}

// A value of its own per key, so that a reply in the wrong place cannot look right.
std::string BigValue(int key, std::size_t size) {
  std::string v(size, static_cast<char>('a' + key));
  for (std::size_t i = 0; i < size; i += 512) v[i] = static_cast<char>('0' + (i / 512) % 10);
  return v;
}

TEST_F(BadInputTest, ClientThatDoesNotReadStallsOnlyItselfAndCostsOneBatch) {
  // One io thread: a connection that blocked its thread would block every other client too.
  ASSERT_NO_FATAL_FAILURE(StartForMemoryCheck({"--threads", "1"}));
  constexpr int kKeys = 8;
  constexpr std::size_t kValueSize = 4096;
  // Long key names make requests large enough to back up the sockets, and the replies are
  // still ~18 times larger than the requests.
  auto key = [](int k) { return "big:" + std::to_string(k) + ":" + std::string(200, 'x'); };
  {
    std::unique_ptr<RespClient> setup = Connect();
    for (int k = 0; k < kKeys; ++k) {
      ASSERT_EQ(setup->Call({"SET", key(k), BigValue(k, kValueSize)}).ToString(), "OK");
      ASSERT_EQ(setup->Call({"GET", key(k)}).str.size(), kValueSize);
    }
  }
  // Far more request bytes than the sockets between client and server can hold.
  constexpr std::size_t kPipelineBytes = 8 * kMiB;
  std::string pipeline;
  std::vector<int> order;  // Key of each GET; -1 for an INCR.
  while (pipeline.size() < kPipelineBytes) {
    const int k = static_cast<int>((order.size() * 5) % kKeys);
    pipeline += Multibulk({"GET", key(k)});
    order.push_back(k);
    if (order.size() % 64 == 0) {
      pipeline += Multibulk({"INCR", "seq"});
      order.push_back(-1);
    }
  }
  std::vector<std::string> replies;
  for (int k = 0; k < kKeys; ++k) {
    replies.push_back("$" + std::to_string(kValueSize) + "\r\n" + BigValue(k, kValueSize) + "\r\n");
  }
  const std::size_t baseline = Rss();

  std::unique_ptr<RawConnection> stalled = RawConnect();
  ASSERT_NE(stalled, nullptr);
  stalled->SetSendBuffer(64 * 1024);
  std::string_view rest = pipeline;
  bool backed_up = false;
  while (!rest.empty()) {
    rest.remove_prefix(stalled->SendNow(rest));
    // The socket stays full for a whole second only when the server stopped reading.
    if (!rest.empty() && !stalled->WaitWritable(1000)) {
      backed_up = true;
      break;
    }
  }
  ASSERT_FALSE(stalled->peer_closed());
  EXPECT_TRUE(backed_up) << "the server read all " << pipeline.size()
                         << " bytes without its replies being read: it buffers them";
  std::printf("bad_input_test: the stalled client got %zu of %zu request bytes in\n",
              pipeline.size() - rest.size(), pipeline.size());

  // Another client is served while the first one does not read.
  std::unique_ptr<RespClient> other = Connect();
  EXPECT_EQ(other->Call({"PING"}).ToString(), "PONG");
  EXPECT_EQ(other->Call({"SET", "other", "1"}).ToString(), "OK");
  std::size_t peak = Rss();

  // Now read every reply, in order, finishing the pipeline meanwhile.
  std::size_t next = 0;
  std::int64_t seq = 0;
  std::size_t verified = 0;  // Bytes of received() already checked.
  std::size_t sampled = 0;
  std::string& got = stalled->received();
  while (next < order.size()) {
    const Io io = stalled->Exchange(&rest, kHangMs);
    ASSERT_EQ(io, Io::kOk) << "reply " << next << " of " << order.size();
    while (next < order.size()) {
      const std::string incr = ":" + std::to_string(seq + 1) + "\r\n";
      const std::string& want = order[next] < 0 ? incr : replies[order[next]];
      if (got.size() - verified < want.size()) break;
      ASSERT_EQ(got.compare(verified, want.size(), want), 0)
          << "reply " << next << ": " << Escaped(std::string_view(got).substr(verified, 80));
      verified += want.size();
      if (order[next] < 0) ++seq;
      ++next;
    }
    if (verified > 4 * kMiB) {
      got.erase(0, verified);
      verified = 0;
    }
    if (++sampled % 64 == 0) peak = std::max(peak, Rss());
  }
  EXPECT_EQ(got.size(), verified) << "bytes after the last reply";
  peak = std::max(peak, Rss());
  const std::size_t reply_bytes =
      (order.size() - static_cast<std::size_t>(seq)) * replies[0].size();
  std::printf("bad_input_test: %zu replies, %zu MiB; server RSS %zu MiB -> peak %zu MiB\n",
              order.size(), reply_bytes / kMiB, baseline / kMiB, peak / kMiB);
  // A server that buffered the replies of everything it read would hold them all.
  EXPECT_LT(peak, baseline + 64 * kMiB) << "replies pending: " << reply_bytes / kMiB << " MiB";
  ASSERT_EQ(rest.size(), 0u);
}

// ---------------------------------------------------------------------------------------------
// 4. Idle connections (server_test covers one idle after a complete command).

TEST_F(BadInputTest, ConnectionIdleInTheMiddleOfAFrameIsClosed) {
  ASSERT_NO_FATAL_FAILURE(Start({"--timeout", "1"}));
  const std::vector<std::string> partial = {
      "*2\r\n$3\r\nGET\r\n$5\r\nab",  // Inside a bulk's body.
      "*3\r\n",                       // Only the count.
      "*2\r\n$3\r\nGE",               // Inside the command name.
      "PIN",                          // An inline line without its end.
      "*1\r\n$1048576\r\n",           // A large bulk announced, none of it sent.
  };
  std::vector<std::unique_ptr<RawConnection>> conns;
  for (const std::string& bytes : partial) {
    conns.push_back(RawConnect());
    ASSERT_NE(conns.back(), nullptr);
    ASSERT_EQ(conns.back()->SendAll(bytes, kHangMs), Io::kOk);
  }
  for (std::size_t i = 0; i < conns.size(); ++i) {
    EXPECT_EQ(conns[i]->ReceiveUntilClosed(kHangMs), Io::kOk)
        << "still open: " << Escaped(partial[i]);
    EXPECT_EQ(conns[i]->received(), "") << Escaped(partial[i]);
  }
  ASSERT_NO_FATAL_FAILURE(ExpectHealthy("idle"));
}

TEST_F(BadInputTest, ConnectionsThatKeepSendingOutliveTheTimeout) {
  // Two seconds, with a send every 100 ms: a loaded machine may delay a send by a lot before
  // a busy connection looks idle.
  ASSERT_NO_FATAL_FAILURE(Start({"--timeout", "2"}));
  std::unique_ptr<RawConnection> idle = RawConnect();
  std::unique_ptr<RespClient> pinger = Connect();
  std::unique_ptr<RespClient> dripper = Connect();
  ASSERT_TRUE(idle && pinger && dripper);
  const std::string word(20, 'd');
  const std::string frame = Multibulk({"ECHO", word});
  // One byte and one PING per round, 41 rounds: twice the timeout, so a connection whose
  // timer a read did not re-arm would be closed.
  for (std::size_t i = 0; i < frame.size(); ++i) {
    ASSERT_EQ(pinger->Call({"PING"}).ToString(), "PONG") << "round " << i;
    ASSERT_TRUE(dripper->Send(frame.substr(i, 1))) << "round " << i;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(dripper->Read().value_or(Reply{}).ToString(), "\"" + word + "\"");
  // The timeout was live all along: the connection that sent nothing is gone.
  EXPECT_EQ(idle->ReceiveUntilClosed(kHangMs), Io::kOk);
}

// ---------------------------------------------------------------------------------------------
// 5. Connections dropped abruptly.

TEST_F(BadInputTest, AbruptlyDroppedConnectionsLeaveTheServerHealthy) {
  ASSERT_NO_FATAL_FAILURE(Start());
  {
    std::unique_ptr<RespClient> setup = Connect();
    ASSERT_EQ(setup->Call({"SET", "big", std::string(64 * 1024, 'x')}).ToString(), "OK");
  }
  std::string replies_unread;
  for (int i = 0; i < 200; ++i) replies_unread += Multibulk({"GET", "big"});
  const std::vector<std::string> inputs = {
      "",                                                   // Nothing at all.
      "*2\r\n$3\r\nGET\r\n$5\r\nab",                        // A partial frame.
      "*1\r\n$1048576\r\n" + std::string(1000, 'z'),        // A large bulk begun.
      replies_unread,                                       // 12 MiB of replies nobody reads.
      Multibulk({"MULTI"}) + Multibulk({"SET", "t", "1"}),  // An open transaction.
      Multibulk({"WATCH", "big"}),                          // A watched key.
      "PIN",                                                // A partial inline command.
  };
  // Many open at once, then all reset together; then the same inputs half-closed.
  std::vector<std::unique_ptr<RawConnection>> conns;
  for (int round = 0; round < 20; ++round) {
    for (const std::string& input : inputs) {
      conns.push_back(RawConnect());
      ASSERT_NE(conns.back(), nullptr);
      ASSERT_EQ(conns.back()->SendNow(input), input.size());
    }
  }
  for (auto& c : conns) c->Reset();
  conns.clear();
  ExpectConnectedClientsReach(1);

  // Half-closed: the server sees end of input, answers what was complete and closes.
  for (const std::string& input : inputs) {
    SCOPED_TRACE(Escaped(input, 60));
    std::unique_ptr<RawConnection> c = RawConnect();
    ASSERT_NE(c, nullptr);
    ASSERT_EQ(c->SendAll(input, kHangMs), Io::kOk);
    c->ShutdownWrite();
    EXPECT_EQ(c->ReceiveUntilClosed(kHangMs), Io::kOk) << "not closed after a half-close";
    const ReplyScan scan = ScanReplies(c->received());
    EXPECT_FALSE(scan.malformed || scan.incomplete_tail) << Escaped(c->received());
  }
  std::unique_ptr<RawConnection> half = RawConnect();
  ASSERT_EQ(half->SendAll("PING\r\nPING", kHangMs), Io::kOk);
  half->ShutdownWrite();
  EXPECT_EQ(half->ReceiveUntilClosed(kHangMs), Io::kOk);
  EXPECT_EQ(half->received(), "+PONG\r\n") << "the complete command is answered, the rest dropped";

  ExpectConnectedClientsReach(1);
  ASSERT_NO_FATAL_FAILURE(ExpectHealthy("dropped"));
  std::unique_ptr<RespClient> c = Connect();
  // The transactions and watches of the reset connections are gone with them.
  EXPECT_EQ(c->Call({"WATCH", "big"}).ToString(), "OK");
  EXPECT_EQ(c->Call({"MULTI"}).ToString(), "OK");
  EXPECT_EQ(c->Call({"SET", "t", "2"}).ToString(), "QUEUED");
  EXPECT_EQ(c->Call({"EXEC"}).ToString(), "[OK]");
  EXPECT_EQ(c->Call({"GET", "t"}).ToString(), "\"2\"");
}

}  // namespace
}  // namespace cairn::test
