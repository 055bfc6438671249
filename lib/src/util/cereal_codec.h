// One way to turn a domain record into bytes and back: cereal's portable binary archive,
// whose classes carry an explicit CEREAL_CLASS_VERSION so that old rows stay readable.
// Decoding fails closed: bytes that do not decode, or leave bytes over, are kCorruption.
#pragma once

#include <cereal/archives/portable_binary.hpp>
#include <exception>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "cairn/status.h"

namespace cairn::internal {

// A row's name for a message: `what` itself, or what it returns when it is a callable, so that
// callers on hot paths build the name only when there is an error to report.
template <typename What>
std::string Describe(const What& what) {
  if constexpr (std::is_invocable_v<const What&>) {
    return std::string(what());
  } else {
    return std::string(what);
  }
}

template <typename T>
std::string ToCereal(const T& value) {
  std::ostringstream out;
  {
    cereal::PortableBinaryOutputArchive archive(out);
    archive(value);
  }
  return std::move(out).str();
}

// `what` names the row in the message, e.g. "job 'a' of queue 'q'": a string, or a callable
// returning one (called only when decoding fails).
template <typename T, typename What>
Status FromCereal(std::string_view bytes, T* value, const What& what) {
  try {
    std::istringstream in{std::string(bytes)};
    cereal::PortableBinaryInputArchive archive(in);
    archive(*value);
    if (in.peek() != std::char_traits<char>::eof()) throw std::runtime_error("trailing bytes");
  } catch (const std::exception& e) {
    return Status::Corruption(Describe(what) + " cannot be decoded (" + e.what() +
                              "); refusing to use or overwrite it");
  }
  return Status::Ok();
}

}  // namespace cairn::internal
