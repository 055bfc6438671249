// Small readers for the replies the crash harness gets: the fields of a map reply (a RESP3 map
// or a RESP2 flat array of field, value, …), integers and strings among them, error kinds.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "server/support/resp_client.h"

namespace cairn::crash {

using test::Reply;
using Args = std::vector<std::string>;

// The fields of a map reply; empty if `r` is not one.
std::map<std::string, const Reply*> Fields(const Reply& r);
// Field `name` as an integer (an integer or boolean reply) or string (simple or bulk).
std::optional<std::int64_t> IntField(const std::map<std::string, const Reply*>& f,
                                     const std::string& name);
std::optional<std::string> StrField(const std::map<std::string, const Reply*>& f,
                                    const std::string& name);

bool IsError(const Reply& r);
bool IsErrorKind(const Reply& r, const char* prefix);  // "NOTOWNER", "MISCONF", …
bool IsOk(const Reply& r);
// The reply for a report, cut to a readable length.
std::string Brief(const Reply& r);
// A command for a report: its words, cut to a readable length.
std::string Brief(const Args& args);

inline std::int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace cairn::crash
