#include "frontend/stablehlo/mlir_lexer.h"

namespace az::frontend::shlo {

namespace {
bool IsBareChar(char c) { return IsIdentChar(c) || c == '$' || c == '.'; }
bool IsSuffixChar(char c) { return IsIdentChar(c) || c == '$' || c == '.' || c == '-'; }

// Longer spellings first: "{-#" before "{"; "#-}" and "->" before the names
// and numbers that '#' and '-' start.
constexpr Lexer::FixedToken kFixedTokens[] = {
    {"{-#", TokenKind::kResourceBegin}, {"#-}", TokenKind::kResourceEnd}, {"->", TokenKind::kArrow},
    {"{", TokenKind::kLBrace},          {"}", TokenKind::kRBrace},        {"(", TokenKind::kLParen},
    {")", TokenKind::kRParen},          {"[", TokenKind::kLBracket},      {"]", TokenKind::kRBracket},
    {"<", TokenKind::kLAngle},          {">", TokenKind::kRAngle},        {",", TokenKind::kComma},
    {":", TokenKind::kColon},           {"=", TokenKind::kEqual},         {"?", TokenKind::kQuestion},
    {"*", TokenKind::kStar},
};
}  // namespace

std::string DescribeToken(const Token& token) { return DescribeBasicToken(token); }

Token Lexer::Next() {
  if (std::optional<Token> token = LexEndOrFixed(kFixedTokens)) return *token;
  Mark start = Here();
  char c = Peek();
  if (IsDigitChar(c) || (c == '-' && IsDigitChar(Peek(1)))) return LexNumber();
  if (c == '"') return LexString(Escapes::kMlir);
  if (IsIdentStartChar(c)) {
    while (IsBareChar(Peek())) Advance();
    return Make(TokenKind::kIdent, start, std::string(SpelledSince(start)));
  }
  switch (c) {
    case '%': return LexPrefixed(TokenKind::kValueRef);
    case '@': return LexPrefixed(TokenKind::kSymbol);
    case '#': return LexPrefixed(TokenKind::kHashIdent);
    case '!': return LexPrefixed(TokenKind::kBangIdent);
    case '^': return LexPrefixed(TokenKind::kCaretIdent);
    default: return Error(start, "unexpected character " + DescribeByte(c));
  }
}

// -?[0-9]+(.[0-9]*)?([eE][+-]?[0-9]+)? or 0x[hex]+. A letter right after the
// number belongs to the next token ("4x2xi64" inside a type is 4, x2xi64).
Token Lexer::LexNumber() {
  Mark start = Here();
  if (Peek() == '0' && Peek(1) == 'x' && HexDigitValue(Peek(2)) >= 0) {
    Advance();
    Advance();
    while (HexDigitValue(Peek()) >= 0) Advance();
    return Make(TokenKind::kInt, start);
  }
  bool is_float = false;
  if (Peek() == '-') Advance();
  while (IsDigitChar(Peek())) Advance();
  if (Peek() == '.') {
    is_float = true;
    Advance();
    while (IsDigitChar(Peek())) Advance();
  }
  if ((Peek() == 'e' || Peek() == 'E') &&
      (IsDigitChar(Peek(1)) || ((Peek(1) == '+' || Peek(1) == '-') && IsDigitChar(Peek(2))))) {
    is_float = true;
    Advance();
    if (Peek() == '+' || Peek() == '-') Advance();
    while (IsDigitChar(Peek())) Advance();
  }
  return Make(is_float ? TokenKind::kFloat : TokenKind::kInt, start);
}

Token Lexer::LexPrefixed(TokenKind kind) {
  Mark start = Here();
  char prefix = Peek();
  Advance();
  if (kind == TokenKind::kSymbol && Peek() == '"') {
    std::string value;
    ScanError error;
    if (!ScanQuotedString(&value, &error, Escapes::kMlir)) return Error(error);
    return Make(kind, start, std::move(value));
  }
  Mark name = Here();
  while (IsSuffixChar(Peek())) Advance();
  if (pos_ == name.pos) return Error(start, std::string("expected a name after '") + prefix + "'");
  if (kind == TokenKind::kValueRef && Peek() == '#' && IsDigitChar(Peek(1))) {
    Advance();
    while (IsDigitChar(Peek())) Advance();
  }
  return Make(kind, start, std::string(SpelledSince(name)));
}

bool Lexer::ReadRawAngleBody(std::string_view* body, int* line, int* col, std::string* error) {
  while (!AtEnd() && (Peek() == ' ' || Peek() == '\t')) Advance();
  *line = line_;
  *col = col_;
  if (Peek() != '<') {
    *error = "expected '<'";
    return false;
  }
  Advance();
  size_t begin = pos_;
  int depth = 1;
  while (!AtEnd()) {
    char c = Peek();
    if (c == '\n' || c == '{' || c == '}' || c == ';') break;  // a type never spans these
    if (c == '-' && Peek(1) == '>') {
      Advance();
    } else if (c == '<') {
      if (++depth > 64) break;
    } else if (c == '>') {
      if (--depth == 0) {
        *body = text_.substr(begin, pos_ - begin);
        Advance();
        return true;
      }
    }
    Advance();
  }
  *error = "unterminated type: expected '>'";
  return false;
}

}  // namespace az::frontend::shlo
