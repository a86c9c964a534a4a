// MLIR text -> a small AST (the subset `jax.jit(f).lower(...).as_text()` and
// torch-xla print; formats.md §3).
//
// Grammar (recursive descent, one pass, linear in the input):
//   file      := item*
//   item      := '#'alias '=' tree+ | module | func | 'sdy.mesh' @name '=' tree+ | op | '{-#' ... '#-}'
//   module    := 'module' [@name] ['attributes' dict] '{' item* '}' [loc]
//   func      := 'func.func' [public|private|nested] @name '(' arg,* ')' ['->' results]
//                ['attributes' dict] ['{' block+ '}'] [loc]
//   arg       := %name ':' type [dict] [loc]
//   op        := [results '='] (generic | pretty) [loc]
//   generic   := "name" '(' %v,* ')' ['<' dict '>'] ['(' region,* ')'] [dict] ':' functype
//   pretty    := name body* [':' types] ['reducer' '(' arg,* ')' region]
//   body      := region | '(' arg,* ')' | tree         (up to a top-level ':')
//   region    := '{' block+ '}';  block := ['^'label ['(' arg,* ')'] ':'] op*
//   tree      := token | '(' tree* ')' | '[' tree* ']' | '{' tree* '}' | '<' tree* '>'
// Attribute values and the pretty forms' operands/attributes stay token trees:
// the importer reads them per op. Types become pir::TensorType (element types
// mapped to the nearest PIR dtype; see ParseTensorType).
//
// Limits: brackets and regions nest at most 256 deep; a shape has at most 64
// dims and 2^50 elements (the PIR verifier's limits). Errors are located
// (file:line:col, the line, a caret).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/stablehlo/mlir_lexer.h"
#include "pir/ir/types.h"
#include "support/status.h"

namespace az::frontend::shlo {

constexpr int kMaxNesting = 256;

// A token, or a bracketed group of trees (kind kLParen/kLBracket/kLBrace/kLAngle).
struct Tree {
  TokenKind kind = TokenKind::kEof;
  std::string text;      // Token::text (names, decoded strings)
  std::string spelling;  // Token::spelling (numbers, punctuation)
  int line = 0, col = 0;
  std::vector<Tree> children;

  bool IsGroup(TokenKind open) const { return kind == open; }
  bool IsIdent(std::string_view word) const { return kind == TokenKind::kIdent && text == word; }
};
using Trees = std::vector<Tree>;

struct NamedAttr {
  std::string name;
  Trees value;  // empty: a unit attribute
  int line = 0, col = 0;
};
using AttrDict = std::vector<NamedAttr>;
const NamedAttr* FindAttr(const AttrDict& dict, std::string_view name);

// loc(#alias) or loc(...): `alias` is set for the first form.
struct LocRef {
  std::string alias;
  Trees inline_loc;
};

struct BlockArg {
  std::string name;  // without '%'
  pir::TensorType type;
  AttrDict attrs;
  LocRef loc;
  int line = 0, col = 0;
};

struct Operation;
struct Block {
  std::vector<BlockArg> args;
  std::vector<Operation> ops;
};
struct Region {
  std::vector<Block> blocks;
  int line = 0, col = 0;
};

struct ResultGroup {
  std::string name;  // "0" for %0:2
  int64_t count = 1;
};

struct Operation {
  std::string name;  // "stablehlo.add", "func.call", "return"
  bool generic = false;
  std::vector<ResultGroup> results;
  std::vector<std::string> operands;             // generic form: operand names (without '%')
  Trees body;                                    // pretty form: the trees before ':'
  std::vector<std::vector<BlockArg>> arg_lists;  // pretty form: "(%a: t, ...)" lists
  AttrDict properties;                           // generic "<{...}>"
  AttrDict attrs;                                // "{...}" (generic, or a pretty form's trailing dict)
  std::vector<Region> regions;
  bool functional_type = false;  // "(ins) -> outs"; else `result_types` lists the plain types
  std::vector<pir::TensorType> input_types, result_types;
  LocRef loc;
  int line = 0, col = 0;

  int64_t NumResults() const;
};

struct FuncResult {
  pir::TensorType type;
  AttrDict attrs;
};

struct Func {
  std::string name;
  std::string visibility;  // "public", "private", "nested" or ""
  std::vector<BlockArg> args;
  std::vector<FuncResult> results;
  AttrDict attrs;
  bool has_body = false;
  Region body;
  int line = 0, col = 0;
};

struct MeshDecl {
  std::string name;
  Trees value;  // <["x"=2, "y"=4]>
  int line = 0, col = 0;
};

struct Module {
  std::string name;
  AttrDict attrs;
  std::vector<MeshDecl> meshes;
  std::vector<Func> funcs;
  std::map<std::string, Trees> loc_aliases;  // "loc12" -> the trees after '='
};

// Parses a whole file. `file_name` names the file in diagnostics.
StatusOr<Module> ParseMlir(std::string_view text, const std::string& file_name);

// Token trees of a text fragment (an attribute held in a string, e.g.
// mhlo.frontend_attributes' "#sdy.sharding_per_value<[...]>").
StatusOr<Trees> ParseTrees(std::string_view text, const std::string& file_name);

// "2x3xbf16" (a tensor<> body) or "f32" -> a PIR type. Errors are plain messages.
StatusOr<pir::TensorType> ParseTensorType(std::string_view body, bool scalar_only);

}  // namespace az::frontend::shlo
