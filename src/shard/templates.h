// Expert parallelism templates for the zoo's DiTs, as seeds for propagation.
//
// A template is a comma-separated list of strategies, each bound to a mesh axis
// by name or by size:  "cfg=x,ulysses=y", "ulysses=8", "usp:ulysses=2,ring=4",
// "tp=4,fsdp=2", "dp".
//   dp         the batch of every activation on the axis
//   cfg        the CFG dimension on the axis (of size 2): the batch of a batch2
//              forward, cond and uncond halves on different devices. A two-pass
//              step is an error: no tensor sharding puts its two passes on
//              different devices (xDiT's CFG parallel); --cfg batch2 builds the
//              equivalent batch-2 forward
//   ulysses=N  sequence parallel outside attention, heads inside (all-to-all)
//   ring=N     sequence parallel everywhere; attention's kv sequence too (ring
//              attention: kv blocks rotate)
//   context=N  sequence parallel everywhere like ring, but attention gathers
//              K and V over the axis (all-gather before the kernel) and
//              attends its query shard to the whole sequence: MaxDiffusion's
//              default context parallelism (its `context` mesh axis with
//              attention: flash; see SeedAttention in templates.cc). Combines
//              with dp, cfg, tp and fsdp, not with ring or ulysses
//   usp:ulysses=A,ring=B   both, on two axes
//   tp=N       Megatron: column-parallel q/k/v and FFN-in, row-parallel o and
//              FFN-out (heads / ffn hidden on the axis)
//   fsdp=N     every weight sharded on the axis (its largest divisible dim),
//              or on several ("fsdp=x+y"); fsdp only stores, so its axes may
//              be those of other strategies ("ulysses=sp,fsdp=sp", xDiT's
//              FSDP over the sequence-parallel ranks); by degree it takes a
//              free axis of that size, else a bound one, else the fewest axes
//              multiplying to it; a bare "fsdp" takes every axis;
//              all-gathered before use
// Training steps (graph = "train_step", frontend/zoo/train.cc): fsdp is
// ZeRO-3, data parallel over its axes no compute strategy holds (the
// micro-batch split there, which it must divide) with every parameter
// (vectors too), its gradient and its opt_state leaves split alike
// (train_seeds.h); tp also splits the backward and remat einsums of its
// linears; the attention_grad ops (and remat attentions) take their
// attention's heads / q / kv, so ring trains with ring attention's backward
// and context with dK / dV partial over its axis, reduce-scattered.
// Per-part strategies ("ulysses=x,tp=x@cross_attn+ffn", "ring=r,tp=r@ffn"):
// tp scoped with "@" to block parts, the name segment after a block's index
// ("ffn" in "blocks.3.ffn.0"; BlockParts lists a graph's), runs Megatron
// inside those parts only, on an axis of its own or on the axis of a sequence
// strategy (the minor one under usp), which holds the rest of the model. The
// parts' token activations keep the stream's sequence split except between a
// column-parallel linear and the row-parallel one (both included): the split
// is gathered at the column linears' input (after the norm, modulation and
// cast) and the row linears' partial sum is reduce-scattered back to it before
// the gate or residual, Megatron's sequence parallelism; inside the parts the
// sequence strategy on that axis does not apply (the attention there splits
// heads on tp; other sequence axes still split its sequence). Only tp takes a
// scope, one tp per template. With fsdp, a Megatron weight (of any tp in a
// forward, of a per-part tp in a training step) is stored along the dim tp
// splits with tp's axis major ([tp, the other fsdp axes]), so its use gathers
// only the other axes. In a training step the parts' backward runs Megatron
// too, the mirror of their forward: the backward and remat einsums of their
// linears split as the forwards (a tp-split weight's gradient comes out split
// alike, summed over the whole sequence the part gathered: no all-reduce over
// tp's axis; ZeRO-3 reduces it over the other axes only, into its tp-major
// storage, a column linear's bias stored so too), their
// attention_grad ops take heads on tp; the stream's gradient is gathered at
// the row linears' input gradients (dX = dY W^T) and the column linears'
// partial input gradients are reduce-scattered back to the sequence split.
// The rest of the model trains under the sequence strategy as without a
// scope.
// Binding: "ulysses=y" names the axis; "ulysses=4" takes the first axis of
// size 4 not bound by name or by an earlier strategy; a bare "dp" takes the
// one axis left free. "ulysses=A,ring=B" without the usp: prefix is USP too.
// A per-part tp binds last: by name, or by degree the minor sequence axis of
// that size, else a free axis of that size.
// Layouts: batch dims [cfg, dp] (cfg major); sequence dims [ring, ulysses] or [context]
// (ring major, the xDiT/yunchang default); heads [tp, ulysses] (tp major).
// Scope, as the deployments run it (reference/models.md §4): sequence
// parallelism covers the video tokens (and the joint sequence of
// HunyuanVideo's single-stream blocks); text rows, the text refiner and the
// time/text embeddings stay replicated; cross-attention runs its sequence-
// sharded queries against the whole text. tp splits the separate q/k/v/o and
// FFN linears and every attention's heads; HunyuanVideo's fused qkv
// projections stay whole (their (q,k,v) x heads layout cannot be split by
// heads, see sharding.h). fsdp weights are storage-only seeds
// (propagation.h).
// Errors: an unknown strategy, an axis used twice (fsdp aside), a degree that matches no
// free axis, an axis name not in the mesh, a strategy the graph does not
// support (cfg over a two-pass or CFG-less model, or on an axis not of size 2;
// dp over a batch it does not divide; sequence parallelism without video
// attention), and divisibility the deployments enforce (Ulysses degree, and
// ulysses x tp, must divide the head count; reference/models.md §4.7); for a
// per-part tp: a scope on another strategy, no axis or degree, an empty or
// repeated part, a part the model's blocks lack, an axis shared with anything
// but a sequence strategy (or with ring's under usp), and the heads of an
// attention in its parts that its degree does not divide.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shard/propagation.h"

namespace az::shard {

// The spec "annotated" takes the seeds from the program itself (AnnotatedSeeds).
StatusOr<Seeds> TemplateSeeds(const pir::Graph& graph, const Mesh& mesh, std::string_view spec);

// The block parts a per-part strategy may name, sorted: the name segments
// after a block's index ("ffn" in "blocks.3.ffn.0") that scope further ops
// (Wan: cross_attn, ffn, self_attn).
std::vector<std::string> BlockParts(const pir::Graph& graph);

// Seeds from the sharding annotations a program carries (Value::sharding: an
// imported program's Shardy or GSPMD shardings of arguments, results and
// constraints). Each annotation's axes are found by name in `mesh`, whose
// axis must have the size the annotation's own mesh gives it. Errors: no
// annotation at all, an axis `mesh` lacks or sizes differently.
StatusOr<Seeds> AnnotatedSeeds(const pir::Graph& graph, const Mesh& mesh);

}  // namespace az::shard
