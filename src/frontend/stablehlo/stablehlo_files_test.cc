// The StableHLO importer on the real JAX / torch-xla exports in
// ../shared/data/stablehlo (formats.md §5 lists what each holds).
#include <gtest/gtest.h>

#include <map>

#include "frontend/stablehlo/import.h"
#include "support/test_files.h"

namespace az::frontend {
namespace {

using Axes = std::vector<std::vector<std::string>>;

struct Loaded {
  ImportedProgram program;
  std::vector<ManualCollective> collectives;
  int params = 0, inputs = 0, einsums = 0, attentions = 0, customs = 0;
  std::map<std::string, int> kinds;              // collective kind -> count
  std::map<std::vector<std::string>, int> axes;  // collective group axes -> count
};

std::optional<Loaded> Load(const std::string& path) {
  auto program = ImportStableHloFile(path, ImportOptions{});
  EXPECT_TRUE(program.ok()) << program.status().message();
  if (!program.ok()) return std::nullopt;
  auto collectives = ListManualCollectives(testing::ReadTextFile(path), path);
  EXPECT_TRUE(collectives.ok()) << collectives.status().message();
  if (!collectives.ok()) return std::nullopt;
  Loaded l;
  l.program = std::move(*program);
  l.collectives = std::move(*collectives);
  for (const ImportedArgument& a : l.program.arguments) {
    (l.program.graph.value(a.value).role == pir::ValueRole::kParameter ? l.params : l.inputs)++;
  }
  for (const pir::Op& op : l.program.graph.ops()) {
    l.einsums += op.kind == pir::OpKind::kEinsum;
    l.attentions += op.kind == pir::OpKind::kAttention;
    l.customs += op.kind == pir::OpKind::kCustom;
  }
  for (const ManualCollective& c : l.collectives) {
    ++l.kinds[c.kind];
    ++l.axes[c.axes];
  }
  return l;
}

const Axes& ArgSharding(const Loaded& l, size_t arg) {
  static const Axes kNone;
  const auto& s = l.program.graph.value(l.program.arguments.at(arg).value).sharding;
  return s ? s->dim_axes : kNone;
}
const Axes& Pinned(const Loaded& l, size_t arg) {
  static const Axes kNone;
  auto it = l.program.pinned.find(l.program.arguments.at(arg).value);
  return it == l.program.pinned.end() ? kNone : it->second.dim_axes;
}
std::vector<std::pair<std::string, int64_t>> MeshAxes(const Loaded& l) {
  return l.program.graph.meshes().empty() ? std::vector<std::pair<std::string, int64_t>>{}
                                          : l.program.graph.meshes()[0].axes;
}

// The e2e files are one MLP loss: x [32,784] -> 784x128 -> 4 x (128x128) -> 128x8,
// each layer a weight and a bias, against y [32,8]: 6 weights + 6 biases = 12
// parameters, 2 inputs, 6 dot_generals. Their manual bodies import at global
// shapes: no custom op, no warning.
void ExpectMlp(const Loaded& l) {
  EXPECT_EQ(l.params, 12);
  EXPECT_EQ(l.inputs, 2);
  EXPECT_EQ(l.einsums, 6);
  EXPECT_EQ(l.customs, 0);
  EXPECT_TRUE(l.program.warnings.empty()) << l.program.warnings[0];
  EXPECT_EQ(l.program.results.size(), 1u);
}

TEST(StableHloFilesTest, DataParallelShardy) {
  AZ_REQUIRE_SHARED_DATA(path, "stablehlo/e2e_dp_shardy.mlir");
  auto l = Load(path);
  ASSERT_TRUE(l);
  ExpectMlp(*l);
  EXPECT_EQ(MeshAxes(*l), (std::vector<std::pair<std::string, int64_t>>{{"x", 1}, {"y", 8}}));
  EXPECT_EQ(ArgSharding(*l, 12), (Axes{{"y"}, {}}));  // the batch of x split 8 ways
  EXPECT_EQ(ArgSharding(*l, 0), (Axes{{}, {}}));
  // One all_reduce over [[0..7]]: on x=1, y=8 only y varies.
  EXPECT_EQ(l->kinds, (std::map<std::string, int>{{"all_reduce", 1}}));
  EXPECT_EQ(l->axes, (std::map<std::vector<std::string>, int>{{{"y"}, 1}}));
}

TEST(StableHloFilesTest, FsdpGspmdAndShardyAgree) {
  AZ_REQUIRE_SHARED_DATA(gspmd_path, "stablehlo/e2e_fsdp_gspmd.mlir");
  AZ_REQUIRE_SHARED_DATA(shardy_path, "stablehlo/e2e_fsdp_shardy.mlir");
  auto gspmd = Load(gspmd_path);
  auto shardy = Load(shardy_path);
  ASSERT_TRUE(gspmd && shardy);
  ExpectMlp(*gspmd);
  ExpectMlp(*shardy);
  // GSPMD: "{devices=[8,1]<=[8]}" everywhere -> one synthesized axis d0=8.
  EXPECT_EQ(MeshAxes(*gspmd), (std::vector<std::pair<std::string, int64_t>>{{"d0", 8}}));
  EXPECT_EQ(ArgSharding(*gspmd, 0), (Axes{{"d0"}, {}}));
  EXPECT_EQ(ArgSharding(*gspmd, 1), (Axes{{"d0"}}));
  EXPECT_EQ(ArgSharding(*shardy, 0), (Axes{{"y"}, {}}));
  // 12 all_gathers (6 weights + 6 biases) + 1 all_reduce of the loss, all over every device.
  for (const Loaded* l : {&*gspmd, &*shardy}) {
    EXPECT_EQ(l->kinds, (std::map<std::string, int>{{"all_gather", 12}, {"all_reduce", 1}}));
    EXPECT_EQ(l->collectives.size(), 13u);
  }
  EXPECT_EQ(gspmd->axes, (std::map<std::vector<std::string>, int>{{{"d0"}, 13}}));
  EXPECT_EQ(shardy->axes, (std::map<std::vector<std::string>, int>{{{"y"}, 13}}));
  // The weight's all_gather moves its local block f32[98,128] = 50176 bytes.
  EXPECT_EQ(gspmd->collectives[0].bytes, 98 * 128 * 4);
}

TEST(StableHloFilesTest, FsdpTensorParallelShardy) {
  AZ_REQUIRE_SHARED_DATA(path, "stablehlo/e2e_fsdp_tp_shardy.mlir");
  auto l = Load(path);
  ASSERT_TRUE(l);
  ExpectMlp(*l);
  EXPECT_EQ(MeshAxes(*l), (std::vector<std::pair<std::string, int64_t>>{{"x", 2}, {"y", 4}}));
  // The arguments carry no annotation; the manual computation's in_shardings pin them.
  EXPECT_EQ(Pinned(*l, 0), (Axes{{"y", "x"}, {}}));
  EXPECT_EQ(Pinned(*l, 1), (Axes{{"y", "x"}}));
  EXPECT_EQ(Pinned(*l, 12), (Axes{{"x"}, {"y"}}));
  // The body reads every weight and bias only through an all_gather over x:
  // it uses them split on y alone. The input x is read as it comes.
  auto gathered = [&](size_t arg) {
    auto it = l->program.gathered.find(l->program.arguments.at(arg).value);
    return it == l->program.gathered.end() ? Axes{{"none"}} : it->second.dim_axes;
  };
  EXPECT_EQ(gathered(0), (Axes{{"y"}, {}}));
  EXPECT_EQ(gathered(1), (Axes{{"y"}}));
  EXPECT_EQ(gathered(12), (Axes{{"none"}}));
  EXPECT_EQ(l->program.gathered.size(), 12u);
  // 12 all_gather + 6 reduce_scatter + 2 all_reduce = 20: the 12 gathers and one
  // all_reduce over x ([[0,4],[1,5],[2,6],[3,7]]), the 6 reduce_scatters and the
  // other all_reduce over y ([[0,1,2,3],[4,5,6,7]]).
  EXPECT_EQ(l->kinds, (std::map<std::string, int>{{"all_gather", 12}, {"all_reduce", 2}, {"reduce_scatter", 6}}));
  EXPECT_EQ(l->axes, (std::map<std::vector<std::string>, int>{{{"x"}, 13}, {{"y"}, 7}}));
  // Global shapes: the first layer is x [32,784] . W [784,128] -> [32,128].
  const pir::Op* first = nullptr;
  for (const pir::Op& op : l->program.graph.ops()) {
    if (op.kind == pir::OpKind::kEinsum && !first) first = &op;
  }
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(l->program.graph.type(first->results[0]).ToString(), "f32[32,128]");
}

TEST(StableHloFilesTest, TensorParallelGspmdAndShardy) {
  AZ_REQUIRE_SHARED_DATA(gspmd_path, "stablehlo/e2e_tp_gspmd.mlir");
  AZ_REQUIRE_SHARED_DATA(shardy_path, "stablehlo/e2e_tp_shardy.mlir");
  auto gspmd = Load(gspmd_path);
  auto shardy = Load(shardy_path);
  ASSERT_TRUE(gspmd && shardy);
  ExpectMlp(*gspmd);
  ExpectMlp(*shardy);
  EXPECT_EQ(ArgSharding(*gspmd, 12), (Axes{{}, {"d0"}}));  // "{devices=[1,8]<=[8]}"
  EXPECT_EQ(ArgSharding(*shardy, 12), (Axes{{}, {"y"}}));
  // One reduce_scatter per layer (6), over every device.
  EXPECT_EQ(gspmd->kinds, (std::map<std::string, int>{{"reduce_scatter", 6}}));
  EXPECT_EQ(shardy->kinds, (std::map<std::string, int>{{"reduce_scatter", 6}}));
  EXPECT_EQ(shardy->axes, (std::map<std::vector<std::string>, int>{{{"y"}, 6}}));
}

// torch-xla Llama attention prefill: q/o [2048,2048] and k/v [512,2048]
// projections (4 parameters) plus the RoPE cos/sin tables [1,1024,64], which
// the rule counts as parameters (rank 3, broadcast into a rank-4 multiply):
// 6 parameters; the hidden states [1,1024,2048] and the mask [1,1,1024,1024]
// (added at its own rank) are inputs. 6 dot_generals: 4 projections and the 2
// batched attention matmuls (an attention op if FinishImport folds them).
void ExpectLlama(const Loaded& l) {
  EXPECT_EQ(l.params, 6);
  EXPECT_EQ(l.inputs, 2);
  EXPECT_EQ(l.einsums + 2 * l.attentions, 6);
  EXPECT_EQ(MeshAxes(l), (std::vector<std::pair<std::string, int64_t>>{{"_axis_0", 2}}));
  EXPECT_EQ(l.program.arguments[0].source_name, "p0.1");  // named by loc
  EXPECT_TRUE(l.collectives.empty());
  // `not` twice (compare EQ false) and the or/select reducer (a max over
  // booleans) import exactly: no custom op, no warning.
  EXPECT_EQ(l.program.warnings.size(), 0u);
  EXPECT_EQ(l.customs, 0);
}

TEST(StableHloFilesTest, LlamaAttentionPrefill) {
  AZ_REQUIRE_SHARED_DATA(manual_path, "stablehlo/sdy_llama_attn_prefill_manual.mlir");
  AZ_REQUIRE_SHARED_DATA(auto_path, "stablehlo/sdy_llama_attn_prefill_auto.mlir");
  auto manual = Load(manual_path);
  auto automatic = Load(auto_path);
  ASSERT_TRUE(manual && automatic);
  ExpectLlama(*manual);
  ExpectLlama(*automatic);
  EXPECT_EQ(ArgSharding(*manual, 0), (Axes{{}, {"_axis_0"}}));  // o_proj: row parallel
  EXPECT_EQ(ArgSharding(*manual, 1), (Axes{{"_axis_0"}, {}}));  // v_proj
  EXPECT_EQ(ArgSharding(*manual, 5), (Axes{{"_axis_0"}, {}}));  // k_proj
  EXPECT_EQ(ArgSharding(*manual, 7), (Axes{{"_axis_0"}, {}}));  // q_proj
  EXPECT_EQ(ArgSharding(*manual, 2), (Axes{{}, {}, {}}));
  EXPECT_EQ(ArgSharding(*automatic, 0), Axes{});
}

TEST(StableHloFilesTest, MlpAuto) {
  AZ_REQUIRE_SHARED_DATA(path, "stablehlo/sdy_mlp_auto.mlir");
  auto l = Load(path);
  ASSERT_TRUE(l);
  // SwiGLU: gate and up [8192,2048], down [2048,8192]; one input [1,1024,2048].
  EXPECT_EQ(l->params, 3);
  EXPECT_EQ(l->inputs, 1);
  EXPECT_EQ(l->einsums, 3);
  EXPECT_TRUE(l->program.warnings.empty());
  EXPECT_EQ(MeshAxes(*l), (std::vector<std::pair<std::string, int64_t>>{{"_axis_0", 2}}));
}

}  // namespace
}  // namespace az::frontend
