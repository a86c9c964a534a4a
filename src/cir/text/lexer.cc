#include "cir/text/lexer.h"

namespace az::cir {

namespace {
// "->" before the numbers that '-' starts.
constexpr Lexer::FixedToken kFixedTokens[] = {
    {"->", TokenKind::kArrow},    {"<=", TokenKind::kLessEqual}, {"{", TokenKind::kLBrace}, {"}", TokenKind::kRBrace},
    {"(", TokenKind::kLParen},    {")", TokenKind::kRParen},     {"[", TokenKind::kLBracket},
    {"]", TokenKind::kRBracket},  {",", TokenKind::kComma},      {"=", TokenKind::kEqual},
};
}  // namespace

std::string DescribeToken(const Token& token) {
  if (token.kind == TokenKind::kBufferRef) return "'%" + token.text + "'";
  return DescribeBasicToken(token);
}

Token Lexer::Next() {
  if (std::optional<Token> token = LexEndOrFixed(kFixedTokens)) return *token;
  Mark start = Here();
  char c = Peek();
  if (IsDigitChar(c) || c == '-') return LexNumber();
  if (c == '"') return LexString();
  if (IsIdentStartChar(c)) return LexIdentifier();
  if (c == '%') return LexNumberedRef(TokenKind::kBufferRef, "buffer");
  return Error(start, "unexpected character " + DescribeByte(c));
}

// -?[0-9]+, checked for shape only ("12abc" is one bad number, not a number and
// an identifier); the parser converts the value and checks its range.
Token Lexer::LexNumber() {
  Mark start = Here();
  if (Peek() == '-') {
    Advance();
    if (!IsDigitChar(Peek())) return Error(start, "expected a digit or '>' after '-'");
  }
  while (IsDigitChar(Peek())) Advance();
  if (IsIdentChar(Peek()) || Peek() == '.') {
    return Error(start, "bad number: unexpected " + DescribeByte(Peek()) + " in an integer");
  }
  return Make(TokenKind::kInt, start);
}

// Inner hyphens join words ("collective-permute-done"); a hyphen that is not
// followed by a letter ends the identifier, so "x->" is "x" then "->".
Token Lexer::LexIdentifier() {
  Mark start = Here();
  while (true) {
    while (IsIdentChar(Peek())) Advance();
    if (Peek() != '-' || !IsIdentStartChar(Peek(1))) break;
    Advance();
  }
  return Make(TokenKind::kIdent, start, std::string(SpelledSince(start)));
}

}  // namespace az::cir
