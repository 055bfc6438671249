// A TCP connection to 127.0.0.1:port with Nagle off, for the test clients (RespClient,
// RawConnection). Returns the socket (blocking), or -1 with *error set.
#pragma once

#include <string>

namespace cairn::test {

int ConnectLoopback(int port, std::string* error);

}  // namespace cairn::test
