// Seeds of a training step (frontend/zoo/train.cc: graph = "train_step") that
// the templates (templates.h) add to those of its forward:
//   * the opt_state leaves of an FSDP-sharded parameter (its fp32 master
//     weight, exp_avg and exp_avg_sq: "<param>.master", ...) sharded like the
//     parameter, as ZeRO-3 keeps them. Unlike the parameter they are not
//     storage-only: the AdamW update runs on the shards, so its ops propagate
//     the sharding to the gradient it reads, which then arrives by
//     reduce-scatter of the backward's partial sum;
//   * an accumulated step's running gradient sums ("micro<i>.grad_sum.<param>")
//     sharded like the parameter (FSDP's sharded .grad, a JAX scan's sharded
//     carry): each micro-step's gradient is reduce-scattered into it;
//   * the backward and rematerialized copies of a seeded forward einsum take
//     the forward's factor seeds. The backward einsums of Y = einsum(A, B)
//     ("<op>.grad.lhs", "<op>.grad.rhs", pir/grad/contraction_grad.cc) use the
//     forward's letters, and factor names are the letters, so a Megatron
//     column split of W (its output letter on tp) gives dX = dY W^T a partial
//     sum over tp and dW the column split of W; a row split gives dX split on
//     the input features and dW W's row split. The remat copy ("<op>.remat")
//     has the forward's rule.
#pragma once

#include "shard/propagation.h"

namespace az::shard {

void SeedTrainingState(const pir::Graph& graph, Seeds& seeds);
Status SeedBackwardLinears(const pir::Graph& graph, Seeds& seeds);

}  // namespace az::shard
