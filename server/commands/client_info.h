// CLIENT and its subcommands, and the client descriptions CLIENT LIST and CLIENT INFO print.
#pragma once

#include <string>
#include <string_view>

#include "execution/command.h"

namespace cairn::server {

inline constexpr std::string_view kBadClientName =
    "ERR Client names cannot contain spaces, newlines or special characters.";

// Redis allows names of printable ASCII without spaces (33..126).
bool ValidClientName(std::string_view name);

// A client with at least one subscription: CLIENT LIST's flag P and type pubsub.
bool IsPubSubClient(const Session& session);

// One CLIENT LIST line (without the newline), in Redis's field order.
std::string DescribeClient(const Session& session, std::int64_t now_ms);

void ClientCommand(CommandContext& ctx);

}  // namespace cairn::server
