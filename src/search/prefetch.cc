#include "search/prefetch.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "search/targets.h"
#include "support/parallel.h"

namespace az::search {

void ChoosePrefetch(SearchContext& ctx, size_t grid_survivors) {
  ctx.prefetched.clear();
  // XLA's dumps are compiled elsewhere, at their own scheduler's depth.
  if (!ctx.evaluate.hlo_dir.empty() || ctx.pinned_prefetch == 1) return;
  const bool pinned = ctx.pinned_prefetch > 1;
  const int lowest = pinned ? ctx.pinned_prefetch : 2;
  const int highest = pinned ? ctx.pinned_prefetch : std::min(kPrefetchDepths, ctx.options.max_prefetch);
  struct Job {
    size_t ranked;  // index into ctx.ranked
    int depth;
  };
  std::vector<Job> jobs;
  for (size_t k = 0; k < std::min(grid_survivors, ctx.ranked.size()); ++k) {
    const Evaluated& e = ctx.ranked[k];
    const Combo& combo = e.compiled.candidate.strategy.combo;
    if (!e.status.ok() || combo.fsdp == 0 || combo.prefetch != 1) continue;
    Combo deeper = combo;
    deeper.prefetch = 2;
    if (!pinned && !TargetAdmits(ctx.options.target, ctx.config, deeper).ok()) continue;
    for (int depth = lowest; depth <= highest; ++depth) {
      jobs.push_back({k, depth});
    }
  }
  if (jobs.empty()) return;
  if (ctx.options.progress) {
    ctx.options.progress("prefetch: pricing deeper FSDP prefetch (" +
                         std::to_string(jobs.size()) + " compiles)");
  }
  std::vector<Evaluated> deeper(jobs.size());
  ParallelFor(static_cast<int>(jobs.size()), ctx.options.threads, [&](int j) {
    const Job& job = jobs[static_cast<size_t>(j)];
    const Evaluated& base = ctx.ranked[job.ranked];
    Candidate candidate = base.compiled.candidate;
    candidate.strategy.combo.prefetch = job.depth;
    // The survivor's own placement: a depth moves no collective between
    // devices, so it is priced where its depth-1 program was placed.
    PlacementPolicy given{PlacementKind::kGiven, base.best_placement, {}};
    deeper[static_cast<size_t>(j)] = Evaluate(candidate, *ctx.topology, ctx.evaluate, given);
  });
  size_t j = 0;
  while (j < jobs.size()) {
    const size_t k = jobs[j].ranked;
    const Evaluated& base = ctx.ranked[k];
    std::optional<size_t> best;
    double best_latency = base.fits ? base.best_latency : std::numeric_limits<double>::infinity();
    for (; j < jobs.size() && jobs[j].ranked == k; ++j) {
      const Evaluated& e = deeper[j];
      // A pinned depth is kept whatever it costs (the grid reports its
      // error or its peak); else strictly faster and fitting, a tie keeping
      // the smaller depth.
      if (pinned || (e.status.ok() && e.fits && e.best_latency < best_latency * (1 - kPrefetchMinGain))) {
        best = j;
        best_latency = e.best_latency;
      }
    }
    if (best) ctx.prefetched.push_back(std::move(deeper[*best]));
  }
}

}  // namespace az::search
