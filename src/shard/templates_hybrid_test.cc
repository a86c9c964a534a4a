// Per-part strategies (templates.h: "ulysses=x,tp=x@cross_attn+ffn") on the
// zoo's Wan 2.1 1.3B (12 heads, 256x256x5: 2 latent frames x 16 x 16 = 512
// video tokens): the parse and binding errors, and the plan each propagates
// to. The collectives the transitions compile to are in
// compile/hybrid_collectives_test.cc, the numerics in
// compile/interpret/interpreter_test.cc (InterpreterTest.PerPartHybrids).
#include <gtest/gtest.h>

#include <algorithm>

#include "frontend/zoo/zoo.h"
#include "shard/templates.h"

namespace az::shard {
namespace {

pir::Graph Wan(const std::string& model = "wan2.1-t2v-1.3b", int64_t frames = 5) {
  zoo::ModelOptions options{.width = 256, .height = 256, .frames = frames, .cfg = zoo::CfgMode::kNone};
  auto config = zoo::ResolveConfig(model, options);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  config->depth_units = 2;
  auto graph = zoo::BuildForward(*config);
  EXPECT_TRUE(graph.ok()) << graph.status().ToString();
  return std::move(graph).value();
}

std::string SeedError(const pir::Graph& graph, const std::string& mesh, const std::string& spec) {
  auto seeds = TemplateSeeds(graph, *Mesh::Parse(mesh), spec);
  EXPECT_FALSE(seeds.ok()) << spec << " was accepted";
  return seeds.ok() ? "" : seeds.status().message();
}

TEST(PerPartTemplates, ParseAndBindingErrors) {
  const pir::Graph wan = Wan();
  auto expect = [&](const std::string& mesh, const std::string& spec, const std::string& fragment) {
    std::string message = SeedError(wan, mesh, spec);
    EXPECT_NE(message.find(fragment), std::string::npos) << spec << ": " << message;
  };
  expect("x=4", "ulysses=x@self_attn,tp=x@ffn", "'ulysses=x@self_attn': only tp takes a block part scope");
  expect("x=4", "ulysses=x,tp@ffn", "'tp@ffn': a per-part tp names its axis or degree (e.g. tp=x@ffn)");
  expect("x=4", "ulysses=x,tp=x@", "expected block parts joined by '+' after '@'");
  expect("x=4", "ulysses=x,tp=x@ffn+", "expected block parts joined by '+' after '@'");
  expect("x=4", "ulysses=x,tp=x@ffn+ffn", "'tp=x@ffn+ffn' names part 'ffn' twice");
  expect("x=4", "ulysses=x,tp=x@ffn,tp=x@cross_attn", "strategy 'tp' appears twice");
  expect("x=4", "ulysses=x,tp=z@ffn", "'tp=z@ffn': the mesh x=4 has no axis 'z'");
  expect("x=4", "ulysses=x,tp=8@ffn", "'tp=8@ffn' matches neither a sequence axis nor a free mesh axis of size 8");
  expect("x=2", "dp=x,tp=x@ffn", "'tp=x@ffn' shares mesh axis 'x' with dp");
  expect("r=2,u=2", "usp:ulysses=u,ring=r,tp=r@ffn", "under usp: a per-part tp takes the minor sequence axis");
  expect("x=4", "ulysses=x,tp=x@fnn",
         "wan2.1-t2v-1.3b's blocks have no part 'fnn' (their parts: cross_attn, ffn, self_attn)");
  // The attention in a part splits its heads: 12 heads do not split 8 ways
  // (the FFN alone would: its hidden width is padded).
  expect("x=8", "ring=x,tp=x@cross_attn", "the 12 heads of 'blocks.0.cross_attn.attention' do not split 8 ways");
  expect("x=8", "ring=x,tp=x@self_attn", "the 12 attention heads of wan2.1-t2v-1.3b do not split 8 ways");
  EXPECT_TRUE(TemplateSeeds(wan, *Mesh::Parse("x=8"), "ring=x,tp=x@ffn").ok());
  // fsdp only stores, so it leaves x free for a per-part tp of its own axis.
  EXPECT_TRUE(TemplateSeeds(wan, *Mesh::Parse("x=2,y=2"), "fsdp=x,ring=y,tp=x@ffn").ok());
}

// A training step (frontend/zoo/train.cc) under "ring=x,tp=x@cross_attn+ffn":
// the parts' backward runs Megatron, the mirror of their forward, and the
// self-attention trains as ring attention.
TEST(PerPartTemplates, TrainingStepRunsThePartsBackwardAsMegatron) {
  zoo::ModelOptions options{.width = 256, .height = 256, .frames = 9};
  auto config = zoo::ResolveConfig("wan2.1-t2v-1.3b", options);
  ASSERT_TRUE(config.ok());
  config->depth_units = 1;
  zoo::TrainOptions train;
  train.remat = pir::RematPolicy::kFull;
  auto step = zoo::BuildTrainStep(*config, train);
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  const Mesh mesh = *Mesh::Parse("x=2");
  auto seeds = TemplateSeeds(*step, mesh, "ring=x,tp=x@cross_attn+ffn");
  ASSERT_TRUE(seeds.ok()) << seeds.status().ToString();
  auto plan = Propagate(*step, mesh, *seeds);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_TRUE(VerifyPlan(*step, *plan).ok());
  auto op = [&](const std::string& name) {
    for (pir::OpId id = 0; id < step->num_ops(); ++id) {
      if (step->op(id).name == name) return id;
    }
    ADD_FAILURE() << "no op " << name;
    return pir::OpId{0};
  };
  auto result = [&](const std::string& name) {
    return plan->values[static_cast<size_t>(step->op(op(name)).results[0])].ToString(mesh);
  };
  auto factor = [&](const std::string& name, const std::string& f) {
    const pir::OpId id = op(name);
    const int index = plan->rules[static_cast<size_t>(id)].FindFactor(f);
    if (index < 0) return "no factor " + f;
    return TensorSharding{{plan->ops[static_cast<size_t>(id)].factor_axes[static_cast<size_t>(index)]}, {}}.ToString(
        mesh);
  };
  // The FFN's backward: the gate's gradient (sequence-split) is gathered for
  // dH = dY W2^T, split on the hidden width; dX = dH W0^T is partial, then
  // back on the sequence split; the weight gradients split like the weights
  // (ffn.0 [1536, 8960] on its columns, ffn.2 [8960, 1536] on its rows), whole.
  EXPECT_EQ(result("blocks.0.ffn.gate.grad.cast0"), R"([{}, {"x"}, {}])");
  EXPECT_EQ(result("blocks.0.ffn.2.grad.lhs"), R"([{}, {}, {"x"}])");
  EXPECT_EQ(result("blocks.0.ffn.0.grad.lhs"), R"([{}, {}, {}] partial={"x"})");
  EXPECT_EQ(result("blocks.0.ffn.cast.grad.cast0"), R"([{}, {"x"}, {}])");
  EXPECT_EQ(result("blocks.0.ffn.0.grad.rhs"), R"([{}, {"x"}])");
  EXPECT_EQ(result("blocks.0.ffn.2.grad.rhs"), R"([{"x"}, {}])");
  // The rematerialized FFN runs as its forward.
  EXPECT_EQ(result("blocks.0.ffn.0.remat"), R"([{}, {}, {"x"}])");
  // The cross-attention's backward splits its heads, its queries whole; the
  // self-attention's is ring attention's (q and kv on x).
  EXPECT_EQ(factor("blocks.0.cross_attn.attention.grad.attention", "h"), R"([{"x"}])");
  EXPECT_EQ(factor("blocks.0.cross_attn.attention.grad.attention", "q"), "[{}]");
  EXPECT_EQ(factor("blocks.0.self_attn.attention.grad.attention", "q"), R"([{"x"}])");
  EXPECT_EQ(factor("blocks.0.self_attn.attention.grad.attention", "kv"), R"([{"x"}])");
  EXPECT_EQ(factor("blocks.0.self_attn.attention.grad.attention", "h"), "[{}]");
}

// ZeRO-3 with a per-part tp: the parts' Megatron weights, a column linear's
// bias and their AdamW states are stored tp-major along the dim tp splits;
// every other parameter (vectors too) by fsdp's own rule.
TEST(PerPartTemplates, TrainingStepStoresTheirWeightsTpMajor) {
  zoo::ModelOptions options{.width = 256, .height = 256, .frames = 9};
  auto config = zoo::ResolveConfig("wan2.1-t2v-1.3b", options);
  ASSERT_TRUE(config.ok());
  config->depth_units = 1;
  zoo::TrainOptions train;
  train.micro_batch = 2;
  auto step = zoo::BuildTrainStep(*config, train);
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  const Mesh mesh = *Mesh::Parse("y=2,x=2");
  auto seeds = TemplateSeeds(*step, mesh, "ring=x,tp=x@ffn,fsdp=y+x");
  ASSERT_TRUE(seeds.ok()) << seeds.status().ToString();
  auto stored = [&](const std::string& name) {
    for (pir::ValueId id = 0; id < step->num_values(); ++id) {
      if (step->value(id).name == name) return seeds->values.at(id).ToString(mesh);
    }
    return std::string("no value ") + name;
  };
  EXPECT_EQ(stored("blocks.0.ffn.0.weight"), R"([{}, {"x","y"}])");
  EXPECT_EQ(stored("blocks.0.ffn.0.weight.exp_avg"), R"([{}, {"x","y"}])");
  EXPECT_EQ(stored("blocks.0.ffn.0.bias"), R"([{"x","y"}])");
  EXPECT_EQ(stored("blocks.0.ffn.2.weight"), R"([{"x","y"}, {}])");
  EXPECT_EQ(stored("blocks.0.ffn.2.bias"), R"([{"y","x"}])");
  EXPECT_EQ(stored("blocks.0.self_attn.q.weight"), R"([{"y","x"}, {}])");
  // Without the scope (whole-model strategies) a training step keeps
  // fsdp's own layout for every weight.
  auto plain = TemplateSeeds(*step, *Mesh::Parse("y=2,x=2"), "ring=x,fsdp=y+x");
  ASSERT_TRUE(plain.ok());
  for (pir::ValueId id = 0; id < step->num_values(); ++id) {
    if (step->value(id).name == "blocks.0.ffn.0.weight") {
      EXPECT_EQ(plain->values.at(id).ToString(mesh), R"([{}, {"y","x"}])");
    }
  }
}

TEST(PerPartTemplates, BlockPartsOfTheZoo) {
  EXPECT_EQ(BlockParts(Wan()), (std::vector<std::string>{"cross_attn", "ffn", "self_attn"}));
  // The ops of the block itself (modulation, its chunks) are in no part.
  pir::GraphBuilder b("g");
  b.graph().attrs().Set("video_tokens", int64_t{4});
  pir::ValueId x = b.Input("latent", pir::DType::kF32, {1, 4, 8});
  {
    pir::GraphBuilder::Scope block(b, "blocks.7");
    b.Binary(pir::OpKind::kAdd, "shift_sa", x, x);
    pir::GraphBuilder::Scope mlp(b, "mlp");
    b.Binary(pir::OpKind::kAdd, "fc1", x, x);
  }
  EXPECT_EQ(BlockParts(b.Finish()), (std::vector<std::string>{"mlp"}));
}

// The values and ops of block 0 under "ulysses=x,tp=x@cross_attn+ffn".
class PerPartPlan : public ::testing::Test {
 protected:
  void SetUp() override {
    graph_ = Wan();
    mesh_ = *Mesh::Parse("x=4");
    auto seeds = TemplateSeeds(graph_, mesh_, "ulysses=x,tp=x@cross_attn+ffn");
    ASSERT_TRUE(seeds.ok()) << seeds.status().ToString();
    auto plan = Propagate(graph_, mesh_, *seeds);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    ASSERT_TRUE(VerifyPlan(graph_, *plan).ok());
    plan_ = std::move(plan).value();
  }
  pir::OpId Op(const std::string& name) const {
    for (pir::OpId id = 0; id < graph_.num_ops(); ++id) {
      if (graph_.op(id).name == name) return id;
    }
    ADD_FAILURE() << "no op " << name;
    return 0;
  }
  std::string Result(const std::string& op) const {
    return plan_.values[static_cast<size_t>(graph_.op(Op(op)).results[0])].ToString(mesh_);
  }
  std::string Factor(const std::string& op, const std::string& factor) const {
    pir::OpId id = Op(op);
    const pir::FactorRule& rule = plan_.rules[static_cast<size_t>(id)];
    for (size_t f = 0; f < rule.factors.size(); ++f) {
      if (rule.factors[f].name != factor) continue;
      TensorSharding one{{plan_.ops[static_cast<size_t>(id)].factor_axes[f]}, {}};
      return one.ToString(mesh_);
    }
    return "no factor " + factor;
  }
  pir::Graph graph_;
  Mesh mesh_;
  ShardingPlan plan_;
};

TEST_F(PerPartPlan, UlyssesSelfAttentionTensorParallelCrossAttentionAndFfn) {
  // The stream: split by the sequence on x, in and out of every part.
  for (const char* stream : {"blocks.0.self_attn.residual", "blocks.0.cross_attn.residual", "blocks.0.ffn.residual",
                             "blocks.0.ffn.norm2", "blocks.0.ffn.cast", "blocks.0.cross_attn.cast"}) {
    EXPECT_EQ(Result(stream), R"([{}, {"x"}, {}])") << stream;
  }
  // Self-attention: Ulysses (heads inside the kernel, no sequence split there).
  EXPECT_EQ(Factor("blocks.0.self_attn.attention", "h"), R"([{"x"}])");
  EXPECT_EQ(Factor("blocks.0.self_attn.attention", "q"), "[{}]");
  EXPECT_EQ(Result("blocks.0.self_attn.q"), R"([{}, {"x"}, {}])");
  // Cross-attention: Megatron, the whole sequence of queries on each device.
  EXPECT_EQ(Factor("blocks.0.cross_attn.q", "y"), R"([{"x"}])");
  EXPECT_EQ(Factor("blocks.0.cross_attn.q", "b"), "[{}]");
  EXPECT_EQ(Factor("blocks.0.cross_attn.attention", "h"), R"([{"x"}])");
  EXPECT_EQ(Factor("blocks.0.cross_attn.attention", "q"), "[{}]");
  EXPECT_EQ(Result("blocks.0.cross_attn.o"), R"([{}, {}, {}] partial={"x"})");
  // FFN: hidden width on x, the row linear's sum partial.
  EXPECT_EQ(Result("blocks.0.ffn.1"), R"([{}, {}, {"x"}])");
  EXPECT_EQ(Result("blocks.0.ffn.2"), R"([{}, {}, {}] partial={"x"})");
  // Block 1 the same (every block, not the first).
  EXPECT_EQ(Result("blocks.1.ffn.1"), R"([{}, {}, {"x"}])");
  EXPECT_EQ(Factor("blocks.1.self_attn.attention", "h"), R"([{"x"}])");
}

TEST(PerPartTemplates, FsdpStoresMegatronWeightsTpMajor) {
  // With fsdp over every axis, a weight a tp splits is stored along the dim
  // the tp splits, tp's axis major, so its use gathers only the other axes:
  // ffn.0's [1536, 8960] on dim 1 over [x, y]; a weight outside the tp's
  // parts keeps fsdp's own layout (its largest dim, mesh order).
  const pir::Graph wan = Wan();
  Mesh mesh = *Mesh::Parse("y=2,x=2");
  auto seeds = TemplateSeeds(wan, mesh, "ring=x,tp=x@ffn,fsdp=y+x");
  ASSERT_TRUE(seeds.ok()) << seeds.status().ToString();
  auto stored = [&](const std::string& name) {
    for (pir::ValueId id = 0; id < wan.num_values(); ++id) {
      if (wan.value(id).name == name) return seeds->values.at(id).ToString(mesh);
    }
    return std::string("no value ") + name;
  };
  EXPECT_EQ(stored("blocks.0.ffn.0.weight"), R"([{}, {"x","y"}])");
  EXPECT_EQ(stored("blocks.0.ffn.2.weight"), R"([{"x","y"}, {}])");
  EXPECT_EQ(stored("blocks.0.self_attn.q.weight"), R"([{"y","x"}, {}])");
}

}  // namespace
}  // namespace az::shard
