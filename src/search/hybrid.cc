// Per-part hybrids in the grid (hybrid.h).
#include "search/hybrid.h"

#include <algorithm>

#include "shard/templates.h"

namespace az::search {

std::vector<std::vector<std::string>> HybridPartSets() {
  return {{"ffn"}, {"cross_attn"}, {"cross_attn", "ffn"}, {"cross_attn", "ffn", "self_attn"}};
}

std::vector<Combo> HybridCombos(const std::vector<Combo>& grid, int64_t heads, const std::vector<std::string>& parts) {
  std::vector<Combo> out;
  auto has = [&](const std::string& part) { return std::find(parts.begin(), parts.end(), part) != parts.end(); };
  for (const Combo& base : grid) {
    // PipeFusion's stages take no per-part tp (ParseCombo refuses it).
    if (base.tp > 1 || base.IsHybrid() || base.pipefusion > 1) continue;
    // The minor sequence axis: ulysses under usp (templates_spec.cc: BindScoped).
    std::string on;
    int64_t degree = 1;
    if (base.ulysses > 1) {
      on = "ulysses";
      degree = base.ulysses;
    } else if (base.ring > 1) {
      on = "ring";
      degree = base.ring;
    } else if (base.context > 1) {
      on = "context";
      degree = base.context;
    }
    if (on.empty()) continue;
    for (const std::vector<std::string>& set : HybridPartSets()) {
      if (!std::all_of(set.begin(), set.end(), has)) continue;
      // TP over attention splits its heads (under ulysses on its axis, which
      // the part suspends, by the tp degree alone); the FFN splits its hidden
      // width, padded where uneven.
      const bool attention = std::any_of(
          set.begin(), set.end(), [](const std::string& part) { return part == "cross_attn" || part == "self_attn"; });
      if (attention && (heads == 0 || heads % degree != 0)) continue;
      Combo c = base;
      c.tp_on = on;
      c.tp_parts = set;
      out.push_back(std::move(c));
    }
  }
  return out;
}

StatusOr<std::vector<Combo>> HybridCombosFor(const workload::Workload& config, const std::vector<Combo>& grid,
                                             int64_t heads) {
  if (config.imported() || heads == 0) return std::vector<Combo>{};
  workload::Workload one = config;
  one.depth_units = 1;
  AZ_ASSIGN_OR_RETURN(pir::Graph graph, one.Forward());
  return HybridCombos(grid, heads, shard::BlockParts(graph));
}

}  // namespace az::search
