#include "search/accumulate.h"

#include <string>
#include <utility>

#include "search/prune.h"
#include "support/parallel.h"

namespace az::search {

namespace {

// A variant displaces its survivor's stage-1 score only by more than
// rounding: the same kernels split in two are summed in another order.
constexpr double kAccumulateMinGain = 1e-9;

}  // namespace

std::vector<Combo> AccumulationVariants(const Combo& combo, int64_t micro_batch) {
  std::vector<Combo> out;
  if (!combo.remat || *combo.remat == pir::RematPolicy::kNone || combo.accumulate != 1 || combo.pipefusion > 1) {
    return out;
  }
  std::vector<pir::RematPolicy> lighter = {pir::RematPolicy::kNone};
  if (*combo.remat != pir::RematPolicy::kSelected) lighter.push_back(pir::RematPolicy::kSelected);
  for (int64_t count : AccumulationCounts(micro_batch, combo.dp)) {
    for (pir::RematPolicy remat : lighter) {
      Combo variant = combo;
      variant.accumulate = count;
      variant.remat = remat;
      variant.prefetch = 1;
      out.push_back(variant);
    }
  }
  return out;
}

std::vector<int64_t> AccumulationCounts(int64_t micro_batch, int64_t dp) {
  std::vector<int64_t> out;
  for (int64_t count : Divisors(micro_batch)) {
    if (count > 1 && (micro_batch / count) % dp == 0) out.push_back(count);
  }
  return out;
}

void RankAccumulation(SearchContext& ctx, const PlacementPolicy& policy, std::vector<size_t>& grid_ranked) {
  // A pinned remat (--remat) leaves nothing to trade: the variants' gain is a
  // lighter remat than their survivor's.
  if (!ctx.options.train || ctx.options.train->remat || !ctx.pruned || !ctx.options.pinned.empty()) return;
  const int64_t micro_batch = ctx.options.train->micro_batch;
  const double hbm = static_cast<double>(ctx.topology->chip.hbm.value());
  struct Trial {
    size_t ranked;  // the survivor's index into ctx.ranked
    Combo combo;
    PruneScore score;
  };
  std::vector<Trial> trials;
  for (size_t k : grid_ranked) {
    if (k >= ctx.ranked.size() || !ctx.ranked[k].status.ok()) continue;
    for (const Combo& v : AccumulationVariants(ctx.ranked[k].compiled.candidate.strategy.combo, micro_batch)) {
      trials.push_back({k, v, {}});
    }
  }
  if (trials.empty()) return;
  if (ctx.options.progress) {
    ctx.options.progress("accumulate: scoring " + std::to_string(trials.size()) +
                         " gradient-accumulation variants of survivors with remat on truncated steps");
  }
  ParallelFor(static_cast<int>(trials.size()), ctx.options.threads, [&](int t) {
    Trial& trial = trials[static_cast<size_t>(t)];
    trial.score = ScoreCombo(ctx, trial.combo);
  });
  // Per survivor (in ranked order), the best-scoring count at the lightest
  // remat that fits; kept when it beats the survivor's own stage-1 score.
  std::vector<Combo> winners;
  std::vector<size_t> survivor_of;
  for (size_t first = 0; first < trials.size();) {
    size_t end = first;
    while (end < trials.size() && trials[end].ranked == trials[first].ranked) ++end;
    const size_t k = trials[first].ranked;
    const double own = ctx.prune_scores.at(static_cast<size_t>(ctx.survivors.at(k)));
    const Trial* best = nullptr;
    for (size_t t = first; t < end; ++t) {
      const Trial& trial = trials[t];
      if (!trial.score.status.ok() || trial.score.peak_memory > hbm) continue;
      // A lighter remat at the same count already fits: a heavier one only adds work.
      if (t > first && trials[t - 1].combo.accumulate == trial.combo.accumulate &&
          trials[t - 1].score.status.ok() && trials[t - 1].score.peak_memory <= hbm) {
        continue;
      }
      if (!best || trial.score.score < best->score.score) best = &trial;
    }
    if (best && best->score.score < own * (1 - kAccumulateMinGain)) {
      winners.push_back(best->combo);
      survivor_of.push_back(k);
    }
    first = end;
  }
  if (ctx.options.progress) {
    ctx.options.progress("accumulate: compiling " + std::to_string(winners.size()) +
                         " variant(s) whose stage-1 score beats their survivor's");
  }
  if (winners.empty()) return;
  const size_t base = ctx.ranked.size();
  for (const Combo& c : winners) {
    ctx.survivors.push_back(static_cast<int>(ctx.combos.size()));
    ctx.combos.push_back(c);
  }
  ctx.ranked.resize(base + winners.size());
  ParallelFor(static_cast<int>(winners.size()), ctx.options.threads, [&](int w) {
    const Evaluated& survivor = ctx.ranked[survivor_of[static_cast<size_t>(w)]];
    const PlacementPolicy given{PlacementKind::kGiven, survivor.best_placement, {}};
    StatusOr<Candidate> candidate =
        ComboCandidate(ctx.config, winners[static_cast<size_t>(w)], 0, ctx.options, ctx.programs.get());
    Evaluated& out = ctx.ranked[base + static_cast<size_t>(w)];
    if (!candidate.ok()) {
      out.status = candidate.status();
      out.compiled.candidate.strategy.combo = winners[static_cast<size_t>(w)];
      return;
    }
    out = Evaluate(*candidate, *ctx.topology, ctx.evaluate, ctx.options.search_placement ? given : policy);
  });
  for (size_t w = 0; w < winners.size(); ++w) grid_ranked.push_back(base + w);
}

}  // namespace az::search
