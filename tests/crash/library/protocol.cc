#include "crash/library/protocol.h"

#include <charconv>

namespace cairn::crash::library {
namespace {

std::vector<std::string> Split(std::string_view text) {
  std::vector<std::string> words;
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    if (space != 0) words.emplace_back(text.substr(0, space));
    if (space == std::string_view::npos) break;
    text.remove_prefix(space + 1);
  }
  return words;
}

template <typename T>
bool ToNumber(const std::string& word, T* out) {
  const char* end = word.data() + word.size();
  const auto [ptr, ec] = std::from_chars(word.data(), end, *out);
  return ec == std::errc() && ptr == end;
}

}  // namespace

bool ParseLine(std::string_view text, Line* line) {
  *line = Line{};
  if (text == "ready") {
    line->kind = 'r';
    return true;
  }
  std::vector<std::string> words = Split(text);
  if (words.size() < 3 || words[0].size() != 1) return false;
  line->kind = words[0][0];
  if (line->kind != 'b' && line->kind != 'a' && line->kind != 'e') return false;
  if (!ToNumber(words[1], &line->thread) || !ToNumber(words[2], &line->seq)) return false;
  if (line->kind == 'e') {
    if (words.size() < 4) return false;
    // The status is free text: keep it whole.
    std::size_t at = 0;
    for (int skip = 0; skip < 3; ++skip) at = text.find(' ', at) + 1;
    line->words.emplace_back(text.substr(at));
    return true;
  }
  line->words.assign(words.begin() + 3, words.end());
  return line->kind == 'a' || !line->words.empty();
}

}  // namespace cairn::crash::library
