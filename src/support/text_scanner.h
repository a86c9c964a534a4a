// The lexing core shared by the hand-written lexers of the text formats (PIR,
// CIR, MLIR; XLA's HLO uses TextScanner alone).
//
// TextScanner scans characters: a byte position with 1-based line and column
// (columns count bytes, as a diagnostic's caret line does), whitespace and
// `//` comments, and double-quoted strings with the escapes the printers
// write (\" \\ \n \t \xHH; raw control bytes other than tab are errors) or,
// for MLIR, the escapes MLIR prints (\" \\ \n \t \HH; raw bytes kept).
//
// BasicLexer<Token> makes the tokens of a format's Token type
// (support/token_parser.h) and lexes what the formats share: fixed-spelling
// punctuation from a table, strings, and numbered references (%N). A
// format's lexer derives from it, lexes its own numbers and names, and keeps
// the contract: every Next() consumes input or returns kEof/kError at a fixed
// position, so a caller that stops at the first kError cannot loop.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace az {

bool IsIdentStartChar(char c);  // [A-Za-z_]
bool IsIdentChar(char c);       // [A-Za-z0-9_]
bool IsDigitChar(char c);       // [0-9]
int HexDigitValue(char c);      // 0-15 for [0-9A-Fa-f], else -1
// A byte for a message: 'x' when printable, else 0xHH (never a raw control byte).
std::string DescribeByte(char c);

class TextScanner {
 public:
  // `text` must outlive the scanner.
  explicit TextScanner(std::string_view text) : text_(text) {}

 protected:
  struct ScanError {
    int line = 0, col = 0;
    std::string message;
  };
  // Where a token starts: its byte offset, line and column.
  struct Mark {
    size_t pos = 0;
    int line = 1, col = 1;
  };
  // The escapes a string may hold (see the file comment).
  enum class Escapes { kPrinter, kMlir };

  Mark Here() const { return {pos_, line_, col_}; }
  // The source bytes from `start` to the current position.
  std::string_view SpelledSince(Mark start) const { return text_.substr(start.pos, pos_ - start.pos); }

  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
  void Advance();  // one byte, tracking line and column
  void SkipSpaceAndComments();
  // At an opening quote: consumes the string and decodes it into `value`.
  // False, with `error` located at the problem, for a malformed string.
  bool ScanQuotedString(std::string* value, ScanError* error, Escapes escapes = Escapes::kPrinter);

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
};

template <typename Token>
class BasicLexer : protected TextScanner {
 public:
  using Kind = decltype(Token{}.kind);
  // A token always spelled the same ("{", "->").
  struct FixedToken {
    std::string_view spelling;
    Kind kind;
  };

  // `text` must outlive the lexer and its tokens.
  explicit BasicLexer(std::string_view text) : TextScanner(text) {}

 protected:
  // A token spelled by the source from `start` to the current position.
  Token Make(Kind kind, Mark start, std::string text = {}) const {
    Token token;
    token.kind = kind;
    token.spelling = SpelledSince(start);
    token.text = std::move(text);
    token.line = start.line;
    token.col = start.col;
    return token;
  }
  // A lexical error: a token of kind kError whose text is the message.
  Token Error(Mark at, std::string message) const {
    Token token;
    token.kind = Kind::kError;
    token.text = std::move(message);
    token.line = at.line;
    token.col = at.col;
    return token;
  }
  Token Error(const ScanError& error) const { return Error({0, error.line, error.col}, error.message); }

  // What every Next() does first: skips space and comments, then returns kEof
  // at the end of the text, or the first entry of `table` spelled here,
  // consumed (list longer spellings before their prefixes); nullopt, with
  // nothing more consumed, when the format's own rules must read the token.
  std::optional<Token> LexEndOrFixed(std::span<const FixedToken> table) {
    SkipSpaceAndComments();
    Mark start = Here();
    if (AtEnd()) return Make(Kind::kEof, start);
    for (const FixedToken& fixed : table) {
      if (text_.substr(pos_, fixed.spelling.size()) != fixed.spelling) continue;
      for (size_t i = 0; i < fixed.spelling.size(); ++i) Advance();
      return Make(fixed.kind, start);
    }
    return std::nullopt;
  }

  // At an opening quote: a kString token whose text is the decoded contents.
  Token LexString(Escapes escapes = Escapes::kPrinter) {
    Mark start = Here();
    std::string value;
    ScanError error;
    if (!ScanQuotedString(&value, &error, escapes)) return Error(error);
    return Make(Kind::kString, start, std::move(value));
  }

  // At '%': a reference by number (%N) of kind `kind`, whose text is the
  // digits; `what` names it in errors ("value", "buffer").
  Token LexNumberedRef(Kind kind, const std::string& what) {
    Mark start = Here();
    Advance();  // '%'
    if (!IsDigitChar(Peek())) return Error(start, "expected a " + what + " number after '%'");
    Mark digits = Here();
    while (IsDigitChar(Peek())) Advance();
    if (IsIdentChar(Peek())) return Error(start, "bad " + what + " reference: unexpected " + DescribeByte(Peek()));
    return Make(kind, start, std::string(SpelledSince(digits)));
  }
};

}  // namespace az
