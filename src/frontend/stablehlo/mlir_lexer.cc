#include "frontend/stablehlo/mlir_lexer.h"

namespace az::frontend::shlo {

namespace {
bool IsBareChar(char c) { return IsIdentChar(c) || c == '$' || c == '.'; }
bool IsSuffixChar(char c) { return IsIdentChar(c) || c == '$' || c == '.' || c == '-'; }
int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::string DescribeToken(const Token& token) {
  switch (token.kind) {
    case TokenKind::kEof: return "end of input";
    case TokenKind::kError: return "an invalid token";
    case TokenKind::kIdent: return "identifier '" + token.text + "'";
    case TokenKind::kString: return "a string";
    case TokenKind::kInt: return "integer " + std::string(token.spelling);
    case TokenKind::kFloat: return "float " + std::string(token.spelling);
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
  if (IsDigitChar(c) || (c == '-' && IsDigitChar(Peek(1)))) return LexNumber();
  if (c == '"') return LexString();
  if (IsIdentStartChar(c)) {
    while (IsBareChar(Peek())) Advance();
    return Make(TokenKind::kIdent, begin, line, col, std::string(text_.substr(begin, pos_ - begin)));
  }
  if (c == '{' && Peek(1) == '-' && Peek(2) == '#') {
    for (int i = 0; i < 3; ++i) Advance();
    return Make(TokenKind::kResourceBegin, begin, line, col);
  }
  if (c == '#' && Peek(1) == '-' && Peek(2) == '}') {
    for (int i = 0; i < 3; ++i) Advance();
    return Make(TokenKind::kResourceEnd, begin, line, col);
  }
  if (c == '-' && Peek(1) == '>') {
    Advance();
    Advance();
    return Make(TokenKind::kArrow, begin, line, col);
  }
  switch (c) {
    case '%': return LexPrefixed(TokenKind::kValueRef);
    case '@': return LexPrefixed(TokenKind::kSymbol);
    case '#': return LexPrefixed(TokenKind::kHashIdent);
    case '!': return LexPrefixed(TokenKind::kBangIdent);
    case '^': return LexPrefixed(TokenKind::kCaretIdent);
    default: break;
  }
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
    case '?': kind = TokenKind::kQuestion; break;
    case '*': kind = TokenKind::kStar; break;
    default: return Error(line, col, "unexpected character " + DescribeByte(c));
  }
  Advance();
  return Make(kind, begin, line, col);
}

// -?[0-9]+(.[0-9]*)?([eE][+-]?[0-9]+)? or 0x[hex]+. A letter right after the
// number belongs to the next token ("4x2xi64" inside a type is 4, x2xi64).
Token Lexer::LexNumber() {
  size_t begin = pos_;
  int line = line_;
  int col = col_;
  if (Peek() == '0' && Peek(1) == 'x' && HexDigit(Peek(2)) >= 0) {
    Advance();
    Advance();
    while (HexDigit(Peek()) >= 0) Advance();
    return Make(TokenKind::kInt, begin, line, col);
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
  return Make(is_float ? TokenKind::kFloat : TokenKind::kInt, begin, line, col);
}

bool Lexer::ScanMlirString(std::string* value, ScanError* error) {
  int line = line_;
  int col = col_;
  Advance();  // the opening quote
  value->clear();
  while (true) {
    if (AtEnd() || Peek() == '\n') {
      *error = {line, col, "unterminated string"};
      return false;
    }
    char c = Peek();
    if (c == '"') break;
    if (c != '\\') {
      *value += c;
      Advance();
      continue;
    }
    int escape_line = line_;
    int escape_col = col_;
    Advance();
    char e = Peek();
    if (e == '"' || e == '\\') {
      *value += e;
    } else if (e == 'n') {
      *value += '\n';
    } else if (e == 't') {
      *value += '\t';
    } else if (HexDigit(e) >= 0 && HexDigit(Peek(1)) >= 0) {
      *value += static_cast<char>(HexDigit(e) * 16 + HexDigit(Peek(1)));
      Advance();
    } else {
      if (AtEnd() || e == '\n') {
        *error = {line, col, "unterminated string"};
        return false;
      }
      *error = {escape_line, escape_col, "unknown escape sequence \\ followed by " + DescribeByte(e)};
      return false;
    }
    Advance();
  }
  Advance();  // the closing quote
  return true;
}

Token Lexer::LexString() {
  size_t begin = pos_;
  int line = line_;
  int col = col_;
  std::string value;
  ScanError error;
  if (!ScanMlirString(&value, &error)) return Error(error.line, error.col, error.message);
  return Make(TokenKind::kString, begin, line, col, std::move(value));
}

Token Lexer::LexPrefixed(TokenKind kind) {
  size_t begin = pos_;
  int line = line_;
  int col = col_;
  char prefix = Peek();
  Advance();
  if (kind == TokenKind::kSymbol && Peek() == '"') {
    std::string value;
    ScanError error;
    if (!ScanMlirString(&value, &error)) return Error(error.line, error.col, error.message);
    return Make(kind, begin, line, col, std::move(value));
  }
  size_t name_begin = pos_;
  while (IsSuffixChar(Peek())) Advance();
  if (pos_ == name_begin) return Error(line, col, std::string("expected a name after '") + prefix + "'");
  if (kind == TokenKind::kValueRef && Peek() == '#' && IsDigitChar(Peek(1))) {
    Advance();
    while (IsDigitChar(Peek())) Advance();
  }
  return Make(kind, begin, line, col, std::string(text_.substr(name_begin, pos_ - name_begin)));
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
