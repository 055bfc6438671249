// The error replies commands share, worded as Redis words them (clients and tests match on
// the text), and the one mapping from a library Status to a RESP error.
#pragma once

#include <string>
#include <string_view>

#include "cairn/status.h"
#include "resp/reply_writer.h"

namespace cairn::server {

inline constexpr std::string_view kSyntaxError = "ERR syntax error";
inline constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
inline constexpr std::string_view kNotFloat = "ERR value is not a valid float";
inline constexpr std::string_view kWrongTypeError =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kNoAuthError = "NOAUTH Authentication required.";
inline constexpr std::string_view kOverflowError = "ERR increment or decrement would overflow";

// "ERR wrong number of arguments for '<name>' command".
std::string WrongArity(std::string_view name);
// "ERR invalid expire time in '<name>' command".
std::string InvalidExpire(std::string_view name);

// "MISCONF ...": the reply to a write while the store takes none (StoreHealth), naming why.
// Redis answers MISCONF when it cannot persist; clients and libraries know the prefix.
std::string StorageRefusal(const Status& cause);

// Writes the RESP error for a failed library call: WRONGTYPE for kWrongType, the overflow
// message for kOutOfRange, "ERR <message>" for the rest.
void ReplyStatus(resp::ReplyWriter& reply, const Status& status);

}  // namespace cairn::server
