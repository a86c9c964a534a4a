// XLA's cost rules over HLO (formats.md §2.1, HloCostAnalysis), for the
// importer: FLOPs and bytes of one instruction, of a fusion, and of a whole
// computation; the kernel kind and problem dims the compute model tiles; and
// the prices of the custom calls we know (GEMM libraries, fused attention).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cir/program.h"
#include "compile/xla/hlo.h"

namespace az::compile::xla {

// Shapes of a computation's instructions, with the ones the text leaves out
// inferred (get-tuple-element, tuple, element-wise ops, -done forms); an
// instruction whose shape cannot be inferred gets an empty array shape of
// type "" (0 bytes).
std::vector<HloShape> ComputationShapes(const HloComputation& comp);

struct KernelCost {
  cir::KernelKind kind = cir::KernelKind::kElementwise;
  double flops = 0;
  int64_t bytes_read = 0, bytes_written = 0;
  std::vector<int64_t> dims;  // cir::Instruction::dims
  pir::DType precision = pir::DType::kBF16;  // cir::Instruction::precision: the lhs's element type
  std::string note;           // set when the cost is unknown (custom call target)
};

// One unfused instruction (not a fusion, control flow or collective).
KernelCost InstructionCost(const HloModule& module, const HloComputation& comp, const std::vector<HloShape>& shapes,
                           int index);
// A fusion instruction: flops of its fused computation (recursively), bytes by
// XLA's fusion rule.
KernelCost FusionCost(const HloModule& module, const HloComputation& comp, const std::vector<HloShape>& shapes,
                      int index);
// FLOPs of every instruction of a computation once (fusions and calls
// included, while bodies once): a conditional's branch choice.
double ComputationFlops(const HloModule& module, const HloComputation& comp, int depth = 0);

// Bytes an instruction reads from operand `operand` (slicing ops read their
// slice; dynamic-update-slice writes its operand 0 in place) and writes.
int64_t OperandReadBytes(const HloInstruction& instr, const std::vector<HloShape>& shapes, int operand);
int64_t WrittenBytes(const HloInstruction& instr, const std::vector<HloShape>& shapes, int self);

// True for instructions that move or compute nothing by themselves.
bool IsAliasOpcode(std::string_view opcode);
// Heavy instructions end a run of cheap ones in an unfused module.
bool IsHeavyOpcode(std::string_view opcode);

}  // namespace az::compile::xla
