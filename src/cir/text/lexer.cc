#include "cir/text/lexer.h"

namespace az::cir {

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

Token Lexer::Make(TokenKind kind, size_t begin, int line, int col, std::string text) const {
  return MakeToken<Token>(kind, begin, line, col, std::move(text));
}

Token Lexer::Error(int line, int col, std::string message) const {
  return ErrorToken<Token>(line, col, std::move(message));
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
  if (IsDigitChar(c) || c == '-') return LexNumber();
  if (c == '"') return LexString();
  if (IsIdentStartChar(c)) return LexIdentifier();
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
    if (!IsDigitChar(Peek())) return Error(line, col, "expected a digit or '>' after '-'");
  }
  while (IsDigitChar(Peek())) Advance();
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
  std::string value;
  ScanError error;
  if (!ScanQuotedString(&value, &error)) return Error(error.line, error.col, std::move(error.message));
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
    if (Peek() != '-' || !IsIdentStartChar(Peek(1))) break;
    Advance();
  }
  return Make(TokenKind::kIdent, begin, line, col, std::string(text_.substr(begin, pos_ - begin)));
}

Token Lexer::LexBufferRef() {
  size_t begin = pos_;
  int line = line_;
  int col = col_;
  Advance();  // '%'
  if (!IsDigitChar(Peek())) return Error(line, col, "expected a buffer number after '%'");
  size_t digits = pos_;
  while (IsDigitChar(Peek())) Advance();
  if (IsIdentChar(Peek())) return Error(line, col, "bad buffer reference: unexpected " + DescribeByte(Peek()));
  return Make(TokenKind::kBufferRef, begin, line, col, std::string(text_.substr(digits, pos_ - digits)));
}

}  // namespace az::cir
