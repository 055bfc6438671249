// LMPOP, BLMPOP, ZMPOP and BZMPOP (Redis 7.0): up to COUNT elements from one end of the first
// of several keys that has any, replied as [key, [element, …]], or a null array when every key
// is empty. The list and sorted-set forms share their arguments —
// `numkeys key [key …] <end> [COUNT count]`, behind a timeout in the blocking forms — the
// errors for bad ones, checked in the order Redis checks them, and their try (blocking.h):
// the blocking forms run it until their timeout, the others once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "execution/command.h"

namespace cairn::server {

// What tells the list forms from the sorted-set ones.
struct MultiPopKind {
  // The two words that name an end, in lower case: "left" and "right", or "min" and "max".
  std::string_view first_end;
  std::string_view second_end;
  // Takes up to `count` elements from one end of the value at key (`second`: the end that
  // second_end names) and, when it took any, writes the whole reply, [key, [element, …]].
  // Returns false, having written nothing, when the key is empty or absent.
  Result<bool> (*pop)(Records& data, const std::string& key, bool second, std::int64_t count,
                      resp::ReplyWriter& reply);
};

// LMPOP numkeys key [key …] LEFT|RIGHT [COUNT count]; ZMPOP likewise with MIN|MAX.
void MultiPop(CommandContext& ctx, const MultiPopKind& kind);

// BLMPOP timeout numkeys key [key …] LEFT|RIGHT [COUNT count]; BZMPOP likewise with MIN|MAX.
void BlockingMultiPop(CommandContext& ctx, const MultiPopKind& kind);

}  // namespace cairn::server
