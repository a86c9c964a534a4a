// Parses the canonical text form of CIR (printer.h prints it).
//
//   // comments run from // to the end of the line
//   program "wan2.1-t2v-14b:ulysses=y" devices = 8 mesh = "x=2,y=4" {
//     buffer %0 "latent" input bf16[1,16,21,90,160]
//     buffer %1 "blocks.0.q.weight" param bf16[5120,5120]
//     buffer %2 "blocks.0.q" activation bf16[1,9450,5120]
//     buffer %3 "a2a.0" communication bf16[1,75600,640]
//     kernel "blocks.0.self_attn.q" matmul (%0, %1) -> (%2) {flops = 123, read = 456, written = 789, origin = "q"}
//     all-to-all-start "a2a.0" (%2) -> (%3) {bytes = 1000, groups = [2,4]<=[8]}
//     all-to-all-done "a2a.0.done" start = "a2a.0"
//     all-reduce "ar.1" (%3) -> (%3) {bytes = 1000, groups = {{0,1,2,3},{4,6},{5,7}}}
//     collective-permute "cp.2" (%2) -> (%3) {bytes = 10, pairs = {{0,1},{1,0}}}
//     outputs (%3)
//   }
//
// Grammar (tokens in lexer.h; COLLECTIVE is a CollectiveKindName such as
// all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute,
// broadcast):
//   program    := 'program' STRING 'devices' '=' INT ('mesh' '=' STRING)? '{' statement* outputs '}' EOF
//   statement  := buffer | kernel | collective | done
//   buffer     := 'buffer' BUFFER STRING buffer-kind IDENT '[' (INT (',' INT)*)? ']'   -- dtype, dims >= 0
//   buffer-kind:= 'param' | 'input' | 'activation' | 'communication' | 'const' | 'opt_state' | 'grad'
//   kernel     := 'kernel' STRING kernel-kind lists '{' attrs '}'
//   kernel-kind:= 'matmul' | 'attention' | 'convolution' | 'elementwise' | 'norm' | 'reduce' | 'copy' | 'custom'
//   collective := (COLLECTIVE | COLLECTIVE '-start') STRING lists '{' attrs '}'
//   done       := COLLECTIVE '-done' STRING lists? 'start' '=' STRING ('{' attrs '}')?
//   lists      := '(' refs? ')' '->' '(' refs? ')'            -- operands read -> results written
//   refs       := BUFFER (',' BUFFER)*
//   outputs    := 'outputs' '(' refs? ')'
//   attrs      := (IDENT '=' value (',' IDENT '=' value)*)?
//   groups     := '{' (ids (',' ids)*)? '}'
//               | '[' INT ',' INT ']' '<=' '[' INT (',' INT)* ']' ('T' '(' INT (',' INT)* ')')?
//   ids        := '{' (INT (',' INT)*)? '}'
//   pairs      := '{' ('{' INT ',' INT '}' (',' '{' INT ',' INT '}')*)? '}'
//   dims       := '[' (INT (',' INT)*)? ']'                  -- at most 8
// Attributes, each at most once, in any order (the printer uses this one):
//   kernel     flops = INT, read = INT, written = INT (all required), dims = dims,
//              precision = IDENT (a dtype; absent: bf16), origin = STRING
//   collective bytes = INT and groups = groups (collective-permute: pairs = pairs)
//              (required), origin = STRING
//   done       origin = STRING
// The iota form of groups is XLA's (collective.h): [G,S]<=[dims]T(perm) is
// iota(prod dims) reshaped to dims, transposed by perm, cut into G groups of S.
//
// Statements may come in any order before `outputs` (the printer emits the
// buffers first). Buffer numbers are names, not ids: each is defined once,
// before its first use, and maps to the next dense buffer id in order of
// definition. Instruction names are unique; a done names its start, which may
// be anywhere in the program (the verifier checks that it comes earlier).
// Buffers and instructions get SourceLocation::Text at their first token.
//
// What is checked: syntax, buffer definitions and uses, unique instruction
// names, that a done's start names an instruction, required and known
// attributes, dtypes and kinds, the iota form, and resource limits (an input of
// at most 1 GiB; at most 10^6 buffers and 10^6 instructions; devices, iota
// sizes and device ids at most 2^20, iota forms of at most 20 dims; at most
// 2^22 replica-group and pair ids in the whole program; rank <= 64, at most
// 2^62 elements and 2^62 bytes per buffer). What is not: the program invariants of program.h (ids in range,
// disjoint groups, reads after writes, async pairing, non-negative sizes) --
// VerifyProgram's job, which ParseAndVerifyProgram runs too.
//
// Errors: the first error stops the parse and is returned as a Status whose
// message is the rendered diagnostic (file:line:col, the source line, a caret).
// The code is kParseError, or kResourceExhausted for an input over the limits.
// No input makes the parser crash, assert, or take more than linear time.
#pragma once

#include <string>
#include <string_view>

#include "cir/program.h"
#include "support/status.h"

namespace az::cir {

StatusOr<Program> ParseProgram(std::string_view text, std::string file_name = "<input>");

// ParseProgram, then VerifyProgram with the diagnostics rendered against the
// text. A verifier error keeps the verifier's code (kInvalidArgument).
StatusOr<Program> ParseAndVerifyProgram(std::string_view text, std::string file_name = "<input>");

}  // namespace az::cir
