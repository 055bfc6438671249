// Seeded random and mutated byte streams through the RESP parser. Only invariants are checked,
// so any input will do: the answer is one of the four statuses and stays inside the input; it
// depends only on the bytes it needs (more bytes never change a command or an error, nor
// complete a command early); a known need is never overshot; and the parser reserves in
// proportion to what it was given, never to a size it was merely told. Valid streams must
// also parse back into exactly the commands they were generated from, however they are split.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "resp/parser.h"
#include "server/support/inline_quote.h"

namespace cairn::server::resp {
namespace {

using cairn::test::DoubleQuoted;

using Args = std::vector<std::string>;
using namespace std::string_view_literals;

// Deterministic everywhere: no <random> distributions, whose output varies by library.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t Next() {  // splitmix64
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::size_t Below(std::size_t n) { return n == 0 ? 0 : Next() % n; }
  bool OneIn(std::size_t n) { return Below(n) == 0; }

  // Mostly the bytes that steer the parser, sometimes any byte.
  char Byte() {
    static constexpr std::string_view kSpecial = "*$\r\n\"'\\ \t\v\0x0123456789-+:abc"sv;
    static_assert(kSpecial.size() > 20);
    if (OneIn(4)) return static_cast<char>(Next() & 0xff);
    return kSpecial[Below(kSpecial.size())];
  }

  std::string Bytes(std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s.push_back(Byte());
    return s;
  }

 private:
  std::uint64_t state_;
};

std::string Multibulk(const Args& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const auto& arg : args) out += "$" + std::to_string(arg.size()) + "\r\n" + arg + "\r\n";
  return out;
}

std::string InlineLine(const Args& args) {
  std::string line;
  for (const auto& arg : args) line += DoubleQuoted(arg) + " ";
  return line + "\n";
}

// ---- Checking one parse -----------------------------------------------------------------

struct Outcome {
  ParseResult result;
  Args args;
};

bool SameOutcome(const Outcome& a, const Outcome& b) {
  return a.result.status == b.result.status && a.result.consumed == b.result.consumed &&
         a.result.error == b.result.error && a.args == b.args;
}

std::string Describe(const Outcome& o) {
  static constexpr const char* kNames[] = {"kCommand", "kEmpty", "kNeedMore", "kError"};
  const auto status = static_cast<std::size_t>(o.result.status);
  std::string s = status < 4 ? kNames[status] : "invalid status";
  s += " consumed=" + std::to_string(o.result.consumed) +
       " needed=" + std::to_string(o.result.needed) + " error=" + o.result.error +
       " args=" + std::to_string(o.args.size());
  return s;
}

bool Inside(std::string_view part, const char* begin, std::size_t size) {
  return part.data() >= begin && part.data() + part.size() <= begin + size;
}

class Fuzzer {
 public:
  // How many parses gave each status: shows that a test reaches every outcome.
  std::string Summary() const {
    return std::to_string(by_status_[0]) + " commands, " + std::to_string(by_status_[1]) +
           " empty, " + std::to_string(by_status_[2]) + " need more, " +
           std::to_string(by_status_[3]) + " errors";
  }

  // Parses `input`, checks every invariant of a single answer, and stores the answer.
  testing::AssertionResult Parse(std::string_view input, const Limits& limits, Outcome* out) {
    std::vector<std::string_view> args;
    std::string storage;
    const ParseResult result = ParseCommand(input, limits, &args, &storage);
    out->result = result;
    out->args.assign(args.begin(), args.end());
    const auto fail = [&](std::string_view what) {
      return testing::AssertionFailure()
             << what << ": " << Describe(*out) << " for "
             << testing::PrintToString(std::string(input.substr(0, 200)));
    };
    // What the parser allocates is these two: a word per 2 input bytes at most (then doubled
    // as the vector grows), an unescaped byte per input byte. Any size merely declared in the
    // input would be far beyond.
    if (args.capacity() > input.size() + 1 || storage.capacity() > input.size() + 16) {
      return fail("allocated more than the input justifies");
    }
    switch (result.status) {
      case ParseStatus::kCommand:
      case ParseStatus::kEmpty:
        if (result.consumed == 0 || result.consumed > input.size()) return fail("bad consumed");
        if ((result.status == ParseStatus::kCommand) == args.empty()) return fail("bad args");
        break;
      case ParseStatus::kNeedMore:
        if (result.consumed != 0 || !args.empty()) return fail("need more with data");
        if (result.needed != 0 && result.needed <= input.size()) return fail("bad needed");
        break;
      case ParseStatus::kError:
        if (result.consumed != 0 || !args.empty()) return fail("error with data");
        if (result.error.empty()) return fail("error without message");
        break;
      default:
        return fail("unknown status");
    }
    ++by_status_[static_cast<std::size_t>(result.status)];
    if (result.status != ParseStatus::kCommand) return testing::AssertionSuccess();
    for (const std::string_view arg : args) {
      if (!Inside(arg, input.data(), result.consumed) &&
          !Inside(arg, storage.data(), storage.size())) {
        return fail("arg outside input and storage");
      }
    }
    return input.front() == '*' ? CheckMultibulk(input, limits, *out)
                                : CheckInline(input, limits, *out);
  }

 private:
  // String-to-integer parsing admits one spelling per number, so a command is its encoding.
  static testing::AssertionResult CheckMultibulk(std::string_view input, const Limits& limits,
                                                 const Outcome& o) {
    // Inline commands are bounded by their line instead, as in Redis.
    if (o.args.size() > limits.max_args) return testing::AssertionFailure() << "too many args";
    for (const auto& arg : o.args) {
      if (arg.size() > limits.max_bulk_len) return testing::AssertionFailure() << "bulk too big";
    }
    if (Multibulk(o.args) != input.substr(0, o.result.consumed)) {
      return testing::AssertionFailure() << "command is not its encoding: " << Describe(o);
    }
    return testing::AssertionSuccess();
  }

  static testing::AssertionResult CheckInline(std::string_view input, const Limits& limits,
                                              const Outcome& o) {
    const std::string_view line = input.substr(0, o.result.consumed);
    if (line.back() != '\n' || line.find('\n') != line.size() - 1 ||
        line.size() - std::min<std::size_t>(line.size(), 2) > limits.max_inline_len) {
      return testing::AssertionFailure() << "inline command is not one line: " << Describe(o);
    }
    // The words, quoted again, read back as themselves.
    std::vector<std::string_view> args;
    std::string storage;
    Limits unlimited;
    unlimited.max_inline_len = std::numeric_limits<std::size_t>::max();
    const std::string requoted = InlineLine(o.args);
    const ParseResult again = ParseCommand(requoted, unlimited, &args, &storage);
    if (again.status != ParseStatus::kCommand || Args(args.begin(), args.end()) != o.args) {
      return testing::AssertionFailure() << "requoted words differ: " << requoted;
    }
    return testing::AssertionSuccess();
  }

  std::size_t by_status_[4] = {};
};

// ---- Streams ----------------------------------------------------------------------------

struct Frame {
  std::string bytes;
  ParseStatus status;
  Args args;
};

std::string RandomArg(Rng& rng) {
  const std::size_t len = rng.OneIn(20) ? rng.Below(300) : rng.Below(12);
  return rng.Bytes(len);
}

Frame RandomFrame(Rng& rng) {
  switch (rng.Below(10)) {
    case 0:
      return {rng.OneIn(2) ? "*0\r\n" : "*-1\r\n", ParseStatus::kEmpty, {}};
    case 1:
      return {rng.OneIn(2) ? "\r\n" : " \t\n", ParseStatus::kEmpty, {}};
    case 2:
    case 3: {
      Args args(1 + rng.Below(4));
      for (auto& arg : args) arg = RandomArg(rng);
      return {InlineLine(args), ParseStatus::kCommand, args};
    }
    default: {
      Args args(1 + rng.Below(6));
      for (auto& arg : args) arg = RandomArg(rng);
      return {Multibulk(args), ParseStatus::kCommand, args};
    }
  }
}

std::vector<Frame> RandomFrames(Rng& rng) {
  std::vector<Frame> frames(1 + rng.Below(6));
  for (auto& frame : frames) frame = RandomFrame(rng);
  return frames;
}

std::string Join(const std::vector<Frame>& frames) {
  std::string s;
  for (const auto& frame : frames) s += frame.bytes;
  return s;
}

void Mutate(Rng& rng, std::string* s) {
  const std::size_t edits = 1 + rng.Below(4);
  for (std::size_t i = 0; i < edits; ++i) {
    const std::size_t at = rng.Below(s->size() + 1);
    switch (rng.Below(6)) {
      case 0:  // flip a bit
        if (at < s->size()) (*s)[at] = static_cast<char>((*s)[at] ^ (1 << rng.Below(8)));
        break;
      case 1:  // overwrite a byte
        if (at < s->size()) (*s)[at] = rng.Byte();
        break;
      case 2:
        s->insert(at, rng.Bytes(1 + rng.Below(4)));
        break;
      case 3:
        s->erase(at, 1 + rng.Below(4));
        break;
      case 4:  // repeat a piece
        s->insert(at, s->substr(rng.Below(s->size() + 1), rng.Below(16)));
        break;
      default:
        s->resize(at);
        break;
    }
  }
}

Limits RandomLimits(Rng& rng) {
  Limits limits;
  if (rng.OneIn(2)) return limits;
  limits.max_bulk_len = rng.Below(64);
  limits.max_args = rng.Below(8);
  limits.max_inline_len = rng.Below(48);
  return limits;
}

// Sizes a client can declare without sending them.
std::string HugeNumber(Rng& rng) {
  static constexpr const char* kNumbers[] = {"9223372036854775807",
                                             "9223372036854775806",
                                             "9223372036854775808",
                                             "18446744073709551615",
                                             "18446744073709551616",
                                             "4294967296",
                                             "2147483647",
                                             "2147483648",
                                             "1000000000000",
                                             "536870912",
                                             "536870913",
                                             "1048576",
                                             "1048577",
                                             "-9223372036854775808",
                                             "99999999999999999999999"};
  return kNumbers[rng.Below(std::size(kNumbers))];
}

std::string HugeDeclaration(Rng& rng) {
  std::string s = "*" + HugeNumber(rng) + "\r\n";
  const std::size_t bulks = rng.Below(4);
  for (std::size_t i = 0; i < bulks; ++i) {
    s += rng.OneIn(2) ? "$" + HugeNumber(rng) + "\r\n" + rng.Bytes(rng.Below(64)) : "$1\r\nx\r\n";
  }
  return s;
}

Limits HugeLimits(Rng& rng) {
  Limits limits;
  if (rng.OneIn(3)) return limits;
  limits.max_bulk_len = std::numeric_limits<std::size_t>::max();
  limits.max_args = std::numeric_limits<std::size_t>::max();
  if (rng.OneIn(2)) limits.max_inline_len = std::numeric_limits<std::size_t>::max();
  return limits;
}

// Walks a stream as a server would, command by command. At each command, a random prefix of
// the rest must agree with the whole rest, and a command must parse the same from exactly its
// own bytes. Returns the commands and empty lines taken, up to an error or a partial command.
testing::AssertionResult Walk(Fuzzer& fuzzer, Rng& rng, std::string_view stream,
                              const Limits& limits, std::vector<Outcome>* taken) {
  std::size_t pos = 0;
  while (pos < stream.size()) {
    const std::string_view rest = stream.substr(pos);
    Outcome whole;
    if (auto ok = fuzzer.Parse(rest, limits, &whole); !ok) return ok;
    Outcome part;
    const std::string_view prefix = rest.substr(0, rng.Below(rest.size() + 1));
    if (auto ok = fuzzer.Parse(prefix, limits, &part); !ok) return ok;
    const auto fail = [&](std::string_view what) {
      return testing::AssertionFailure()
             << what << " at offset " << pos << ": prefix " << prefix.size() << " gives "
             << Describe(part) << ", whole " << rest.size() << " gives " << Describe(whole);
    };
    switch (part.result.status) {
      case ParseStatus::kCommand:
      case ParseStatus::kEmpty:
      case ParseStatus::kError:
        if (!SameOutcome(part, whole)) return fail("more bytes changed the answer");
        break;
      case ParseStatus::kNeedMore:
        if (whole.result.status == ParseStatus::kCommand ||
            whole.result.status == ParseStatus::kEmpty) {
          if (whole.result.consumed <= prefix.size()) return fail("a complete command waited");
          if (whole.result.consumed < part.result.needed) return fail("needed overshot");
        }
        break;
    }
    if (whole.result.status != ParseStatus::kCommand &&
        whole.result.status != ParseStatus::kEmpty) {
      break;
    }
    Outcome exact;
    if (auto ok = fuzzer.Parse(rest.substr(0, whole.result.consumed), limits, &exact); !ok) {
      return ok;
    }
    if (!SameOutcome(exact, whole)) return fail("a command needs bytes after itself");
    taken->push_back(whole);
    pos += whole.result.consumed;
  }
  return testing::AssertionSuccess();
}

// Enough to cover the parser's paths many times over, and to run in seconds under ASan.
constexpr int kRounds = 20000;

TEST(RespFuzzTest, ValidStreamsParseIntoTheirFrames) {
  Fuzzer fuzzer;
  Rng rng(1);
  std::size_t frames_seen = 0;
  for (int round = 0; round < kRounds; ++round) {
    const std::vector<Frame> frames = RandomFrames(rng);
    const std::string stream = Join(frames);
    std::vector<Outcome> taken;
    ASSERT_TRUE(Walk(fuzzer, rng, stream, Limits{}, &taken)) << "round " << round;
    ASSERT_EQ(taken.size(), frames.size()) << "round " << round;
    for (std::size_t i = 0; i < frames.size(); ++i) {
      ASSERT_EQ(taken[i].result.status, frames[i].status) << "round " << round << " frame " << i;
      ASSERT_EQ(taken[i].result.consumed, frames[i].bytes.size()) << "round " << round;
      ASSERT_EQ(taken[i].args, frames[i].args) << "round " << round << " frame " << i;
    }
    frames_seen += frames.size();
  }
  std::printf("%zu frames; %s\n", frames_seen, fuzzer.Summary().c_str());
}

TEST(RespFuzzTest, MutatedStreams) {
  Fuzzer fuzzer;
  Rng rng(2);
  for (int round = 0; round < 3 * kRounds; ++round) {
    std::string stream = Join(RandomFrames(rng));
    Mutate(rng, &stream);
    std::vector<Outcome> taken;
    ASSERT_TRUE(Walk(fuzzer, rng, stream, RandomLimits(rng), &taken)) << "round " << round;
  }
  std::printf("%s\n", fuzzer.Summary().c_str());
}

TEST(RespFuzzTest, RandomBytes) {
  Fuzzer fuzzer;
  Rng rng(3);
  for (int round = 0; round < 3 * kRounds; ++round) {
    std::string stream = rng.Bytes(rng.Below(64));
    // A leading '*' half the time, so that the multibulk path gets its share.
    if (rng.OneIn(2)) stream.insert(0, "*");
    std::vector<Outcome> taken;
    ASSERT_TRUE(Walk(fuzzer, rng, stream, RandomLimits(rng), &taken)) << "round " << round;
  }
  std::printf("%s\n", fuzzer.Summary().c_str());
}

TEST(RespFuzzTest, HugeDeclaredSizes) {
  Fuzzer fuzzer;
  Rng rng(4);
  for (int round = 0; round < kRounds; ++round) {
    std::string stream = HugeDeclaration(rng);
    if (rng.OneIn(3)) Mutate(rng, &stream);
    std::vector<Outcome> taken;
    ASSERT_TRUE(Walk(fuzzer, rng, stream, HugeLimits(rng), &taken)) << "round " << round;
  }
  std::printf("%s\n", fuzzer.Summary().c_str());
}

}  // namespace
}  // namespace cairn::server::resp
