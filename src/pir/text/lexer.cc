#include "pir/text/lexer.h"

#include <cstdio>

namespace az::pir {

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

bool IsIdentifier(std::string_view s) {
  if (s.empty() || !IsIdentStart(s[0])) return false;
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
  if (IsDigit(c) || c == '-') return LexNumber();
  if (c == '"') return LexString();
  if (IsIdentStart(c)) return LexIdentifier();
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
    if (!IsDigit(Peek())) return Error(line, col, "expected a digit after '-'");
  }
  while (IsDigit(Peek())) Advance();
  if (Peek() == '.') {
    Advance();
    if (!IsDigit(Peek())) return Error(line, col, "bad number: expected a digit after '.'");
    while (IsDigit(Peek())) Advance();
    is_float = true;
  }
  if (Peek() == 'e' || Peek() == 'E') {
    Advance();
    if (Peek() == '+' || Peek() == '-') Advance();
    if (!IsDigit(Peek())) return Error(line, col, "bad number: expected exponent digits");
    while (IsDigit(Peek())) Advance();
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
  if (!IsDigit(Peek())) return Error(line, col, "expected a value number after '%'");
  size_t digits = pos_;
  while (IsDigit(Peek())) Advance();
  if (IsIdentChar(Peek())) return Error(line, col, "bad value reference: unexpected " + DescribeByte(Peek()));
  return Make(TokenKind::kValueRef, begin, line, col, std::string(text_.substr(digits, pos_ - digits)));
}

Token Lexer::LexMeshRef() {
  size_t begin = pos_;
  int line = line_;
  int col = col_;
  Advance();  // '@'
  std::string name;
  if (IsIdentStart(Peek())) {
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
