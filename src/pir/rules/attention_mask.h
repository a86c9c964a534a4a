// The mask of an attention op (attrs `mask`, `window`), and how many scores a
// kernel computes under it.
//
// A fused attention kernel skips the key blocks its mask rules out entirely:
// FlashAttention's causal kernel visits only the blocks on or below the
// diagonal, about half of them, and a sliding-window kernel only the blocks
// within the window. An arbitrary mask tensor (or an additive bias) skips
// nothing: every score is computed, then masked. So the kept scores of one
// (batch, head) with Lq queries and Lk keys are
//
//   none, tensor   Lq * Lk
//   causal         Lq = Lk = L: L * (L + 1) / 2 (key j <= query i)
//   window W       Lq = Lk = L: sum over i of min(i + 1, W)
//                  = L * (L + 1) / 2 when W >= L, else W * (W + 1) / 2 + (L - W) * W
//
// The op's global shapes always have Lq = Lk for causal and window (the
// verifier checks it). A sequence-sharded kernel's local shapes may differ
// (context parallelism: Lq / n queries against all Lk keys); a causal ring or
// context split is priced as the load-balanced layout the production kernels
// use (ring-flash-attention's zigzag, Megatron's load-balanced context
// parallelism: each device holds a query chunk from each end, so every device
// does the same half): the kept fraction of Lq * Lk is 1/2 then. A window's
// local fraction is min(1, W / Lk) of the local block (W keys per query).
#pragma once

#include <cstdint>
#include <string_view>

#include "pir/ir/graph.h"
#include "support/status.h"

namespace az::pir {

enum class MaskKind { kNone, kCausal, kWindow, kTensor };

struct AttentionMask {
  MaskKind kind = MaskKind::kNone;
  int64_t window = 0;  // kWindow: keys per query, the query's own included
};

std::string_view MaskKindName(MaskKind kind);

// From an attention op's attributes; errors: an unknown kind, a window that is
// not positive or given without mask = "window".
StatusOr<AttentionMask> ReadAttentionMask(const Attributes& attrs);

// The scores of one (batch, head) a kernel computes under `mask` (above).
int64_t KeptScores(const AttentionMask& mask, int64_t lq, int64_t lk);

}  // namespace az::pir
