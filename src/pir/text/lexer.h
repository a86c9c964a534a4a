// The lexer of PIR text (see parser.h for the grammar).
//
// Tokens are produced one at a time, on demand, so that the parser reports the
// first error in text order: a lexical error at line 90 must not win over a
// syntax error at line 3. A lexical error is a token of kind kError whose
// `text` is the message and whose position is where the problem is; the lexer
// never fails otherwise and always reaches kEof (every call consumes input or
// returns kEof/kError at a fixed position, so a caller that stops at the first
// kError cannot loop).
//
// Positions are 1-based; columns count bytes, which is what the caret line of
// a rendered diagnostic counts as well.
#pragma once

#include <string>
#include <string_view>

#include "support/text_scanner.h"
#include "support/token_parser.h"

namespace az::pir {

enum class TokenKind {
  kEof,
  kError,     // text: the message
  kIdent,     // [A-Za-z_][A-Za-z0-9_]*: keywords, op kinds, dtypes, attribute keys
  kString,    // text: the decoded contents
  kInt,       // spelling: -?[0-9]+
  kFloat,     // spelling: -?digits(.digits)?([eE][+-]?digits)? with a '.' or exponent, or -inf
  kValueRef,  // %N; text: the digits
  kMeshRef,   // @name or @"name"; text: the (decoded) name
  kLBrace,
  kRBrace,
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kLAngle,
  kRAngle,
  kComma,
  kColon,
  kEqual,
};

using Token = BasicToken<TokenKind>;  // `text` as TokenKind says

// True for [A-Za-z_][A-Za-z0-9_]*: the names that print without quotes.
bool IsIdentifier(std::string_view s);

// "'}'", "identifier 'foo'", "end of input": a token for "expected X, found Y".
std::string DescribeToken(const Token& token);

class Lexer : public BasicLexer<Token> {
 public:
  using BasicLexer::BasicLexer;

  Token Next();

 private:
  Token LexNumber();
  Token LexIdentifier();
  Token LexMeshRef();
};

}  // namespace az::pir
