#include "cir/text/lexer.h"

#include <cstdio>

namespace az::cir {

namespace {
bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c); }
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
// A byte for a message: 'x' when printable, else 0xHH (never a raw control byte).
std::string DescribeByte(char c) {
  auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x20 && byte < 0x7f) return std::string("'") + c + "'";
  char buf[8];
  std::snprintf(buf, sizeof(buf), "0x%02x", byte);
  return buf;
}
}  // namespace

std::string DescribeToken(const Token& token) {
  switch (token.kind) {
    case TokenKind::kEof: return "end of input";
    case TokenKind::kError: return "an invalid token";
    case TokenKind::kIdent: return "identifier '" + token.text + "'";
    case TokenKind::kString: return "a string";
    case TokenKind::kInt: return "integer " + std::string(token.spelling);
    case TokenKind::kBufferRef: return "'%" + token.text + "'";
    default: return "'" + std::string(token.spelling) + "'";
  }
}

void Lexer::Advance() {
  if (AtEnd()) return;
  if (text_[pos_] == '\n') {
    ++line_;
    col_ = 1;
  } else {
    ++col_;
  }
  ++pos_;
}

void Lexer::SkipSpaceAndComments() {
  while (!AtEnd()) {
    char c = Peek();
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      Advance();
    } else if (c == '/' && Peek(1) == '/') {
      while (!AtEnd() && Peek() != '\n') Advance();
    } else {
      return;
    }
  }
}

Token Lexer::Make(TokenKind kind, size_t begin, int line, int col, std::string text) const {
  Token token;
  token.kind = kind;
  token.spelling = text_.substr(begin, pos_ - begin);
  token.text = std::move(text);
  token.line = line;
  token.col = col;
  return token;
}

Token Lexer::Error(int line, int col, std::string message) const {
  Token token;
  token.kind = TokenKind::kError;
  token.text = std::move(message);
  token.line = line;
  token.col = col;
  return token;
}

Token Lexer::Next() {
  SkipSpaceAndComments();
  size_t begin = pos_;
  int line = line_;
  int col = col_;
  if (AtEnd()) return Make(TokenKind::kEof, begin, line, col);
  char c = Peek();
  if (c == '-' && Peek(1) == '>') {
    Advance();
    Advance();
    return Make(TokenKind::kArrow, begin, line, col);
  }
  if (c == '<' && Peek(1) == '=') {
    Advance();
    Advance();
    return Make(TokenKind::kLessEqual, begin, line, col);
  }
  if (IsDigit(c) || c == '-') return LexNumber();
  if (c == '"') return LexString();
  if (IsIdentStart(c)) return LexIdentifier();
  if (c == '%') return LexBufferRef();
  TokenKind kind;
  switch (c) {
    case '{': kind = TokenKind::kLBrace; break;
    case '}': kind = TokenKind::kRBrace; break;
    case '(': kind = TokenKind::kLParen; break;
    case ')': kind = TokenKind::kRParen; break;
    case '[': kind = TokenKind::kLBracket; break;
    case ']': kind = TokenKind::kRBracket; break;
    case ',': kind = TokenKind::kComma; break;
    case '=': kind = TokenKind::kEqual; break;
    default: return Error(line, col, "unexpected character " + DescribeByte(c));
  }
  Advance();
  return Make(kind, begin, line, col);
}

// -?[0-9]+, checked for shape only ("12abc" is one bad number, not a number and
// an identifier); the parser converts the value and checks its range.
Token Lexer::LexNumber() {
  size_t begin = pos_;
  int line = line_;
  int col = col_;
  if (Peek() == '-') {
    Advance();
    if (!IsDigit(Peek())) return Error(line, col, "expected a digit or '>' after '-'");
  }
  while (IsDigit(Peek())) Advance();
  if (IsIdentChar(Peek()) || Peek() == '.') {
    return Error(line, col, "bad number: unexpected " + DescribeByte(Peek()) + " in an integer");
  }
  return Make(TokenKind::kInt, begin, line, col);
}

// Strings hold any bytes except raw newlines and other control characters
// (tab excepted); escapes are \" \\ \n \t and \xHH, the set QuoteString prints.
Token Lexer::LexString() {
  size_t begin = pos_;
  int line = line_;
  int col = col_;
  Advance();  // the opening quote
  std::string value;
  while (true) {
    if (AtEnd() || Peek() == '\n') return Error(line, col, "unterminated string");
    char c = Peek();
    if (c == '"') break;
    if (c == '\\') {
      int escape_line = line_;
      int escape_col = col_;
      Advance();
      char e = Peek();
      if (e == '"' || e == '\\') {
        value += e;
      } else if (e == 'n') {
        value += '\n';
      } else if (e == 't') {
        value += '\t';
      } else if (e == 'x') {
        int high = HexValue(Peek(1));
        int low = high < 0 ? -1 : HexValue(Peek(2));
        if (low < 0) return Error(escape_line, escape_col, "\\x must be followed by two hex digits");
        Advance();
        Advance();
        value += static_cast<char>(high * 16 + low);
      } else {
        if (AtEnd() || e == '\n') return Error(line, col, "unterminated string");
        std::string what = static_cast<unsigned char>(e) >= 0x20 && static_cast<unsigned char>(e) < 0x7f
                               ? "'\\" + std::string(1, e) + "'"
                               : "\\ followed by " + DescribeByte(e);
        return Error(escape_line, escape_col, "unknown escape sequence " + what);
      }
      Advance();
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t') {
      return Error(line_, col_, "control character " + DescribeByte(c) + " in a string; write it as \\xHH");
    }
    value += c;
    Advance();
  }
  Advance();  // the closing quote
  return Make(TokenKind::kString, begin, line, col, std::move(value));
}

// Inner hyphens join words ("collective-permute-done"); a hyphen that is not
// followed by a letter ends the identifier, so "x->" is "x" then "->".
Token Lexer::LexIdentifier() {
  size_t begin = pos_;
  int line = line_;
  int col = col_;
  while (true) {
    while (IsIdentChar(Peek())) Advance();
    if (Peek() != '-' || !IsIdentStart(Peek(1))) break;
    Advance();
  }
  return Make(TokenKind::kIdent, begin, line, col, std::string(text_.substr(begin, pos_ - begin)));
}

Token Lexer::LexBufferRef() {
  size_t begin = pos_;
  int line = line_;
  int col = col_;
  Advance();  // '%'
  if (!IsDigit(Peek())) return Error(line, col, "expected a buffer number after '%'");
  size_t digits = pos_;
  while (IsDigit(Peek())) Advance();
  if (IsIdentChar(Peek())) return Error(line, col, "bad buffer reference: unexpected " + DescribeByte(Peek()));
  return Make(TokenKind::kBufferRef, begin, line, col, std::string(text_.substr(digits, pos_ - digits)));
}

}  // namespace az::cir
