#include "place/search.h"

#include <gtest/gtest.h>

#include <set>

#include "compile/pipeline.h"
#include "compile/spmd/spmd_compiler.h"
#include "frontend/zoo/zoo.h"
#include "place/default_placement.h"
#include "price/calibration.h"

namespace az::place {
namespace {

struct Program {
  evidence::Evidence evidence;
  std::vector<int64_t> shape;
  std::vector<std::string> names;
};

// Wan 2.1 T2V-14B at its default 1280x720, 81 frames, compiled under a template.
Program Wan14B(const std::string& mesh_text, const std::string& templ, zoo::CfgMode cfg = zoo::CfgMode::kTwoPass) {
  zoo::ModelOptions options;
  options.cfg = cfg;
  auto config = zoo::ResolveConfig("wan2.1-t2v-14b", options);
  EXPECT_TRUE(config.ok());
  auto graph = zoo::BuildForward(*config);
  EXPECT_TRUE(graph.ok());
  auto mesh = shard::Mesh::Parse(mesh_text);
  EXPECT_TRUE(mesh.ok());
  compile::SpmdCompiler compiler;
  auto program = compile::CompileTemplate(compiler, *graph, *mesh, templ, compile::CompileOptions());
  EXPECT_TRUE(program.ok()) << program.status().message();
  Program out;
  out.evidence = evidence::Extract(*program, compiler.name());
  for (int a = 0; a < mesh->num_axes(); ++a) {
    out.shape.push_back(mesh->axis_size(a));
    out.names.push_back(mesh->axis_name(a));
  }
  return out;
}

price::Simulator MakeSim(const evidence::Evidence& e, const hw::Topology& t) {
  price::PriceCalibration c = price::DefaultPriceCalibration(t);
  auto sim = price::Simulator::Create(e, t, c.network, c.compute);
  EXPECT_TRUE(sim.ok()) << sim.status().message();
  return std::move(*sim);
}

struct TemplateCase {
  const char* mesh;
  const char* templ;
  zoo::CfgMode cfg;
};

const TemplateCase kFiveTemplates[] = {
    {"sp=8", "ulysses=sp", zoo::CfgMode::kTwoPass},
    {"sp=8", "ring=sp", zoo::CfgMode::kTwoPass},
    {"x=2,y=4", "usp:ulysses=x,ring=y", zoo::CfgMode::kTwoPass},
    {"x=2,y=4", "fsdp=x,ulysses=y", zoo::CfgMode::kTwoPass},
    {"x=2,y=4", "cfg=x,ulysses=y", zoo::CfgMode::kBatch2},
};

// Acceptance: on 8 chips, annealing alone finds the exhaustive optimum for
// five templates of Wan 14B 720p on v5e:2x4.
TEST(SearchPlacement, AnnealingFindsTheExhaustiveOptimumOnV5e2x4) {
  auto t = hw::MakeTopology("v5e:2x4");
  ASSERT_TRUE(t.ok());
  for (const TemplateCase& c : kFiveTemplates) {
    Program program = Wan14B(c.mesh, c.templ, c.cfg);
    price::Simulator sim = MakeSim(program.evidence, *t);
    PlaceOptions exhaustive;
    exhaustive.annealing = false;
    auto truth = SearchPlacement(sim, program.shape, program.names, exhaustive);
    ASSERT_TRUE(truth.ok()) << truth.status().message();
    ASSERT_TRUE(truth->exhaustive);
    EXPECT_EQ(truth->maps_total, 40320);
    // v5e:2x4 has 4 automorphisms (the two axis reflections, symmetry_test.cc):
    // 40,320 / 4 = 10,080 orbits, every one of size 4 (a reflection fixes no map
    // of 8 distinct ranks onto all 8 chips), so exactly 10,080 maps are priced.
    EXPECT_EQ(truth->symmetry_group, 4);
    EXPECT_EQ(truth->maps_priced, 10080);
    EXPECT_LE(truth->best_latency, truth->default_latency);
    EXPECT_GE(truth->worst_latency, truth->default_latency);

    PlaceOptions local;
    local.exhaustive_max_chips = 0;
    auto found = SearchPlacement(sim, program.shape, program.names, local);
    ASSERT_TRUE(found.ok());
    EXPECT_FALSE(found->exhaustive);
    EXPECT_NEAR(found->best_latency, truth->best_latency, 1e-9 * truth->best_latency) << c.templ;
    // The map it found prices to what it claims.
    EXPECT_DOUBLE_EQ(sim.Latency(found->best), found->best_latency);
    // Nothing beats the exhaustive optimum, nothing is worse than the true worst.
    for (const auto& [candidate, latency] : found->structured) {
      EXPECT_GE(latency, truth->best_latency * (1 - 1e-12)) << candidate.name;
      EXPECT_LE(latency, truth->worst_latency * (1 + 1e-12)) << candidate.name;
    }
  }
}

TEST(SearchPlacement, SameSeedSameResult) {
  auto t = hw::MakeTopology("v5e:4x4");
  ASSERT_TRUE(t.ok());
  Program program = Wan14B("x=4,y=4", "usp:ulysses=y,ring=x");
  price::Simulator a = MakeSim(program.evidence, *t), b = MakeSim(program.evidence, *t);
  PlaceOptions options;
  options.moves = 3000;
  options.restarts = 2;
  auto ra = SearchPlacement(a, program.shape, program.names, options);
  auto rb = SearchPlacement(b, program.shape, program.names, options);
  ASSERT_TRUE(ra.ok() && rb.ok());
  EXPECT_EQ(ra->best, rb->best);
  EXPECT_EQ(ra->best_latency, rb->best_latency);
  EXPECT_EQ(ra->worst, rb->worst);
  EXPECT_EQ(ra->evaluations, rb->evaluations);
  options.seed = 2;
  auto rc = SearchPlacement(a, program.shape, program.names, options);
  ASSERT_TRUE(rc.ok());
  EXPECT_LE(rc->best_latency, rc->default_latency);
}

// Acceptance: on v5e:4x4, the default search reaches within 1% of the best of
// ten independent annealing runs (10 x 10,000 moves here to keep the test
// short; `az_bench --benchmark_filter=Convergence` runs ten 100,000-move runs).
TEST(SearchPlacement, ConvergesOnV5e4x4) {
  auto t = hw::MakeTopology("v5e:4x4");
  ASSERT_TRUE(t.ok());
  Program program = Wan14B("x=4,y=4", "usp:ulysses=y,ring=x");
  price::Simulator sim = MakeSim(program.evidence, *t);
  double reference = std::numeric_limits<double>::infinity();
  for (uint64_t run = 0; run < 10; ++run) {
    net::Placement start = net::IdentityPlacement(16);
    std::rotate(start.begin(), start.begin() + static_cast<long>(run), start.end());
    auto [best, latency] = Anneal(sim, start, 1000 + run, 10000, 0.01, nullptr);
    reference = std::min(reference, latency);
  }
  auto found = SearchPlacement(sim, program.shape, program.names, PlaceOptions());
  ASSERT_TRUE(found.ok());
  EXPECT_LE(found->best_latency, reference * 1.01) << found->best_method << " evaluations " << found->evaluations
                                                   << " default " << found->default_latency << " reference "
                                                   << reference;
}

// max_structured prices an even sample of the structured candidates: every
// k-th in their order, k = ceil(n / max), the first included; 0 prices all.
TEST(SearchPlacement, StructuredCandidatesSampledUnderABudget) {
  auto t = hw::MakeTopology("v5e:4x4");
  ASSERT_TRUE(t.ok());
  Program program = Wan14B("x=4,y=4", "usp:ulysses=y,ring=x");
  price::Simulator sim = MakeSim(program.evidence, *t);
  const std::vector<Candidate> all = StructuredCandidates(*t, program.shape, program.names);
  ASSERT_GT(all.size(), 10u);
  PlaceOptions options;
  options.annealing = false;
  auto every = SearchPlacement(sim, program.shape, program.names, options);
  ASSERT_TRUE(every.ok());
  EXPECT_EQ(every->structured.size(), all.size());
  options.max_structured = 10;
  auto sampled = SearchPlacement(sim, program.shape, program.names, options);
  ASSERT_TRUE(sampled.ok());
  const size_t stride = (all.size() + 9) / 10;
  ASSERT_EQ(sampled->structured.size(), (all.size() + stride - 1) / stride);
  EXPECT_LE(sampled->structured.size(), 10u);
  for (size_t i = 0; i < sampled->structured.size(); ++i) {
    EXPECT_EQ(sampled->structured[i].first.name, all[i * stride].name);
    EXPECT_EQ(sampled->structured[i].second, every->structured[i * stride].second);
  }
  EXPECT_GE(sampled->best_latency, every->best_latency);  // a subset of the same maps
}

// An NVSwitch node: every map is equivalent, so best, default and worst agree
// and the exhaustive search prices one map.
TEST(SearchPlacement, SwitchNodeIsSymmetric) {
  auto t = hw::MakeTopology("h100:8");
  ASSERT_TRUE(t.ok());
  Program program = Wan14B("x=2,y=4", "usp:ulysses=y,ring=x");
  price::Simulator sim = MakeSim(program.evidence, *t);
  auto r = SearchPlacement(sim, program.shape, program.names, PlaceOptions());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->exhaustive);
  EXPECT_EQ(r->maps_priced, 1);
  EXPECT_DOUBLE_EQ(r->best_latency, r->default_latency);
  EXPECT_DOUBLE_EQ(r->worst_latency, r->default_latency);
  EXPECT_DOUBLE_EQ(sim.Latency({7, 3, 1, 5, 0, 2, 6, 4}), r->default_latency);
}

TEST(StructuredCandidates, AreValidDistinctAndIncludeJaxOrder) {
  auto t = hw::MakeTopology("v5e:4x4");
  ASSERT_TRUE(t.ok());
  std::vector<int64_t> shape = {2, 8};
  auto candidates = StructuredCandidates(*t, shape, {"a", "b"});
  // Recipes: whole-torus sequences, 2 physical-axis orders x {coordinate,
  // snake} = 4; blocked sequences, 7 block shapes (1x2, 1x4, 2x1, 2x2, 2x4,
  // 4x1, 4x2) x 2 outer orders x 2 outer snakes x 2 inner orders x 2 inner
  // snakes = 112; each under 2 mesh-axis orders, plus JAX's order per mesh-axis
  // order: 2 x 116 + 2 = 234 recipes, many of which coincide.
  EXPECT_GE(candidates.size(), 8u);
  EXPECT_LE(candidates.size(), 234u);
  bool has_block = false;
  for (const Candidate& c : candidates) has_block |= c.name.rfind("blocks 2x2", 0) == 0;
  EXPECT_TRUE(has_block);
  std::set<net::Placement> seen;
  for (const Candidate& c : candidates) {
    EXPECT_TRUE(net::ValidatePlacement(c.placement, 16).ok()) << c.name;
    EXPECT_EQ(c.placement.size(), 16u);
    EXPECT_TRUE(seen.insert(c.placement).second) << c.name;
  }
  auto jax = DefaultPlacement(*t, shape);
  ASSERT_TRUE(jax.ok());
  EXPECT_TRUE(seen.count(*jax)) << "the default placement is among the candidates";
  // A smaller mesh uses a prefix of every sequence.
  for (const Candidate& c : StructuredCandidates(*t, {4}, {"a"})) {
    EXPECT_EQ(c.placement.size(), 4u);
    EXPECT_TRUE(net::ValidatePlacement(c.placement, 16).ok());
  }
}

TEST(SearchPlacement, RejectsAMeshOfAnotherSize) {
  auto t = hw::MakeTopology("v5e:2x4");
  ASSERT_TRUE(t.ok());
  Program program = Wan14B("sp=8", "ulysses=sp");
  price::Simulator sim = MakeSim(program.evidence, *t);
  auto r = SearchPlacement(sim, {4}, {"sp"}, PlaceOptions());
  EXPECT_FALSE(r.ok());
}

}  // namespace
}  // namespace az::place
