// string.find, string.match, string.gmatch and string.gsub with Lua 5.1's patterns, matched
// by our own backtracking matcher, which adds two bounds stock Lua 5.1 lacks:
// - depth: every pattern item that may have to backtrack (a capture, '?', '*', '+', '-')
//   nests one call of the matcher in C. Past kMaxMatchDepth nested calls the match fails with
//   "pattern too complex" instead of overflowing the C stack (stock Lua 5.1 crashes on
//   string.rep('a?', 100000) as a pattern);
// - time: the matcher counts its steps on a StepCounter, so lua-time-limit and SCRIPT KILL
//   stop a match that backtracks for minutes (string.find(string.rep('a', 2000),
//   '.-.-.-.-b')), which the instruction hook never sees.
// Everything else follows Lua 5.1, quirks included, because scripts written for Redis rely on
// it: a pattern ends at its first '\0'; a malformed item is an error only once the matcher
// reaches it; %z is the '\0' class; an init position past the end is clamped to the end;
// gmatch takes a leading '^' literally; in a gsub replacement string a '%' before anything but
// a digit stands for that character; character classes are those of the C locale.
#include <cstddef>
#include <cstring>

#include "scripting/lua_core_lib.h"
#include "scripting/stop_check.h"

namespace cairn::server::scripting {
namespace {

constexpr char kEscape = '%';
constexpr int kMaxCaptures = 32;  // LUA_MAXCAPTURES: scripts may use as many.

// Nested matcher calls. One takes about 100 bytes of C stack (-fstack-usage: 96 at -O2, 320
// with AddressSanitizer), so 1000 of them, 100 KB, stay far inside the 8 MB stack of the
// threads that run scripts, on top of the 200 nested C calls Lua itself allows (a gsub
// callback that calls gsub, …). And 1000 is five times the limit of Lua 5.2 to 5.4 (200),
// so no pattern that works there fails here.
constexpr int kMaxMatchDepth = 1000;

// A capture's length while it is open, and for a position capture "()".
constexpr std::ptrdiff_t kUnfinished = -1;
constexpr std::ptrdiff_t kPosition = -2;

int Byte(char c) { return static_cast<unsigned char>(c); }

// The C locale's character classes (Lua 5.1 calls <ctype.h>, and nothing sets a locale).
bool IsLower(int c) { return c >= 'a' && c <= 'z'; }
bool IsUpper(int c) { return c >= 'A' && c <= 'Z'; }
bool IsAlpha(int c) { return IsLower(c) || IsUpper(c); }
bool IsDigit(int c) { return c >= '0' && c <= '9'; }
bool IsAlnum(int c) { return IsAlpha(c) || IsDigit(c); }
bool IsControl(int c) { return c < 32 || c == 127; }
bool IsSpace(int c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool IsPunct(int c) { return c > 32 && c < 127 && !IsAlnum(c); }
bool IsHexDigit(int c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Whether c is in the class %<letter>: a lower-case letter names a class, its upper case the
// complement; any other character after '%' stands for itself.
bool InClass(int c, int letter) {
  bool in = false;
  switch (IsUpper(letter) ? letter - 'A' + 'a' : letter) {
    case 'a':
      in = IsAlpha(c);
      break;
    case 'c':
      in = IsControl(c);
      break;
    case 'd':
      in = IsDigit(c);
      break;
    case 'l':
      in = IsLower(c);
      break;
    case 'p':
      in = IsPunct(c);
      break;
    case 's':
      in = IsSpace(c);
      break;
    case 'u':
      in = IsUpper(c);
      break;
    case 'w':
      in = IsAlnum(c);
      break;
    case 'x':
      in = IsHexDigit(c);
      break;
    case 'z':
      in = c == 0;
      break;
    default:
      return letter == c;
  }
  return IsLower(letter) ? in : !in;
}

// Whether c is in the set that starts at `open` ('[') and ends at `close` (its ']').
bool InSet(int c, const char* open, const char* close) {
  const char* p = open + 1;
  const bool negated = *p == '^';
  if (negated) ++p;
  for (; p < close; ++p) {
    if (*p == kEscape) {
      ++p;
      if (InClass(c, Byte(*p))) return !negated;
    } else if (p[1] == '-' && p + 2 < close) {  // A range; a '-' last in the set is itself.
      if (Byte(p[0]) <= c && c <= Byte(p[2])) return !negated;
      p += 2;
    } else if (Byte(*p) == c) {
      return !negated;
    }
  }
  return negated;
}

class Matcher {
 public:
  Matcher(lua_State* L, const char* subject, std::size_t length)
      : L_(L), begin_(subject), end_(subject + length), steps_(L) {}

  // The end of the match of `pattern` (no leading '^') at s, or nullptr; the captures stay
  // for PushCaptures.
  const char* MatchAt(const char* s, const char* pattern) {
    level_ = 0;
    return Match(s, pattern);
  }

  // Pushes the captures of the last match, or the whole match [s, e) when the pattern has
  // none and s is given; returns how many it pushed.
  int PushCaptures(const char* s, const char* e) {
    const int n = level_ == 0 && s != nullptr ? 1 : level_;
    luaL_checkstack(L_, n, "too many captures");
    for (int i = 0; i < n; ++i) PushCapture(i, s, e);
    return n;
  }

  // Pushes capture i (0-based) of the last match; capture 0 of a pattern without captures
  // is the whole match [s, e).
  void PushCapture(int i, const char* s, const char* e) {
    if (i >= level_) {
      if (i != 0) luaL_error(L_, "invalid capture index");
      lua_pushlstring(L_, s, static_cast<std::size_t>(e - s));
      return;
    }
    const Capture& c = captures_[i];
    if (c.length == kUnfinished) luaL_error(L_, "unfinished capture");
    if (c.length == kPosition) {
      lua_pushinteger(L_, c.start - begin_ + 1);
    } else {
      lua_pushlstring(L_, c.start, static_cast<std::size_t>(c.length));
    }
  }

  StepCounter& steps() { return steps_; }

 private:
  struct Capture {
    const char* start;
    std::ptrdiff_t length;  // Or kUnfinished, kPosition.
  };

  // Counts the nesting of Match for as long as one call runs.
  class Nesting {
   public:
    explicit Nesting(Matcher* m) : m_(m) {
      if (++m_->depth_ > kMaxMatchDepth) luaL_error(m_->L_, "pattern too complex");
    }
    ~Nesting() { --m_->depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    Matcher* m_;
  };

  // Matches the rest of the pattern, p, at s: the end of the match or nullptr. Items that
  // cannot backtrack (a plain character, %b, %f, a back-reference) advance in the loop; only
  // items that may have to try again recurse.
  const char* Match(const char* s, const char* p) {
    Nesting nesting(this);
    while (true) {
      steps_.Add();
      switch (*p) {
        case '\0':
          return s;
        case '(':
          if (p[1] == ')') return StartCapture(s, p + 2, kPosition);
          return StartCapture(s, p + 1, kUnfinished);
        case ')':
          return EndCapture(s, p + 1);
        case '$':
          if (p[1] == '\0') return s == end_ ? s : nullptr;
          break;  // Elsewhere a '$' is a plain character.
        case kEscape:
          if (p[1] == 'b') {
            s = MatchBalanced(s, p + 2);
            if (s == nullptr) return nullptr;
            p += 4;
            continue;
          }
          if (p[1] == 'f') {
            p += 2;
            if (*p != '[') luaL_error(L_, "missing '[' after '%%f' in pattern");
            const char* set_end = ItemEnd(p);
            const int before = s == begin_ ? 0 : Byte(s[-1]);
            const int at = s < end_ ? Byte(*s) : 0;
            if (InSet(before, p, set_end - 1) || !InSet(at, p, set_end - 1)) return nullptr;
            p = set_end;
            continue;
          }
          if (IsDigit(Byte(p[1]))) {
            s = MatchBackReference(s, Byte(p[1]));
            if (s == nullptr) return nullptr;
            p += 2;
            continue;
          }
          break;
        default:
          break;
      }
      // A single-character item, perhaps with a repetition after it.
      const char* item_end = ItemEnd(p);
      const bool here = s < end_ && MatchesItem(Byte(*s), p, item_end);
      switch (*item_end) {
        case '?':
          if (here) {
            if (const char* e = Match(s + 1, item_end + 1)) return e;
          }
          p = item_end + 1;
          continue;
        case '*':
          return MatchGreedy(s, p, item_end);
        case '+':
          return here ? MatchGreedy(s + 1, p, item_end) : nullptr;
        case '-':
          return MatchLazy(s, p, item_end);
        default:
          if (!here) return nullptr;
          ++s;
          p = item_end;
      }
    }
  }

  // The end of the single-character item at p: past "%x", past a set "[...]", or p + 1.
  const char* ItemEnd(const char* p) {
    const char first = *p++;
    if (first == kEscape) {
      if (*p == '\0') luaL_error(L_, "malformed pattern (ends with '%%')");
      return p + 1;
    }
    if (first == '[') {
      if (*p == '^') ++p;
      // The character right after "[" or "[^" belongs to the set even when it is ']'.
      do {
        if (*p == '\0') luaL_error(L_, "malformed pattern (missing ']')");
        if (*p++ == kEscape && *p != '\0') ++p;
      } while (*p != ']');
      return p + 1;
    }
    return p;
  }

  bool MatchesItem(int c, const char* p, const char* item_end) {
    switch (*p) {
      case '.':
        return true;
      case kEscape:
        return InClass(c, Byte(p[1]));
      case '[':
        steps_.Add(static_cast<std::size_t>(item_end - p) / 16);  // A long set costs more.
        return InSet(c, p, item_end - 1);
      default:
        return Byte(*p) == c;
    }
  }

  // item* (and item+ past its first character): the longest run first, then shorter ones.
  const char* MatchGreedy(const char* s, const char* p, const char* item_end) {
    std::ptrdiff_t run = 0;
    while (s + run < end_ && MatchesItem(Byte(s[run]), p, item_end)) {
      ++run;
      steps_.Add();
    }
    for (; run >= 0; --run) {
      if (const char* e = Match(s + run, item_end + 1)) return e;
    }
    return nullptr;
  }

  // item-: the shortest run first, then one more character at a time.
  const char* MatchLazy(const char* s, const char* p, const char* item_end) {
    while (true) {
      if (const char* e = Match(s, item_end + 1)) return e;
      if (s >= end_ || !MatchesItem(Byte(*s), p, item_end)) return nullptr;
      ++s;
    }
  }

  const char* StartCapture(const char* s, const char* p, std::ptrdiff_t kind) {
    if (level_ >= kMaxCaptures) luaL_error(L_, "too many captures");
    captures_[level_] = {s, kind};
    ++level_;
    const char* e = Match(s, p);
    if (e == nullptr) --level_;
    return e;
  }

  const char* EndCapture(const char* s, const char* p) {
    int open = level_ - 1;
    while (open >= 0 && captures_[open].length != kUnfinished) --open;
    if (open < 0) luaL_error(L_, "invalid pattern capture");
    captures_[open].length = s - captures_[open].start;
    const char* e = Match(s, p);
    if (e == nullptr) captures_[open].length = kUnfinished;
    return e;
  }

  // %b<open><close> at s: the end of a balanced run, or nullptr.
  const char* MatchBalanced(const char* s, const char* p) {
    if (p[0] == '\0' || p[1] == '\0') luaL_error(L_, "unbalanced pattern");
    if (s >= end_ || *s != p[0]) return nullptr;
    const char open = p[0];
    const char close = p[1];
    int depth = 1;
    while (++s < end_) {
      steps_.Add();
      if (*s == close) {
        if (--depth == 0) return s + 1;
      } else if (*s == open) {
        ++depth;
      }
    }
    return nullptr;
  }

  // %1 … %9 at s: the text of that capture again, or nullptr. A position capture never
  // matches (its length is negative).
  const char* MatchBackReference(const char* s, int digit) {
    const int i = digit - '1';
    if (i < 0 || i >= level_ || captures_[i].length == kUnfinished) {
      luaL_error(L_, "invalid capture index");
    }
    const std::ptrdiff_t length = captures_[i].length;
    if (length < 0 || end_ - s < length) return nullptr;
    steps_.Add(static_cast<std::size_t>(length) / 16);
    if (std::memcmp(captures_[i].start, s, static_cast<std::size_t>(length)) != 0) return nullptr;
    return s + length;
  }

  lua_State* L_;
  const char* begin_;
  const char* end_;
  int level_ = 0;  // Captures opened so far (finished or not).
  int depth_ = 0;
  Capture captures_[kMaxCaptures];
  StepCounter steps_;
};

// Lua 5.1's reading of a string position: negative counts from the end (-1 the last
// character); before the start is 0.
std::ptrdiff_t RelativePosition(lua_Integer pos, std::size_t length) {
  if (pos < 0) pos += static_cast<lua_Integer>(length) + 1;
  return pos >= 0 ? static_cast<std::ptrdiff_t>(pos) : 0;
}

// The first occurrence of needle in haystack, or nullptr; the empty needle is found at once.
const char* FindPlain(StepCounter& steps, const char* haystack, std::size_t length,
                      const char* needle, std::size_t needle_length) {
  if (needle_length == 0) return haystack;
  if (needle_length > length) return nullptr;
  const char* last = haystack + (length - needle_length);  // The last place it could start.
  for (const char* at = haystack; at <= last; ++at) {
    at = static_cast<const char*>(
        std::memchr(at, needle[0], static_cast<std::size_t>(last - at) + 1));
    if (at == nullptr) return nullptr;
    steps.Add(needle_length / 16 + 1);
    if (std::memcmp(at + 1, needle + 1, needle_length - 1) == 0) return at;
  }
  return nullptr;
}

bool HasSpecials(const char* pattern) { return std::strpbrk(pattern, "^$*+?.([%-") != nullptr; }

// string.find (find = true) and string.match.
int FindOrMatch(lua_State* L, bool find) {
  std::size_t length = 0;
  std::size_t pattern_length = 0;
  const char* s = luaL_checklstring(L, 1, &length);
  const char* pattern = luaL_checklstring(L, 2, &pattern_length);
  std::ptrdiff_t init = RelativePosition(luaL_optinteger(L, 3, 1), length) - 1;
  if (init < 0) {
    init = 0;
  } else if (static_cast<std::size_t>(init) > length) {
    init = static_cast<std::ptrdiff_t>(length);
  }
  if (find && (lua_toboolean(L, 4) || !HasSpecials(pattern))) {
    StepCounter steps(L);
    const char* at = FindPlain(steps, s + init, length - static_cast<std::size_t>(init), pattern,
                               pattern_length);
    if (at != nullptr) {
      lua_pushinteger(L, at - s + 1);
      lua_pushinteger(L, at - s + static_cast<std::ptrdiff_t>(pattern_length));
      return 2;
    }
    lua_pushnil(L);
    return 1;
  }
  Matcher matcher(L, s, length);
  const bool anchored = *pattern == '^';
  if (anchored) ++pattern;
  for (std::size_t start = static_cast<std::size_t>(init); start <= length; ++start) {
    if (const char* e = matcher.MatchAt(s + start, pattern)) {
      if (!find) return matcher.PushCaptures(s + start, e);
      lua_pushinteger(L, static_cast<lua_Integer>(start) + 1);
      lua_pushinteger(L, e - s);
      return matcher.PushCaptures(nullptr, nullptr) + 2;
    }
    if (anchored) break;
  }
  lua_pushnil(L);
  return 1;
}

int Find(lua_State* L) { return FindOrMatch(L, true); }
int Match(lua_State* L) { return FindOrMatch(L, false); }

// The iterator gmatch returns; its upvalues: the subject, the pattern, and where the next
// search starts.
int GmatchNext(lua_State* L) {
  std::size_t length = 0;
  const char* s = lua_tolstring(L, lua_upvalueindex(1), &length);
  const char* pattern = lua_tostring(L, lua_upvalueindex(2));
  Matcher matcher(L, s, length);
  for (auto start = static_cast<std::size_t>(lua_tointeger(L, lua_upvalueindex(3)));
       start <= length; ++start) {
    if (const char* e = matcher.MatchAt(s + start, pattern)) {
      // After an empty match the next search starts one character further.
      lua_Integer next = e - s;
      if (e == s + start) ++next;
      lua_pushinteger(L, next);
      lua_replace(L, lua_upvalueindex(3));
      return matcher.PushCaptures(s + start, e);
    }
  }
  return 0;
}

int Gmatch(lua_State* L) {
  luaL_checkstring(L, 1);
  luaL_checkstring(L, 2);
  lua_settop(L, 2);
  lua_pushinteger(L, 0);
  lua_pushcclosure(L, GmatchNext, 3);
  return 1;
}

// Appends the replacement string (argument 3) for the match [s, e): "%0" is the match, "%1"
// to "%9" its captures, '%' before anything else that character.
void AddReplacementString(lua_State* L, Matcher& matcher, luaL_Buffer* b, const char* s,
                          const char* e) {
  std::size_t length = 0;
  const char* r = lua_tolstring(L, 3, &length);
  for (std::size_t i = 0; i < length; ++i) {
    if (r[i] != kEscape) {
      luaL_addchar(b, r[i]);
      continue;
    }
    ++i;  // At length this is the string's '\0', which Lua 5.1 appends too.
    if (!IsDigit(Byte(r[i]))) {
      luaL_addchar(b, r[i]);
    } else if (r[i] == '0') {
      luaL_addlstring(b, s, static_cast<std::size_t>(e - s));
    } else {
      matcher.PushCapture(r[i] - '1', s, e);
      luaL_addvalue(b);
    }
  }
  matcher.steps().Add(length / 16);
}

// Appends what replaces the match [s, e): from the replacement string, or the value the
// function returns for the captures or the table holds for the first one (false or nil: the
// match itself).
void AddReplacement(lua_State* L, Matcher& matcher, luaL_Buffer* b, const char* s, const char* e) {
  switch (lua_type(L, 3)) {
    case LUA_TFUNCTION: {
      lua_pushvalue(L, 3);
      const int n = matcher.PushCaptures(s, e);
      lua_call(L, n, 1);
      break;
    }
    case LUA_TTABLE:
      matcher.PushCapture(0, s, e);
      lua_gettable(L, 3);
      break;
    default:
      return AddReplacementString(L, matcher, b, s, e);
  }
  if (!lua_toboolean(L, -1)) {
    lua_pop(L, 1);
    lua_pushlstring(L, s, static_cast<std::size_t>(e - s));
  } else if (!lua_isstring(L, -1)) {
    luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
  }
  luaL_addvalue(b);
}

int Gsub(lua_State* L) {
  std::size_t length = 0;
  const char* s = luaL_checklstring(L, 1, &length);
  const char* pattern = luaL_checkstring(L, 2);
  const int replacement = lua_type(L, 3);
  // Lua 5.1 reads the count as an int (luaL_optint): larger numbers wrap.
  const int max_matches =
      static_cast<int>(luaL_optinteger(L, 4, static_cast<lua_Integer>(length) + 1));
  luaL_argcheck(L,
                replacement == LUA_TNUMBER || replacement == LUA_TSTRING ||
                    replacement == LUA_TFUNCTION || replacement == LUA_TTABLE,
                3, "string/function/table expected");
  const bool anchored = *pattern == '^';
  if (anchored) ++pattern;
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  Matcher matcher(L, s, length);
  const char* const end = s + length;
  int matches = 0;
  while (matches < max_matches) {
    const char* e = matcher.MatchAt(s, pattern);
    if (e != nullptr) {
      ++matches;
      AddReplacement(L, matcher, &b, s, e);
    }
    if (e != nullptr && e > s) {
      s = e;
    } else if (s < end) {
      luaL_addchar(&b, *s++);
    } else {
      break;
    }
    if (anchored) break;
  }
  luaL_addlstring(&b, s, static_cast<std::size_t>(end - s));
  luaL_pushresult(&b);
  lua_pushinteger(L, matches);
  return 2;
}

}  // namespace

void InstallPatternFunctions(lua_State* L, int string_table) {
  const luaL_Reg functions[] = {
      {"find", Find}, {"match", Match}, {"gmatch", Gmatch}, {"gsub", Gsub}, {nullptr, nullptr}};
  for (const luaL_Reg* f = functions; f->name != nullptr; ++f) {
    lua_pushcfunction(L, f->func);
    lua_setfield(L, string_table, f->name);
  }
}

}  // namespace cairn::server::scripting
