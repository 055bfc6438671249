// Any bytes as a script body, compiled and run as EVAL does, in one sandboxed VM for the whole
// run (a dictionary of Lua's tokens and library names steers the fuzzer to valid scripts).
// Beyond ASan and UBSan — a crash of the VM, an escape through bytecode or the C API — it
// checks the sandbox holds between scripts: after each one, a fixed canary script that uses
// the libraries, the string metatable and the globals must give the answer it gave first. A
// script that changed what the next one sees (a library function replaced, a metatable
// modified, a global left behind) fails it.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "server/support/script_run.h"

namespace {

using cairn::server::scripting::ScriptOutcome;
using cairn::server::scripting::ScriptVm;
using cairn::server::scripting::testing::FakeHost;
using cairn::server::scripting::testing::Ran;
using cairn::server::scripting::testing::RunOnVm;
using cairn::server::scripting::testing::RunOptions;

constexpr std::string_view kCanary = R"lua(
local found = {}
for _, name in ipairs({'fuzz', 'x', 'a', 'f', 't', 's'}) do
  found[#found + 1] = tostring(rawget(_G, name))
end
return {cjson.encode({1/3, {a = 1}}), bit.tohex(bit.band(6, 3)), ('ab'):rep(2),
        string.format('%5.1f|%s', 2.25, 'x'), ('x=1'):match('(%w)=(%d)'),
        type(redis.call), type(pcall), tostring(math.floor(2.5)), cmsgpack.pack(1, 'a'),
        struct.pack('>i2', 1), table.concat({1, 2}, ','), tostring(#KEYS), tostring(#ARGV),
        tostring(getmetatable('').__index == string), table.concat(found, ',')}
)lua";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static ScriptVm vm(32 << 20);
  static FakeHost host;
  static const std::string expected = RunOnVm(vm, host, std::string(kCanary)).reply;

  const std::string body(reinterpret_cast<const char*>(data), size);
  RunOptions options;
  options.keys = {"k1", "k2"};
  options.argv = {"a1", "2", "3.5"};
  options.time_limit_ms = 20;
  options.protocol = 2 + (size & 1);
  const Ran ran = RunOnVm(vm, host, body, options);
  host.calls.clear();
  host.logs.clear();

  const Ran canary = RunOnVm(vm, host, std::string(kCanary));
  if (canary.reply != expected) {
    std::fprintf(stderr, "the canary script answered\n%s\ninstead of\n%s\n", canary.reply.c_str(),
                 expected.c_str());
  }
  FUZZ_CHECK(canary.reply == expected);

  // Forget the compiled scripts (as SCRIPT FLUSH would), or they would fill the VM.
  static std::uint64_t epoch = 0;
  vm.Follow(++epoch, 0, [](std::string_view) { return false; });
  return 0;
}
