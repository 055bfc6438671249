// Fingerprint: a 128-bit digest of a request, stored with an idempotency record so that a
// repeated key carrying a different request is recognised and refused.
//
// Fingerprint::OfBytes hashes raw bytes with XXH3-128. For structured requests, OfValue hashes
// a canonical form of a StructuredValue that ignores the order of map keys and treats equal
// numbers alike (1 and 1.0), and OfJson parses JSON text into that form first — so two JSON
// bodies that differ only in key order or whitespace have the same fingerprint. Values that
// have no stable form (NaN, infinities, duplicate map keys) are refused with kInvalidArgument.
// The digest is stable across processes, platforms and Cairn versions (it is stored on disk).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "cairn/result.h"

namespace cairn {

// A JSON-like value: null, boolean, integer, floating-point number, string, array or map.
class StructuredValue {
 public:
  using Array = std::vector<StructuredValue>;
  // Entries in any order; keys must be distinct.
  using Map = std::vector<std::pair<std::string, StructuredValue>>;

  StructuredValue() = default;  // null
  static StructuredValue Null() { return StructuredValue(); }
  static StructuredValue Bool(bool b) { return StructuredValue(Rep(b)); }
  static StructuredValue Int(std::int64_t i) { return StructuredValue(Rep(i)); }
  static StructuredValue Uint(std::uint64_t u) { return StructuredValue(Rep(u)); }
  static StructuredValue Number(double d) { return StructuredValue(Rep(d)); }
  static StructuredValue String(std::string s) { return StructuredValue(Rep(std::move(s))); }
  static StructuredValue MakeArray(Array a) { return StructuredValue(Rep(std::move(a))); }
  static StructuredValue MakeMap(Map m) { return StructuredValue(Rep(std::move(m))); }

  using Rep = std::variant<std::monostate, bool, std::int64_t, std::uint64_t, double, std::string,
                           Array, Map>;
  const Rep& rep() const { return rep_; }

 private:
  explicit StructuredValue(Rep rep) : rep_(std::move(rep)) {}
  Rep rep_;
};

class Fingerprint {
 public:
  Fingerprint() = default;
  Fingerprint(std::uint64_t high, std::uint64_t low) : high_(high), low_(low) {}

  // XXH3-128 of the bytes.
  static Fingerprint OfBytes(std::string_view bytes);
  // Digest of the canonical form of value; kInvalidArgument for NaN, infinities or duplicate
  // map keys (the message names the path, e.g. "$.items[2].price").
  static Result<Fingerprint> OfValue(const StructuredValue& value);
  // Parses JSON text (RFC 8259) and fingerprints it as OfValue does; kInvalidArgument with the
  // parser's message when the text is not JSON.
  static Result<Fingerprint> OfJson(std::string_view json);

  std::uint64_t high() const { return high_; }
  std::uint64_t low() const { return low_; }
  // 32 lowercase hex digits.
  std::string ToHex() const;

  friend bool operator==(const Fingerprint&, const Fingerprint&) = default;

 private:
  std::uint64_t high_ = 0;
  std::uint64_t low_ = 0;
};

}  // namespace cairn
