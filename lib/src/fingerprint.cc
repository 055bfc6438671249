#include "cairn/fingerprint.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "storage/big_endian.h"
#include "util/status_macros.h"

namespace cairn {
namespace {

using internal::AppendBigEndian64;

// Canonical form: a type tag, then fixed-width big-endian numbers and length-prefixed bytes.
// Integers are sign + magnitude so that every int64/uint64 has one encoding; a double that
// holds an integer value is encoded as that integer (1.0 == 1); map entries are sorted by key.
class Canonicalizer {
 public:
  Status Append(const StructuredValue& value, std::string& path) {
    return std::visit([&](const auto& v) { return AppendRep(v, path); }, value.rep());
  }
  const std::string& bytes() const { return out_; }

 private:
  Status AppendRep(std::monostate, std::string&) {
    out_.push_back('n');
    return Status::Ok();
  }
  Status AppendRep(bool b, std::string&) {
    out_.push_back(b ? 't' : 'f');
    return Status::Ok();
  }
  Status AppendRep(std::int64_t i, std::string&) {
    const bool negative = i < 0;
    // Magnitude without overflow for INT64_MIN.
    const std::uint64_t magnitude =
        negative ? ~static_cast<std::uint64_t>(i) + 1 : static_cast<std::uint64_t>(i);
    AppendInteger(negative, magnitude);
    return Status::Ok();
  }
  Status AppendRep(std::uint64_t u, std::string&) {
    AppendInteger(false, u);
    return Status::Ok();
  }
  Status AppendRep(double d, std::string& path) {
    if (!std::isfinite(d)) {
      return Status::InvalidArgument("cannot fingerprint the non-finite number at " + path);
    }
    // Integral values within ±2^64 take the integer encoding.
    constexpr double kTwo64 = 18446744073709551616.0;
    if (d == std::trunc(d) && std::fabs(d) < kTwo64) {
      const bool negative = d < 0;
      AppendInteger(negative && d != 0, static_cast<std::uint64_t>(std::fabs(d)));
      return Status::Ok();
    }
    std::uint64_t bits;
    static_assert(sizeof(bits) == sizeof(d));
    std::memcpy(&bits, &d, sizeof(d));
    out_.push_back('d');
    AppendBigEndian64(&out_, bits);
    return Status::Ok();
  }
  Status AppendRep(const std::string& s, std::string&) {
    out_.push_back('s');
    AppendBytes(s);
    return Status::Ok();
  }
  Status AppendRep(const StructuredValue::Array& a, std::string& path) {
    out_.push_back('a');
    AppendBigEndian64(&out_, a.size());
    const std::size_t base = path.size();
    for (std::size_t i = 0; i < a.size(); ++i) {
      path += "[" + std::to_string(i) + "]";
      CAIRN_RETURN_IF_ERROR(Append(a[i], path));
      path.resize(base);
    }
    return Status::Ok();
  }
  Status AppendRep(const StructuredValue::Map& m, std::string& path) {
    std::vector<const std::pair<std::string, StructuredValue>*> sorted;
    sorted.reserve(m.size());
    for (const auto& entry : m) sorted.push_back(&entry);
    std::sort(sorted.begin(), sorted.end(),
              [](const auto* a, const auto* b) { return a->first < b->first; });
    out_.push_back('m');
    AppendBigEndian64(&out_, sorted.size());
    const std::size_t base = path.size();
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      if (i > 0 && sorted[i]->first == sorted[i - 1]->first) {
        return Status::InvalidArgument("cannot fingerprint a map with the duplicate key '" +
                                       sorted[i]->first + "' at " + path);
      }
      AppendBytes(sorted[i]->first);
      path += "." + sorted[i]->first;
      CAIRN_RETURN_IF_ERROR(Append(sorted[i]->second, path));
      path.resize(base);
    }
    return Status::Ok();
  }

  void AppendInteger(bool negative, std::uint64_t magnitude) {
    out_.push_back('i');
    out_.push_back(negative ? '-' : '+');
    AppendBigEndian64(&out_, magnitude);
  }
  void AppendBytes(std::string_view s) {
    AppendBigEndian64(&out_, s.size());
    out_.append(s);
  }

  std::string out_;
};

StructuredValue FromJson(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::discarded:
      return StructuredValue::Null();
    case nlohmann::json::value_t::boolean:
      return StructuredValue::Bool(j.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return StructuredValue::Int(j.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return StructuredValue::Uint(j.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float:
      return StructuredValue::Number(j.get<double>());
    case nlohmann::json::value_t::string:
      return StructuredValue::String(j.get<std::string>());
    case nlohmann::json::value_t::binary:
      return StructuredValue::String(std::string(j.get_binary().begin(), j.get_binary().end()));
    case nlohmann::json::value_t::array: {
      StructuredValue::Array a;
      a.reserve(j.size());
      for (const auto& item : j) a.push_back(FromJson(item));
      return StructuredValue::MakeArray(std::move(a));
    }
    case nlohmann::json::value_t::object: {
      StructuredValue::Map m;
      m.reserve(j.size());
      for (const auto& [key, item] : j.items()) m.emplace_back(key, FromJson(item));
      return StructuredValue::MakeMap(std::move(m));
    }
  }
  return StructuredValue::Null();
}

}  // namespace

Fingerprint Fingerprint::OfBytes(std::string_view bytes) {
  XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return Fingerprint(h.high64, h.low64);
}

Result<Fingerprint> Fingerprint::OfValue(const StructuredValue& value) {
  Canonicalizer canonical;
  std::string path = "$";
  CAIRN_RETURN_IF_ERROR(canonical.Append(value, path));
  return OfBytes(canonical.bytes());
}

Result<Fingerprint> Fingerprint::OfJson(std::string_view json) {
  // Duplicate keys: nlohmann keeps the last one silently, which would make two different
  // documents equal; the parser callback sees every key, so duplicates are caught there.
  std::vector<std::unordered_set<std::string>> keys_per_object;
  bool duplicate = false;
  std::string duplicate_key;
  auto callback = [&](int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    switch (event) {
      case nlohmann::json::parse_event_t::object_start:
        keys_per_object.emplace_back();
        break;
      case nlohmann::json::parse_event_t::object_end:
        keys_per_object.pop_back();
        break;
      case nlohmann::json::parse_event_t::key: {
        const std::string& key = parsed.get_ref<const std::string&>();
        if (!keys_per_object.back().insert(key).second && !duplicate) {
          duplicate = true;
          duplicate_key = key;
        }
        break;
      }
      default:
        break;
    }
    return true;
  };
  nlohmann::json parsed =
      nlohmann::json::parse(json.begin(), json.end(), callback, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return Status::InvalidArgument("cannot fingerprint: the request body is not valid JSON");
  }
  if (duplicate) {
    return Status::InvalidArgument("cannot fingerprint JSON with the duplicate key '" +
                                   duplicate_key + "'");
  }
  return OfValue(FromJson(parsed));
}

std::string Fingerprint::ToHex() const {
  char buf[33];
  std::snprintf(buf, sizeof(buf), "%016llx%016llx", static_cast<unsigned long long>(high_),
                static_cast<unsigned long long>(low_));
  return std::string(buf, 32);
}

}  // namespace cairn
