// The lexer of CIR text (see parser.h for the grammar).
//
// It differs from the PIR lexer (pir/text/lexer.h) where CIR text follows XLA's
// spelling: identifiers may contain inner hyphens ("all-gather-start"), and
// there are the tokens "->" and "<=" (iota replica groups); numbers are
// integers only. Strings, comments and errors behave as in PIR: the same
// escapes (\" \\ \n \t \xHH, what pir::QuoteString prints), // comments to the
// end of the line, and a lexical error is a token of kind kError whose `text`
// is the message.
//
// Tokens are produced on demand so that the parser reports the first error in
// text order; every call consumes input or returns kEof/kError at a fixed
// position, so a caller that stops at the first kError cannot loop. Positions
// are 1-based; columns count bytes.
#pragma once

#include <string>
#include <string_view>

#include "support/text_scanner.h"
#include "support/token_parser.h"

namespace az::cir {

enum class TokenKind {
  kEof,
  kError,      // text: the message
  kIdent,      // [A-Za-z_][A-Za-z0-9_]* ('-' [A-Za-z_][A-Za-z0-9_]*)*
  kString,     // text: the decoded contents
  kInt,        // spelling: -?[0-9]+
  kBufferRef,  // %N; text: the digits
  kLBrace,
  kRBrace,
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kComma,
  kEqual,
  kArrow,      // ->
  kLessEqual,  // <=
};

using Token = BasicToken<TokenKind>;  // `text` as TokenKind says

// "'}'", "identifier 'foo'", "end of input": a token for "expected X, found Y".
std::string DescribeToken(const Token& token);

class Lexer : public BasicLexer<Token> {
 public:
  using BasicLexer::BasicLexer;

  Token Next();

 private:
  Token LexNumber();
  Token LexIdentifier();
};

}  // namespace az::cir
