// The token-level half of the hand-written parsers of the text formats (PIR,
// CIR): a token type over a format's own kinds, and a parser base holding the
// source, the lexer and the current token, with located errors.
//
// A format provides an enum TokenKind with at least kEof, kError, kIdent,
// kInt and kString; a Lexer with `Token Next()`; and a free function
// `std::string DescribeToken(const Token&)` (found by argument lookup) for
// "expected X, found Y" messages, which DescribeBasicToken writes for the kinds
// every format has.
#pragma once

#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "support/diagnostic.h"
#include "support/status.h"

namespace az {

template <typename Kind>
struct BasicToken {
  Kind kind = Kind::kEof;
  std::string_view spelling;  // the raw source bytes of the token
  std::string text;           // decoded contents (strings), the message (errors), the name (identifiers)
  int line = 1;
  int col = 1;
};

// `spelling` read whole as a T (an integer, a double) by std::from_chars, so
// in the C locale; nullopt when it is not one or is out of T's range.
template <typename T>
std::optional<T> FromChars(std::string_view spelling) {
  T value{};
  const char* end = spelling.data() + spelling.size();
  auto [ptr, ec] = std::from_chars(spelling.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// "end of input", "identifier 'foo'", "integer 12", "float 1.5" (a format with
// kFloat), "a string"; any other token as its spelling in quotes: "'}'".
template <typename Kind>
std::string DescribeBasicToken(const BasicToken<Kind>& token) {
  if (token.kind == Kind::kEof) return "end of input";
  if (token.kind == Kind::kError) return "an invalid token";
  if (token.kind == Kind::kIdent) return "identifier '" + token.text + "'";
  if (token.kind == Kind::kString) return "a string";
  if (token.kind == Kind::kInt) return "integer " + std::string(token.spelling);
  if constexpr (requires { Kind::kFloat; }) {
    if (token.kind == Kind::kFloat) return "float " + std::string(token.spelling);
  }
  return "'" + std::string(token.spelling) + "'";
}

template <typename Lexer, typename Token>
class TokenParser {
 public:
  TokenParser(std::string_view text, std::string file_name)
      : source_(std::move(file_name), std::string(text)), lexer_(source_.text()) {
    Advance();
  }

  const SourceBuffer& source() const { return source_; }

 protected:
  using Kind = decltype(Token{}.kind);

  void Advance() {
    if (tok_.kind != Kind::kEof) {
      prev_end_line_ = tok_.line;
      prev_end_col_ = tok_.col + static_cast<int>(tok_.spelling.size());
    }
    tok_ = lexer_.Next();
  }
  bool At(Kind kind) const { return tok_.kind == kind; }
  bool AtKeyword(std::string_view word) const { return tok_.kind == Kind::kIdent && tok_.text == word; }

  SourceLocation Loc(const Token& token) const { return SourceLocation::Text(source_.name(), token.line, token.col); }
  Status ErrorAt(const Token& token, const std::string& message, StatusCode code = StatusCode::kParseError) const {
    return LocatedError(code, Loc(token), message, &source_);
  }
  // An error about the current token. A lexical error there wins: it is the
  // real problem, and "expected X, found an invalid token" would hide it. At the
  // end of input the caret goes just after the last token, where the missing
  // text belongs (the end-of-input position often has no source line to show).
  Status ErrorHere(const std::string& message) const {
    if (tok_.kind == Kind::kError) return ErrorAt(tok_, tok_.text);
    if (tok_.kind == Kind::kEof && prev_end_line_ > 0) {
      return LocatedError(StatusCode::kParseError, SourceLocation::Text(source_.name(), prev_end_line_, prev_end_col_),
                          message, &source_);
    }
    return ErrorAt(tok_, message);
  }
  Status Expected(const std::string& what) const {
    return ErrorHere("expected " + what + ", found " + DescribeToken(tok_));
  }
  Status Expect(Kind kind, const char* what) {
    if (!At(kind)) return Expected(what);
    Advance();
    return Status::Ok();
  }
  Status ExpectKeyword(std::string_view word) {
    if (!AtKeyword(word)) return Expected("'" + std::string(word) + "'");
    Advance();
    return Status::Ok();
  }
  StatusOr<int64_t> ParseInt(const char* what) {
    if (!At(Kind::kInt)) return Expected(what);
    std::optional<int64_t> value = FromChars<int64_t>(tok_.spelling);
    if (!value) return ErrorAt(tok_, "integer literal out of range");
    Advance();
    return *value;
  }
  // The number of the current %N reference token (its text is the digits);
  // `out_of_range` is the error for one past int64.
  StatusOr<int64_t> RefNumber(const char* out_of_range) const {
    std::optional<int64_t> number = FromChars<int64_t>(tok_.text);
    if (!number) return ErrorAt(tok_, out_of_range);
    return *number;
  }
  StatusOr<std::string> ParseString(const char* what) {
    if (!At(Kind::kString)) return Expected(what);
    std::string value = std::move(tok_.text);
    Advance();
    return value;
  }

  SourceBuffer source_;
  Lexer lexer_;
  Token tok_;
  int prev_end_line_ = 0;
  int prev_end_col_ = 0;
};

}  // namespace az
