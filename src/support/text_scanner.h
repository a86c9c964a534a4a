// Character-level scanning shared by the hand-written lexers of the text
// formats (PIR, CIR): a byte position with 1-based line and column (columns
// count bytes, as a diagnostic's caret line does), whitespace and `//`
// comments, and double-quoted strings with the escapes the printers write
// (\" \\ \n \t \xHH; raw control bytes other than tab are errors). A lexer
// derives from TextScanner and adds its own tokens.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace az {

bool IsIdentStartChar(char c);  // [A-Za-z_]
bool IsIdentChar(char c);       // [A-Za-z0-9_]
bool IsDigitChar(char c);       // [0-9]
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

  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
  void Advance();  // one byte, tracking line and column
  void SkipSpaceAndComments();
  // At an opening quote: consumes the string and decodes it into `value`.
  // False, with `error` located at the problem, for a malformed string.
  bool ScanQuotedString(std::string* value, ScanError* error);

  // A token of a format's Token type (support/token_parser.h) spelled by
  // text_[begin, pos_).
  template <typename Token>
  Token MakeToken(decltype(Token{}.kind) kind, size_t begin, int line, int col, std::string text = {}) const {
    Token token;
    token.kind = kind;
    token.spelling = text_.substr(begin, pos_ - begin);
    token.text = std::move(text);
    token.line = line;
    token.col = col;
    return token;
  }
  // A lexical error: a token of kind kError whose text is the message.
  template <typename Token>
  Token ErrorToken(int line, int col, std::string message) const {
    Token token;
    token.kind = decltype(Token{}.kind)::kError;
    token.text = std::move(message);
    token.line = line;
    token.col = col;
    return token;
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
};

}  // namespace az
