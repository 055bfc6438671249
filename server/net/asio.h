// Boost.Asio, included the one way that compiles here: Boost 1.74's Asio uses std::exchange
// without including <utility>, which GCC 12 in C++20 mode no longer pulls in on its own.
#pragma once

// clang-format off
#include <utility>
#include <boost/asio.hpp>
// clang-format on
