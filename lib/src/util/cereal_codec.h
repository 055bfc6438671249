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

#include "cairn/status.h"

namespace cairn::internal {

template <typename T>
std::string ToCereal(const T& value) {
  std::ostringstream out;
  {
    cereal::PortableBinaryOutputArchive archive(out);
    archive(value);
  }
  return std::move(out).str();
}

// `what` names the row in the message, e.g. "job 'a' of queue 'q'".
template <typename T>
Status FromCereal(std::string_view bytes, T* value, std::string_view what) {
  try {
    std::istringstream in{std::string(bytes)};
    cereal::PortableBinaryInputArchive archive(in);
    archive(*value);
    if (in.peek() != std::char_traits<char>::eof()) throw std::runtime_error("trailing bytes");
  } catch (const std::exception& e) {
    return Status::Corruption(std::string(what) + " cannot be decoded (" + e.what() +
                              "); refusing to use or overwrite it");
  }
  return Status::Ok();
}

}  // namespace cairn::internal
