// cjson.decode: JSON text as a Lua value, as Redis's cjson reads it.
// - objects and arrays become tables, null becomes cjson.null (a null light userdata), so that
//   an array keeps its length;
// - numbers are read by strtod, so with decode_invalid_numbers on (the default) it also takes
//   what JSON does not: a leading +, leading zeros, hexadecimal, inf, nan; off, those are
//   errors;
// - strings take the JSON escapes; \uXXXX becomes UTF-8 (a surrogate pair one code point,
//   a lone surrogate is an error); other bytes pass as they are, control characters too;
// - the text ends at its first zero byte, as in Redis, whose parser reads a C string;
// - errors name what was expected, what was found and where (from 1): "Expected value but
//   found invalid token at character 1". Nesting deeper than decode_max_depth is an error.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "scripting/cjson.h"
#include "scripting/lua_buffer.h"

namespace cairn::server::scripting {
namespace {

enum class Token {
  kObjectBegin,
  kObjectEnd,
  kArrayBegin,
  kArrayEnd,
  kString,
  kNumber,
  kBoolean,
  kNull,
  kColon,
  kComma,
  kEnd,
  kError,
};

// What error messages call each token, as Redis's do.
constexpr const char* kTokenNames[] = {"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END",
                                       "T_STRING",    "T_NUMBER",  "T_BOOLEAN",   "T_NULL",
                                       "T_COLON",     "T_COMMA",   "T_END",       "T_ERROR"};

struct Lexeme {
  Token type = Token::kEnd;
  std::size_t at = 0;           // Where it starts, from 0; for an error, where it is.
  const char* error = nullptr;  // kError: what is wrong.
  std::string_view text;        // kString: valid until the next string is read.
  double number = 0;            // kNumber
  bool boolean = false;         // kBoolean
};

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Whether s (len bytes) starts with the lower-case `word` in any case.
bool StartsWithNoCase(const char* s, std::size_t len, std::string_view word) {
  if (len < word.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if ((s[i] | 0x20) != word[i]) return false;
  }
  return true;
}

class Decoder {
 public:
  Decoder(lua_State* L, const CjsonSettings& settings, const char* data, std::size_t len)
      : L_(L), settings_(settings), data_(data), scratch_(L) {
    const void* zero = std::memchr(data, '\0', len);
    end_ = zero != nullptr ? static_cast<std::size_t>(static_cast<const char*>(zero) - data) : len;
  }

  // Pushes the value the whole text holds.
  void Document() {
    Lexeme t;
    Next(&t);
    Value(t);
    Next(&t);
    if (t.type != Token::kEnd) Unexpected("the end", t);
  }

 private:
  char At(std::size_t pos) const { return pos < end_ ? data_[pos] : '\0'; }

  void Fail(Lexeme* t, const char* error) {
    t->type = Token::kError;
    t->at = pos_;
    t->error = error;
  }

  // Raises "Expected <expected> but found <what t is> at character <n>".
  void Unexpected(const char* expected, const Lexeme& t) {
    const char* found = t.type == Token::kError ? t.error : kTokenNames[static_cast<int>(t.type)];
    char position[24];
    std::snprintf(position, sizeof position, "%zu", t.at + 1);
    luaL_error(L_, "Expected %s but found %s at character %s", expected, found, position);
  }

  // Reads the next token into t. Single characters and the end do not move pos_ past them on
  // error; an error leaves pos_ where it was found.
  void Next(Lexeme* t) {
    char c = At(pos_);
    while (c == ' ' || c == '\t' || c == '\n' || c == '\r') c = At(++pos_);
    t->at = pos_;
    switch (c) {
      case '{':
        return Single(t, Token::kObjectBegin);
      case '}':
        return Single(t, Token::kObjectEnd);
      case '[':
        return Single(t, Token::kArrayBegin);
      case ']':
        return Single(t, Token::kArrayEnd);
      case ':':
        return Single(t, Token::kColon);
      case ',':
        return Single(t, Token::kComma);
      case '\0':
        t->type = Token::kEnd;
        return;
      case '"':
        return String(t);
      default:
        break;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      if (!settings_.decode_invalid_numbers && IsNonJsonNumber()) {
        return Fail(t, "invalid number");
      }
      return Number(t);
    }
    if (Literal("true")) {
      t->type = Token::kBoolean;
      t->boolean = true;
    } else if (Literal("false")) {
      t->type = Token::kBoolean;
      t->boolean = false;
    } else if (Literal("null")) {
      t->type = Token::kNull;
    } else if (settings_.decode_invalid_numbers && IsNonJsonNumber()) {
      Number(t);  // +1, inf, nan: strtod reads them.
    } else {
      Fail(t, "invalid token");
    }
  }

  void Single(Lexeme* t, Token type) {
    t->type = type;
    ++pos_;
  }

  // Whether `word` starts at pos_; if so, moves past it.
  bool Literal(std::string_view word) {
    if (end_ - pos_ < word.size() || std::memcmp(data_ + pos_, word.data(), word.size()) != 0) {
      return false;
    }
    pos_ += word.size();
    return true;
  }

  // Whether the number at pos_ is one strtod reads but JSON does not allow: a leading +,
  // a leading zero followed by a digit, hexadecimal, inf or nan.
  bool IsNonJsonNumber() const {
    std::size_t p = pos_;
    if (At(p) == '+') return true;
    if (At(p) == '-') ++p;
    if (At(p) == '0') {
      const char next = At(p + 1);
      return next == 'x' || next == 'X' || (next >= '0' && next <= '9');
    }
    const std::size_t left = end_ - std::min(p, end_);
    return StartsWithNoCase(data_ + p, left, "inf") || StartsWithNoCase(data_ + p, left, "nan");
  }

  void Number(Lexeme* t) {
    // strtod stops at the text's end: a Lua string has a zero byte after its last one, and
    // end_ is at the first zero byte. (Numbers read as the C locale writes them, the one
    // cairn-server runs in.)
    const char* start = data_ + pos_;
    char* stop = nullptr;
    const double value = std::strtod(start, &stop);
    if (stop == start) return Fail(t, "invalid number");
    pos_ += static_cast<std::size_t>(stop - start);
    t->type = Token::kNumber;
    t->number = value;
  }

  // The string whose opening quote is at pos_. Without escapes it is a view of the text;
  // with, its bytes are gathered in scratch_.
  void String(Lexeme* t) {
    const std::size_t start = ++pos_;
    char c = At(pos_);
    while (c != '"' && c != '\\' && c != '\0') c = At(++pos_);
    if (c == '"') {
      t->type = Token::kString;
      t->text = std::string_view(data_ + start, pos_ - start);
      ++pos_;
      return;
    }
    scratch_.Clear();
    scratch_.Append(data_ + start, pos_ - start);
    while ((c = At(pos_)) != '"') {
      if (c == '\0') return Fail(t, "unexpected end of string");
      if (c != '\\') {
        scratch_.Push(c);
        ++pos_;
        continue;
      }
      const char escaped = At(pos_ + 1);
      if (escaped == 'u') {
        if (!UnicodeEscape()) return Fail(t, "invalid unicode escape code");
        continue;
      }
      static constexpr char kFrom[] = "\"\\/btnfr";
      static constexpr char kTo[] = "\"\\/\b\t\n\f\r";
      const char* found = escaped != '\0' ? std::strchr(kFrom, escaped) : nullptr;
      if (found == nullptr) return Fail(t, "invalid escape code");
      scratch_.Push(kTo[found - kFrom]);
      pos_ += 2;
    }
    ++pos_;
    t->type = Token::kString;
    t->text = scratch_.view();
  }

  int Hex4(std::size_t at) const {
    int value = 0;
    for (std::size_t i = 0; i < 4; ++i) {
      const int digit = HexValue(At(at + i));
      if (digit < 0) return -1;
      value = value * 16 + digit;
    }
    return value;
  }

  // The \uXXXX escape at pos_ (with its low surrogate, for a high one) as UTF-8 in scratch_.
  bool UnicodeEscape() {
    int code = Hex4(pos_ + 2);
    if (code < 0) return false;
    std::size_t length = 6;
    if ((code & 0xF800) == 0xD800) {  // A surrogate: it must be a high one, then a low one.
      if ((code & 0x400) != 0 || At(pos_ + 6) != '\\' || At(pos_ + 7) != 'u') return false;
      const int low = Hex4(pos_ + 8);
      if (low < 0 || (low & 0xFC00) != 0xDC00) return false;
      code = 0x10000 + (((code & 0x3FF) << 10) | (low & 0x3FF));
      length = 12;
    }
    AppendUtf8(code);
    pos_ += length;
    return true;
  }

  void AppendUtf8(int code) {
    const auto byte = [](int bits) { return static_cast<char>(bits); };
    if (code < 0x80) {
      scratch_.Push(byte(code));
    } else if (code < 0x800) {
      scratch_.Push(byte(0xC0 | (code >> 6)));
      scratch_.Push(byte(0x80 | (code & 0x3F)));
    } else if (code < 0x10000) {
      scratch_.Push(byte(0xE0 | (code >> 12)));
      scratch_.Push(byte(0x80 | ((code >> 6) & 0x3F)));
      scratch_.Push(byte(0x80 | (code & 0x3F)));
    } else {
      scratch_.Push(byte(0xF0 | (code >> 18)));
      scratch_.Push(byte(0x80 | ((code >> 12) & 0x3F)));
      scratch_.Push(byte(0x80 | ((code >> 6) & 0x3F)));
      scratch_.Push(byte(0x80 | (code & 0x3F)));
    }
  }

  // Pushes the value t starts.
  void Value(const Lexeme& t) {
    switch (t.type) {
      case Token::kString:
        return lua_pushlstring(L_, t.text.data(), t.text.size());
      case Token::kNumber:
        return lua_pushnumber(L_, t.number);
      case Token::kBoolean:
        return lua_pushboolean(L_, t.boolean);
      case Token::kNull:
        return lua_pushlightuserdata(L_, nullptr);
      case Token::kObjectBegin:
        return Object();
      case Token::kArrayBegin:
        return Array();
      default:
        Unexpected("value", t);
    }
  }

  // One level deeper, with `slots` free on the Lua stack for it.
  void Descend(int slots) {
    ++depth_;
    if (depth_ <= settings_.decode_max_depth && lua_checkstack(L_, slots)) return;
    char position[24];
    std::snprintf(position, sizeof position, "%zu", pos_);
    luaL_error(L_, "Found too many nested data structures (%d) at character %s", depth_, position);
  }

  void Object() {
    Descend(3);  // The table, a key, a value.
    lua_newtable(L_);
    Lexeme t;
    Next(&t);
    if (t.type == Token::kObjectEnd) {
      --depth_;
      return;
    }
    while (true) {
      if (t.type != Token::kString) Unexpected("object key string", t);
      lua_pushlstring(L_, t.text.data(), t.text.size());
      Next(&t);
      if (t.type != Token::kColon) Unexpected("colon", t);
      Next(&t);
      Value(t);
      lua_rawset(L_, -3);
      Next(&t);
      if (t.type == Token::kObjectEnd) break;
      if (t.type != Token::kComma) Unexpected("comma or object end", t);
      Next(&t);
    }
    --depth_;
  }

  void Array() {
    Descend(2);  // The table, a value.
    lua_newtable(L_);
    Lexeme t;
    Next(&t);
    if (t.type == Token::kArrayEnd) {
      --depth_;
      return;
    }
    for (int i = 1;; ++i) {
      Value(t);
      lua_rawseti(L_, -2, i);
      Next(&t);
      if (t.type == Token::kArrayEnd) break;
      if (t.type != Token::kComma) Unexpected("comma or array end", t);
      if (i == INT32_MAX) luaL_error(L_, "Too many array elements");
      Next(&t);
    }
    --depth_;
  }

  lua_State* L_;
  const CjsonSettings& settings_;
  const char* data_;
  std::size_t end_ = 0;  // The first zero byte, or the length.
  std::size_t pos_ = 0;
  int depth_ = 0;
  LuaBuffer scratch_;  // Strings with escapes.
};

}  // namespace

int JsonDecode(lua_State* L, const CjsonSettings& settings) {
  luaL_argcheck(L, lua_gettop(L) == 1, 1, "expected 1 argument");
  std::size_t len = 0;
  const char* text = luaL_checklstring(L, 1, &len);
  // JSON text starts with an ASCII character; in UTF-16 or UTF-32 one of its first two bytes
  // is zero.
  if (len >= 2 && (text[0] == '\0' || text[1] == '\0')) {
    luaL_error(L, "JSON parser does not support UTF-16 or UTF-32");
  }
  Decoder(L, settings, text, len).Document();
  return 1;
}

}  // namespace cairn::server::scripting
