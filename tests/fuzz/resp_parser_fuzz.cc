// The RESP request parser on any bytes, with the limits of an authenticated client and the
// small ones of a client before AUTH. Beyond what ASan and UBSan catch, it checks what the
// connection relies on: every command consumes at least one byte and no more than it was given;
// "need more" promises a size beyond what it has; each argument lies inside the input or the
// unescaping storage; no command breaks the limits (a RESP array's count and bulk size, an
// inline line's length); and a command, written back as a RESP
// array, parses to the same arguments.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "resp/parser.h"

namespace {

using cairn::server::resp::Limits;
using cairn::server::resp::ParseCommand;
using cairn::server::resp::ParseResult;
using cairn::server::resp::ParseStatus;

bool Inside(std::string_view part, std::string_view whole) {
  if (part.empty()) return true;
  const std::uintptr_t p = reinterpret_cast<std::uintptr_t>(part.data());
  const std::uintptr_t w = reinterpret_cast<std::uintptr_t>(whole.data());
  return p >= w && p + part.size() <= w + whole.size();
}

void ParseAll(std::string_view input, const Limits& limits) {
  std::vector<std::string_view> args;
  std::string storage;
  while (!input.empty()) {
    const ParseResult r = ParseCommand(input, limits, &args, &storage);
    switch (r.status) {
      case ParseStatus::kNeedMore:
        FUZZ_CHECK(r.at_least > input.size());
        FUZZ_CHECK(r.needed == 0 || r.needed > input.size());
        return;
      case ParseStatus::kError:
        FUZZ_CHECK(!r.error.empty());
        return;
      case ParseStatus::kEmpty:
        FUZZ_CHECK(r.consumed > 0 && r.consumed <= input.size());
        break;
      case ParseStatus::kCommand: {
        FUZZ_CHECK(r.consumed > 0 && r.consumed <= input.size());
        // A RESP array keeps to the count and size limits; an inline command, a line, to the
        // line's (as in Redis, which counts no inline arguments).
        const bool array = input[0] == '*';
        const std::size_t max_args = array ? limits.max_args : limits.max_inline_len;
        const std::size_t max_size = array ? limits.max_bulk_len : limits.max_inline_len;
        FUZZ_CHECK(!args.empty() && args.size() <= max_args);
        for (std::string_view a : args) {
          FUZZ_CHECK(Inside(a, input.substr(0, r.consumed)) || Inside(a, storage));
          FUZZ_CHECK(a.size() <= max_size);
        }
        // The same arguments as a RESP array: one command, all of it, the same words.
        const std::string again = cairn::fuzz::RespArray(args);
        std::vector<std::string_view> reparsed;
        std::string reparsed_storage;
        Limits unlimited;
        const ParseResult r2 = ParseCommand(again, unlimited, &reparsed, &reparsed_storage);
        FUZZ_CHECK(r2.status == ParseStatus::kCommand);
        FUZZ_CHECK(r2.consumed == again.size());
        FUZZ_CHECK(reparsed == args);
        break;
      }
    }
    input.remove_prefix(r.consumed);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  Limits small;  // Small limits, so that the fuzzer reaches them.
  small.max_bulk_len = 64;
  small.max_args = 8;
  small.max_inline_len = 128;
  ParseAll(input, Limits{});
  ParseAll(input, small);
  ParseAll(input, Limits::Unauthenticated());
  return 0;
}
