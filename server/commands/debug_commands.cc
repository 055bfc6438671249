// DEBUG FAULT: drives the store's fault injector (cairn/fault_injection.h) in a server started
// with `fault-injection yes`, so that tests over real sockets can fill the disk, fail writes,
// fsyncs and reads, fake the free space, and cut the power. Without that option (the default)
// DEBUG answers an error and changes nothing: no client of a production server can reach it.
//
//   DEBUG FAULT WRITES|SYNCS none|nospace|eio|erofs
//   DEBUG FAULT READS yes|no
//   DEBUG FAULT FREESPACE <bytes, e.g. 10mb>|real
//   DEBUG FAULT CLEAR
//   DEBUG FAULT POWERCUT      the process ends at once, and what it never fsynced is gone
#include <unistd.h>

#include <cstdio>
#include <optional>

#include "args/ascii.h"
#include "args/errors.h"
#include "cairn/fault_injection.h"
#include "commands/all_commands.h"
#include "config/server_config.h"
#include "execution/command.h"
#include "execution/command_table.h"
#include "execution/server_state.h"

namespace cairn::server {
namespace {

using Fault = FaultInjection::Fault;

std::optional<Fault> ParseFault(std::string_view name) {
  for (Fault f : {Fault::kNone, Fault::kNoSpace, Fault::kIOError, Fault::kReadOnly}) {
    if (EqualsIgnoreCase(name, FaultName(f))) return f;
  }
  return std::nullopt;
}

// The machine loses power: nothing more reaches the disk, what was never fsynced is lost, and
// the process is gone without closing anything — as after SIGKILL, but harsher.
[[noreturn]] void PowerCut(FaultInjection& faults) {
  faults.CutPower();
  // The power stays off until the process is gone: the io threads still running can neither
  // write nor sync anything, so no reply leaves for a write that did not reach the disk.
  const Status dropped = faults.DropUnsyncedData(/*power_back_on=*/false);
  std::fprintf(stderr, "cairn-server: DEBUG FAULT POWERCUT: %s\n",
               dropped.ok() ? "unsynced data dropped, exiting" : dropped.ToString().c_str());
  ::_exit(dropped.ok() ? 137 : 1);
}

void DebugFault(CommandContext& ctx) {
  FaultInjection* faults = ctx.server.faults();
  if (faults == nullptr) {
    return ctx.reply.Error(
        "ERR DEBUG FAULT needs a server started with 'fault-injection yes' (for tests only)");
  }
  const std::string what = ctx.args.size() > 2 ? ToLower(ctx.args[2]) : "";
  const std::size_t argc = ctx.args.size();
  if ((what == "writes" || what == "syncs") && argc == 4) {
    const std::optional<Fault> fault = ParseFault(ctx.args[3]);
    if (!fault) return ctx.reply.Error("ERR the fault is one of none, nospace, eio, erofs");
    what == "writes" ? faults->FailWrites(*fault) : faults->FailSyncs(*fault);
  } else if (what == "reads" && argc == 4) {
    const std::string on = ToLower(ctx.args[3]);
    if (on != "yes" && on != "no") return ctx.reply.Error("ERR DEBUG FAULT READS yes|no");
    faults->FailReads(on == "yes");
  } else if (what == "freespace" && argc == 4) {
    if (EqualsIgnoreCase(ctx.args[3], "real")) {
      faults->SetFreeSpace(std::nullopt);
    } else {
      Result<std::int64_t> bytes = ParseMemorySize(ctx.args[3]);
      if (!bytes.ok()) return ctx.reply.Error("ERR " + bytes.status().message());
      faults->SetFreeSpace(static_cast<std::uint64_t>(*bytes));
    }
    ctx.server.store().CheckHealth();  // Seen by the next command, not a second later.
  } else if (what == "clear" && argc == 3) {
    faults->Clear();
    ctx.server.store().CheckHealth();
  } else if (what == "powercut" && argc == 3) {
    PowerCut(*faults);
  } else {
    return ctx.reply.Error(
        "ERR DEBUG FAULT WRITES|SYNCS <fault> | READS yes|no | FREESPACE <bytes>|real | CLEAR | "
        "POWERCUT");
  }
  ctx.reply.SimpleString("OK");
}

void Debug(CommandContext& ctx) {
  if (EqualsIgnoreCase(ctx.args[1], "fault")) return DebugFault(ctx);
  ctx.reply.Error("ERR unknown subcommand '" + std::string(ctx.args[1]) +
                  "'. Cairn's DEBUG has only FAULT (with fault-injection yes).");
}

}  // namespace

void RegisterDebugCommands(CommandTable& table) {
  table.Register({"debug", -2, kAdmin | kNoScript | kNoMulti | kLoading | kStale | kSubcommands, 0,
                  0, 0, Debug, "server", "A container for debugging commands.", "1.0.0"});
}

}  // namespace cairn::server
