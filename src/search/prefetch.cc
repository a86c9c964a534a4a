#include "search/prefetch.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "search/targets.h"
#include "support/parallel.h"

namespace az::search {

namespace {

// A lower bound of the survivor's step at any depth: a depth moves
// collectives only, the same kernels and collectives under the same
// placement, and each engine runs all of its own one at a time, so no depth
// is faster than the busier engine's total; plus the noise experts' swap.
double DepthBound(const SearchContext& ctx, const Evaluated& e) {
  auto result = Breakdown(e.compiled, *ctx.topology, ctx.evaluate.calibration, e.best_placement, false);
  if (!result.ok()) return 0;
  const double busiest = std::max(result->compute.value(), result->communication.value());
  return StepLatency(e.compiled.candidate.step, busiest) + e.noise_experts.swap_per_step_s;
}

}  // namespace

void ChoosePrefetch(SearchContext& ctx, const std::vector<size_t>& grid_ranked) {
  ctx.prefetched.clear();
  // XLA's dumps are compiled elsewhere, at their own scheduler's depth.
  if (!ctx.evaluate.hlo_dir.empty() || ctx.pinned_prefetch == 1) return;
  const bool pinned = ctx.pinned_prefetch > 1;
  const int highest = pinned ? ctx.pinned_prefetch : std::min(kPrefetchDepths, ctx.options.max_prefetch);
  if (highest < 2) return;
  // Per survivor that may gain: its current best (depth 1's, then the last
  // depth that improved on it) and the next depth to try.
  struct Climb {
    size_t ranked;  // index into ctx.ranked
    int depth;
    double latency;
    Evaluated best;  // the last improving depth's evaluation (status unset: none yet)
    bool improved = false;
  };
  std::vector<Climb> climbs;
  const double target = FastestRanked(ctx) * (1 - kPrefetchMinGain);
  for (size_t k : grid_ranked) {
    if (k >= ctx.ranked.size()) continue;
    const Evaluated& e = ctx.ranked[k];
    const Combo& combo = e.compiled.candidate.strategy.combo;
    if (!e.status.ok() || combo.fsdp == 0 || combo.prefetch != 1) continue;
    if (pinned) {
      climbs.push_back({k, ctx.pinned_prefetch, std::numeric_limits<double>::infinity(), {}});
      continue;
    }
    Combo deeper = combo;
    deeper.prefetch = 2;
    if (!e.fits || !TargetAdmits(ctx.options.target, ctx.config, deeper).ok()) continue;
    // No depth can beat the grid's depth-1 pick when either engine's work
    // alone takes longer.
    if (DepthBound(ctx, e) >= target) continue;
    climbs.push_back({k, 2, e.best_latency, {}});
  }
  int compiles = 0;
  std::vector<size_t> active(climbs.size());
  for (size_t c = 0; c < climbs.size(); ++c) active[c] = c;
  while (!active.empty()) {
    if (ctx.options.progress) {
      ctx.options.progress("prefetch: pricing FSDP prefetch depth " + std::to_string(climbs[active[0]].depth) +
                           " for " + std::to_string(active.size()) + " survivor(s)");
    }
    std::vector<Evaluated> priced(active.size());
    ParallelFor(static_cast<int>(active.size()), ctx.options.threads, [&](int a) {
      const Climb& climb = climbs[active[static_cast<size_t>(a)]];
      const Evaluated& base = ctx.ranked[climb.ranked];
      Candidate candidate = base.compiled.candidate;
      candidate.strategy.combo.prefetch = climb.depth;
      // The survivor's own placement: a depth moves no collective between
      // devices, so it is priced where its depth-1 program was placed.
      PlacementPolicy given{PlacementKind::kGiven, base.best_placement, {}};
      priced[static_cast<size_t>(a)] = Evaluate(candidate, *ctx.topology, ctx.evaluate, given);
    });
    compiles += static_cast<int>(active.size());
    std::vector<size_t> next;
    for (size_t a = 0; a < active.size(); ++a) {
      Climb& climb = climbs[active[a]];
      Evaluated& e = priced[a];
      // A pinned depth is kept whatever it costs (the grid reports its error
      // or its peak). Else a depth is kept when it fits and is faster than
      // the shallower one by more than rounding, and the next is tried;
      // the first that does not ends the climb (a deeper one holds more:
      // if this one does not fit, none deeper does).
      const bool better = e.status.ok() && e.fits && e.best_latency < climb.latency * (1 - kPrefetchMinGain);
      if (!pinned && !better) continue;
      climb.latency = e.best_latency;
      climb.best = std::move(e);
      climb.improved = true;
      if (climb.depth < highest) {
        ++climb.depth;
        next.push_back(active[a]);
      }
    }
    active = std::move(next);
  }
  for (Climb& climb : climbs) {
    if (climb.improved) ctx.prefetched.push_back(std::move(climb.best));
  }
  if (ctx.options.progress && compiles > 0) {
    ctx.options.progress("prefetch: " + std::to_string(ctx.prefetched.size()) + " of " +
                         std::to_string(climbs.size()) + " survivors gain from a deeper prefetch (" +
                         std::to_string(compiles) + " compiles)");
  }
}

}  // namespace az::search
