// The lexer of MLIR text as JAX and torch-xla print it (StableHLO, Shardy,
// func dialects); see mlir_parser.h for the grammar it serves.
//
// Tokens are made on demand, so that the first error in text order is the one
// reported. A lexical error is a token of kind kError whose text is the
// message; every call consumes input or returns kEof/kError, so a parser that
// stops at the first kError cannot loop.
//
// MLIR specifics: bare identifiers hold dots and '$' ("stablehlo.add",
// "__cudnn$fmha"); value names are %name with an optional #N result index
// ("%0#1"); strings use \" \\ \n \t and \HH escapes; numbers may be hex
// ("0xFF800000", the bit pattern of a float). `{-#` and `#-}` delimit the
// file-level resource section. Tensor types ("2x3xbf16") are not tokens: the
// parser reads a type's angle-bracket body raw (ReadRawAngleBody).
#pragma once

#include <string>
#include <string_view>

#include "support/text_scanner.h"
#include "support/token_parser.h"

namespace az::frontend::shlo {

enum class TokenKind {
  kEof,
  kError,       // text: the message
  kIdent,       // bare identifier: [A-Za-z_][A-Za-z0-9_$.]*
  kString,      // text: the decoded contents
  kInt,         // spelling: -?[0-9]+ or 0x[0-9A-Fa-f]+
  kFloat,       // spelling: -?digits.digits[e[+-]digits]
  kValueRef,    // %name or %name#N; text: the name without '%' ("0#1")
  kSymbol,      // @name or @"name"; text: the name
  kHashIdent,   // #name ("#loc3", "#sdy.sharding"); text: without '#'
  kBangIdent,   // !name (a dialect type); text: without '!'
  kCaretIdent,  // ^bb0; text: without '^'
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
  kArrow,          // ->
  kQuestion,       // ?
  kStar,           // *
  kResourceBegin,  // {-#
  kResourceEnd,    // #-}
};

using Token = BasicToken<TokenKind>;

// "'}'", "identifier 'foo'", "end of input": a token for "expected X, found Y".
std::string DescribeToken(const Token& token);

class Lexer : public BasicLexer<Token> {
 public:
  using BasicLexer::BasicLexer;

  Token Next();

  // After a type keyword ("tensor"), with no token read past it: reads
  // `<...>` (balanced, any content) and returns the bytes between the angle
  // brackets. False, with `error` set, when there is no `<` or no matching `>`.
  bool ReadRawAngleBody(std::string_view* body, int* line, int* col, std::string* error);

 private:
  Token LexNumber();
  Token LexPrefixed(TokenKind kind);  // % @ # ! ^ names
};

}  // namespace az::frontend::shlo
