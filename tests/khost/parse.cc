// parse.cc — the grammar of kq::Parse (the tokens are number_literal.h's).
#include "tests/khost/parse.h"

#include <cctype>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "tests/khost/builtins.h"
#include "tests/khost/errors.h"
#include "tests/khost/kref.h"
#include "tests/khost/number_literal.h"
#include "tests/khost/symbols.h"
#include "tests/khost/validate.h"

namespace kq {
namespace {

using kabi::K;
using khost::KRef;

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}
bool IsSymbolChar(char c) { return IsNameChar(c) || c == ':' || c == '/'; }

class Parser {
 public:
  explicit Parser(absl::string_view text) : text_(text) {}

  K Run() {
    KRef x = Expression();
    SkipSpace();
    if (pos_ != text_.size()) Fail("unexpected text");
    return x.release();
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    throw std::invalid_argument(
        absl::StrFormat("kq::Parse: %s at offset %d in \"%s\"", what, pos_, text_));
  }

  char Peek(std::size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  absl::string_view Rest() const { return text_.substr(pos_); }
  void SkipSpace() {
    while (Peek() == ' ' || Peek() == '\t' || Peek() == '\n') ++pos_;
  }
  bool Consume(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  void Expect(char c) {
    SkipSpace();
    if (!Consume(c)) Fail(absl::StrFormat("expected '%c'", c));
  }
  // A keyword followed by something that cannot continue a name.
  bool ConsumeWord(absl::string_view word) {
    if (Rest().substr(0, word.size()) != word || IsNameChar(Peek(word.size()))) return false;
    pos_ += word.size();
    return true;
  }

  // prefix* noun ['!' expression], right to left as in q.
  KRef Expression() {
    SkipSpace();
    if (ConsumeWord("flip") || Consume('+')) return Flip(Expression());
    if (ConsumeWord("enlist") || Consume(',')) {
      KRef x = Expression();
      return KRef(khost::internal::Enlist(x.get()));
    }
    if (Peek() == '`' && absl::string_view("supg").find(Peek(1)) != absl::string_view::npos &&
        Peek(2) == '#') {
      const char attribute = Peek(1);
      pos_ += 3;
      KRef x = Expression();
      x->u = static_cast<char>(absl::string_view("supg").find(attribute) + 1);
      return x;
    }
    KRef left = Noun();
    SkipSpace();
    if (!Consume('!')) return left;
    KRef right = Expression();
    if (khost::internal::Count(left.get()) != khost::internal::Count(right.get()) || left->t < 0 ||
        right->t < 0) {
      Fail("a dictionary needs keys and values of the same count");
    }
    return KRef(kabi::xD(left.release(), right.release()));
  }

  KRef Noun() {
    SkipSpace();
    const char c = Peek();
    if (c == '(') return Parenthesised();
    if (c == '"') return String();
    if (c == '`') return Symbols();
    if (c == ':' && Peek(1) == ':') {
      pos_ += 2;
      return KRef(kabi::ka(kabi::kUnaryPrimitive));
    }
    if (khost::internal::StartsNumber(Rest())) return Numbers();
    Fail("not a literal");
  }

  KRef Parenthesised() {
    Expect('(');
    SkipSpace();
    if (Peek() == '[') return TableLiteral();
    if (Consume(')')) return KRef(kabi::ktn(kabi::kMixed, 0));
    std::vector<KRef> items;
    while (true) {
      SkipSpace();
      items.push_back(Peek() == ';' || Peek() == ')' ? KRef(kabi::ka(kabi::kUnaryPrimitive))
                                                     : Expression());
      SkipSpace();
      if (Consume(')')) break;
      Expect(';');
    }
    if (items.size() == 1) return std::move(items[0]);
    return KRef(khost::internal::Collapse(std::move(items)));
  }

  // ([k:...] c:...; d:...)
  KRef TableLiteral() {
    Expect('[');
    KRef keys = Columns(']');
    Expect(']');
    KRef values = Columns(')');
    Expect(')');
    if (kabi::DictKeys(keys.get())->n == 0) return Flip(std::move(values));
    KRef key_table = Flip(std::move(keys));
    KRef value_table = Flip(std::move(values));
    return KRef(kabi::xD(key_table.release(), value_table.release()));
  }

  // name:expression pairs up to `end`, as a dictionary.
  KRef Columns(char end) {
    std::vector<char*> names;
    std::vector<KRef> columns;
    SkipSpace();
    while (Peek() != end) {
      const std::size_t start = pos_;
      while (IsNameChar(Peek())) ++pos_;
      if (pos_ == start) Fail("expected a column name");
      names.push_back(khost::internal::Intern(text_.substr(start, pos_ - start)));
      Expect(':');
      columns.push_back(Expression());
      SkipSpace();
      if (!Consume(';')) break;
      SkipSpace();
    }
    K keys = kabi::ktn(kabi::kSymbol, static_cast<long long>(names.size()));
    K values = kabi::ktn(kabi::kMixed, static_cast<long long>(columns.size()));
    for (std::size_t i = 0; i < names.size(); ++i) {
      kabi::Symbols(keys)[i] = names[i];
      kabi::Items(values)[i] = columns[i].release();
    }
    return KRef(kabi::xD(keys, values));
  }

  // A dictionary of column names to columns -> table; atom columns are repeated to the length
  // of the others.
  KRef Flip(KRef d) {
    if (d->t != kabi::kDictionary || kabi::DictKeys(d.get())->t != kabi::kSymbol ||
        kabi::DictValues(d.get())->t != kabi::kMixed) {
      Fail("flip needs a dictionary of symbols to a general list of columns");
    }
    K columns = kabi::DictValues(d.get());
    std::int64_t rows = 1;
    for (std::int64_t i = 0; i < columns->n; ++i) {
      if (kabi::Items(columns)[i]->t >= 0) rows = kabi::Items(columns)[i]->n;
    }
    for (std::int64_t i = 0; i < columns->n; ++i) {
      K& column = kabi::Items(columns)[i];
      if (column->t >= 0) continue;
      std::vector<KRef> copies;
      for (std::int64_t r = 0; r < rows; ++r) copies.emplace_back(kabi::r1(column));
      kabi::r0(column);
      column = khost::internal::Collapse(std::move(copies));
    }
    K table = kabi::xT(d.release());
    if (table == nullptr) {
      khost::ClearError();
      Fail("flip of uneven or non-vector columns");
    }
    return KRef(table);
  }

  KRef String() {
    Expect('"');
    std::string chars;
    while (!Consume('"')) {
      if (pos_ >= text_.size()) Fail("unterminated string");
      char c = text_[pos_++];
      if (c == '\\') c = Escape();
      chars.push_back(c);
    }
    if (chars.size() == 1) return KRef(kabi::kc(static_cast<unsigned char>(chars[0])));
    return KRef(kabi::kpn(chars.data(), static_cast<long long>(chars.size())));
  }

  char Escape() {
    const char c = Peek();
    ++pos_;
    switch (c) {
      case 'n': return '\n';
      case 't': return '\t';
      case 'r': return '\r';
      case '\\':
      case '"': return c;
      default:
        if (c >= '0' && c <= '7' && Peek() >= '0' && Peek() <= '7' && Peek(1) >= '0' &&
            Peek(1) <= '7') {
          const int value = (c - '0') * 64 + (Peek() - '0') * 8 + (Peek(1) - '0');
          pos_ += 2;
          return static_cast<char>(value);
        }
        Fail("unknown escape");
    }
  }

  KRef Symbols() {
    std::vector<char*> symbols;
    while (Consume('`')) {
      const std::size_t start = pos_;
      while (IsSymbolChar(Peek())) ++pos_;
      symbols.push_back(khost::internal::Intern(text_.substr(start, pos_ - start)));
    }
    if (symbols.size() == 1) return KRef(kabi::ks(symbols[0]));
    K x = kabi::ktn(kabi::kSymbol, static_cast<long long>(symbols.size()));
    for (std::size_t i = 0; i < symbols.size(); ++i) kabi::Symbols(x)[i] = symbols[i];
    return KRef(x);
  }

  // A strand of number tokens separated by spaces; the last token's suffix types them all.
  KRef Numbers() {
    std::vector<absl::string_view> texts;
    while (true) {
      const absl::string_view token = Rest().substr(0, khost::internal::TokenLength(Rest()));
      if (K whole = khost::internal::ReadBitsOrBytes(token)) {
        if (!texts.empty()) Fail("booleans and bytes cannot join a strand");
        pos_ += token.size();
        return KRef(whole);
      }
      texts.push_back(token);
      pos_ += token.size();
      std::size_t next = pos_;
      while (next < text_.size() && text_[next] == ' ') ++next;
      if (next == pos_ || !khost::internal::StartsNumber(text_.substr(next))) break;
      pos_ = next;
    }
    std::vector<khost::internal::NumberToken> tokens;
    for (absl::string_view text : texts) tokens.push_back(Number(text));
    // 2000.01 2000.02m: the month suffix makes months of the tokens before it.
    if (tokens.back().type == kabi::kMonth) {
      for (std::size_t i = 0; i + 1 < texts.size(); ++i) {
        if (tokens[i].kind == khost::internal::NumberToken::kValue)
          tokens[i] = Number(std::string(texts[i]) + "m");
      }
    }
    K x = khost::internal::BuildStrand(tokens);
    if (x == nullptr) Fail("a strand of different types");
    return KRef(x);
  }

  khost::internal::NumberToken Number(absl::string_view token) const {
    std::optional<khost::internal::NumberToken> number = khost::internal::ReadNumber(token);
    if (!number) Fail(absl::StrFormat("bad number \"%s\"", token));
    return *number;
  }

  absl::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

K Parse(absl::string_view text) { return Parser(text).Run(); }

}  // namespace kq
