// Which addresses are loopback: protected mode (no password set) lets only loopback clients in,
// and lets the server listen only on loopback addresses.
#pragma once

#include <string>

#include "net/asio.h"

namespace cairn::server {

// 127.0.0.0/8, ::1, and IPv4 loopback seen through an IPv6 socket (::ffff:127.x.y.z).
bool IsLoopback(const boost::asio::ip::address& address);

// Whether every address of a `bind` value (space-separated, Redis's optional "-" prefix) is a
// loopback address. False for anything that is not an IP address ("*", "::*").
bool BindsLoopbackOnly(const std::string& bind);

}  // namespace cairn::server
