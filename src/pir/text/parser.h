// Parses the canonical text form of PIR (printer.h prints it).
//
//   // comments run from // to the end of the line
//   graph "toy" attributes {batch = 1} {
//     mesh @m = ["x"=2, "y"=4]
//     input %0 "x" : bf16[8,16] sharding<@m, [{"x"}, {}], replicated={"y"}>
//     param %1 "w" : bf16[16,32]
//     %2 = einsum "q" (%0, %1) {eq = "bd,de->be"} : bf16[8,32]
//     %3, %4 = custom "split" (%2) {target = "split2"} : bf16[8,16], bf16[8,16]
//     return %3, %4
//   }
//
// Grammar (tokens in lexer.h):
//   graph      := 'graph' STRING ('attributes' attr-dict)? '{' statement* return '}' EOF
//   statement  := mesh | leaf | op
//   mesh       := 'mesh' MESH '=' '[' (STRING '=' INT (',' STRING '=' INT)*)? ']'
//   leaf       := ('input' | 'param' | 'const' | 'opt_state') VALUE STRING ':' type sharding?
//   op         := (VALUE (',' VALUE)* '=')? IDENT STRING '(' (VALUE (',' VALUE)*)? ')' attr-dict?
//                 (':' type sharding? (',' type sharding?)*)?     -- types iff results
//   return     := 'return' (VALUE (',' VALUE)*)?
//   type       := IDENT '[' (INT (',' INT)*)? ']'                 -- dtype, dims >= 0
//   sharding   := 'sharding' '<' MESH ',' '[' (axes (',' axes)*)? ']' (',' 'replicated' '=' axes)? '>'
//   axes       := '{' (STRING (',' STRING)*)? '}'
//   attr-dict  := '{' (key '=' attr-value (',' key '=' attr-value)*)? '}'
//   key        := IDENT | STRING
//   attr-value := INT | FLOAT | STRING | 'true' | 'false' | 'inf' | 'nan' | '[' (INT (',' INT)*)? ']'
//
// Statements may come in any order before `return` (the printer emits meshes,
// then leaves, then ops). Value numbers are names, not ids: each must be
// defined once, before its first use, and is mapped to the next dense ValueId
// in order of definition. Ops and leaves get SourceLocation::Text at their
// first token.
//
// What is checked: syntax, value definition and use, that an op declares one
// type per result, op kinds and dtypes, and resource limits (an input of at
// most 1 GiB; rank <= 64, at most 2^62 elements and 2^62 bytes per tensor, so
// that TensorType::NumBytes cannot overflow). What is not: shapes, operand
// counts, attributes, mesh and axis names -- the verifier's job.
//
// Errors: the first error stops the parse and is returned as a Status whose
// message is the rendered diagnostic (file:line:col, the source line, a caret).
// The code is kParseError, or kResourceExhausted for an input over the limits.
// No input makes the parser crash, assert, or take more than linear time.
#pragma once

#include <string>
#include <string_view>

#include "pir/ir/graph.h"
#include "support/status.h"

namespace az::pir {

StatusOr<Graph> ParseGraph(std::string_view text, std::string file_name = "<input>");

}  // namespace az::pir
