// Checks that bytes a server sent are a sequence of well-formed RESP2/RESP3 replies, without
// interpreting them. Written apart from the server's reply writer and from RespClient (which
// trusts what it reads), so that a test can tell garbage from a reply it did not expect.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cairn::test {

struct ReplyScan {
  std::size_t complete = 0;      // Whole top-level replies.
  std::size_t consumed = 0;      // Bytes those take.
  bool incomplete_tail = false;  // Bytes after them start a reply that has not ended.
  bool malformed = false;        // Bytes after them can start no reply.
  // The first line of each complete top-level reply ("+OK", "$5", "-ERR ..."), in order.
  std::vector<std::string> first_lines;
};

ReplyScan ScanReplies(std::string_view bytes);

}  // namespace cairn::test
