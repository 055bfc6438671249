// How big the tests of huge values make them. A million members is the size the data-type
// tests promise (deleting or expiring one is a single row; compaction reclaims it). Under
// sanitizers the same code paths run at a tenth of the size: that pass looks for memory and
// undefined-behaviour errors, not scale, and must stay short.
#pragma once

#include <cstddef>

namespace cairn::test {

#ifdef CAIRN_SANITIZED
inline constexpr std::size_t kHugeValueMembers = 100'000;
#else
inline constexpr std::size_t kHugeValueMembers = 1'000'000;
#endif

}  // namespace cairn::test
