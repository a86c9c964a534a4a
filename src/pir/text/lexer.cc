#include "pir/text/lexer.h"

namespace az::pir {

namespace {
constexpr Lexer::FixedToken kFixedTokens[] = {
    {"{", TokenKind::kLBrace},   {"}", TokenKind::kRBrace},   {"(", TokenKind::kLParen}, {")", TokenKind::kRParen},
    {"[", TokenKind::kLBracket}, {"]", TokenKind::kRBracket}, {"<", TokenKind::kLAngle}, {">", TokenKind::kRAngle},
    {",", TokenKind::kComma},    {":", TokenKind::kColon},    {"=", TokenKind::kEqual},
};
}  // namespace

bool IsIdentifier(std::string_view s) {
  if (s.empty() || !IsIdentStartChar(s[0])) return false;
  for (char c : s) {
    if (!IsIdentChar(c)) return false;
  }
  return true;
}

std::string DescribeToken(const Token& token) {
  if (token.kind == TokenKind::kValueRef) return "'%" + token.text + "'";
  // A quoted mesh name may hold any byte; keep messages printable.
  if (token.kind == TokenKind::kMeshRef) {
    return IsIdentifier(token.text) ? "'@" + token.text + "'" : "a mesh reference";
  }
  return DescribeBasicToken(token);
}

Token Lexer::Next() {
  if (std::optional<Token> token = LexEndOrFixed(kFixedTokens)) return *token;
  Mark start = Here();
  char c = Peek();
  if (IsDigitChar(c) || c == '-') return LexNumber();
  if (c == '"') return LexString();
  if (IsIdentStartChar(c)) return LexIdentifier();
  if (c == '%') return LexNumberedRef(TokenKind::kValueRef, "value");
  if (c == '@') return LexMeshRef();
  return Error(start, "unexpected character " + DescribeByte(c));
}

// Numbers: -?[0-9]+ (.[0-9]+)? ([eE][+-]?[0-9]+)?, and -inf. The value is
// converted by the parser, which knows whether it wants an integer; here only
// the shape of the literal is checked, so that "12abc" is one bad number rather
// than a number followed by an identifier.
Token Lexer::LexNumber() {
  Mark start = Here();
  bool is_float = false;
  if (Peek() == '-') {
    Advance();
    if (Peek() == 'i' && Peek(1) == 'n' && Peek(2) == 'f' && !IsIdentChar(Peek(3))) {
      for (int i = 0; i < 3; ++i) Advance();
      return Make(TokenKind::kFloat, start);
    }
    if (!IsDigitChar(Peek())) return Error(start, "expected a digit after '-'");
  }
  while (IsDigitChar(Peek())) Advance();
  if (Peek() == '.') {
    Advance();
    if (!IsDigitChar(Peek())) return Error(start, "bad number: expected a digit after '.'");
    while (IsDigitChar(Peek())) Advance();
    is_float = true;
  }
  if (Peek() == 'e' || Peek() == 'E') {
    Advance();
    if (Peek() == '+' || Peek() == '-') Advance();
    if (!IsDigitChar(Peek())) return Error(start, "bad number: expected exponent digits");
    while (IsDigitChar(Peek())) Advance();
    is_float = true;
  }
  if (IsIdentChar(Peek()) || Peek() == '.') {
    return Error(start, "bad number: unexpected " + DescribeByte(Peek()) + " in a number");
  }
  return Make(is_float ? TokenKind::kFloat : TokenKind::kInt, start);
}

Token Lexer::LexIdentifier() {
  Mark start = Here();
  while (IsIdentChar(Peek())) Advance();
  return Make(TokenKind::kIdent, start, std::string(SpelledSince(start)));
}

Token Lexer::LexMeshRef() {
  Mark start = Here();
  Advance();  // '@'
  std::string name;
  if (IsIdentStartChar(Peek())) {
    name = LexIdentifier().text;
  } else if (Peek() == '"') {
    Token quoted = LexString();
    if (quoted.kind == TokenKind::kError) return quoted;
    name = std::move(quoted.text);
  } else {
    return Error(start, "expected a mesh name after '@'");
  }
  return Make(TokenKind::kMeshRef, start, std::move(name));
}

}  // namespace az::pir
