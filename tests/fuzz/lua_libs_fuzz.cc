// The libraries scripts get (cjson, cmsgpack, struct, bit, and Lua's string, table and base
// functions that we replaced) on hostile arguments, run as EVAL runs them: in the server's
// sandboxed VM (ScriptVm) with a memory limit and a time limit, one VM for the whole run, so
// that settings a script changes must not reach the next. The first input byte picks a
// script; the next 32 give four numbers (any double, small and large integers, powers of two
// around the 32-bit edges); the rest are two strings, ARGV[1] and ARGV[2].
//
// Beyond ASan and UBSan, the scripts check what must hold: JSON and MessagePack that the
// encoders wrote decode again, and every script starts with cjson's defaults. A script answers
// an error that begins with "FUZZ" when a check fails; the target aborts on it.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "server/support/script_run.h"

namespace {

using cairn::server::scripting::ScriptOutcome;
using cairn::server::scripting::ScriptVm;
using cairn::server::scripting::testing::FakeHost;
using cairn::server::scripting::testing::Ran;
using cairn::server::scripting::testing::RunOnVm;
using cairn::server::scripting::testing::RunOptions;

// Shared by every script: the four numbers, and the check that cjson has its defaults.
constexpr std::string_view kPrelude = R"lua(
local n1, n2, n3, n4 = tonumber(ARGV[3]) or 0, tonumber(ARGV[4]) or 0,
                       tonumber(ARGV[5]) or 0, tonumber(ARGV[6]) or 0
local s1, s2 = ARGV[1], ARGV[2]
local defaults = cjson.encode({1/3, 1e308 * 10 == math.huge})
if defaults ~= '[0.33333333333333,true]' then
  return redis.error_reply('FUZZ cjson settings leaked from an earlier script: ' .. defaults)
end
local function fail(what, detail)
  return redis.error_reply('FUZZ ' .. what .. ': ' .. tostring(detail))
end
)lua";

constexpr std::string_view kScripts[] = {
    // cjson: what it encodes decodes.
    R"lua(
local ok, v = pcall(cjson.decode, s1)
if not ok then return 0 end
local encoded_ok, s = pcall(cjson.encode, v)
if not encoded_ok then return 1 end
if not pcall(cjson.decode, s) then return fail('cjson output does not decode', s) end
return s
)lua",
    // cjson with settings changed (they must not outlive this script).
    R"lua(
pcall(cjson.encode_max_depth, n1)
pcall(cjson.decode_max_depth, n2)
pcall(cjson.encode_number_precision, n3)
pcall(cjson.encode_sparse_array, n1 > 0, n2, n3)
pcall(cjson.encode_keep_buffer, n4 > 0)
pcall(cjson.encode_invalid_numbers, ({'off', 'on', 'null', true, false})[1 + math.abs(n4) % 5])
pcall(cjson.decode_invalid_numbers, n1 < 0)
local ok, v = pcall(cjson.decode, s1)
if ok then pcall(cjson.encode, v) end
pcall(cjson.encode, {n1, n2, n3, n4, s2, [n1 ~= n1 and 1 or n1] = s1})
return 1
)lua",
    // cmsgpack: what it packs unpacks, to the same number of values.
    R"lua(
local function count(...) return select('#', ...), {...} end
local r = {pcall(cmsgpack.unpack, s1)}
if r[1] then
  local n = select('#', unpack(r)) - 1
  local ok, packed = pcall(cmsgpack.pack, unpack(r, 2, n + 1))
  if ok then
    local again = {pcall(cmsgpack.unpack, packed)}
    if not again[1] then return fail('cmsgpack output does not unpack', again[2]) end
  end
end
pcall(cmsgpack.unpack_one, s1, n1)
pcall(cmsgpack.unpack_limit, s1, n2, n3)
pcall(cmsgpack.pack, n1, n2, n3, n4, s2, {s1, n1, {n2}})
return 1
)lua",
    // struct: any format on any data, and packing the numbers.
    R"lua(
pcall(struct.size, s1)
pcall(struct.unpack, s1, s2)
pcall(struct.unpack, s1, s2, n1)
local ok, packed = pcall(struct.pack, s1, n1, n2, n3, n4)
if ok then pcall(struct.unpack, s1, packed) end
pcall(struct.pack, s1, s2, n1, s2, n2)
return 1
)lua",
    // bit: every function on the edge numbers.
    R"lua(
local r = {}
for _, f in ipairs({bit.tobit, bit.bnot, bit.bswap}) do r[#r + 1] = {pcall(f, n1)} end
for _, f in ipairs({bit.band, bit.bor, bit.bxor, bit.lshift, bit.rshift, bit.arshift,
                    bit.rol, bit.ror, bit.tohex}) do
  r[#r + 1] = {pcall(f, n1, n2)}
  r[#r + 1] = {pcall(f, n3, n4)}
end
r[#r + 1] = {pcall(bit.band, n1, n2, n3, n4)}
r[#r + 1] = {pcall(bit.tohex, n1)}
return #r
)lua",
    // Lua's string, table and base functions that we replaced or bounded.
    R"lua(
pcall(string.find, s2, s1)
pcall(string.find, s2, s1, n1)
pcall(string.match, s2, s1)
pcall(function() for a, b in string.gmatch(s2, s1) do end end)
pcall(string.gsub, s2, s1, s1, n2)
pcall(string.gsub, s2, s1, function(x) return x end)
pcall(string.format, s1, n1, n2, s2, n3)
pcall(string.format, s1, s2, s2, s2)
pcall(string.rep, s2, n1)
pcall(string.rep, s1, n3 % 100000)
pcall(string.sub, s2, n1, n2)
pcall(string.byte, s2, n1, n2)
pcall(string.char, n1, n2, n3, n4)
pcall(unpack, {s1, s2}, n1, n2)
pcall(table.concat, {s1, s2, n1}, s2, n3, n4)
pcall(table.insert, {s1}, n1, s2)
pcall(table.remove, {s1, s2}, n1)
pcall(table.sort, {n1, n2, n3, n4, s1})
pcall(select, n1, s1, s2)
pcall(tostring, n1)
pcall(tonumber, s1, n2)
pcall(loadstring, s1)
pcall(redis.sha1hex, s1)
pcall(redis.status_reply, s1)
pcall(redis.error_reply, s1)
return 1
)lua",
};

std::string Number(const std::uint8_t* b) {
  double d = 0;
  switch (b[0] & 3) {
    case 0: {
      std::uint64_t bits = 0;
      std::memcpy(&bits, b, sizeof bits);
      std::memcpy(&d, &bits, sizeof d);
      break;
    }
    case 1:
      d = static_cast<std::int8_t>(b[1]);
      break;
    case 2: {
      std::int32_t i = 0;
      std::memcpy(&i, b + 1, sizeof i);
      d = i;
      break;
    }
    default:
      d = std::ldexp(1.0, b[1] % 70) + static_cast<std::int8_t>(b[2] % 5) - 2;
      if (b[3] & 1) d = -d;
      break;
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", d);
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static ScriptVm vm(8 << 20);  // Small, so that reaching the limit is quick.
  static FakeHost host;
  constexpr std::size_t kHeader = 2 + 4 * 8;
  if (size < kHeader) return 0;
  const std::size_t script = data[0] % std::size(kScripts);
  std::string numbers[4];
  for (int i = 0; i < 4; ++i) numbers[i] = Number(data + 2 + i * 8);
  const std::string_view rest(reinterpret_cast<const char*>(data + kHeader), size - kHeader);
  const std::size_t split = rest.empty() ? 0 : data[1] % (rest.size() + 1);

  RunOptions options;
  options.argv = {
      rest.substr(0, split), rest.substr(split), numbers[0], numbers[1], numbers[2], numbers[3]};
  options.protocol = 2 + (data[1] & 1);
  options.time_limit_ms = 50;
  const std::string body = std::string(kPrelude) + std::string(kScripts[script]);
  const Ran ran = RunOnVm(vm, host, body, options);
  const bool failed_check = ran.reply.rfind("-FUZZ", 0) == 0;
  if (failed_check) std::fprintf(stderr, "script %zu: %s\n", script, ran.reply.c_str());
  FUZZ_CHECK(!failed_check);
  return 0;
}
