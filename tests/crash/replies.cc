#include "crash/replies.h"

namespace cairn::crash {
namespace {

constexpr std::size_t kBriefLimit = 300;

std::string Cut(std::string s) {
  if (s.size() > kBriefLimit) s = s.substr(0, kBriefLimit) + "…";
  return s;
}

}  // namespace

std::map<std::string, const Reply*> Fields(const Reply& r) {
  std::map<std::string, const Reply*> out;
  if (r.type != Reply::Type::kMap && r.type != Reply::Type::kArray) return out;
  if (r.elements.size() % 2 != 0) return out;
  for (std::size_t i = 0; i + 1 < r.elements.size(); i += 2) {
    out[r.elements[i].str] = &r.elements[i + 1];
  }
  return out;
}

std::optional<std::int64_t> IntField(const std::map<std::string, const Reply*>& f,
                                     const std::string& name) {
  const auto it = f.find(name);
  if (it == f.end()) return std::nullopt;
  const Reply& r = *it->second;
  if (r.type == Reply::Type::kInteger || r.type == Reply::Type::kBoolean) return r.integer;
  return std::nullopt;
}

std::optional<std::string> StrField(const std::map<std::string, const Reply*>& f,
                                    const std::string& name) {
  const auto it = f.find(name);
  if (it == f.end()) return std::nullopt;
  const Reply& r = *it->second;
  if (r.type == Reply::Type::kBulk || r.type == Reply::Type::kSimple) return r.str;
  return std::nullopt;
}

bool IsError(const Reply& r) { return r.type == Reply::Type::kError; }

bool IsErrorKind(const Reply& r, const char* prefix) {
  const std::string p = std::string(prefix) + " ";
  return IsError(r) && r.str.compare(0, p.size(), p) == 0;
}

bool IsOk(const Reply& r) { return r.type == Reply::Type::kSimple && r.str == "OK"; }

std::string Brief(const Reply& r) { return Cut(r.ToString()); }

std::string Brief(const Args& args) {
  std::string out;
  for (const std::string& a : args) out += (out.empty() ? "" : " ") + a;
  return Cut(out);
}

}  // namespace cairn::crash
