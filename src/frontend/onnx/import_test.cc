// The ONNX importer on models built in code (onnx_test_writer.h). FinishImport
// may fold decompositions (MatMul + Add -> einsum with bias, MatMul/Softmax/
// MatMul -> attention); the checks accept both forms where that matters.
#include "frontend/onnx/import.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "frontend/onnx/onnx_test_writer.h"

namespace az::frontend {
namespace {

using onnx::testing::AttrFloat;
using onnx::testing::AttrInt;
using onnx::testing::AttrInts;
using onnx::testing::AttrTensor;
using onnx::testing::CountOps;
using onnx::testing::kFloat;
using onnx::testing::kInt64;
using onnx::testing::OnnxBuilder;
using onnx::testing::ParamCount;
using onnx::testing::Tensor;

const pir::Op* FindOp(const pir::Graph& g, pir::OpKind kind) {
  for (const pir::Op& op : g.ops()) {
    if (op.kind == kind) return &op;
  }
  return nullptr;
}

const pir::Value* FindValue(const pir::Graph& g, const std::string& name) {
  for (const pir::Value& v : g.values()) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

StatusOr<ImportedProgram> Import(const OnnxBuilder& b, ImportOptions options = {}) {
  return ImportOnnx(b.Build(), "test.onnx", options);
}

// Import, which must succeed: a failure is a test failure and an empty program.
ImportedProgram MustImport(const OnnxBuilder& b, ImportOptions options = {}) {
  auto program = Import(b, std::move(options));
  EXPECT_TRUE(program.ok()) << program.status().message();
  return program.ok() ? std::move(program).value() : ImportedProgram();
}

// nn.Linear(16, 32) as the legacy exporter writes it for a 3-D input: MatMul
// with a pre-transposed [in, out] initializer of generated name, then Add.
OnnxBuilder LinearModel() {
  OnnxBuilder b;
  b.Input("x", kFloat, {2, 8, 16})
      .Output("y", kFloat, {2, 8, 32})
      .Initializer(Tensor("onnx::MatMul_7", kFloat, {16, 32}))
      .Initializer(Tensor("proj.bias", kFloat, {32}))
      .Node({"MatMul", {"x", "onnx::MatMul_7"}, {"/proj/MatMul_output_0"}, "/proj/MatMul"})
      .Node({"Add", {"proj.bias", "/proj/MatMul_output_0"}, {"y"}, "/proj/Add"});
  return b;
}

TEST(OnnxImportTest, LinearMatMulAdd) {
  ImportedProgram p = MustImport(LinearModel());
  const pir::Graph& g = p.graph;
  // 16 * 32 weight + 32 bias = 544.
  EXPECT_EQ(ParamCount(g), 544);
  ASSERT_EQ(CountOps(g, pir::OpKind::kEinsum), 1);
  const pir::Op* einsum = FindOp(g, pir::OpKind::kEinsum);
  ASSERT_NE(einsum, nullptr);
  // [2,8,16] x [16,32]: batch letter a, then m = b, k = c, n = d.
  EXPECT_EQ(einsum->attrs.GetString("eq"), "abc,cd->abd");
  EXPECT_EQ(einsum->name, "proj");  // module scope of "/proj/MatMul"
  // The generated initializer name takes its consumer's scope.
  ASSERT_NE(FindValue(g, "proj.weight"), nullptr);
  EXPECT_EQ(FindValue(g, "proj.weight")->role, pir::ValueRole::kParameter);
  EXPECT_EQ(g.type(g.outputs()[0]).ToString(), "f32[2,8,32]");
  ASSERT_EQ(p.arguments.size(), 3u);
  EXPECT_EQ(p.arguments[0].source_name, "x");
  EXPECT_EQ(p.arguments[1].source_name, "onnx::MatMul_7");
  EXPECT_EQ(p.results[0].source_name, "y");
  EXPECT_TRUE(p.warnings.empty());
}

// The exporter without constant folding: Transpose(W [out, in]) -> MatMul.
// W has 80 * 64 = 5,120 elements, over kMaxFoldElements: a smaller one would
// keep its values and its Transpose would fold to a constant.
TEST(OnnxImportTest, LinearThroughTransposedWeight) {
  OnnxBuilder b;
  b.Input("x", kFloat, {2, 8, 64})
      .Output("y", kFloat, {2, 8, 80})
      .Initializer(Tensor("proj.weight", kFloat, {80, 64}))
      .Node({"Transpose", {"proj.weight"}, {"wt"}, "/proj/Transpose", {AttrInts("perm", {1, 0})}})
      .Node({"MatMul", {"x", "wt"}, {"y"}, "/proj/MatMul"});
  ImportedProgram p = MustImport(b);
  // The einsum reads the [out, in] weight directly; the dead transpose is pruned.
  ASSERT_EQ(p.graph.num_ops(), 1);
  EXPECT_EQ(p.graph.ops()[0].attrs.GetString("eq"), "abc,dc->abd");
  EXPECT_EQ(p.graph.value(p.graph.ops()[0].operands[1]).name, "proj.weight");
}

TEST(OnnxImportTest, GemmTransB) {
  OnnxBuilder b;
  b.Input("x", kFloat, {4, 16})
      .Output("y", kFloat, {4, 32})
      .Initializer(Tensor("fc.weight", kFloat, {32, 16}))
      .Initializer(Tensor("fc.bias", kFloat, {32}))
      .Node({"Gemm", {"x", "fc.weight", "fc.bias"}, {"y"}, "/fc/Gemm", {AttrInt("transB", 1)}});
  ImportedProgram p = MustImport(b);
  // 32 * 16 + 32 = 544.
  EXPECT_EQ(ParamCount(p.graph), 544);
  const pir::Op* einsum = FindOp(p.graph, pir::OpKind::kEinsum);
  ASSERT_NE(einsum, nullptr);
  EXPECT_EQ(einsum->attrs.GetString("eq"), "mk,nk->mn");
  EXPECT_EQ(einsum->operands.size(), 3u);  // alpha = beta = 1: the bias is the einsum's
  EXPECT_EQ(einsum->name, "fc");
  EXPECT_EQ(p.graph.num_ops(), 1);
}

TEST(OnnxImportTest, GemmAlphaBeta) {
  OnnxBuilder b;
  b.Input("x", kFloat, {16, 4})
      .Output("y", kFloat, {4, 8})
      .Initializer(Tensor("w", kFloat, {16, 8}))
      .Initializer(Tensor("c", kFloat, {4, 8}))
      .Node({"Gemm",
             {"x", "w", "c"},
             {"y"},
             "g",
             {AttrInt("transA", 1), AttrFloat("alpha", 0.5f), AttrFloat("beta", 2.0f)}});
  ImportedProgram p = MustImport(b);
  // einsum, mul(alpha), mul(beta), add.
  const pir::Op* einsum = FindOp(p.graph, pir::OpKind::kEinsum);
  ASSERT_NE(einsum, nullptr);
  EXPECT_EQ(einsum->attrs.GetString("eq"), "km,kn->mn");
  EXPECT_EQ(CountOps(p.graph, pir::OpKind::kMul), 2);
  EXPECT_EQ(CountOps(p.graph, pir::OpKind::kAdd), 1);
}

TEST(OnnxImportTest, LayerNormalization) {
  OnnxBuilder b;
  b.Input("x", kFloat, {2, 8, 16})
      .Output("y", kFloat, {2, 8, 16})
      .Initializer(Tensor("norm.weight", kFloat, {16}))
      .Initializer(Tensor("norm.bias", kFloat, {16}))
      .Node({"LayerNormalization",
             {"x", "norm.weight", "norm.bias"},
             {"y"},
             "/norm/LayerNormalization",
             {AttrInt("axis", -1), AttrFloat("epsilon", 1e-6f)}});
  ImportedProgram p = MustImport(b);
  const pir::Op* ln = FindOp(p.graph, pir::OpKind::kLayerNorm);
  ASSERT_NE(ln, nullptr);
  EXPECT_EQ(ln->operands.size(), 3u);
  EXPECT_EQ(ln->name, "norm");
  EXPECT_NEAR(*ln->attrs.GetFloat("eps"), 1e-6, 1e-12);
  EXPECT_EQ(ParamCount(p.graph), 32);  // weight 16 + bias 16
}

TEST(OnnxImportTest, LayerNormalizationOverTwoAxesIsCustom) {
  OnnxBuilder b;
  b.Input("x", kFloat, {2, 8, 16})
      .Output("y", kFloat, {2, 8, 16})
      .Initializer(Tensor("w", kFloat, {8, 16}))
      .Node({"LayerNormalization", {"x", "w"}, {"y"}, "ln", {AttrInt("axis", 1)}});
  ImportedProgram p = MustImport(b);
  EXPECT_EQ(CountOps(p.graph, pir::OpKind::kCustom), 1);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("over axes other than the last"), std::string::npos);
}

// scores = q @ k^T / sqrt(4); softmax; @ v, on q, k, v [B=1, H=2, L=8, D=4].
OnnxBuilder AttentionModel() {
  OnnxBuilder b;
  b.Input("q", kFloat, {1, 2, 8, 4})
      .Input("k", kFloat, {1, 2, 8, 4})
      .Input("v", kFloat, {1, 2, 8, 4})
      .Output("o", kFloat, {1, 2, 8, 4})
      .Node({"Transpose", {"k"}, {"kt"}, "/attn/Transpose", {AttrInts("perm", {0, 1, 3, 2})}})
      .Node({"MatMul", {"q", "kt"}, {"s"}, "/attn/MatMul"})
      .Node({"Constant",
             {},
             {"scale"},
             "/attn/Constant",
             {AttrTensor("value", onnx::testing::FloatTensor("", {}, {2.0f}))}})
      .Node({"Div", {"s", "scale"}, {"sd"}, "/attn/Div"})
      .Node({"Softmax", {"sd"}, {"p"}, "/attn/Softmax", {AttrInt("axis", -1)}})
      .Node({"MatMul", {"p", "v"}, {"o"}, "/attn/MatMul_1"});
  return b;
}

TEST(OnnxImportTest, AttentionMatMulSoftmaxMatMul) {
  ImportedProgram p = MustImport(AttentionModel());
  const pir::Graph& g = p.graph;
  if (CountOps(g, pir::OpKind::kAttention) == 0) {
    // Unfolded: two batched matmuls around a softmax over the last axis.
    ASSERT_EQ(CountOps(g, pir::OpKind::kEinsum), 2);
    ASSERT_GE(g.num_ops(), 5);
    EXPECT_EQ(g.ops()[1].attrs.GetString("eq"), "abcd,abde->abce");
    const pir::Op* softmax = FindOp(g, pir::OpKind::kSoftmax);
    ASSERT_NE(softmax, nullptr);
    EXPECT_EQ(softmax->attrs.GetInt("axis"), 3);
    EXPECT_EQ(softmax->name, "attn");
    EXPECT_EQ(g.ops()[4].name, "attn.MatMul_1");
  } else {
    EXPECT_EQ(CountOps(g, pir::OpKind::kAttention), 1);
  }
  EXPECT_EQ(g.type(g.outputs()[0]).ToString(), "f32[1,2,8,4]");
}

// x [1, seq, 16] -> Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), Unsqueeze(Gather(Shape(x), 1)), [4, 4])).
OnnxBuilder ShapePlumbingModel() {
  OnnxBuilder b;
  b.Input("x", kFloat, {1, std::string("seq"), 16})
      .Output("y", kFloat, {1, std::string("seq"), 4, 4})
      .Node({"Shape", {"x"}, {"shape"}, "/Shape"})
      .Node({"Constant", {}, {"i0"}, "/Constant", {AttrTensor("value", Tensor("", kInt64, {}, {0}))}})
      .Node({"Constant", {}, {"i1"}, "/Constant_1", {AttrTensor("value", Tensor("", kInt64, {}, {1}))}})
      .Node({"Gather", {"shape", "i0"}, {"b"}, "/Gather", {AttrInt("axis", 0)}})
      .Node({"Gather", {"shape", "i1"}, {"l"}, "/Gather_1", {AttrInt("axis", 0)}})
      .Node({"Constant", {}, {"axes"}, "/Constant_2", {AttrTensor("value", Tensor("", kInt64, {1}, {0}))}})
      .Node({"Unsqueeze", {"b", "axes"}, {"b1"}, "/Unsqueeze"})
      .Node({"Unsqueeze", {"l", "axes"}, {"l1"}, "/Unsqueeze_1"})
      .Node({"Constant", {}, {"hd"}, "/Constant_3", {AttrTensor("value", Tensor("", kInt64, {2}, {4, 4}))}})
      .Node({"Concat", {"b1", "l1", "hd"}, {"target"}, "/Concat", {AttrInt("axis", 0)}})
      .Node({"Reshape", {"x", "target"}, {"y"}, "/Reshape"});
  return b;
}

TEST(OnnxImportTest, ShapePlumbingFoldsOnceDimsAreBound) {
  ImportOptions options;
  options.dims["seq"] = 10;
  ImportedProgram p = MustImport(ShapePlumbingModel(), options);
  // Shape, Gather, Unsqueeze, Concat and the Constants fold away: one reshape.
  ASSERT_EQ(p.graph.num_ops(), 1);
  EXPECT_EQ(p.graph.ops()[0].kind, pir::OpKind::kReshape);
  EXPECT_EQ(p.graph.type(p.graph.outputs()[0]).ToString(), "f32[1,10,4,4]");
  EXPECT_EQ(p.graph.type(p.arguments[0].value).ToString(), "f32[1,10,16]");
}

TEST(OnnxImportTest, UnboundSymbolicDimIsNamed) {
  auto p = Import(ShapePlumbingModel());
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "test.onnx: graph input 0 'x': dim 1 is the symbolic 'seq'; bind it with a size "
            "(ImportOptions::dims, --dim seq=N)");
}

TEST(OnnxImportTest, UnsupportedOpBecomesCustomWithWarning) {
  OnnxBuilder b;
  b.Input("x", kFloat, {2, 8})
      .Output("z", kFloat, {2, 8})
      .DeclareValue("y", kFloat, {2, 8})
      .Node({"Relu", {"x"}, {"r"}, "/act/Relu"})
      .Node({"HardSwish", {"r"}, {"y"}, "/act/HardSwish"})
      .Node({"FusedGelu", {"y"}, {"z"}, "/act/FusedGelu", {}, "com.microsoft"});
  ImportedProgram p = MustImport(b);
  EXPECT_EQ(CountOps(p.graph, pir::OpKind::kCustom), 2);
  ASSERT_EQ(p.warnings.size(), 2u);
  EXPECT_EQ(p.warnings[0],
            "test.onnx: node 1 '/act/HardSwish' (HardSwish): warning: unsupported op 'HardSwish': imported as custom "
            "'onnx.HardSwish'");
  EXPECT_EQ(p.warnings[1],
            "test.onnx: node 2 '/act/FusedGelu' (FusedGelu): warning: op 'FusedGelu' of domain 'com.microsoft': "
            "imported as custom 'onnx.com.microsoft.FusedGelu'");
  const pir::Op* custom = FindOp(p.graph, pir::OpKind::kCustom);
  const pir::Op* relu = FindOp(p.graph, pir::OpKind::kMax);
  ASSERT_NE(custom, nullptr);
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(custom->attrs.GetString("target"), "onnx.HardSwish");
  EXPECT_EQ(relu->name, "act");  // Relu = max(x, 0)
}

TEST(OnnxImportTest, MalformedFilesGiveLocatedErrors) {
  std::string bytes = LinearModel().Build();
  // Cut inside the graph: some length-delimited field runs past the end.
  auto cut = ImportOnnx(std::string_view(bytes).substr(0, bytes.size() / 2), "cut.onnx", {});
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.status().message().rfind("cut.onnx: byte ", 0), 0u) << cut.status().message();
  // A node reading a value nothing defines: ONNX's checker refuses it.
  OnnxBuilder b;
  b.Input("x", kFloat, {2}).Output("y", kFloat, {2}).Node({"Add", {"x", "nope"}, {"y"}, "/Add"});
  auto undefined = Import(b);
  ASSERT_FALSE(undefined.ok());
  EXPECT_EQ(undefined.status().message(),
            "test.onnx: node 0 '/Add' (Add): error: ONNX checker: Nodes in a graph must be topologically sorted, "
            "however input 'nope' of node:  name: /Add OpType: Add  is not output of any previous nodes.");
  // Shapes that do not fit: ONNX's shape inference refuses them.
  OnnxBuilder mm;
  mm.Input("a", kFloat, {2, 3})
      .Input("b", kFloat, {4, 5})
      .Output("c", kFloat, {2, 5})
      .Node({"MatMul", {"a", "b"}, {"c"}, "mm"});
  auto mismatch = Import(mm);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.status().message(),
            "test.onnx: error: ONNX shape inference: [ShapeInferenceError] Shape inference error(s): (op_type:MatMul, "
            "node name: mm): [ShapeInferenceError] Incompatible dimensions for matrix multiplication");
}

TEST(OnnxImportTest, ExternalDataInitializerNeedsOnlyDims) {
  OnnxBuilder b;
  b.Input("x", kFloat, {4, 64})
      .Output("y", kFloat, {4, 64})
      .Initializer(Tensor("big.weight", kFloat, {64, 64}, {}, /*external=*/true))
      .Node({"MatMul", {"x", "big.weight"}, {"y"}, "/big/MatMul"});
  ImportedProgram p = MustImport(b);
  EXPECT_EQ(ParamCount(p.graph), 4096);  // 64 * 64, values in weights.bin never read
}

TEST(OnnxImportTest, TiedWeightCountsOnce) {
  OnnxBuilder b;
  b.Input("a", kFloat, {4, 16})
      .Input("b", kFloat, {4, 16})
      .Output("ya", kFloat, {4, 32})
      .Output("yb", kFloat, {4, 32})
      .Initializer(Tensor("shared.weight", kFloat, {16, 32}))
      .Node({"MatMul", {"a", "shared.weight"}, {"ya"}, "/enc/MatMul"})
      .Node({"MatMul", {"b", "shared.weight"}, {"yb"}, "/dec/MatMul"});
  ImportedProgram p = MustImport(b);
  EXPECT_EQ(ParamCount(p.graph), 512);  // one 16 x 32 weight, used twice
  ASSERT_EQ(CountOps(p.graph, pir::OpKind::kEinsum), 2);
  EXPECT_EQ(p.graph.ops()[0].operands[1], p.graph.ops()[1].operands[1]);
}

// export_params=False: weights are graph inputs.
TEST(OnnxImportTest, WeightsAsGraphInputs) {
  auto model = [](bool with_list) {
    OnnxBuilder b;
    b.Input("x", kFloat, {4, 16})
        .Input("onnx::MatMul_3", kFloat, {16, 8})
        .Input("q.bias", kFloat, {8})
        .Input("mask", kFloat, {4, 8})
        .Output("y", kFloat, {4, 8})
        .Node({"MatMul", {"x", "onnx::MatMul_3"}, {"m"}, "/q/MatMul"})
        .Node({"Add", {"m", "q.bias"}, {"a"}, "/q/Add"})
        .Node({"Add", {"a", "mask"}, {"y"}, "/Add"});
    if (with_list) {
      // python/aoizora_torch/export.py writes [[name, dims, dtype], ...]; plain names work too.
      b.Metadata("aoizora.parameters",
                 "[[\"onnx::MatMul_3\",[16,8],\"float32\"], \"q.bias\", [\"mask\", [4, 8], \"float32\"]]");
    }
    return b;
  };
  auto by_name = Import(model(false));
  ASSERT_TRUE(by_name.ok()) << by_name.status().message();
  // The naming rule: onnx::MatMul_3 (generated) and q.bias are parameters,
  // "mask" is an input: 16 * 8 + 8 = 136.
  EXPECT_EQ(ParamCount(by_name->graph), 136);
  ASSERT_NE(FindValue(by_name->graph, "q.weight"), nullptr);
  ASSERT_NE(FindValue(by_name->graph, "mask"), nullptr);
  EXPECT_EQ(FindValue(by_name->graph, "mask")->role, pir::ValueRole::kInput);
  auto listed = Import(model(true));
  ASSERT_TRUE(listed.ok()) << listed.status().message();
  EXPECT_EQ(ParamCount(listed->graph), 136 + 32);  // the list also names mask [4, 8]
}

TEST(OnnxImportTest, ParameterListMakesUnlistedInitializersBuffers) {
  OnnxBuilder b;
  b.Input("x", kFloat, {4, 8})
      .Output("y", kFloat, {4, 8})
      .Initializer(Tensor("rope.freqs", kFloat, {8}))
      .Initializer(Tensor("scale.weight", kFloat, {8}))
      .Node({"Add", {"x", "rope.freqs"}, {"a"}, "/Add"})
      .Node({"Mul", {"a", "scale.weight"}, {"y"}, "/Mul"})
      .Metadata("aoizora.parameters", "[[\"scale.weight\", [8], \"float32\"]]");
  ImportedProgram p = MustImport(b);
  EXPECT_EQ(ParamCount(p.graph), 8);  // scale.weight only
  ASSERT_NE(FindValue(p.graph, "rope.freqs"), nullptr);
  EXPECT_EQ(FindValue(p.graph, "rope.freqs")->role, pir::ValueRole::kConstant);
  OnnxBuilder bad;
  bad.Input("x", kFloat, {4, 8}).Output("x", kFloat, {4, 8}).Metadata("aoizora.parameters", "[oops");
  auto refused = Import(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("metadata 'aoizora.parameters' is not a JSON list"), std::string::npos);
}

TEST(OnnxImportTest, IdentityOfDeduplicatedInitializerIsItsOwnParameter) {
  OnnxBuilder b;
  b.Input("x", kFloat, {2, 16})
      .Output("y", kFloat, {2, 16})
      .Initializer(Tensor("blocks.0.norm.weight", kFloat, {16}))
      .Node({"Identity", {"blocks.0.norm.weight"}, {"blocks.1.norm.weight"}, "Identity_0"})
      .Node({"LayerNormalization", {"x", "blocks.0.norm.weight"}, {"h"}, "/blocks.0/norm/LayerNormalization"})
      .Node({"LayerNormalization", {"h", "blocks.1.norm.weight"}, {"y"}, "/blocks.1/norm/LayerNormalization"});
  ImportedProgram p = MustImport(b);
  EXPECT_EQ(ParamCount(p.graph), 32);  // two LayerNorm weights of 16
  EXPECT_NE(FindValue(p.graph, "blocks.1.norm.weight"), nullptr);
  ASSERT_GE(p.graph.num_ops(), 2);
  EXPECT_EQ(p.graph.ops()[1].name, "blocks.1.norm");
}

TEST(OnnxImportTest, SliceSplitGatherSqueeze) {
  OnnxBuilder b(18);  // Split's num_outputs is opset 18's
  b.Input("x", kFloat, {2, 12, 16})
      .Output("s", kFloat, {2, 6, 16})
      .Output("p0", kFloat, {2, 4, 16})
      .Output("g", kFloat, {2, 16})
      .Node({"Constant", {}, {"st"}, "c0", {AttrTensor("value", Tensor("", kInt64, {1}, {1}))}})
      .Node({"Constant", {}, {"en"}, "c1", {AttrTensor("value", Tensor("", kInt64, {1}, {INT64_MAX}))}})
      .Node({"Constant", {}, {"ax"}, "c2", {AttrTensor("value", Tensor("", kInt64, {1}, {1}))}})
      .Node({"Constant", {}, {"sp"}, "c3", {AttrTensor("value", Tensor("", kInt64, {1}, {2}))}})
      .Node({"Slice", {"x", "st", "en", "ax", "sp"}, {"s"}, "/Slice"})
      .Node({"Split", {"x"}, {"p0", "p1", "p2"}, "/Split", {AttrInt("axis", 1), AttrInt("num_outputs", 3)}})
      .Node({"Constant", {}, {"idx"}, "c4", {AttrTensor("value", Tensor("", kInt64, {}, {-1}))}})
      .Node({"Gather", {"x", "idx"}, {"g"}, "/Gather", {AttrInt("axis", 1)}});
  ImportedProgram p = MustImport(b, {});
  const pir::Graph& g = p.graph;
  ASSERT_GE(g.num_ops(), 1);
  ASSERT_EQ(g.outputs().size(), 3u);
  // Slice 1::2 of 12 -> 6 (indices 1, 3, ..., 11): limit = 1 + 5 * 2 + 1 = 12.
  EXPECT_EQ(g.ops()[0].attrs.GetInts("limit"), (std::vector<int64_t>{2, 12, 16}));
  EXPECT_EQ(g.ops()[0].attrs.GetInts("stride"), (std::vector<int64_t>{1, 2, 1}));
  EXPECT_EQ(g.type(g.outputs()[0]).ToString(), "f32[2,6,16]");
  EXPECT_EQ(g.type(g.outputs()[1]).ToString(), "f32[2,4,16]");
  // Gather of index -1 on axis 1: slice [11, 12) then reshape away the dim.
  EXPECT_EQ(g.type(g.outputs()[2]).ToString(), "f32[2,16]");
}

TEST(OnnxImportTest, ModelLocalFunctionIsInlined) {
  OnnxBuilder b;
  b.Input("x", kFloat, {4, 16})
      .Output("y", kFloat, {4, 16})
      .Initializer(Tensor("w", kFloat, {16, 16}))
      .Function("local", "LinearGelu", {"a", "w"}, {"out"},
                {{"MatMul", {"a", "w"}, {"h"}, "mm"}, {"Tanh", {"h"}, {"out"}, "act"}})
      .Node({"LinearGelu", {"x", "w"}, {"y"}, "/block/LinearGelu", {}, "local"});
  ImportedProgram p = MustImport(b);
  EXPECT_EQ(CountOps(p.graph, pir::OpKind::kEinsum), 1);
  EXPECT_EQ(CountOps(p.graph, pir::OpKind::kTanh), 1);
  EXPECT_TRUE(p.warnings.empty());
}

TEST(OnnxImportTest, RecursiveFunctionIsBounded) {
  OnnxBuilder b;
  b.Input("x", kFloat, {4})
      .Output("y", kFloat, {4})
      .Function("local", "Loop", {"a"}, {"out"}, {{"Loop", {"a"}, {"out"}, "again", {}, "local"}})
      .Node({"Loop", {"x"}, {"y"}, "call", {}, "local"});
  auto p = Import(b);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("functions nest deeper than 8 levels"), std::string::npos) << p.status().message();
}

TEST(OnnxImportTest, Conv3dPatchEmbeddingAndConv2dCustom) {
  OnnxBuilder b;
  b.Input("v", kFloat, {1, 16, 4, 8, 8})
      .Input("img", kFloat, {1, 3, 8, 8})
      .Output("p", kFloat, {1, 32, 4, 4, 4})
      .Output("q", kFloat, {1, 8, 8, 8})
      .Initializer(Tensor("patch.weight", kFloat, {32, 16, 1, 2, 2}))
      .Initializer(Tensor("patch.bias", kFloat, {32}))
      .Initializer(Tensor("c2.weight", kFloat, {8, 3, 3, 3}))
      .Node({"Conv",
             {"v", "patch.weight", "patch.bias"},
             {"p"},
             "/patch/Conv",
             {AttrInts("kernel_shape", {1, 2, 2}), AttrInts("strides", {1, 2, 2})}})
      .Node({"Conv", {"img", "c2.weight"}, {"q"}, "/c2/Conv", {AttrInts("pads", {1, 1, 1, 1})}});
  ImportedProgram p = MustImport(b);
  EXPECT_EQ(CountOps(p.graph, pir::OpKind::kConv3d), 1);
  const pir::Op* custom = FindOp(p.graph, pir::OpKind::kCustom);
  ASSERT_NE(custom, nullptr);
  // 2 * numel(out) 512 * kernel volume 9 * C_in 3 = 27648.
  EXPECT_EQ(custom->attrs.GetInt("flops"), 27648);
  ASSERT_EQ(p.warnings.size(), 1u);
}

// Writes the models above as fuzz seeds when AZ_ONNX_WRITE_SEEDS names a folder
// (fuzz/seeds/onnx/ holds their output).
TEST(OnnxImportTest, WriteFuzzSeeds) {
  const char* dir = std::getenv("AZ_ONNX_WRITE_SEEDS");
  if (dir == nullptr) GTEST_SKIP() << "set AZ_ONNX_WRITE_SEEDS=fuzz/seeds/onnx to write the seeds";
  // Opset 20 (ops ONNX 1.12 does not know set aside from its checks):
  // ReduceMean with its axes as an input, Gelu.
  OnnxBuilder opset20(20);
  opset20.Input("x", kFloat, {2, 8, 16})
      .Output("y", kFloat, {2, 8, 1})
      .Initializer(Tensor("axes", kInt64, {1}, {2}))
      .Node({"Gelu", {"x"}, {"g"}, "/act/Gelu"})
      .Node({"ReduceMean", {"g", "axes"}, {"y"}, "/mean/ReduceMean"});
  const std::pair<const char*, OnnxBuilder> models[] = {
      {"writer_linear.onnx", LinearModel()},
      {"writer_attention.onnx", AttentionModel()},
      {"writer_shape_plumbing.onnx", ShapePlumbingModel()},
      {"writer_opset20.onnx", opset20},
  };
  for (const auto& [name, model] : models) {
    std::ofstream out(std::filesystem::path(dir) / name, std::ios::binary);
    out << model.Build();
    ASSERT_TRUE(out.good()) << name;
  }
}

TEST(OnnxImportTest, FileSizeLimit) {
  std::filesystem::path path = std::filesystem::temp_directory_path() / "aoizora_onnx_too_big.onnx";
  { std::ofstream(path, std::ios::binary) << "x"; }
  // A sparse file one byte over 2 GiB: no disk blocks are written.
  std::filesystem::resize_file(path, static_cast<uintmax_t>(kMaxOnnxFileBytes) + 1);
  auto p = ImportOnnxFile(path.string(), {});
  std::filesystem::remove(path);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kResourceExhausted);
  auto missing = ImportOnnxFile("/nonexistent/model.onnx", {});
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

// A file is parsed as it is read; one protobuf refuses is read again for the
// error's location, the same as for the bytes.
TEST(OnnxImportTest, MalformedFileIsLocatedLikeItsBytes) {
  std::string bytes = LinearModel().Build();
  std::string cut = bytes.substr(0, bytes.size() / 2);
  std::filesystem::path path = std::filesystem::temp_directory_path() / "aoizora_onnx_cut.onnx";
  { std::ofstream(path, std::ios::binary) << cut; }
  auto from_file = ImportOnnxFile(path.string(), {});
  auto from_bytes = ImportOnnx(cut, path.string(), {});
  std::filesystem::remove(path);
  ASSERT_FALSE(from_file.ok());
  EXPECT_EQ(from_file.status().message(), from_bytes.status().message());
  EXPECT_EQ(from_file.status().message().rfind(path.string() + ": byte ", 0), 0u) << from_file.status().message();
}

}  // namespace
}  // namespace az::frontend
