#include "pir/text/lexer.h"

namespace az::pir {

bool IsIdentifier(std::string_view s) {
  if (s.empty() || !IsIdentStartChar(s[0])) return false;
  for (char c : s) {
    if (!IsIdentChar(c)) return false;
  }
  return true;
}

std::string DescribeToken(const Token& token) {
  switch (token.kind) {
    case TokenKind::kEof: return "end of input";
    case TokenKind::kError: return "an invalid token";
    case TokenKind::kIdent: return "identifier '" + token.text + "'";
    case TokenKind::kString: return "a string";
    case TokenKind::kInt: return "integer " + std::string(token.spelling);
    case TokenKind::kFloat: return "float " + std::string(token.spelling);
    // A quoted mesh name may hold any byte; keep messages printable.
    case TokenKind::kValueRef: return "'%" + token.text + "'";
    case TokenKind::kMeshRef: return IsIdentifier(token.text) ? "'@" + token.text + "'" : "a mesh reference";
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
  if (IsDigitChar(c) || c == '-') return LexNumber();
  if (c == '"') return LexString();
  if (IsIdentStartChar(c)) return LexIdentifier();
  if (c == '%') return LexValueRef();
  if (c == '@') return LexMeshRef();
  TokenKind kind;
  switch (c) {
    case '{': kind = TokenKind::kLBrace; break;
    case '}': kind = TokenKind::kRBrace; break;
    case '(': kind = TokenKind::kLParen; break;
    case ')': kind = TokenKind::kRParen; break;
    case '[': kind = TokenKind::kLBracket; break;
    case ']': kind = TokenKind::kRBracket; break;
    case '<': kind = TokenKind::kLAngle; break;
    case '>': kind = TokenKind::kRAngle; break;
    case ',': kind = TokenKind::kComma; break;
    case ':': kind = TokenKind::kColon; break;
    case '=': kind = TokenKind::kEqual; break;
    default: return Error(line, col, "unexpected character " + DescribeByte(c));
  }
  Advance();
  return Make(kind, begin, line, col);
}

// Numbers: -?[0-9]+ (.[0-9]+)? ([eE][+-]?[0-9]+)?, and -inf. The value is
// converted by the parser, which knows whether it wants an integer; here only
// the shape of the literal is checked, so that "12abc" is one bad number rather
// than a number followed by an identifier.
Token Lexer::LexNumber() {
  size_t begin = pos_;
  int line = line_;
  int col = col_;
  bool is_float = false;
  if (Peek() == '-') {
    Advance();
    if (Peek() == 'i' && Peek(1) == 'n' && Peek(2) == 'f' && !IsIdentChar(Peek(3))) {
      for (int i = 0; i < 3; ++i) Advance();
      return Make(TokenKind::kFloat, begin, line, col);
    }
    if (!IsDigitChar(Peek())) return Error(line, col, "expected a digit after '-'");
  }
  while (IsDigitChar(Peek())) Advance();
  if (Peek() == '.') {
    Advance();
    if (!IsDigitChar(Peek())) return Error(line, col, "bad number: expected a digit after '.'");
    while (IsDigitChar(Peek())) Advance();
    is_float = true;
  }
  if (Peek() == 'e' || Peek() == 'E') {
    Advance();
    if (Peek() == '+' || Peek() == '-') Advance();
    if (!IsDigitChar(Peek())) return Error(line, col, "bad number: expected exponent digits");
    while (IsDigitChar(Peek())) Advance();
    is_float = true;
  }
  if (IsIdentChar(Peek()) || Peek() == '.') {
    return Error(line, col, "bad number: unexpected " + DescribeByte(Peek()) + " in a number");
  }
  return Make(is_float ? TokenKind::kFloat : TokenKind::kInt, begin, line, col);
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

Token Lexer::LexIdentifier() {
  size_t begin = pos_;
  int line = line_;
  int col = col_;
  while (IsIdentChar(Peek())) Advance();
  return Make(TokenKind::kIdent, begin, line, col, std::string(text_.substr(begin, pos_ - begin)));
}

Token Lexer::LexValueRef() {
  size_t begin = pos_;
  int line = line_;
  int col = col_;
  Advance();  // '%'
  if (!IsDigitChar(Peek())) return Error(line, col, "expected a value number after '%'");
  size_t digits = pos_;
  while (IsDigitChar(Peek())) Advance();
  if (IsIdentChar(Peek())) return Error(line, col, "bad value reference: unexpected " + DescribeByte(Peek()));
  return Make(TokenKind::kValueRef, begin, line, col, std::string(text_.substr(digits, pos_ - digits)));
}

Token Lexer::LexMeshRef() {
  size_t begin = pos_;
  int line = line_;
  int col = col_;
  Advance();  // '@'
  std::string name;
  if (IsIdentStartChar(Peek())) {
    name = LexIdentifier().text;
  } else if (Peek() == '"') {
    Token quoted = LexString();
    if (quoted.kind == TokenKind::kError) return quoted;
    name = std::move(quoted.text);
  } else {
    return Error(line, col, "expected a mesh name after '@'");
  }
  return Make(TokenKind::kMeshRef, begin, line, col, std::move(name));
}

}  // namespace az::pir
