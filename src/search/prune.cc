#include "search/prune.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "search/accumulate.h"
#include "search/hybrid.h"
#include "search/pipefusion.h"
#include "support/parallel.h"

namespace az::search {

namespace {

using Score = PruneScore;

}  // namespace

PruneScore ScoreCombo(const SearchContext& ctx, const Combo& combo) {
  const workload::Workload& config = ctx.config;
  Score out;
  // A PipeFusion stage holds 1/P of the blocks (pipefusion.h).
  const int64_t units = StageUnits(config, combo);
  double score[2] = {0, 0}, peak[2] = {0, 0}, params[2] = {0, 0}, state[2] = {0, 0};
  StepShape step;
  // Units 2 and 3, not 1 and 2: a value made before the blocks and read by
  // every block (Wan 2.2's per-token modulation e0, [B, L, 6, d] f32) dies
  // inside the first block of a 1-unit model but lives through the second
  // of a longer one, so the peak is linear in depth only from 2 units on.
  const int64_t first = units >= 3 ? 2 : 1;
  for (int k = 0; k < 2; ++k) {
    int64_t depth = std::min<int64_t>(first + k, units);
    // Depth-1 prefetch: a deeper one holds its layers of gathered weights
    // ahead once, not per layer, so it does not extrapolate from 2 and 3
    // units; it is priced in full only (prefetch.h).
    Combo truncated = combo;
    truncated.prefetch = 1;
    StatusOr<Candidate> candidate = ComboCandidate(config, truncated, depth, ctx.options, ctx.programs.get());
    if (!candidate.ok()) {
      out.status = candidate.status();
      return out;
    }
    Evaluated e = Evaluate(*candidate, *ctx.topology, ctx.evaluate, PlacementPolicy{PlacementKind::kLowerBound, {}, {}});
    if (!e.status.ok()) {
      out.status = e.status;
      return out;
    }
    step = candidate->step;
    score[k] = e.forward_s;
    peak[k] = static_cast<double>(e.compiled.evidence.peak_memory.value());
    params[k] = static_cast<double>(e.compiled.evidence.parameter_bytes.value());
    const evidence::MemoryBreakdown& m = e.compiled.evidence.memory;
    state[k] = static_cast<double>((m.parameters + m.optimizer_state).value());
  }
  double scale = static_cast<double>(units - first);
  out.score = StepLatency(step, score[0] + scale * (score[1] - score[0]));
  out.peak_memory = peak[0] + scale * (peak[1] - peak[0]);
  out.state_memory = state[0] + scale * (state[1] - state[0]);
  // The noise experts' swap, when they do not all fit, is part of the step.
  out.score += ChooseNoiseExperts(config, out.peak_memory, params[0] + scale * (params[1] - params[0]), ctx.topology->chip)
                   .swap_per_step_s;
  return out;
}

namespace {

// The per-part hybrids of a training grid (hybrid.h): those of its
// kTrainHybridBases best sequence-parallel combinations that fit, each under
// its base's remat (a hybrid stores no more than its base: its parts' weights
// are split rather than gathered, its activations the base's), scored like
// the grid and merged into ctx.feasible. A training combination costs up to 8
// truncated compilations where a hybrid of a known remat costs 2, and the
// hybrids of a base much slower than the best cannot win (a part's Megatron
// changes its own collectives, not the rest of the step), so the training
// grid scores them for its best bases only, not for all as the inference
// grid does.
Status ScoreTrainHybrids(SearchContext& ctx, std::vector<Score>& scores, double hbm) {
  std::vector<Combo> bases;
  for (int i : ctx.feasible) {
    const Combo& c = ctx.combos[static_cast<size_t>(i)];
    if (c.tp > 1 || c.IsHybrid() || c.pipefusion > 1 || c.ulysses * c.ring * c.context == 1) continue;
    bases.push_back(c);
    if (bases.size() == kTrainHybridBases) break;
  }
  AZ_ASSIGN_OR_RETURN(std::vector<Combo> hybrids, HybridCombosFor(ctx.config, bases, ctx.heads));
  std::erase_if(hybrids, [&](const Combo& h) {
    return std::find(ctx.combos.begin(), ctx.combos.end(), h) != ctx.combos.end();
  });
  if (hybrids.empty()) return Status::Ok();
  if (ctx.options.progress) {
    ctx.options.progress("prune: scoring " + std::to_string(hybrids.size()) + " per-part hybrids of the " +
                         std::to_string(bases.size()) + " fastest sequence-parallel configurations");
  }
  std::vector<Score> hybrid_scores(hybrids.size());
  ParallelFor(static_cast<int>(hybrids.size()), ctx.options.threads, [&](int k) {
    hybrid_scores[static_cast<size_t>(k)] = ScoreCombo(ctx, hybrids[static_cast<size_t>(k)]);
  });
  for (size_t k = 0; k < hybrids.size(); ++k) {
    const Score& s = hybrid_scores[k];
    const int index = static_cast<int>(ctx.combos.size());
    ctx.combos.push_back(hybrids[k]);
    scores.push_back(s);
    if (s.status.ok() && s.peak_memory <= hbm) ctx.feasible.push_back(index);
  }
  return Status::Ok();
}

// Nothing fits at the whole micro-batch: a micro-step of gradient
// accumulation (accumulate.h) holds fewer samples' activations. Each
// combination whose stored states (parameters, optimizer states) fit tries
// the counts its data-parallel degree allows, smallest first, each under the
// lightest of none, selected and full that fits, until one fits under none;
// the best-scoring fit is added to the grid as a combination of its own.
// Only here, where the plan would otherwise fail, are combinations that do
// not fit at all given accumulation: elsewhere the survivors try it.
void AddAccumulatedFallbacks(SearchContext& ctx, std::vector<PruneScore>& scores) {
  std::vector<Combo>& combos = ctx.combos;
  const int64_t micro_batch = ctx.options.train->micro_batch;
  const double hbm = static_cast<double>(ctx.topology->chip.hbm.value());
  if (ctx.options.progress) {
    ctx.options.progress("prune: nothing fits a step of " + std::to_string(micro_batch) +
                         " samples; scoring gradient accumulation over fewer samples per micro-step");
  }
  const size_t n = combos.size();
  std::vector<std::optional<std::pair<Combo, PruneScore>>> found(n);
  ParallelFor(static_cast<int>(n), ctx.options.threads, [&](int i) {
    const Combo& base = combos[static_cast<size_t>(i)];
    const PruneScore& own = scores[static_cast<size_t>(i)];
    if (!own.status.ok() || own.state_memory > hbm || base.pipefusion > 1 || base.accumulate != 1) return;
    auto& best = found[static_cast<size_t>(i)];
    // --remat pins the policy (offload never reaches here: accumulation does
    // not take it, accumulate.h).
    std::vector<pir::RematPolicy> remats = {pir::RematPolicy::kNone, pir::RematPolicy::kSelected,
                                            pir::RematPolicy::kFull};
    if (ctx.options.train->remat) remats = {*ctx.options.train->remat};
    for (int64_t count : AccumulationCounts(micro_batch, base.dp)) {
      for (pir::RematPolicy remat : remats) {
        Combo trial = base;
        trial.accumulate = count;
        trial.remat = remat;
        trial.prefetch = 1;
        PruneScore score = ScoreCombo(ctx, trial);
        if (!score.status.ok() || score.peak_memory > hbm) continue;
        if (!best || score.score < best->second.score) best = std::make_pair(trial, score);
        if (remat == pir::RematPolicy::kNone) return;  // no lighter remat at a larger count
        break;
      }
    }
  });
  for (size_t i = 0; i < n; ++i) {
    if (!found[i]) continue;
    combos.push_back(found[i]->first);
    scores.push_back(found[i]->second);
  }
}

}  // namespace

std::string SmallestSliceHint(const hw::Topology& topology, double peak, int64_t chips) {
  double needed = std::ceil(peak * static_cast<double>(chips) / static_cast<double>(topology.chip.hbm.value()));
  std::string best;
  int64_t best_chips = 0;
  for (const std::string& name : hw::ListTopologies()) {
    if (name.rfind(topology.chip.name + ":", 0) != 0) continue;
    auto t = hw::MakeTopology(name);
    if (!t.ok() || t->num_chips() < needed) continue;
    if (best.empty() || t->num_chips() < best_chips) {
      best = name;
      best_chips = t->num_chips();
    }
  }
  return best.empty() ? "none in the catalog" : best;
}

Status Prune(SearchContext& ctx) {
  const PlanOptions& options = ctx.options;
  const hw::Topology& topology = *ctx.topology;
  std::vector<Combo>& combos = ctx.combos;
  std::vector<Score> scores(combos.size());
  const double hbm = static_cast<double>(topology.chip.hbm.value());
  if (options.progress) {
    options.progress("prune: scoring " + std::to_string(combos.size()) + " configurations on truncated " +
                     (options.train ? "training steps" : "models"));
  }
  // A training combination tries the remat policies from the fastest to the
  // most frugal. The parameters and optimizer states do not depend on the
  // policy, so when they alone exceed the chip under remat none, no policy
  // fits and the others are not compiled (`cut_short`), unless nothing fits
  // at all: then every policy is scored, for the most frugal peak.
  std::vector<char> cut_short(combos.size(), 0);
  // The remat the user pinned (--remat, or a pinned --template naming one,
  // the first combination), for the error when nothing fits.
  std::optional<pir::RematPolicy> pinned_remat;
  if (options.train) {
    pinned_remat = options.train->remat;
    if (!pinned_remat && !options.pinned.empty() && !combos.empty()) pinned_remat = combos.front().remat;
  }
  auto score_one = [&](int i, bool shortcut) {
    Combo& combo = combos[static_cast<size_t>(i)];
    Score& score = scores[static_cast<size_t>(i)];
    if (!options.train || combo.remat) {
      score = ScoreCombo(ctx, combo);
      return;
    }
    for (pir::RematPolicy remat : {pir::RematPolicy::kNone, pir::RematPolicy::kSelected}) {
      Combo trial = combo;
      trial.remat = remat;
      score = ScoreCombo(ctx, trial);
      combo.remat = remat;
      if (!score.status.ok() || score.peak_memory <= hbm) return;
      if (shortcut && score.state_memory > hbm) {
        cut_short[static_cast<size_t>(i)] = 1;
        return;
      }
    }
    Combo offload = combo, full = combo;
    offload.remat = pir::RematPolicy::kOffload;
    full.remat = pir::RematPolicy::kFull;
    Score offloaded = ScoreCombo(ctx, offload);
    Score recomputed = ScoreCombo(ctx, full);
    auto better = [&](const Score& a, const Score& b) {  // a over b
      if (!a.status.ok() || !b.status.ok()) return a.status.ok();
      const bool a_fits = a.peak_memory <= hbm, b_fits = b.peak_memory <= hbm;
      if (a_fits != b_fits) return a_fits;
      return a_fits ? a.score < b.score : a.peak_memory < b.peak_memory;
    };
    const bool take_offload = better(offloaded, recomputed);
    score = take_offload ? offloaded : recomputed;
    combo.remat = take_offload ? pir::RematPolicy::kOffload : pir::RematPolicy::kFull;
  };
  ParallelFor(static_cast<int>(combos.size()), options.threads, [&](int i) { score_one(i, true); });
  const bool any_fits = std::any_of(scores.begin(), scores.end(), [&](const Score& s) {
    return s.status.ok() && s.peak_memory <= hbm;
  });
  if (!any_fits) {
    std::vector<int> again;
    for (size_t i = 0; i < combos.size(); ++i) {
      if (cut_short[i]) {
        combos[i].remat.reset();
        again.push_back(static_cast<int>(i));
      }
    }
    ParallelFor(static_cast<int>(again.size()), options.threads,
                [&](int k) { score_one(again[static_cast<size_t>(k)], false); });
  }
  // Gradient accumulation, where nothing fits, for an unpinned template and a
  // remat accumulation takes (not offload).
  const bool accumulation_tried = options.train && options.pinned.empty() &&
                                  pinned_remat != pir::RematPolicy::kOffload &&
                                  !std::any_of(scores.begin(), scores.end(), [&](const Score& s) {
                                    return s.status.ok() && s.peak_memory <= hbm;
                                  });
  if (accumulation_tried) AddAccumulatedFallbacks(ctx, scores);
  std::vector<int>& feasible = ctx.feasible;
  for (size_t i = 0; i < combos.size(); ++i) {
    const Score& s = scores[i];
    if (!s.status.ok()) {
      if (ctx.first_error.ok()) ctx.first_error = s.status;
      continue;
    }
    ctx.frugal_peak = std::min(ctx.frugal_peak, s.peak_memory);
    if (s.peak_memory <= hbm) feasible.push_back(static_cast<int>(i));
  }
  auto faster = [&](int a, int b) {
    if (scores[static_cast<size_t>(a)].score != scores[static_cast<size_t>(b)].score) {
      return scores[static_cast<size_t>(a)].score < scores[static_cast<size_t>(b)].score;
    }
    return combos[static_cast<size_t>(a)].ToString() < combos[static_cast<size_t>(b)].ToString();
  };
  if (options.train && options.pinned.empty() && !feasible.empty()) {
    std::stable_sort(feasible.begin(), feasible.end(), faster);
    AZ_RETURN_IF_ERROR(ScoreTrainHybrids(ctx, scores, hbm));
  }
  ctx.prune_scores.assign(combos.size(), std::numeric_limits<double>::infinity());
  for (size_t i = 0; i < combos.size(); ++i) {
    if (scores[i].status.ok()) ctx.prune_scores[i] = scores[i].score;
  }
  if (feasible.empty()) {
    if (!std::isfinite(ctx.frugal_peak)) return ctx.first_error;
    const workload::Workload& config = ctx.config;
    return ResourceExhausted(config.model + " at " + std::to_string(config.width) + "x" +
                             std::to_string(config.height) + "x" + std::to_string(config.frames) +
                             (options.train ? " (a training step of " + std::to_string(options.train->micro_batch) +
                                                  " samples, remat " +
                                                  (pinned_remat ? std::string(pir::RematPolicyName(*pinned_remat))
                                                                : std::string("offload or full")) +
                                                  (accumulation_tried ? " and gradient accumulation" : "") +
                                                  (pinned_remat ? ")" : " at most)")
                                            : std::string()) +
                             " does not fit " + topology.name + ": the most frugal configuration needs about " +
                             FormatBytes(Bytes(static_cast<int64_t>(ctx.frugal_peak))) + " per chip" +
                             (config.noise_experts > 1 ? " with one of its " + std::to_string(config.noise_experts) +
                                                       " experts resident (neither holding them all nor swapping fits)"
                                                 : std::string()) +
                             ", the chip has " + FormatBytes(topology.chip.hbm) +
                             "; the smallest slice that would fit: " +
                             SmallestSliceHint(topology, ctx.frugal_peak, topology.num_chips()));
  }
  std::stable_sort(feasible.begin(), feasible.end(), faster);
  return Status::Ok();
}

}  // namespace az::search
