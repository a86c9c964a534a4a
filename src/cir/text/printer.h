// Prints a CIR program in its canonical text form (parser.h has the grammar).
//
// Canonical means: the header, then every buffer in id order (numbered %0,
// %1, ... by id), then the instructions in schedule order, then `outputs`.
// Attributes print in a fixed order (kernel: flops, read, written, origin;
// collective: bytes, groups or pairs, origin; done: origin), origin only when
// non-empty, the mesh only when non-empty; a done prints its operand and
// result lists only when one is non-empty. Replica groups print in XLA's iota
// form when FormatIotaReplicaGroups finds one, else explicitly; pairs print
// as {{source,target},...}. Strings are quoted with pir::QuoteString. Hence,
// for every program p that ParseProgram returns,
//   PrintProgram(ParseProgram(PrintProgram(p))) == PrintProgram(p).
// Source locations are not printed.
//
// Only the fields the instruction's kind uses are printed (a kernel's
// collective fields and a collective's FLOPs are dropped); the verifier
// rejects collectives that carry the wrong member list.
//
// The printer never fails: a program that breaks the invariants still prints,
// with `%?<id>` for a buffer id out of range and `start = ?<index>` for a done
// whose start is out of range; such text does not parse back.
#pragma once

#include <string>

#include "cir/program.h"

namespace az::cir {

std::string PrintProgram(const Program& program);

}  // namespace az::cir
