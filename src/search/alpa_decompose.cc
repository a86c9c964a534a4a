// DecomposeByMeshAxis (alpa.h): the joint ILP restricted one mesh axis at a
// time. A stage keeps, per node, the strategies that agree with the axes
// already decided and leave the later axes unused; the restriction keeps the
// joint problem's exact node and edge costs (its edge matrices sliced), so
// the last stage's choice is a feasible point of the joint ILP.
#include <algorithm>

#include "search/alpa.h"

namespace az::search {

namespace {

// `problem` restricted to the strategies keep[v] (indices into node v's
// list); axis_factor is dropped, so a stage is not decomposed again.
AlpaProblem Restrict(const AlpaProblem& problem, const std::vector<std::vector<int>>& keep, double memory_limit) {
  AlpaProblem sub;
  sub.memory_limit_bytes = memory_limit;
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    const AlpaNode& node = problem.nodes[v];
    AlpaNode kept;
    kept.name = node.name;
    for (int s : keep[v]) {
      kept.cost_s.push_back(node.cost_s[static_cast<size_t>(s)]);
      kept.stored_bytes.push_back(node.stored_bytes[static_cast<size_t>(s)]);
      kept.activation_bytes.push_back(node.activation_bytes[static_cast<size_t>(s)]);
    }
    sub.nodes.push_back(std::move(kept));
  }
  for (const AlpaEdge& edge : problem.edges) {
    const size_t cols = problem.nodes[static_cast<size_t>(edge.to)].cost_s.size();
    AlpaEdge kept{edge.from, edge.to, {}};
    for (int s : keep[static_cast<size_t>(edge.from)]) {
      for (int t : keep[static_cast<size_t>(edge.to)]) {
        kept.cost_s.push_back(edge.cost_s[static_cast<size_t>(s) * cols + static_cast<size_t>(t)]);
      }
    }
    sub.edges.push_back(std::move(kept));
  }
  return sub;
}

}  // namespace

std::optional<std::vector<int>> DecomposeByMeshAxis(const AlpaProblem& problem) {
  const size_t axes = problem.axis_sizes.size();
  if (axes < 2 || problem.nodes.empty()) return std::nullopt;
  for (const AlpaNode& node : problem.nodes) {
    if (node.axis_factor.size() != node.cost_s.size()) return std::nullopt;
  }
  // decided[v][axis]: the factor node v's axis shards, once decided.
  std::vector<std::vector<int>> decided(problem.nodes.size());
  std::vector<int> choice(problem.nodes.size(), 0);
  for (size_t stage = 0; stage < axes; ++stage) {
    std::vector<std::vector<int>> keep(problem.nodes.size());
    for (size_t v = 0; v < problem.nodes.size(); ++v) {
      const AlpaNode& node = problem.nodes[v];
      for (int s = 0; s < node.num_strategies(); ++s) {
        const std::vector<int>& uses = node.axis_factor[static_cast<size_t>(s)];
        bool agrees = true;
        for (size_t axis = 0; axis < axes && agrees; ++axis) {
          if (axis < stage) agrees = uses[axis] == decided[v][axis];
          if (axis > stage) agrees = uses[axis] == -1;
        }
        if (agrees) keep[v].push_back(s);
      }
      if (keep[v].empty()) return std::nullopt;  // strategy caps can drop every extension
    }
    double later = 1;
    for (size_t axis = stage + 1; axis < axes; ++axis) later *= static_cast<double>(problem.axis_sizes[axis]);
    const AlpaProblem sub = Restrict(problem, keep, problem.memory_limit_bytes * later);
    auto solved = SolveAlpaProblem(sub, AlpaSolveLimits{0, 300, AlpaSolver::kAuto});
    if (!solved.ok()) return std::nullopt;
    for (size_t v = 0; v < problem.nodes.size(); ++v) {
      choice[v] = keep[v][static_cast<size_t>(solved->choice[v])];
      decided[v].push_back(problem.nodes[v].axis_factor[static_cast<size_t>(choice[v])][stage]);
    }
  }
  return choice;
}

}  // namespace az::search
