// Random identifiers (claim ids, lease tokens): 128 random bits as 32 lowercase hex digits.
// Unpredictable enough that one owner cannot guess another's id; not a cryptographic secret.
#pragma once

#include <string>

namespace cairn::internal {

std::string RandomId();

}  // namespace cairn::internal
