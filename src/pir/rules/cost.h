// Per-op FLOPs and bytes. The formulas, written once:
//
//   einsum     matmul = 2 * prod(all factor sizes)   (2 FLOPs per multiply-add; a
//              contraction-free einsum is an element-wise product: prod(sizes))
//              other  = numel(result) when a bias is added
//   attention  attention = 4 * B * H * S * Dh  (QK^T and PV, 2 per MAC; Dv = Dh)
//              other     = 5 * B * H * S       (scale, max, exp, sum, divide),
//                          6 with a mask operand (its add or select)
//              S = the kept scores of one head (attention_mask.h): Lq * Lk
//              unmasked or with a mask tensor, L * (L + 1) / 2 causal, the
//              window's band for a sliding window; H the query heads
//              (grouped-query K/V change the bytes, not the FLOPs)
//   attention_grad (FlashAttention-2's backward, rules/grad.cc)
//              attention = 2 * B * H * Lq * Lk * (3 * Dh + 2 * Dv): five matmuls,
//                          S = Q K^T and dQ = dS K and dK = dS^T Q over Dh,
//                          dP = dO V^T and dV = P^T dO over Dv; with Dv = Dh that
//                          is 2.5x the forward's two (Dao-AILab/flash-attention,
//                          benchmarks/benchmark_flash_attention.py: bwd = 2.5 * fwd)
//              other     = 5 * B * H * Lq * Lk   (scale, - lse, exp; dP - D, * P)
//                          + 2 * B * Lq * H * Dv (D = rowsum(dO * O))
//   conv3d     matmul = 2 * B * O * prod(out spatial) * C * prod(kernel)
//              other  = numel(result) with a bias
//   element-wise, norm, rope, softmax, reduce
//              other = element_flops(kind) * numel(result)   (reduce: * numel(operand))
//              with ops.def's per-element counts; an affine norm adds 1 (weight) and
//              1 (bias) per element; a norm gradient adds 1 with a weight
//   layout ops (reshape, transpose, concat, slice, broadcast, gather, convert), full: 0
//   custom     the op's `flops` attribute, default 0
//
// Bytes: an unfused op reads every operand and writes every result once:
//   bytes_read = sum(operand bytes), bytes_written = sum(result bytes).
//
// These are the conventions of model-FLOPs accounting (reference/models.md counts
// matmul and attention FLOPs only; that total is matmul + attention here).
#pragma once

#include "pir/ir/graph.h"
#include "support/units.h"

namespace az::pir {

struct OpCost {
  Flops matmul;     // einsum and convolution multiply-adds
  Flops attention;  // QK^T and PV inside fused attention
  Flops other;      // element-wise, norms, softmax, bias adds
  Bytes bytes_read;
  Bytes bytes_written;

  Flops total_flops() const { return matmul + attention + other; }
  OpCost& operator+=(const OpCost& o);
};

OpCost ComputeOpCost(const Graph& graph, const Op& op);
// The same from types: the compiler prices an op on its local (per-device) shapes.
OpCost ComputeOpCost(OpKind kind, const std::vector<TensorType>& operands, const std::vector<TensorType>& results,
                     const Attributes& attrs);
// Sum over every op of the graph.
OpCost ComputeGraphCost(const Graph& graph);

// The problem shape a compute model tiles, for the ops that run on matrix units
// (empty for the rest):
//   einsum     {batch, m, n, k}: batch = letters in both operands and the result,
//              m = lhs-only result letters, n = rhs-only result letters, k =
//              contracted letters (each the product of its letters' sizes; a
//              contraction-free einsum has k = 1)
//   attention, attention_grad  {batch * heads, q length, kv length, head dim}
//   conv3d     implicit GEMM {1, batch * out spatial, out channels, in channels * kernel volume}
std::vector<int64_t> ProblemDims(OpKind kind, const std::vector<TensorType>& operands,
                                 const std::vector<TensorType>& results, const Attributes& attrs);

}  // namespace az::pir
