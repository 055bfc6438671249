// What the commands of hashes, sets and sorted sets share: the arguments of HSCAN/SSCAN/ZSCAN
// and the random choices of HRANDFIELD/SRANDMEMBER/SPOP.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "execution/command.h"

namespace cairn::server {

// Redis answers HSCAN/SSCAN/ZSCAN on a small value with every member at once and cursor 0
// (its compact encodings cannot resume); clients and tests see that, so values up to this
// size do too.
inline constexpr std::uint64_t kWholeScanMembers = 128;

struct MemberScanArgs {
  std::string resume;                       // Where the previous page stopped ("" at cursor 0).
  std::optional<std::string_view> pattern;  // MATCH
  std::int64_t count = 10;                  // COUNT
  std::uint64_t size = 0;                   // How many members the value has.
};

// The size call of a kind (Records::HashLength, SetSize, ZSetSize).
using SizeCall = Result<std::uint64_t> (Records::*)(std::string_view);

// Parses `<cmd> key cursor [MATCH pattern] [COUNT count]` in Redis's order: the cursor, then
// the key (its size, through size_of), then the options. Returns nullopt after replying
// itself: an error, or the empty scan of a missing key.
std::optional<MemberScanArgs> ParseMemberScan(CommandContext& ctx, SizeCall size_of);

// How many members to read for a page.
std::size_t MemberScanPageSize(const MemberScanArgs& args);

// Replies [next cursor, items…] and remembers `cursor` (empty: the scan is done).
void ReplyMemberScan(CommandContext& ctx, std::string cursor,
                     const std::vector<std::string_view>& items);

// The indices (into `size` items) a random-members command returns for `count`, Redis's way:
// a count ≥ 0 picks min(count, size) distinct items (all of them, in order, when count ≥
// size); a negative count picks |count| items that may repeat. Empty when size is 0.
std::vector<std::size_t> RandomPicks(std::size_t size, std::int64_t count, std::mt19937_64& rng);

// The most picks a negative count may ask for: one reply must fit in memory.
inline constexpr std::int64_t kMaxRandomPicks = 10'000'000;

// The random engine of this thread, for those commands.
std::mt19937_64& ThreadRng();

}  // namespace cairn::server
