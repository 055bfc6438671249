// The library-mode child: opens the store through the public API and runs a seeded random mix
// of library calls from several threads until the parent kills it, reporting each call on
// stdout as protocol.h says.
//
// The parent kills it in one of two ways. SIGKILL: a process crash. Or it writes "c" to the
// child's stdin: the child cuts the power in its FaultInjection, drops what was never fsynced
// and _exits at once, with no destructor run — a machine losing power, the way cairn-server's
// DEBUG FAULT POWERCUT does it. The parent cannot do that part itself: which bytes were fsynced
// is known only to the FaultInjection inside the child.
#pragma once

#include <cstdint>
#include <string>

namespace cairn::crash::library {

struct ChildArgs {
  std::string dir;
  std::string durability;  // always, everysec or none
  std::uint64_t seed = 0;  // this cycle's seed
  int cycle = 0;           // makes the names and values of this cycle unique
  int threads = 4;
};

// The child's command line after --child: --dir D --durability M --seed N --cycle N --threads N.
bool ParseChildArgs(int argc, char** argv, ChildArgs* args);

// Runs until killed. Returns (exit status 4) only if the store cannot be opened or set up.
int RunChild(const ChildArgs& args);

inline constexpr int kChildCannotOpen = 4;

}  // namespace cairn::crash::library
