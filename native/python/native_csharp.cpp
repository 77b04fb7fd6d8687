// C# colouring for the HTML report: src/dotcov/html/csharp.py states the rules, tests/oracles/csharp_colour.py
// states them as regular expressions (the oracle this scanner must equal, byte for byte).
//
// Works on the str's own code units (1, 2 or 4 bytes a character) and writes the HTML in the same width: markup
// is ASCII, so the output never needs a wider character than the input. Character classes are Python `re`'s for
// str patterns: \w is str.isalnum() or `_`, \d is str.isdecimal(), \s is str.isspace().
#include "native_csharp.h"

#include <Python.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

namespace py = pybind11;

namespace {

enum Class : uint8_t {
  kWord = 1, kSpace = 2, kDecimal = 4,
  kOdd = 8,        // `[^\w\s!%&*+\-/<=>?^|~()\[\];:,.{}]`: what only the full rules handle (@, $, \, quotes, #...)
  kLeading = 16,   // may start a first-pass token: a line break, / @ $ " ' #
  kFullStart = 32  // starts class, struct, namespace, using, extern or global
};

// ASCII classes, Python's own (\w is str.isalnum() or `_`, \s str.isspace(), \d str.isdecimal()).
struct AsciiTable {
  uint8_t c[128] = {};
  AsciiTable() {
    for (int i = 0; i < 128; ++i) {
      if (Py_UNICODE_ISALNUM(i) || i == '_') c[i] |= kWord;
      if (Py_UNICODE_ISSPACE(i)) c[i] |= kSpace;
      if (Py_UNICODE_ISDECIMAL(i)) c[i] |= kDecimal;
      if (!(c[i] & (kWord | kSpace)) && !std::strchr("!%&*+-/<=>?^|~()[];:,.{}", i)) c[i] |= kOdd;
    }
    c[0] |= kOdd;  // (strchr finds the terminator)
    for (const char* p = "\n/@$\"'#"; *p; ++p) c[static_cast<unsigned char>(*p)] |= kLeading;
    for (const char* p = "csnueg"; *p; ++p) c[static_cast<unsigned char>(*p)] |= kFullStart;
  }
};
const AsciiTable kAscii;

inline bool IsWord(Py_UCS4 ch) { return ch < 128 ? (kAscii.c[ch] & kWord) : (Py_UNICODE_ISALNUM(ch) != 0); }
inline bool IsSpace(Py_UCS4 ch) { return ch < 128 ? (kAscii.c[ch] & kSpace) : (Py_UNICODE_ISSPACE(ch) != 0); }
inline bool IsDecimal(Py_UCS4 ch) { return ch < 128 ? (kAscii.c[ch] & kDecimal) : (Py_UNICODE_ISDECIMAL(ch) != 0); }
inline bool IsIdStart(Py_UCS4 ch) {  // [^\W\d]
  return ch < 128 ? (kAscii.c[ch] & (kWord | kDecimal)) == kWord
                  : (Py_UNICODE_ISALNUM(ch) && !Py_UNICODE_ISDECIMAL(ch));
}
inline bool IsAsciiDigit(Py_UCS4 ch) { return ch >= '0' && ch <= '9'; }
inline bool IsOdd(Py_UCS4 ch) {
  return ch < 128 ? (kAscii.c[ch] & kOdd) : !(Py_UNICODE_ISALNUM(ch) || Py_UNICODE_ISSPACE(ch));
}
inline bool Is(Py_UCS4 ch, Class cls) { return ch < 128 && (kAscii.c[ch] & cls); }

enum Word : uint8_t { kPlain = 0, kKeyword, kType, kClassWord, kNamespaceWord, kGlobal, kPreproc };

constexpr size_t kLongestWord = 10;  // "stackalloc", "descending", "namespace", "endregion"

// Words with a rule of their own, by length and first letter. `extern` is a keyword (its own rule before `alias`
// is FullToken's); the preprocessor's words are looked up apart (`if` is both).
struct WordTable {
  struct Entry {
    const char* word;
    Word kind;
  };
  std::vector<Entry> code[kLongestWord + 1][26], preproc[kLongestWord + 1][26];
  WordTable() {
    static const char* const kKeywords[] = {
        "abstract", "as", "async", "await", "base", "break", "by", "case", "catch", "checked", "const", "continue",
        "default", "delegate", "do", "else", "enum", "event", "explicit", "extern", "false", "finally", "fixed", "for",
        "foreach", "goto", "if", "implicit", "in", "interface", "internal", "is", "let", "lock", "new", "null", "on",
        "operator", "out", "override", "params", "private", "protected", "public", "readonly", "ref", "return",
        "sealed", "sizeof", "stackalloc", "static", "switch", "this", "throw", "true", "try", "typeof", "unchecked",
        "unsafe", "virtual", "void", "while", "get", "set", "partial", "yield", "add", "remove", "value", "alias",
        "ascending", "descending", "from", "group", "into", "orderby", "select", "thenby", "where", "join", "equals"};
    static const char* const kTypes[] = {"bool",   "byte", "char", "decimal", "double", "dynamic", "float",
                                         "int",    "long", "object", "sbyte", "short", "string", "uint",
                                         "ulong", "ushort", "var"};
    static const char* const kPreprocs[] = {"if",      "endif", "else",    "elif",   "define",    "undef",
                                            "line",    "error", "warning", "region", "endregion", "pragma"};
    for (const char* w : kKeywords) Add(code, w, kKeyword);
    for (const char* w : kTypes) Add(code, w, kType);
    for (const char* w : {"class", "struct"}) Add(code, w, kClassWord);
    for (const char* w : {"namespace", "using"}) Add(code, w, kNamespaceWord);
    Add(code, "global", kGlobal);
    for (const char* w : kPreprocs) Add(preproc, w, kPreproc);
  }
  static void Add(std::vector<Entry> (&table)[kLongestWord + 1][26], const char* w, Word kind) {
    table[std::strlen(w)][w[0] - 'a'].push_back({w, kind});
  }
  template <typename C>
  static Word Find(const std::vector<Entry> (&table)[kLongestWord + 1][26], const C* p, size_t n) {
    if (n < 2 || n > kLongestWord || p[0] < 'a' || p[0] > 'z') return kPlain;
    for (const Entry& e : table[n][p[0] - 'a']) {
      size_t i = 1;
      while (i < n && p[i] == static_cast<C>(e.word[i])) ++i;
      if (i == n) return e.kind;
    }
    return kPlain;
  }
};
const WordTable kWords;

template <typename C>
Word WordOf(const C* p, size_t n) {
  return WordTable::Find(kWords.code, p, n);
}
template <typename C>
bool IsPreprocWord(const C* p, size_t n) {
  return WordTable::Find(kWords.preproc, p, n) == kPreproc;
}

// A growing array of code units, written without a check per unit (Room first). Colour keeps two between calls:
// a fresh buffer per file cost a page fault per page.
template <typename C>
class Buffer {
 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { std::free(data_); }
  C* data() { return data_; }
  size_t size() const { return size_; }
  void clear() { size_ = 0; }
  // Frees a buffer that a huge text left big.
  void Trim(size_t keep) {
    if (cap_ > keep) {
      std::free(data_);
      data_ = nullptr;
      size_ = cap_ = 0;
    }
  }
  C* Room(size_t k) {
    if (cap_ - size_ < k) Grow(k);
    return data_ + size_;
  }
  void Put(C c) { *Room(1) = c, ++size_; }
  void Append(const C* p, size_t k) {
    std::copy(p, p + k, Room(k));
    size_ += k;
  }
  void Ascii(const char* a, size_t k) {
    C* w = Room(k);
    for (size_t i = 0; i < k; ++i) w[i] = static_cast<C>(static_cast<unsigned char>(a[i]));
    size_ += k;
  }
  void Resize(size_t size) { size_ = size; }  // (only ever smaller)
  void Erase(size_t at) {
    std::copy(data_ + at + 1, data_ + size_, data_ + at);
    --size_;
  }

 private:
  void Grow(size_t k) {
    const size_t cap = std::max(cap_ * 2, size_ + k + 256);
    C* p = static_cast<C*>(std::realloc(data_, cap * sizeof(C)));
    if (!p) throw std::bad_alloc();
    data_ = p, cap_ = cap;
  }
  C* data_ = nullptr;
  size_t size_ = 0, cap_ = 0;
};

template <typename C>
class Colourer {
 public:
  explicit Colourer(Buffer<C>& out) : out_(out) {}

  // highlight_escaped: the text with a line break put first (so every line-start rule starts with one), coloured,
  // that break left out again; `in` holds that text meanwhile. With `escape`, the text is HTML-escaped first (`&`,
  // `<`, `>`).
  void Highlight(const C* text, size_t n, bool escape, Buffer<C>& in) {
    in.clear();
    in.Put('\n');
    if (!escape) {
      in.Append(text, n);
    } else {
      size_t run = 0;
      for (size_t i = 0; i < n; ++i) {
        const C c = text[i];
        if (c != '&' && c != '<' && c != '>') continue;
        in.Append(text + run, i - run);
        if (c == '&') {
          in.Ascii("&amp;", 5);
        } else {
          in.Ascii(c == '<' ? "&lt;" : "&gt;", 4);
        }
        run = i + 1;
      }
      in.Append(text + run, n - run);
    }
    const size_t mark = out_.size();
    Colourer inner(out_);
    inner.s_ = in.data();
    inner.n_ = in.size();
    inner.Leading();
    out_.Erase(mark);  // always the break put first
  }

 private:
  Buffer<C>& out_;
  const C* s_ = nullptr;
  size_t n_ = 0;
  size_t close_bracket_from_ = SIZE_MAX, close_bracket_at_ = 0;  // the last search for `]` (attributes)
  size_t close_comment_from_ = SIZE_MAX, close_comment_at_ = 0;  // ... and for `*/` (block comments)

  static constexpr size_t kNo = SIZE_MAX;

  template <size_t N>
  void Ascii(const char (&a)[N]) {
    out_.Ascii(a, N - 1);
  }
  void Raw(size_t b, size_t e) { out_.Append(s_ + b, e - b); }
  // One span a line: a token over several lines is closed and reopened at each break (an empty piece gets none).
  void Span(const char* cls, size_t b, size_t e) {
    const size_t cls_len = std::strlen(cls);
    while (true) {
      size_t nl = b;
      while (nl < e && s_[nl] != '\n') ++nl;
      if (nl > b) {
        Ascii("<span class=\"");
        out_.Ascii(cls, cls_len);
        Ascii("\">");
        Raw(b, nl);
        Ascii("</span>");
      }
      if (nl == e) return;
      out_.Put('\n');
      b = nl + 1;
    }
  }

  size_t WordEnd(size_t i, size_t e) const {
    while (i < e && IsWord(s_[i])) ++i;
    return i;
  }
  size_t SpaceEnd(size_t i, size_t e) const {
    while (i < e && IsSpace(s_[i])) ++i;
    return i;
  }
  // `@?[^\W\d]\w*` at i: its end, or kNo.
  size_t Identifier(size_t i, size_t e) const {
    if (i < e && s_[i] == '@' && i + 1 < e && IsIdStart(s_[i + 1])) return WordEnd(i + 1, e);
    if (i < e && IsIdStart(s_[i])) return WordEnd(i + 1, e);
    return kNo;
  }

  // The first `c` at or after `from` (below n_), or kNo; the last answer is kept (a run of unclosed openings
  // would otherwise search to the end each time).
  size_t FindBracket(size_t from) {
    if (close_bracket_from_ != SIZE_MAX && from >= close_bracket_from_ &&
        (close_bracket_at_ == kNo || from <= close_bracket_at_))
      return close_bracket_at_;
    size_t i = from;
    while (i < n_ && s_[i] != ']') ++i;
    close_bracket_from_ = from;
    close_bracket_at_ = i < n_ ? i : kNo;
    return close_bracket_at_;
  }
  // The first `*/` starting at or after `from` and ending by `e`, or kNo.
  size_t FindCommentEnd(size_t from, size_t e) {
    if (e == n_ && close_comment_from_ != SIZE_MAX && from >= close_comment_from_ &&
        (close_comment_at_ == kNo || from <= close_comment_at_))
      return close_comment_at_;
    size_t i = from;
    while (i + 1 < e && !(s_[i] == '*' && s_[i + 1] == '/')) ++i;
    const size_t at = i + 1 < e ? i : kNo;
    if (e == n_) {
      close_comment_from_ = from;
      close_comment_at_ = at;
    }
    return at;
  }

  // A string's body from i: `(?:\\\\|\\[^\\]|[^"\\\n])*` then a quote (taken) or a line break (taken when
  // `take_break`, else only looked at). kNo where neither follows (the text ends first).
  size_t StringBody(size_t i, size_t e, bool take_break) const {
    while (i < e) {
      const C c = s_[i];
      if (c == '\\') {
        if (i + 1 >= e) return kNo;
        i += 2;
      } else if (c == '"') {
        return i + 1;
      } else if (c == '\n') {
        return take_break ? i + 1 : i;
      } else {
        ++i;
      }
    }
    return kNo;
  }
  // `@"(?:""|[^"])*"` at i (an `@` then a quote): greedy, so a text that ends inside gives back to its last `""`.
  size_t Verbatim(size_t i, size_t e) const {
    size_t j = i + 2, last_pair = kNo;
    while (j < e) {
      if (s_[j] == '"') {
        if (j + 1 < e && s_[j + 1] == '"') {
          last_pair = j;
          j += 2;
        } else {
          return j + 1;
        }
      } else {
        ++j;
      }
    }
    return last_pair == kNo ? kNo : last_pair + 1;
  }
  // `'\\.'|'(?:&(?:lt|gt|amp);|[^\\])'` at i (a quote).
  size_t Char(size_t i, size_t e) const {
    if (i + 3 < e && s_[i + 1] == '\\' && s_[i + 3] == '\'') return i + 4;
    if (i + 1 < e && s_[i + 1] == '&') {
      for (const char* entity : {"lt;", "gt;", "amp;"}) {
        size_t j = i + 2;
        const char* p = entity;
        while (*p && j < e && s_[j] == static_cast<C>(*p)) ++p, ++j;
        if (!*p && j < e && s_[j] == '\'') return j + 1;
      }
    }
    if (i + 2 < e && s_[i + 1] != '\\' && s_[i + 2] == '\'') return i + 3;
    return kNo;
  }
  // `#[ \t]*(?:if|endif|...)\b[^\n]*` at i (a `#`).
  size_t Preproc(size_t i, size_t e) const {
    size_t j = i + 1;
    while (j < e && (s_[j] == ' ' || s_[j] == '\t')) ++j;
    const size_t w = WordEnd(j, e);
    if (!IsPreprocWord(s_ + j, w - j)) return kNo;
    while (j < e && s_[j] != '\n') ++j;
    return j;
  }

  // --- the first pass (csharp_colour._LEADING) -----------------------------------------------------------------

  // `\n[ \t]*+(?:@?[^\W\d]\w*+(?:\[\])?\s++)+?@?[^\W\d]\w*+\s*+\(` at the break i: true with its parts (the
  // indentation ends at ws, the name is [name, name_end), the `(` at paren). Each piece is deterministic (a name
  // never ends before a name character), so the lazy repetition is: after each modifier, try the name and `(`.
  bool Declaration(size_t i, size_t* ws, size_t* name, size_t* name_end, size_t* paren) const {
    size_t q = i + 1;
    while (q < n_ && (s_[q] == ' ' || s_[q] == '\t')) ++q;
    *ws = q;
    for (size_t groups = 0;; ++groups) {
      if (groups > 0) {
        const size_t id = Identifier(q, n_);
        if (id != kNo) {
          const size_t p = SpaceEnd(id, n_);
          if (p < n_ && s_[p] == '(') {
            *name = q, *name_end = id, *paren = p;
            return true;
          }
        }
      }
      size_t id = Identifier(q, n_);  // one more modifier or type
      if (id == kNo) return false;
      if (id + 1 < n_ && s_[id] == '[' && s_[id + 1] == ']') id += 2;
      const size_t p = SpaceEnd(id, n_);
      if (p == id) return false;
      q = p;
    }
  }
  // `\n\s*\[.*?\]` at the break i: true with the `[` at open and the `]` at close.
  bool Attribute(size_t i, size_t* open, size_t* close) {
    *open = SpaceEnd(i + 1, n_);
    if (*open >= n_ || s_[*open] != '[') return false;
    *close = FindBracket(*open + 1);
    return *close != kNo;
  }

  void Leading() {
    size_t pos = 0, i = 0;
    while (i < n_) {
      const C c = s_[i];
      if (!Is(c, kLeading)) {
        ++i;
        continue;
      }
      size_t end = kNo;
      const char* cls = nullptr;
      switch (c) {
        case '\n': {
          // A line-start rule: the break goes with the code before it.
          size_t ws, name, name_end, paren, open, close;
          if (Declaration(i, &ws, &name, &name_end, &paren)) {
            Code(pos, i + 1);
            Raw(i + 1, ws);
            {
              Buffer<C> types;  // (small: the modifiers and type of one declaration)
              Highlight(s_ + ws, name - ws, false, types);  // coloured as code of their own
            }
            Span("nf", name, name_end);
            Raw(name_end, paren + 1);
            pos = i = paren + 1;
            continue;
          }
          if (Attribute(i, &open, &close)) {
            Code(pos, i + 1);
            Raw(i + 1, open);
            Span("na", open, close + 1);
            pos = i = close + 1;
            continue;
          }
          break;
        }
        case '/':
          if (i + 1 < n_ && s_[i + 1] == '/') {
            end = i + 2;
            while (end < n_ && s_[end] != '\n') ++end;
            cls = "c1";
          } else if (i + 1 < n_ && s_[i + 1] == '*') {
            const size_t close = FindCommentEnd(i + 2, n_);
            if (close != kNo) end = close + 2, cls = "cm";
          }
          break;
        case '@':
          if (i + 1 < n_ && s_[i + 1] == '"') end = Verbatim(i, n_), cls = "s";
          break;
        case '$':
          if (i + 1 < n_ && s_[i + 1] == '"') end = StringBody(i + 2, n_, false), cls = "s";
          break;
        case '"':
          end = StringBody(i + 1, n_, false), cls = "s";
          break;
        case '\'':
          end = Char(i, n_), cls = "sc";
          break;
        case '#':
          end = Preproc(i, n_), cls = "cp";
          break;
        default:
          break;
      }
      if (end == kNo || cls == nullptr) {
        ++i;
        continue;
      }
      if (i > pos) Code(pos, i);
      Span(cls, i, end);
      pos = i = end;
    }
    Code(pos, n_);
  }

  // --- code between them (csharp_colour._code) -----------------------------------------------------------------

  void Code(size_t b, size_t e) {
    if (b >= e) return;
    size_t i = b;
    while (i < e && IsSpace(s_[i])) ++i;
    if (i == e) {  // between two comments or strings, often only the indentation
      Raw(b, e);
      return;
    }
    const size_t mark = out_.size();
    if (PlainWords(b, e)) return;
    out_.Resize(mark);  // not plain after all
    Full(b, e);
  }

  bool FullWordAt(size_t i, size_t e) const {
    switch (s_[i]) {
      case 'c': return Literal(i, e, "class") != kNo;
      case 's': return Literal(i, e, "struct") != kNo;
      case 'n': return Literal(i, e, "namespace") != kNo;
      case 'u': return Literal(i, e, "using") != kNo;
      case 'e': return Literal(i, e, "extern") != kNo;
      default: return Literal(i, e, "global") != kNo;
    }
  }
  // The end of the ASCII text `w` at i, or kNo.
  size_t Literal(size_t i, size_t e, const char* w) const {
    for (; *w; ++w, ++i)
      if (i >= e || s_[i] != static_cast<C>(static_cast<unsigned char>(*w))) return kNo;
    return i;
  }

  // `[0-9]+(?:\.[0-9]*)?(?:[eE][+-][0-9]+)?[flFLdD]?` at i (a digit): its end.
  size_t Number(size_t i, size_t e) const {
    while (i < e && IsAsciiDigit(s_[i])) ++i;
    if (i < e && s_[i] == '.') {
      ++i;
      while (i < e && IsAsciiDigit(s_[i])) ++i;
    }
    if (i + 2 < e && (s_[i] == 'e' || s_[i] == 'E') && (s_[i + 1] == '+' || s_[i + 1] == '-') &&
        IsAsciiDigit(s_[i + 2])) {
      i += 2;
      while (i < e && IsAsciiDigit(s_[i])) ++i;
    }
    if (i < e) {
      switch (s_[i]) {
        case 'f': case 'l': case 'F': case 'L': case 'd': case 'D': ++i; break;
        default: break;
      }
    }
    return i;
  }

  // Plain code (no odd character, no word with a rule of its own): keywords and types by a table, numbers (with no
  // look behind: csharp_colour._WORDS); nothing else coloured. False, having written part of it, where the code is
  // not plain: an odd character, or _FULL_WORD (class|struct|namespace|using|extern|global, inside names too; all
  // letters, so only in a word of at least five).
  bool PlainWords(size_t b, size_t e) {
    size_t raw = b, i = b;
    while (i < e) {
      const C c = s_[i];
      if (IsAsciiDigit(c)) {
        const size_t end = Number(i, e);
        Raw(raw, i);
        Span("m", i, end);
        raw = i = end;
      } else if (IsIdStart(c)) {
        const size_t w = WordEnd(i + 1, e);
        if (w - i >= 5) {
          for (size_t k = i; k + 5 <= w; ++k)
            if (Is(s_[k], kFullStart) && FullWordAt(k, w)) return false;
        }
        const Word kind = WordOf(s_ + i, w - i);
        if (kind == kType || kind == kKeyword) {
          Raw(raw, i);
          // Only a type takes its `?` along (`int?`); `void?` is a keyword and an operator.
          const size_t end = kind == kType && w < e && s_[w] == '?' ? w + 1 : w;
          Span(kind == kType ? "kt" : "k", i, end);
          raw = i = end;
        } else {
          i = w;
        }
      } else {
        if (IsOdd(c)) return false;
        ++i;
      }
    }
    Raw(raw, e);
    return true;
  }

  // --- the full rules (csharp_colour._INNER), over [b, e) as a text of its own ---------------------------------

  struct Token {
    const char* cls = nullptr;  // a token of one class; else a keyword [start, word), then
    size_t word = 0, space = 0;  // space [word, space), then the declared name [space, end) of class `named`
    const char* named = nullptr;
  };

  void Full(size_t b, size_t e) {
    size_t raw = b, i = b;
    Token t;
    while (i < e) {
      const size_t end = FullToken(b, i, e, &t);
      if (end == kNo) {
        ++i;
        continue;
      }
      Raw(raw, i);
      if (t.cls) {
        Span(t.cls, i, end);
      } else {
        Span("k", i, t.word);
        Raw(t.word, t.space);
        if (end > t.space) Span(t.named, t.space, end);
      }
      raw = i = end;
    }
    Raw(raw, e);
  }

  // The rules at i in their order: the token's end (its parts in t), or kNo.
  size_t FullToken(size_t b, size_t i, size_t e, Token* t) {
    const C c = s_[i];
    const bool has_next = i + 1 < e;
    const C next = has_next ? s_[i + 1] : 0;
    t->cls = nullptr;
    size_t end = kNo;
    switch (c) {
      case '/':
        if (next == '/' && has_next) {
          end = i + 2;
          while (end < e && s_[end] != '\n') ++end;
          t->cls = "c1";
          return end;
        }
        if (next == '*' && has_next) {
          const size_t close = FindCommentEnd(i + 2, e);
          if (close != kNo) {
            t->cls = "cm";
            return close + 2;
          }
        }
        return kNo;
      case '@':
        if (has_next && next == '"') {
          end = Verbatim(i, e);
          if (end != kNo) {
            t->cls = "s";
            return end;
          }
        }
        if (!has_next || (!IsIdStart(next) && next != '"')) {
          t->cls = "err";
          return i + 1;
        }
        return kNo;
      case '$':
      case '"':
        end = c == '"' ? StringBody(i + 1, e, true)
                       : (has_next && next == '"' ? StringBody(i + 2, e, true) : kNo);
        t->cls = end != kNo ? "s" : "err";
        return end != kNo ? end : i + 1;
      case '\'':
        end = Char(i, e);
        t->cls = end != kNo ? "sc" : "err";
        return end != kNo ? end : i + 1;
      case '#':
        end = Preproc(i, e);
        t->cls = end != kNo ? "cp" : "err";
        return end != kNo ? end : i + 1;
      case '\\':
        if (!has_next || next != '\n') {
          t->cls = "err";
          return i + 1;
        }
        return kNo;
      default:
        break;
    }
    if (IsAsciiDigit(c)) {
      if (i > b && IsWord(s_[i - 1])) return kNo;
      t->cls = "m";
      return Number(i, e);
    }
    if (IsIdStart(c)) {
      if (i > b && (IsWord(s_[i - 1]) || s_[i - 1] == '@')) return kNo;  // not inside a name
      const size_t w = WordEnd(i + 1, e);
      const Word kind = WordOf(s_ + i, w - i);
      const size_t p = SpaceEnd(w, e);
      switch (kind) {
        case kKeyword:
          if (w - i == 6 && p > w && Literal(i, e, "extern") != kNo) {  // `extern alias`
            const size_t a = Literal(p, e, "alias");
            if (a != kNo && (a == e || !IsWord(s_[a]))) {
              t->word = w, t->space = p, t->named = "k";
              return a;
            }
          }
          t->cls = "k";
          return w;
        case kGlobal:
          if (Literal(w, e, "::") == kNo) return kNo;
          t->cls = "k";
          return w;
        case kType:
          t->cls = "kt";
          return w < e && s_[w] == '?' ? w + 1 : w;
        case kClassWord: {
          if (p == w) return kNo;
          const size_t id = Identifier(p, e);
          t->word = w, t->space = p, t->named = "nc";
          return id == kNo ? p : id;
        }
        case kNamespaceWord: {
          if (p == w) return kNo;
          size_t q = p;
          while (q < e) {
            const size_t id = Identifier(q, e);
            if (id != kNo) {
              q = id;
            } else if (s_[q] == '.') {
              ++q;
            } else {
              break;
            }
          }
          t->word = w, t->space = p, t->named = "nn";
          return q;
        }
        default:
          return kNo;
      }
    }
    if (!IsWord(c) && IsOdd(c)) {
      t->cls = "err";
      return i + 1;
    }
    return kNo;
  }
};

// The HTML of `text` (of `kind`, a str's code units): one str, or its lines as highlight_lines gives them (split at
// the breaks, the empty piece after a last break left out).
// The HTML of `text` (of `kind`, a str's code units): one str, or its lines as highlight_lines gives them (split at
// the breaks, the empty piece after a last break left out).
template <typename C>
py::object Colour(const void* data, Py_ssize_t n, int kind, bool escape, bool lines) {
  static thread_local Buffer<C> in, out;  // (the GIL is held throughout: no other call in this thread meanwhile)
  constexpr size_t kKeep = size_t{16} << 20;
  struct Trim {
    ~Trim() { in.Trim(kKeep), out.Trim(kKeep); }
  } trim;
  out.clear();
  Colourer<C>(out).Highlight(static_cast<const C*>(data), static_cast<size_t>(n), escape, in);
  if (!lines) {
    PyObject* s = PyUnicode_FromKindAndData(kind, out.data(), static_cast<Py_ssize_t>(out.size()));
    if (!s) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(s);
  }
  py::list result;
  const C* p = out.data();
  const C* end = p + out.size();
  while (p != end) {  // (an empty text has no line)
    const C* nl = std::find(p, end, static_cast<C>('\n'));
    PyObject* s = PyUnicode_FromKindAndData(kind, p, nl - p);
    if (!s) throw py::error_already_set();
    if (PyList_Append(result.ptr(), s) < 0) {
      Py_DECREF(s);
      throw py::error_already_set();
    }
    Py_DECREF(s);
    if (nl == end) break;
    p = nl + 1;
  }
  return result;
}

py::object ColourStr(py::str text, bool escape, bool lines) {
  PyObject* o = text.ptr();
#if PY_VERSION_HEX < 0x030C0000  // (every str is ready from 3.12 on; the macro is deprecated there)
  if (PyUnicode_READY(o) < 0) throw py::error_already_set();
#endif
  const Py_ssize_t n = PyUnicode_GET_LENGTH(o);
  const void* data = PyUnicode_DATA(o);
  switch (PyUnicode_KIND(o)) {
    case PyUnicode_1BYTE_KIND: return Colour<Py_UCS1>(data, n, PyUnicode_1BYTE_KIND, escape, lines);
    case PyUnicode_2BYTE_KIND: return Colour<Py_UCS2>(data, n, PyUnicode_2BYTE_KIND, escape, lines);
    default: return Colour<Py_UCS4>(data, n, PyUnicode_4BYTE_KIND, escape, lines);
  }
}

}  // namespace

void RegisterCsharp(py::module_& m) {
  m.def("csharp_colour", [](py::str text) { return ColourStr(text, false, false); }, py::arg("text"),
        "C# source, already HTML-escaped (`&`, `<`, `>`), with its colours as `<span class=\"...\">` (Pygments' "
        "short token classes), line breaks kept: a token over several lines is closed and reopened at each one "
        "(the rules: dotcov.html.csharp).");
  m.def("csharp_lines", [](py::str text) { return ColourStr(text, true, true); }, py::arg("text"),
        "C# source (not escaped) as HTML lines: csharp_colour of the escaped text split at its line breaks, "
        "without the empty piece after a last break.");
}
