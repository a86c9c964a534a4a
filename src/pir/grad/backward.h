// Reverse-mode differentiation of PIR: appends the backward of a forward graph
// to the same graph.
//
// Given a scalar float `loss` and the values to differentiate with respect to
// (`wrt`: a training step's parameters), AppendBackward walks the ops in
// reverse and, for each op whose result carries a gradient and one of whose
// operands needs one, appends the op's backward: the per-family rules of
// src/pir/grad/*_grad.cc, one file per rules file of src/pir/rules, so an op's
// backward sits one folder from its forward rule. The backward is written in
// PIR kinds that already have factor rules and costs: einsum with swapped
// operands for matmul gradients, element-wise chains (with `full` literals) for
// pointwise derivatives, reduce/broadcast/reshape/transpose for layout ops,
// concat with zeros for slices, rope with the inverse rotation. Only the fused
// kernels are kinds of their own: attention_grad (flash-attention backward,
// from q, k, v, o, do and the forward's log-sum-exp) and layer_norm_grad /
// rms_norm_grad.
//
// Which ops get a backward (activity analysis): a value is *varied* when it
// depends on a `wrt` value and *useful* when the loss depends on it; an
// operand needs a gradient when it is a varied, useful float value, and an op
// runs backward when one of its operands does. Gradients of a value used
// several times are summed (add ops) as its consumers' backwards produce them;
// every gradient has its value's type (contributions are converted). Names: an
// op's backward ops are "<op>.grad.<what>".
//
// Rematerialization: `remat` segments (contiguous forward op ranges, one per
// transformer block) recompute forward values instead of keeping them for the
// backward. Before the first backward op of a segment, the forward ops of the
// segment whose results the segment's backward reads (transitively) are
// appended again, named "<op>.remat" with attr remat = "full" or "selected",
// and the segment's backward reads the copies:
//   none      keep every forward value the backward reads;
//   full      keep only the segment's inputs (values from before it: the
//             block's input, weights, conditioning): recompute the whole block;
//   selected  keep the results of matmuls, convolutions and attention (their
//             outputs and log-sum-exp); recompute norms, element-wise and layout
//             ops, which cost FLOPs per element only;
//   offload   keep the block's hidden state (the segment's inputs of the type
//             the segment's last op produces: the residual stream) and its
//             attentions' outputs and log-sum-exp, in host memory: recompute
//             everything else. MaxDiffusion's remat_policy
//             HIDDEN_STATE_WITH_OFFLOAD (models/gradient_checkpoint.py:
//             jax.checkpoint_policies.save_and_offload_only_these_names with
//             names_which_can_be_offloaded = ["hidden_states", "self_attn",
//             "cross_attn"], offload_dst = "pinned_host"): "hidden_states" is
//             the block input (models/wan/transformers/transformer_wan.py,
//             checkpoint_name after its sharding constraint), "self_attn" and
//             "cross_attn" the residual_checkpoint_name of its splash kernels,
//             which JAX's splash_attention_kernel puts on the kernel's output
//             and logsumexp (_splash_attention_forward), so the backward never
//             reruns an attention forward. The graph reads them like kept
//             values; BackwardResult::offloaded lists them, and the compiler
//             moves them to the host after the forward and back before the
//             backward (compile/spmd/spmd_compiler.h).
// What the backward keeps is then visible in the graph: a forward value read
// by a non-"remat" op appended after the forward.
//
// Attention ops should be built with lse (GraphBuilder::set_attention_lse):
// one without it gets its log-sum-exp from an extra forward attention
// ("<op>.grad.lse"), at the forward's FLOPs.
//
// Errors (Unimplemented, InvalidArgument): a loss that is not a float scalar,
// a wrt value that is not float, bad segments, and ops on a gradient path that
// have no backward: custom ops, gather tables (a scatter-add), strided slices,
// convolutions other than non-overlapping patchify, rope tables, the fused
// backward kernels themselves. On error some backward ops may already have been
// appended: discard the builder.
#pragma once

#include <string_view>
#include <vector>

#include "pir/build/graph_builder.h"
#include "support/status.h"

namespace az::pir {

constexpr ValueId kNoValue = -1;

enum class RematPolicy { kNone, kFull, kSelected, kOffload };
// "none", "full", "selected", "offload".
std::string_view RematPolicyName(RematPolicy policy);
StatusOr<RematPolicy> ParseRematPolicy(std::string_view name);

struct RematSegment {
  OpId begin = 0, end = 0;  // forward ops [begin, end)
  RematPolicy policy = RematPolicy::kNone;
};

struct BackwardOptions {
  // Disjoint, in increasing order; ops outside every segment keep what they read.
  std::vector<RematSegment> remat;
};

struct BackwardResult {
  // Per `wrt` value: d loss / d value, typed like the value; kNoValue when the
  // loss does not depend on it.
  std::vector<ValueId> grads;
  OpId first_op = 0;       // the first appended op
  int recomputed_ops = 0;  // "remat" copies among the appended ops
  // Offload segments: the forward values kept in host memory, in the order
  // the backward first reads them (each once).
  std::vector<ValueId> offloaded;
};

StatusOr<BackwardResult> AppendBackward(GraphBuilder& b, ValueId loss, const std::vector<ValueId>& wrt,
                                        const BackwardOptions& options = {});

}  // namespace az::pir
