// The plan's own search for an imported program with no attention: the DiT
// templates (shard/templates.h) find no tokens, heads or block linears in it,
// so its candidates come from the program itself, as explicit seeds that
// propagation (shard/propagation.h) completes, each compiled and priced by
// the one evaluator (evaluate.h) like every other candidate:
//
//   dp(dN)=K     data parallelism over dim N of the program's largest
//                activation input (every dim K divides is tried: the batch,
//                or the tokens of a token-wise program; a dim that is
//                contracted later costs its all-reduce and loses on price)
//   fsdp(dN)=K   the same, every rank >= 2 parameter stored split over the
//                axis on its largest dim K divides (storage only: gathered
//                before use), ZeRO-3's forward
//   tp=K         Megatron over the matmul chains: a linear (an einsum with a
//                rank-2 parameter) whose activation does not come from a
//                column-parallel linear (through any ops that are not
//                linears) is column-parallel (the weight's output factor on
//                the axis); one reading a column-parallel linear's output is
//                row-parallel (its contracted factor; the all-reduce follows)
//   tp=K,fsdp    Megatron with the weights the split leaves whole stored
//                split too
//   dp(dN)=A,tp=B  both, on a 2-D mesh, for every A x B = chips
//   replicated   on one chip, the only candidate
// Alpa's ILP over the whole graph is the alpa baseline (sources.h), and the
// plan takes the fastest pick of all sources that fits, as for any model.
// The pick is the fastest candidate that fits the HBM, its placement searched
// longer; none fits: an error with the most frugal candidate's peak per chip.
#pragma once

#include <memory>

#include "search/sources.h"

namespace az::search {

// Label "aoizora": it stands in for the grid (planner.cc: MakePlan).
std::unique_ptr<Source> ProgramSource();

// The candidates above for `program` on `chips` devices, each with its name
// ("tp=8", "dp(d1)=2,tp=4"); deterministic order. Exposed for tests.
struct ProgramCandidate {
  std::string name;
  Candidate candidate;
};
StatusOr<std::vector<ProgramCandidate>> ProgramCandidates(const workload::Workload& config, int64_t chips);

}  // namespace az::search
