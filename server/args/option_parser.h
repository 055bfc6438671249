// OptionParser: a command's arguments read from left to right, option words and their
// values, as Redis reads them — words in any letter case, integers and floats in Redis's exact
// forms (arguments.h). Each Take… answers the value or the error reply to give instead, so a
// command's option grammar needs no reply writer and is tested alone (option_parser_test).
//
// An option word given last, without its value, is a syntax error, as in Redis: every Take…
// with no argument left answers kSyntaxError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace cairn::server {

// A value taken from the arguments, or the error reply that stands for it.
template <typename T>
class Parsed {
 public:
  Parsed(T value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  static Parsed Error(std::string reply) {
    Parsed parsed;
    parsed.error_ = std::move(reply);
    return parsed;
  }

  bool ok() const { return value_.has_value(); }
  const T& operator*() const { return *value_; }
  T& operator*() { return *value_; }
  // The error reply; empty when ok().
  const std::string& error() const { return error_; }

 private:
  Parsed() = default;
  std::optional<T> value_;
  std::string error_;
};

class OptionParser {
 public:
  // Reads args from index `first` on.
  OptionParser(std::span<const std::string_view> args, std::size_t first)
      : args_(args), next_(first) {}

  bool Done() const { return next_ >= args_.size(); }
  // How many arguments are left.
  std::size_t Left() const { return Done() ? 0 : args_.size() - next_; }
  // Index of the next argument (args.size() when done).
  std::size_t Position() const { return next_; }

  // Takes the next argument when it is `word` in any letter case (a lower-case literal).
  bool Word(std::string_view word);
  // Takes the next argument when it is one of `words` (any case); answers its index in them.
  std::optional<std::size_t> OneOf(std::initializer_list<std::string_view> words);

  // The next argument as it is.
  Parsed<std::string_view> Text();
  // The next argument as an int64 (kNotInteger otherwise).
  Parsed<std::int64_t> Integer();
  // The next argument as an integer in [min, max]: kNotInteger for a non-integer, and for one
  // out of range "ERR <name> must be between <min> and <max>" — where the library takes a
  // narrower type than int64 and a larger number would wrap.
  Parsed<std::int64_t> Integer(std::int64_t min, std::int64_t max, std::string_view name);
  // The next argument as a double, as Redis reads one (kNotFloat otherwise).
  Parsed<double> Double();

 private:
  // The next argument, taken; nullopt (taking nothing) when none is left.
  std::optional<std::string_view> Next();

  std::span<const std::string_view> args_;
  std::size_t next_;
};

}  // namespace cairn::server

#define CAIRN_ARG_CONCAT_INNER(a, b) a##b
#define CAIRN_ARG_CONCAT(a, b) CAIRN_ARG_CONCAT_INNER(a, b)

// In a command handler: `lhs = *parsed` when `expr` (a Parsed) holds a value; otherwise answers
// its error on `reply` and returns from the handler.
#define CAIRN_ARG_OR_REPLY(reply, lhs, expr)                               \
  auto CAIRN_ARG_CONCAT(parsed_arg_, __LINE__) = (expr);                   \
  if (!CAIRN_ARG_CONCAT(parsed_arg_, __LINE__).ok()) {                     \
    return (reply).Error(CAIRN_ARG_CONCAT(parsed_arg_, __LINE__).error()); \
  }                                                                        \
  lhs = std::move(*CAIRN_ARG_CONCAT(parsed_arg_, __LINE__))
