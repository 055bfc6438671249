// The RESP request parser: turns the bytes a client sent into the arguments of one command.
// Pure protocol: it knows neither sockets nor the store, so it can be tested and fuzzed alone.
//
// Accepts what Redis accepts from clients: a RESP array of bulk strings
// ("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n") or an inline command (a line of space-separated words,
// with Redis's quoting rules, ended by \n or \r\n). Sizes are checked against Limits as soon as
// they are declared, before anything is allocated for them.
//
// Never throws, never reads past `input`, and accepts any byte sequence (a malformed one is an
// error reply, never a crash or a hang). Thread-compatible: a Parser has no state between calls.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cairn::server::resp {

struct Limits {
  // Longest bulk string a client may send (Redis's proto-max-bulk-len). Default: 512 MiB.
  std::size_t max_bulk_len = 512ull * 1024 * 1024;
  // Most arguments in one command sent as a RESP array (Redis refuses more than
  // 1024·1024·1024; we bound memory harder). Default: 1,048,576. An inline command is bounded
  // by max_inline_len alone, as in Redis.
  std::size_t max_args = 1024 * 1024;
  // Longest inline command line, and longest header line ("*<n>" or "$<n>"). Default: 64 KiB.
  std::size_t max_inline_len = 64 * 1024;
  // The limits are those of a client that has not authenticated (Unauthenticated()): errors
  // say so, as Redis's do.
  bool unauthenticated = false;

  // What a client may send before AUTH when a password is set, as in Redis: at most 10
  // arguments of at most 16 KiB each, so that nobody can make the server hold much memory
  // without the password.
  static Limits Unauthenticated() {
    Limits limits;
    limits.max_bulk_len = 16 * 1024;
    limits.max_args = 10;
    limits.unauthenticated = true;
    return limits;
  }
};

enum class ParseStatus {
  kCommand,   // One command parsed: `args` holds it, `consumed` bytes of input were used.
  kEmpty,     // An empty inline line (Redis ignores it): skip `consumed` bytes, no command.
  kNeedMore,  // The input ends inside a command: read more (at least `needed` bytes in all).
  kError,     // A protocol error: reply "-ERR Protocol error: <error>" and close.
};

struct ParseResult {
  ParseStatus status = ParseStatus::kNeedMore;
  std::size_t consumed = 0;  // kCommand, kEmpty: bytes of input the command took.
  std::size_t needed = 0;    // kNeedMore: total input size that may complete it (0: unknown).
  // kNeedMore: a lower bound on the total input size of the command (always more than the
  // input given). Parsing again before the input reaches it is wasted work: a caller that
  // waits for it parses a command of a million small arguments a few times, not once per read.
  std::size_t at_least = 0;
  std::string error;  // kError: the message after "Protocol error: ", as Redis words it.
};

// Parses the command at the start of `input`. On kCommand, `args` is cleared and filled with
// views into `input` (valid while `input` is); an inline command's quoted words are unescaped
// into `storage`, which the views then point into (so keep `storage` alive with `input`).
ParseResult ParseCommand(std::string_view input, const Limits& limits,
                         std::vector<std::string_view>* args, std::string* storage);

}  // namespace cairn::server::resp
