// Folding the decompositions frameworks emit back into PIR's fused ops.
//
// JAX lowers softmax to reduce-max, subtract, exp, reduce-sum, divide; PyTorch's
// exporter writes attention as MatMul, Mul(scale), Softmax, MatMul and GELU as
// Div, Erf, Add, Mul, Mul. The partitioner's templates look for the fused
// kinds (an `attention` op is what Ulysses and Ring shard), and the compute
// model prices one fused kernel, not six, so importers emit one PIR op per
// source op and this pass rebuilds the graph with the patterns folded:
//
//   softmax    div(e, B(reduce_sum(e, [a])))  with e = exp(x) or
//              exp(sub(x, B(reduce_max(x, [a]))))           -> softmax(x, axis a)
//              B: reshapes/broadcasts that only restore the reduced dim.
//   attention  einsum(S(softmax(S(einsum(q, k)))), v), S: optional converts and
//              multiplications or divisions by a scalar (the 1/sqrt(d) scale),
//              where the first einsum contracts one head dim d and keeps one
//              query and one key dim, the second contracts the key dim, and
//              the softmax runs over the key dim. The operands are transposed
//              (composing with the transposes that produced them, so the usual
//              [B, L, H, D] -> [B, H, L, D] round trip disappears) into
//              attention's [batch, seq, heads, head_dim] layout; mode "self"
//              when the query and key lengths match, else "cross".
//              Masks between the scores and the softmax (fold_mask.cc):
//              where(m, s, fill) or where(m, fill, s) with a scalar fill, and
//              s + bias, where bias may be where(m, 0, -inf); a boolean m
//              built from iotas (compare of iota differences, the importer's
//              `iota_*` attributes, through broadcasts, not and and) or a
//              constant the importer read as a band (`bands`, a 0 / -inf or
//              0 / 1 mask tensor), whose
//              kept keys are j <= i becomes mask "causal", i - W < j <= i
//              mask "window" (window W); any other mask or bias becomes mask
//              "tensor" with it as the 4th operand ([B|1, H|1, Lq|1, Lk]).
//              A guard where(c, 0, p) after the softmax, c computed from the
//              masked scores alone (PyTorch's zeroing of fully masked rows),
//              joins the match. Grouped-query K/V: a K or V that is
//              reshape(broadcast(x)) repeating each head G times (repeat_kv,
//              [.., Hkv, L, D] -> [.., Hkv, G, L, D] -> [.., Hkv*G, L, D];
//              the broadcast may expand a unit dim a reshape inserted), or the
//              concat of x's heads sliced one by one and so repeated
//              (repeat_interleave as ONNX writes it), through converts,
//              transposes and scalar scales, is read as x: the attention
//              gets Hkv K/V heads.
//   norms      x' * B(rsqrt(mean(sq(x')) + eps)) (or * 1/sqrt, or / sqrt)
//              over the last dim, mean = reduce_mean or reduce_sum scaled by
//              a scalar: x' = x -> rms_norm(x); x' = x - B(mean(x)) (the
//              squared one may be a twin subtract) -> layer_norm(x); then a
//              multiply by a [d] parameter (and, for layer norm, an add of
//              one) joins as the affine weight (and bias). eps is not
//              recovered: the folded op carries 1e-6.
//   gelu       x * 0.5 * (1 + erf(x / sqrt 2)) in any association      -> gelu
//   silu       x * sigmoid(x)                                         -> silu
//
// Interior values of a pattern must have no other users; otherwise the
// pattern is left alone. The result keeps every leaf (inputs, parameters,
// constants) in order; the value map old -> new is returned so callers can
// remap what they hold. Ops whose results nothing uses afterwards are kept
// here (FinishImport prunes).
#pragma once

#include <map>
#include <vector>

#include "frontend/import/constant_band.h"
#include "pir/ir/graph.h"
#include "support/status.h"

namespace az::frontend {

struct FoldStats {
  int softmax = 0, attention = 0, gelu = 0, silu = 0, norm = 0;
  int total() const { return softmax + attention + gelu + silu + norm; }
};

// Rebuilds `graph` with every pattern above folded; `value_map` (old id -> new
// id, -1 for values that disappeared) is filled. The graph must be verified.
// `splats`: the values of splat constant leaves where the importer knew them
// (PIR constants carry none): a mask's fill (-inf) and its polarity are read
// from them; without them a mask's polarity is unknown and it is kept whole.
// `bands`: the constant leaves the importer read as band masks (constant_band.h).
StatusOr<FoldStats> FoldPatterns(pir::Graph& graph, std::vector<pir::ValueId>& value_map,
                                 std::map<pir::ValueId, double> splats = {},
                                 std::map<pir::ValueId, ConstantBand> bands = {});

// Removes ops no graph output depends on (leaves are kept). `value_map` as above.
int PruneDeadOps(pir::Graph& graph, std::vector<pir::ValueId>& value_map);

}  // namespace az::frontend
