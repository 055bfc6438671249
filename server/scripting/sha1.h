// SHA-1 of a byte string, as lower-case hex: the name Redis gives a script (EVALSHA, SCRIPT
// LOAD, redis.sha1hex). Not used for security: scripts are named by it because clients compute
// the same name on their side. Small enough (one block function) not to add a crypto library.
#pragma once

#include <string>
#include <string_view>

namespace cairn::server::scripting {

// 40 lower-case hex digits.
std::string Sha1Hex(std::string_view data);

}  // namespace cairn::server::scripting
