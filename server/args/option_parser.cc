#include "args/option_parser.h"

#include "args/arguments.h"
#include "args/ascii.h"
#include "args/errors.h"

namespace cairn::server {

std::optional<std::string_view> OptionParser::Next() {
  if (Done()) return std::nullopt;
  return args_[next_++];
}

bool OptionParser::Word(std::string_view word) {
  if (Done() || !EqualsIgnoreCase(args_[next_], word)) return false;
  ++next_;
  return true;
}

std::optional<std::size_t> OptionParser::OneOf(std::initializer_list<std::string_view> words) {
  std::size_t index = 0;
  for (std::string_view word : words) {
    if (Word(word)) return index;
    ++index;
  }
  return std::nullopt;
}

Parsed<std::string_view> OptionParser::Text() {
  const std::optional<std::string_view> arg = Next();
  if (!arg) return Parsed<std::string_view>::Error(std::string(kSyntaxError));
  return *arg;
}

Parsed<std::int64_t> OptionParser::Integer() {
  const std::optional<std::string_view> arg = Next();
  if (!arg) return Parsed<std::int64_t>::Error(std::string(kSyntaxError));
  const std::optional<std::int64_t> n = ParseInt64(*arg);
  if (!n) return Parsed<std::int64_t>::Error(std::string(kNotInteger));
  return *n;
}

Parsed<std::int64_t> OptionParser::Integer(std::int64_t min, std::int64_t max,
                                           std::string_view name) {
  Parsed<std::int64_t> n = Integer();
  if (n.ok() && (*n < min || *n > max)) {
    return Parsed<std::int64_t>::Error("ERR " + std::string(name) + " must be between " +
                                       std::to_string(min) + " and " + std::to_string(max));
  }
  return n;
}

Parsed<double> OptionParser::Double() {
  const std::optional<std::string_view> arg = Next();
  if (!arg) return Parsed<double>::Error(std::string(kSyntaxError));
  const std::optional<double> d = ParseDouble(*arg);
  if (!d) return Parsed<double>::Error(std::string(kNotFloat));
  return *d;
}

}  // namespace cairn::server
