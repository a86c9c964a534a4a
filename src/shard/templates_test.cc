// Expert templates on the zoo's real graphs (small resolutions; head counts are
// the real models'): parsing and binding errors, divisibility rules
// (reference/models.md §4.7), and the plans each template propagates to.
#include "shard/templates.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "frontend/zoo/zoo.h"

namespace az::shard {
namespace {

struct Options {
  std::string model = "wan2.1-t2v-1.3b";
  zoo::CfgMode cfg = zoo::CfgMode::kNone;
  bool step = false;
  int64_t batch = 1;
  int64_t frames = 5;  // 2 latent frames x 16 x 16 patches = 512 video tokens (Mochi: 6n+1)
};

pir::Graph Zoo(const Options& o) {
  zoo::ModelOptions options{.width = 256, .height = 256, .frames = o.frames, .batch = o.batch, .cfg = o.cfg};
  auto config = zoo::ResolveConfig(o.model, options);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  auto graph = o.step ? zoo::BuildStep(*config) : zoo::BuildForward(*config);
  EXPECT_TRUE(graph.ok()) << graph.status().ToString();
  return std::move(graph).value();
}

struct Planned {
  pir::Graph graph;
  ShardingPlan plan;
};

// Attention whose key sequence is sharded on an axis its queries are not
// (a log-sum-exp merge of partial outputs); templates only make ring attention.
void ExpectNoKeyOnlySharding(const Planned& p) {
  for (pir::OpId id = 0; id < p.graph.num_ops(); ++id) {
    if (p.graph.op(id).kind != pir::OpKind::kAttention) continue;
    const pir::FactorRule& rule = p.plan.rules[static_cast<size_t>(id)];
    std::vector<int> q, kv;
    for (size_t f = 0; f < rule.factors.size(); ++f) {
      if (rule.factors[f].name == "q") q = p.plan.ops[static_cast<size_t>(id)].factor_axes[f];
      if (rule.factors[f].name == "kv") kv = p.plan.ops[static_cast<size_t>(id)].factor_axes[f];
    }
    for (int axis : kv) EXPECT_NE(std::count(q.begin(), q.end(), axis), 0) << p.graph.op(id).name;
  }
}

Planned Plan(const Options& options, const std::string& mesh_text, const std::string& spec) {
  Planned p{Zoo(options), {}};
  Mesh mesh = *Mesh::Parse(mesh_text);
  auto seeds = TemplateSeeds(p.graph, mesh, spec);
  EXPECT_TRUE(seeds.ok()) << spec << ": " << seeds.status().ToString();
  if (!seeds.ok()) return p;
  auto plan = Propagate(p.graph, mesh, *seeds);
  EXPECT_TRUE(plan.ok()) << spec << ": " << plan.status().ToString();
  if (!plan.ok()) return p;
  Status verified = VerifyPlan(p.graph, *plan);
  EXPECT_TRUE(verified.ok()) << spec << ": " << verified.ToString();
  p.plan = std::move(plan).value();
  ExpectNoKeyOnlySharding(p);
  return p;
}

std::string SeedError(const Options& options, const std::string& mesh, const std::string& spec) {
  pir::Graph g = Zoo(options);
  auto seeds = TemplateSeeds(g, *Mesh::Parse(mesh), spec);
  EXPECT_FALSE(seeds.ok()) << spec << " was accepted";
  return seeds.ok() ? "" : seeds.status().message();
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The factor axes of `op` named `factor`, as text.
std::string FactorAxes(const Planned& p, pir::OpId op, const std::string& factor) {
  const pir::FactorRule& rule = p.plan.rules[static_cast<size_t>(op)];
  for (size_t f = 0; f < rule.factors.size(); ++f) {
    if (rule.factors[f].name != factor) continue;
    TensorSharding one{{p.plan.ops[static_cast<size_t>(op)].factor_axes[f]}, {}};
    return one.ToString(p.plan.mesh);
  }
  return "no factor " + factor;
}

std::string ValueText(const Planned& p, pir::ValueId id) {
  return p.plan.values[static_cast<size_t>(id)].ToString(p.plan.mesh);
}

// Ops whose name ends with `suffix`.
std::vector<pir::OpId> OpsEndingWith(const pir::Graph& g, const std::string& suffix) {
  std::vector<pir::OpId> ops;
  for (pir::OpId id = 0; id < g.num_ops(); ++id) {
    if (EndsWith(g.op(id).name, suffix)) ops.push_back(id);
  }
  return ops;
}

// ---------------------------------------------------------------- errors

TEST(TemplateSeeds, UlyssesDegreeMustDivideTheHeads) {
  // reference/models.md §4.7: Wan 14B has 40 heads, 1.3B 12, HunyuanVideo 24.
  Options wan14b{.model = "wan2.1-t2v-14b"};
  EXPECT_NE(
      SeedError(wan14b, "y=16", "ulysses=16")
          .find("divide the 40 attention heads of wan2.1-t2v-14b; valid Ulysses degrees: 1, 2, 4, 5, 8, 10, 20, 40"),
      std::string::npos);
  EXPECT_TRUE(TemplateSeeds(Zoo(wan14b), *Mesh::Parse("y=8"), "ulysses=8").ok());
  EXPECT_NE(SeedError(Options{}, "y=8", "ulysses=8").find("valid Ulysses degrees: 1, 2, 3, 4, 6, 12"),
            std::string::npos);
  EXPECT_NE(SeedError(Options{.model = "hunyuanvideo-13b"}, "y=16", "ulysses=16")
                .find("valid Ulysses degrees: 1, 2, 3, 4, 6, 8, 12, 24"),
            std::string::npos);
  // USP lifts the limit on the sequence degree, not on its Ulysses part.
  EXPECT_NE(SeedError(Options{}, "x=8,y=2", "usp:ulysses=8,ring=2").find("valid Ulysses degrees"), std::string::npos);
  // Ring has no head limit: 8-way ring is the 1.3B recipe on 8 GPUs (models.md §4.1).
  EXPECT_TRUE(TemplateSeeds(Zoo(Options{}), *Mesh::Parse("r=8"), "ring=8").ok());
  EXPECT_NE(SeedError(Options{}, "t=8", "tp=8").find("valid degrees: 1, 2, 3, 4, 6, 12"), std::string::npos);
}

TEST(TemplateSeeds, SpecAndBindingErrors) {
  Options wan;
  auto expect = [&](const std::string& mesh, const std::string& spec, const std::string& fragment) {
    std::string message = SeedError(wan, mesh, spec);
    EXPECT_NE(message.find(fragment), std::string::npos) << spec << ": " << message;
  };
  expect("x=2,y=4", "pp=2", "unknown strategy 'pp'");
  expect("x=2,y=4", "", "empty parallelism template");
  expect("x=2,y=4", "ulysses=4,", "has an empty strategy");
  expect("x=2,y=4", "ring=x,ulysses=x", "mesh axis 'x' is bound to both ring and ulysses");
  expect("x=2,y=4", "ring=2,ring=4", "strategy 'ring' appears twice");
  expect("x=2,y=4", "ulysses=8", "'ulysses=8' matches no free mesh axis of size 8 (mesh x=2,y=4)");
  expect("x=2,y=2", "ring=y,ulysses=2,tp=2", "'tp=2' matches no free mesh axis of size 2");
  expect("x=2,y=4", "ring=z", "'ring=z': the mesh x=2,y=4 has no axis 'z'");
  expect("x=2,y=4", "ring=2x", "expected a mesh axis name or a degree");
  expect("x=2,y=4", "ring=0", "a degree must be at least 1");
  expect("x=2,y=4", "usp:ulysses=4", "write 'usp:ulysses=A,ring=B'");
  expect("x=2,y=4", "usp:tp=4,ring=2", "write 'usp:ulysses=A,ring=B'");
  expect("x=2,y=4", "ring", "'ring' names no axis and the mesh x=2,y=4 has 2 free axes (x, y)");
  expect("x=2,y=4", "ring=x,ulysses=y,tp", "no free axis left");
  expect("x=2,y=4", "context=y,ring=x", "'context=y' combines with neither ring nor ulysses");
  expect("x=2,y=4", "ulysses=x,context=y", "'context=y' combines with neither ring nor ulysses");
  expect("x=2,y=4", "context=x,context=y", "strategy 'context' appears twice");
  // Strategies that do not apply to the graph.
  expect("x=2", "dp=x", "needs a batch divisible by 2, the forward runs 1");
  expect("x=2", "cfg=x", "the model runs no CFG pass to split");
  EXPECT_NE(SeedError(Options{.cfg = zoo::CfgMode::kTwoPass, .step = true}, "x=2", "cfg=x")
                .find("cfg over a two-pass step: use --cfg batch2 (the two passes become one batch-2 forward)"),
            std::string::npos);
  EXPECT_NE(SeedError(Options{.cfg = zoo::CfgMode::kBatch2, .step = true}, "x=4", "cfg=x").find("must have size 2"),
            std::string::npos);
  pir::Graph bare("bare");
  auto seeds = TemplateSeeds(bare, *Mesh::Parse("x=2"), "dp=x");
  EXPECT_NE(seeds.status().message().find("apply to the zoo's graphs"), std::string::npos);
}

// ---------------------------------------------------------------- plans

TEST(TemplatePlans, UlyssesShardsHeadsInsideAttentionAndTokensOutside) {
  Planned p = Plan(Options{}, "x=2,y=4", "ulysses=y");
  const pir::Graph& g = p.graph;
  std::vector<pir::OpId> self = OpsEndingWith(g, ".self_attn.attention");
  ASSERT_EQ(self.size(), 30u);  // one per block of the 1.3B model
  for (pir::OpId op : self) {
    EXPECT_EQ(FactorAxes(p, op, "h"), R"([{"y"}])") << g.op(op).name;
    EXPECT_EQ(FactorAxes(p, op, "q"), "[{}]");
    EXPECT_EQ(FactorAxes(p, op, "kv"), "[{}]");
    // Sequence-sharded q arrives and is all-to-all'ed to heads.
    EXPECT_EQ(ValueText(p, g.op(op).operands[0]), R"([{}, {"y"}, {}, {}])");
    EXPECT_EQ(RequiredOperandSharding(p.plan.rules[static_cast<size_t>(op)], p.plan.ops[static_cast<size_t>(op)], 0)
                  .ToString(p.plan.mesh),
              R"([{}, {}, {"y"}, {}])");
  }
  // FFN inputs (and outputs) are sequence-sharded, weights replicated.
  std::vector<pir::OpId> ffn_in = OpsEndingWith(g, ".ffn.0");
  ASSERT_EQ(ffn_in.size(), 30u);
  for (pir::OpId op : ffn_in) {
    EXPECT_EQ(ValueText(p, g.op(op).operands[0]), R"([{}, {"y"}, {}])");
    EXPECT_EQ(ValueText(p, g.op(op).operands[1]), "[{}, {}]");
    EXPECT_EQ(ValueText(p, g.op(op).results[0]), R"([{}, {"y"}, {}])");
  }
  // Cross-attention: q sharded on the sequence, the 512 text rows replicated.
  for (pir::OpId op : OpsEndingWith(g, ".cross_attn.attention")) {
    EXPECT_EQ(FactorAxes(p, op, "q"), R"([{"y"}])");
    EXPECT_EQ(FactorAxes(p, op, "h"), "[{}]");
    EXPECT_EQ(ValueText(p, g.op(op).operands[1]), "[{}, {}, {}, {}]");
  }
  EXPECT_EQ(ValueText(p, g.op(OpsEndingWith(g, "text_embedding.2")[0]).results[0]), "[{}, {}, {}]");
  // The unused axis x stays unused.
  for (const TensorSharding& s : p.plan.values) {
    for (const auto& dim : s.dims) EXPECT_EQ(std::count(dim.begin(), dim.end(), 0), 0);
  }
}

// Context (MaxDiffusion's flash attention over its context axis): queries on
// the axis, keys and values whole, so the kernel's output is whole per query
// shard (no partial result to merge); the tokens stay split outside attention.
TEST(TemplatePlans, ContextShardsQueriesAndGathersKeys) {
  Planned p = Plan(Options{}, "c=4", "context=4");
  for (pir::OpId op : OpsEndingWith(p.graph, ".self_attn.attention")) {
    EXPECT_EQ(FactorAxes(p, op, "q"), R"([{"c"}])");
    EXPECT_EQ(FactorAxes(p, op, "kv"), "[{}]");
    EXPECT_EQ(FactorAxes(p, op, "h"), "[{}]");
    EXPECT_EQ(ValueText(p, p.graph.op(op).results[0]), R"([{}, {"c"}, {}, {}])");
    EXPECT_EQ(ValueText(p, p.graph.op(op).operands[1]), R"([{}, {"c"}, {}, {}])");  // k, gathered at the kernel
  }
  for (pir::OpId op : OpsEndingWith(p.graph, ".ffn.2"))
    EXPECT_EQ(ValueText(p, p.graph.op(op).results[0]), R"([{}, {"c"}, {}])");
}

TEST(TemplatePlans, RingShardsQueryAndKeySequence) {
  Planned p = Plan(Options{}, "r=8", "ring=8");
  for (pir::OpId op : OpsEndingWith(p.graph, ".self_attn.attention")) {
    EXPECT_EQ(FactorAxes(p, op, "q"), R"([{"r"}])");
    EXPECT_EQ(FactorAxes(p, op, "kv"), R"([{"r"}])");
    EXPECT_EQ(FactorAxes(p, op, "h"), "[{}]");
    // Ring attention completes the key reduction itself: no partial result.
    EXPECT_EQ(ValueText(p, p.graph.op(op).results[0]), R"([{}, {"r"}, {}, {}])");
  }
  for (pir::OpId op : OpsEndingWith(p.graph, ".ffn.2"))
    EXPECT_EQ(ValueText(p, p.graph.op(op).results[0]), R"([{}, {"r"}, {}])");
}

TEST(TemplatePlans, UspOnHunyuanVideoKeepsTheTextStreamReplicated) {
  Planned p = Plan(Options{.model = "hunyuanvideo-13b"}, "r=2,u=2", "usp:ulysses=u,ring=r");
  const pir::Graph& g = p.graph;
  std::vector<pir::OpId> joint = OpsEndingWith(g, ".attn");
  ASSERT_EQ(joint.size(), 60u);  // 20 dual-stream + 40 single-stream blocks
  for (pir::OpId op : joint) {
    EXPECT_EQ(FactorAxes(p, op, "h"), R"([{"u"}])") << g.op(op).name;
    EXPECT_EQ(FactorAxes(p, op, "q"), R"([{"r"}])");
    EXPECT_EQ(FactorAxes(p, op, "kv"), R"([{"r"}])");
  }
  // Image tokens: ring major, Ulysses minor; text tokens whole.
  for (pir::OpId op : OpsEndingWith(g, ".img_mlp.fc1"))
    EXPECT_EQ(ValueText(p, g.op(op).results[0]), R"([{}, {"r","u"}, {}])");
  for (pir::OpId op : OpsEndingWith(g, ".txt_mlp.fc1")) EXPECT_EQ(ValueText(p, g.op(op).results[0]), "[{}, {}, {}]");
  for (pir::OpId op : OpsEndingWith(g, ".linear2"))
    EXPECT_EQ(ValueText(p, g.op(op).operands[0]), R"([{}, {"r","u"}, {}])");
  // The refiner's text self-attention runs replicated.
  std::vector<pir::OpId> refiner = OpsEndingWith(g, "individual_token_refiner.blocks.0.self_attn");
  ASSERT_EQ(refiner.size(), 1u);
  ASSERT_EQ(g.op(refiner[0]).kind, pir::OpKind::kAttention);
  EXPECT_EQ(OpShardingToString(p.plan.rules[static_cast<size_t>(refiner[0])],
                               p.plan.ops[static_cast<size_t>(refiner[0])], p.plan.mesh),
            "{}");
}

// Mochi's asymmetric streams: the joint attention splits like HunyuanVideo's,
// the 256-row, 1536-wide text stream stays whole, and Megatron splits the text
// projections (add_q/k/v_proj, to_add_out) with the visual ones.
TEST(TemplatePlans, MochiKeepsItsTextStreamReplicated) {
  Planned p = Plan(Options{.model = "mochi-1", .frames = 7}, "r=2,u=2", "usp:ulysses=u,ring=r");
  const pir::Graph& g = p.graph;
  std::vector<pir::OpId> joint = OpsEndingWith(g, ".attn1.attention");
  ASSERT_EQ(joint.size(), 48u);
  for (pir::OpId op : joint) {
    EXPECT_EQ(FactorAxes(p, op, "h"), R"([{"u"}])") << g.op(op).name;
    EXPECT_EQ(FactorAxes(p, op, "q"), R"([{"r"}])");
  }
  for (pir::OpId op : OpsEndingWith(g, ".ff.net.0.proj"))
    EXPECT_EQ(ValueText(p, g.op(op).operands[0]), R"([{}, {"r","u"}, {}])");
  for (pir::OpId op : OpsEndingWith(g, ".ff_context.net.0.proj"))
    EXPECT_EQ(ValueText(p, g.op(op).operands[0]), "[{}, {}, {}]");

  Planned tp = Plan(Options{.model = "mochi-1", .frames = 7}, "t=4", "tp=4");
  for (const char* column : {".attn1.add_q_proj", ".attn1.add_k_proj", ".attn1.add_v_proj", ".attn1.to_q"}) {
    std::vector<pir::OpId> ops = OpsEndingWith(tp.graph, column);
    ASSERT_EQ(ops.size(), 48u) << column;
    for (pir::OpId op : ops) EXPECT_EQ(FactorAxes(tp, op, "y"), R"([{"t"}])") << tp.graph.op(op).name;
  }
  std::vector<pir::OpId> rows = OpsEndingWith(tp.graph, ".attn1.to_add_out");
  ASSERT_EQ(rows.size(), 47u);  // none in the last block (context_pre_only)
  for (pir::OpId op : rows) EXPECT_EQ(FactorAxes(tp, op, "z"), R"([{"t"}])") << tp.graph.op(op).name;
}

// Open-Sora 2.0: Flux-style double and single blocks; the txt_* stream stays
// whole, the unfused q/k/v and MLP linears are Megatron's.
TEST(TemplatePlans, OpenSoraSplitsImageTokensAndLinears) {
  Planned p = Plan(Options{.model = "open-sora-2.0", .frames = 9}, "r=2,u=2", "usp:ulysses=u,ring=r");
  const pir::Graph& g = p.graph;
  std::vector<pir::OpId> joint = OpsEndingWith(g, ".attn");
  ASSERT_EQ(joint.size(), 57u);  // 19 double + 38 single blocks
  for (pir::OpId op : joint) {
    EXPECT_EQ(FactorAxes(p, op, "h"), R"([{"u"}])") << g.op(op).name;
    EXPECT_EQ(FactorAxes(p, op, "kv"), R"([{"r"}])");
  }
  for (pir::OpId op : OpsEndingWith(g, ".img_mlp.0"))
    EXPECT_EQ(ValueText(p, g.op(op).results[0]), R"([{}, {"r","u"}, {}])");
  for (pir::OpId op : OpsEndingWith(g, ".txt_mlp.0")) EXPECT_EQ(ValueText(p, g.op(op).results[0]), "[{}, {}, {}]");

  Planned tp = Plan(Options{.model = "open-sora-2.0", .frames = 9}, "t=4", "tp=4");
  for (const char* column : {".img_attn.q_proj", ".txt_attn.v_proj", ".img_mlp.0", "single_blocks.3.k_proj"}) {
    std::vector<pir::OpId> ops = OpsEndingWith(tp.graph, column);
    ASSERT_FALSE(ops.empty()) << column;
    for (pir::OpId op : ops) EXPECT_EQ(FactorAxes(tp, op, "y"), R"([{"t"}])") << tp.graph.op(op).name;
  }
  for (const char* row : {".img_attn.proj", ".txt_mlp.2", ".linear2"}) {
    std::vector<pir::OpId> ops = OpsEndingWith(tp.graph, row);
    ASSERT_FALSE(ops.empty()) << row;
    for (pir::OpId op : ops) EXPECT_EQ(FactorAxes(tp, op, "z"), R"([{"t"}])") << tp.graph.op(op).name;
  }
}

TEST(TemplatePlans, CfgSplitsTheBatch2Forward) {
  Planned p = Plan(Options{.cfg = zoo::CfgMode::kBatch2, .step = true}, "x=2,y=2,z=2", "cfg=x,usp:ulysses=2,ring=2");
  const pir::Graph& g = p.graph;
  // ulysses=2 binds the first free size-2 axis (y), ring=2 the next (z).
  for (pir::OpId op : OpsEndingWith(g, ".self_attn.attention")) {
    EXPECT_EQ(FactorAxes(p, op, "b"), R"([{"x"}])");
    EXPECT_EQ(FactorAxes(p, op, "h"), R"([{"y"}])");
    EXPECT_EQ(FactorAxes(p, op, "q"), R"([{"z"}])");
  }
  for (pir::OpId op : OpsEndingWith(g, ".ffn.0"))
    EXPECT_EQ(ValueText(p, g.op(op).operands[0]), R"([{"x"}, {"z","y"}, {}])");
  // The step's own latent (batch 1) is not split by cfg; the guidance combine
  // gathers the two halves.
  EXPECT_EQ(p.plan.values[0].dims[0], std::vector<int>{});
  EXPECT_EQ(ValueText(p, g.op(OpsEndingWith(g, "cfg.latent_x2")[0]).results[0]).substr(0, 7), R"([{"x"},)");
  EXPECT_TRUE(
      p.plan.values[static_cast<size_t>(g.op(OpsEndingWith(g, "cfg.split_cond")[0]).results[0])].dims[0].empty());
}

TEST(TemplatePlans, DpShardsEveryBatchedActivation) {
  Planned p = Plan(Options{.cfg = zoo::CfgMode::kTwoPass, .step = true, .batch = 2}, "d=2,u=4", "dp,ulysses=u");
  const pir::Graph& g = p.graph;
  for (pir::ValueId id = 0; id < g.num_values(); ++id) {
    const pir::Value& v = g.value(id);
    if (v.role != pir::ValueRole::kActivation || v.type.rank() < 3) continue;
    EXPECT_EQ(p.plan.values[static_cast<size_t>(id)].dims[0], std::vector<int>{0}) << g.op(v.producer).name;
  }
  EXPECT_EQ(ValueText(p, 0), R"([{"d"}, {}, {}, {}, {}])");  // the latent input
  // Both passes of the two-pass step run the same layout on the shared weights.
  for (const char* pass : {"cond.", "uncond."}) {
    pir::OpId op = OpsEndingWith(g, std::string(pass) + "blocks.7.self_attn.attention")[0];
    EXPECT_EQ(FactorAxes(p, op, "h"), R"([{"u"}])");
  }
}

TEST(TemplatePlans, TensorParallelIsMegatron) {
  Planned p = Plan(Options{}, "t=4", "tp=4");
  const pir::Graph& g = p.graph;
  for (const char* column :
       {".self_attn.q", ".self_attn.k", ".self_attn.v", ".cross_attn.q", ".cross_attn.k", ".cross_attn.v", ".ffn.0"}) {
    for (pir::OpId op : OpsEndingWith(g, column)) {
      EXPECT_EQ(FactorAxes(p, op, "y"), R"([{"t"}])") << g.op(op).name;
      EXPECT_EQ(ValueText(p, g.op(op).operands[1]), R"([{}, {"t"}])");
    }
  }
  for (const char* row : {".self_attn.o", ".cross_attn.o", ".ffn.2"}) {
    for (pir::OpId op : OpsEndingWith(g, row)) {
      EXPECT_EQ(FactorAxes(p, op, "z"), R"([{"t"}])") << g.op(op).name;
      EXPECT_EQ(ValueText(p, g.op(op).results[0]), R"([{}, {}, {}] partial={"t"})");
    }
  }
  for (pir::OpId op : OpsEndingWith(g, "_attn.attention")) EXPECT_EQ(FactorAxes(p, op, "h"), R"([{"t"}])");
  // The FFN hidden activation is split on its features.
  for (pir::OpId op : OpsEndingWith(g, ".ffn.1")) EXPECT_EQ(ValueText(p, g.op(op).results[0]), R"([{}, {}, {"t"}])");
}

TEST(TemplatePlans, FsdpStoresWeightsShardedAndRunsReplicated) {
  Planned p = Plan(Options{}, "f=8", "fsdp=8");
  const pir::Graph& g = p.graph;
  for (pir::ValueId id = 0; id < g.num_values(); ++id) {
    const pir::Value& v = g.value(id);
    if (v.role != pir::ValueRole::kParameter) continue;
    const TensorSharding& s = p.plan.values[static_cast<size_t>(id)];
    int sharded_dims = 0;
    for (const auto& dim : s.dims) sharded_dims += dim.empty() ? 0 : 1;
    EXPECT_EQ(sharded_dims, v.type.rank() >= 2 ? 1 : 0) << v.name;
  }
  auto param = [&](const std::string& name) {
    for (pir::ValueId id = 0; id < g.num_values(); ++id) {
      if (g.value(id).name == name) return ValueText(p, id);
    }
    return std::string("missing");
  };
  EXPECT_EQ(param("blocks.0.ffn.0.weight"), R"([{}, {"f"}])");    // [1536, 8960]: the larger dim
  EXPECT_EQ(param("blocks.0.ffn.2.weight"), R"([{"f"}, {}])");    // [8960, 1536]
  EXPECT_EQ(param("blocks.0.modulation"), R"([{}, {}, {"f"}])");  // [1, 6, 1536]: 6 % 8 != 0
  EXPECT_EQ(param("blocks.0.ffn.0.bias"), "[{}]");
  // Gathered before use: no op is sharded.
  for (const OpSharding& op : p.plan.ops) {
    for (const auto& axes : op.factor_axes) EXPECT_TRUE(axes.empty());
  }
}

TEST(TemplatePlans, EveryTemplateVerifiesOnEveryGraphKind) {
  struct Case {
    std::string mesh, spec;
    int64_t batch;
  };
  const Case cases[] = {{"y=4", "ulysses=4", 1},
                        {"y=4", "ring=4", 1},
                        {"x=2,y=2", "usp:ulysses=2,ring=2", 1},
                        {"t=4", "tp=4", 1},
                        {"f=8", "fsdp=8", 1},
                        {"x=2,y=4", "dp=x,ulysses=y", 2},
                        {"x=2,t=2,f=2", "dp=x,tp=t,fsdp=f", 2}};
  for (const char* model : {"wan2.1-i2v-14b", "hunyuanvideo-13b"}) {
    for (zoo::CfgMode cfg : {zoo::CfgMode::kTwoPass, zoo::CfgMode::kBatch2, zoo::CfgMode::kNone}) {
      for (bool step : {false, true}) {
        for (const Case& c : cases) {
          SCOPED_TRACE(std::string(model) + " " + std::string(zoo::CfgModeName(cfg)) + (step ? " step " : " forward ") +
                       c.spec);
          Plan(Options{.model = model, .cfg = cfg, .step = step, .batch = c.batch}, c.mesh, c.spec);
        }
      }
    }
    SCOPED_TRACE(model);
    Plan(Options{.model = model, .cfg = zoo::CfgMode::kBatch2, .step = true, .batch = 2}, "c=2,d=2,u=2",
         "cfg=c,dp=d,ulysses=u");
  }
}

}  // namespace
}  // namespace az::shard

namespace az::shard {
namespace {

// fsdp stores weights only, so it may share the sequence-parallel axis
// (xDiT: Ulysses over 8 ranks with FSDP over the same 8), or span several
// axes. Every weight of rank >= 2 is then stored on exactly those axes.
TEST(TemplateFsdp, SharesAndSpansAxes) {
  zoo::ModelOptions options{.width = 416, .height = 240, .frames = 5};
  auto config = zoo::ResolveConfig("wan2.1-t2v-1.3b", options);
  ASSERT_TRUE(config.ok());
  auto graph = zoo::BuildForward(*config);
  ASSERT_TRUE(graph.ok());
  struct Case {
    const char* mesh;
    const char* spec;
    std::vector<int> axes;
  };
  for (const Case& c : {Case{"sp=4", "ulysses=sp,fsdp=sp", {0}}, Case{"sp=4", "ulysses=4,fsdp=4", {0}},
                        Case{"x=2,y=2", "ulysses=y,ring=x,fsdp=4", {0, 1}},
                        Case{"x=2,y=2", "ulysses=y,ring=x,fsdp=x+y", {0, 1}},
                        Case{"x=2,y=2", "ulysses=y,ring=x,fsdp", {0, 1}},
                        Case{"x=2,y=2", "ulysses=y,fsdp=2", {0}}}) {
    auto mesh = Mesh::Parse(c.mesh);
    ASSERT_TRUE(mesh.ok());
    auto seeds = TemplateSeeds(*graph, *mesh, c.spec);
    ASSERT_TRUE(seeds.ok()) << c.spec << ": " << seeds.status().message();
    ASSERT_FALSE(seeds->storage_only.empty());
    for (pir::ValueId id : seeds->storage_only) {
      const TensorSharding& s = seeds->values.at(id);
      int sharded_dims = 0;
      for (const auto& dim : s.dims) {
        if (dim.empty()) continue;
        ++sharded_dims;
        EXPECT_EQ(dim, c.axes) << c.spec;
      }
      EXPECT_EQ(sharded_dims, 1) << c.spec;
    }
    auto plan = Propagate(*graph, *mesh, *seeds);
    EXPECT_TRUE(plan.ok()) << c.spec << ": " << plan.status().message();
  }
  auto mesh = Mesh::Parse("x=2,y=2");
  ASSERT_TRUE(mesh.ok());
  auto bad = TemplateSeeds(*graph, *mesh, "ulysses=y,fsdp=3");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("multiply to 3"), std::string::npos) << bad.status().message();
  EXPECT_FALSE(TemplateSeeds(*graph, *mesh, "ulysses=y,fsdp=z").ok());
  EXPECT_FALSE(TemplateSeeds(*graph, *mesh, "ulysses=y,fsdp=x+x").ok());
}

}  // namespace
}  // namespace az::shard
