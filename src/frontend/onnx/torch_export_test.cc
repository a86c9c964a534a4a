// The importer on files PyTorch itself exported (tests/data/onnx/, made by
// export_tiny.py there): two pre-norm transformer blocks of width 16.
//
// Parameters per block: LayerNorm 2 * 16 = 32; q, k, v, o 4 * (16 * 16 + 16) =
// 1088; ffn.0 16 * 64 + 64 = 1088; ffn.2 64 * 16 + 16 = 1040; total 3248, two
// blocks 6496 (what torch counts). Matmuls per block: 6 linears + 2 inside
// attention = 8, two blocks 16 (FinishImport may fold each attention's two
// into one attention op).
#include <gtest/gtest.h>

#include "frontend/onnx/import.h"
#include "frontend/onnx/onnx_test_writer.h"
#include "support/test_files.h"

namespace az::frontend {
namespace {

using onnx::testing::CountOps;
using onnx::testing::ParamCount;

std::string DataFile(const std::string& name) { return std::string(AZ_SOURCE_DIR) + "/tests/data/onnx/" + name; }

bool HasOpNamed(const pir::Graph& g, pir::OpKind kind, const std::string& name) {
  for (const pir::Op& op : g.ops()) {
    if (op.kind == kind && op.name == name) return true;
  }
  return false;
}

TEST(OnnxTorchExportTest, StaticBlocks) {
  auto p = ImportOnnxFile(DataFile("tiny_blocks.onnx"), {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const pir::Graph& g = p->graph;
  EXPECT_EQ(ParamCount(g), 6496);
  EXPECT_EQ(CountOps(g, pir::OpKind::kEinsum) + 2 * CountOps(g, pir::OpKind::kAttention), 16);
  EXPECT_EQ(CountOps(g, pir::OpKind::kLayerNorm), 2);
  EXPECT_TRUE(p->warnings.empty()) << p->warnings[0];
  // Linears are named by module: the tensor-parallel template looks for these.
  EXPECT_TRUE(HasOpNamed(g, pir::OpKind::kEinsum, "blocks.0.self_attn.q"));
  EXPECT_TRUE(HasOpNamed(g, pir::OpKind::kEinsum, "blocks.1.ffn.0"));
  EXPECT_TRUE(HasOpNamed(g, pir::OpKind::kEinsum, "blocks.1.ffn.2"));
  EXPECT_EQ(g.type(g.outputs()[0]).ToString(), "f32[1,8,16]");
  // Generated weight names ("onnx::MatMul_123") take their module's name.
  bool renamed = false;
  for (const pir::Value& v : g.values()) renamed = renamed || v.name == "blocks.0.self_attn.o.weight";
  EXPECT_TRUE(renamed);
}

TEST(OnnxTorchExportTest, DynamicSequenceWeightsAsInputs) {
  ImportOptions options;
  auto unbound = ImportOnnxFile(DataFile("tiny_blocks_dynamic_noparams.onnx"), options);
  ASSERT_FALSE(unbound.ok());
  EXPECT_NE(unbound.status().message().find("'seq'"), std::string::npos);
  options.dims["seq"] = 24;
  auto p = ImportOnnxFile(DataFile("tiny_blocks_dynamic_noparams.onnx"), options);
  ASSERT_TRUE(p.ok()) << p.status().message();
  const pir::Graph& g = p->graph;
  EXPECT_EQ(ParamCount(g), 6496);
  EXPECT_EQ(CountOps(g, pir::OpKind::kEinsum) + 2 * CountOps(g, pir::OpKind::kAttention), 16);
  EXPECT_EQ(g.type(g.outputs()[0]).ToString(), "f32[1,24,16]");
  // Arguments: x, then the weights, each naming a leaf of its role.
  ASSERT_FALSE(p->arguments.empty());
  EXPECT_EQ(p->arguments[0].source_name, "x");
  for (const ImportedArgument& a : p->arguments) {
    ASSERT_TRUE(g.IsValidValue(a.value)) << a.source_name;
    EXPECT_EQ(g.value(a.value).role, a.source_name == "x" ? pir::ValueRole::kInput : pir::ValueRole::kParameter)
        << a.source_name;
  }
  // The shape plumbing folded: no op works on integers.
  for (const pir::Op& op : g.ops()) {
    for (pir::ValueId r : op.results) EXPECT_TRUE(pir::IsFloat(g.type(r).dtype)) << op.name;
  }
  EXPECT_TRUE(p->warnings.empty()) << p->warnings[0];
}

// The same kind of block exported by PyTorch 2.11's torch.export-based
// exporter (tests/data/onnx/dynamo_summary.json): opset 20, IR 10, module
// scopes in node metadata_props (a field ONNX 1.12's NodeProto lacks: read
// from protobuf's unknown fields), weights in an external file that is not
// committed (the checks and the import need only their dims).
TEST(OnnxTorchExportTest, DynamoExportAtOpset20) {
  auto p = ImportOnnxFile(DataFile("wan_block_tiny_static_dynamo.onnx"), {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const pir::Graph& g = p->graph;
  // Of the file's op types (dynamo_summary.json), those with a new version in
  // opsets 18-20 are ReduceMean (18, x4), Reshape (19, x10) and Gelu (20, x1):
  // 15 nodes the checks set aside; everything else ONNX 1.12 checked.
  ASSERT_FALSE(p->notes.empty());
  EXPECT_EQ(p->notes[0],
            "onnx: opset 20, IR 10: ONNX 1.12.0's checker and shape inference passed (checked as IR 8); 15 node(s) "
            "of ops newer than its schemas not checked (Gelu x1, ReduceMean x4, Reshape x10)");
  // "linear" is the leaf of the node's pkg.torch.onnx.name_scopes metadata.
  EXPECT_TRUE(HasOpNamed(g, pir::OpKind::kAdd, "blocks.0.self_attn.q.linear"));
  EXPECT_TRUE(HasOpNamed(g, pir::OpKind::kEinsum, "blocks.0.self_attn.q"));
  EXPECT_EQ(CountOps(g, pir::OpKind::kAttention), 2);  // self and cross attention
  EXPECT_TRUE(p->warnings.empty()) << p->warnings[0];
}

}  // namespace
}  // namespace az::frontend
