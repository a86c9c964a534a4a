// ONNX's checker and shape inference ahead of the import (onnx_check.h), and
// the located errors of a malformed file (onnx_model.h), on models built in
// code (onnx_test_writer.h).
#include "frontend/onnx/onnx_check.h"

#include <gtest/gtest.h>

#include "frontend/onnx/import.h"
#include "frontend/onnx/onnx_test_writer.h"

namespace az::frontend {
namespace {

using onnx::OpChangedAfter17;
using onnx::testing::AttrInt;
using onnx::testing::AttrInts;
using onnx::testing::AttrTensor;
using onnx::testing::CountOps;
using onnx::testing::kFloat;
using onnx::testing::kInt64;
using onnx::testing::OnnxBuilder;
using onnx::testing::ProtoWriter;
using onnx::testing::Tensor;

TEST(OnnxCheckTest, OpsChangedAfterOpset17) {
  // onnx/defs/operator_sets.h: ReduceMean-18, Reshape-19 and -21, Gelu-20.
  EXPECT_FALSE(OpChangedAfter17("ReduceMean", 17));
  EXPECT_TRUE(OpChangedAfter17("ReduceMean", 18));
  EXPECT_FALSE(OpChangedAfter17("Reshape", 18));
  EXPECT_TRUE(OpChangedAfter17("Reshape", 19));
  EXPECT_FALSE(OpChangedAfter17("Gelu", 19));
  EXPECT_TRUE(OpChangedAfter17("Gelu", 20));
  EXPECT_FALSE(OpChangedAfter17("MatMul", onnx::kNewestTabledOpset));
  EXPECT_FALSE(OpChangedAfter17("Reduce", 27));  // whole names only
}

// Opset 20: ReduceMean with its axes as an input (ONNX 1.12's newest schema,
// ReduceMean-13, takes one input) and Gelu (new in 20) are set aside; the
// rest is checked and shape-inferred by ONNX 1.12.
OnnxBuilder Opset20Model() {
  OnnxBuilder b(20);
  b.Input("x", kFloat, {2, 8, 16})
      .Output("y", kFloat, {2, 8, 1})
      .Initializer(Tensor("axes", kInt64, {1}, {2}))
      .Initializer(Tensor("w", kFloat, {16, 16}))
      .Node({"MatMul", {"x", "w"}, {"h"}, "/mm/MatMul"})
      .Node({"Gelu", {"h"}, {"g"}, "/act/Gelu"})
      .Node({"ReduceMean", {"g", "axes"}, {"y"}, "/mean/ReduceMean"});
  return b;
}

TEST(OnnxCheckTest, OpsNewerThanOnnx112AreSetAsideAndNamed) {
  auto p = ImportOnnx(Opset20Model().Build(), "new.onnx", {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->notes[0],
            "onnx: opset 20, IR 8: ONNX 1.12.0's checker and shape inference passed; 2 node(s) of ops newer than its "
            "schemas not checked (Gelu x1, ReduceMean x1)");
  EXPECT_EQ(CountOps(p->graph, pir::OpKind::kGelu), 1);
  EXPECT_EQ(p->graph.type(p->graph.outputs()[0]).ToString(), "f32[2,8,1]");
  // At opset 17 the same nodes meet ONNX 1.12's schemas and fail them.
  OnnxBuilder old = Opset20Model();
  std::string bytes = old.Build();
  // The opset_import entry is the model's last field but one: rewrite 20 -> 17.
  size_t at = bytes.rfind(std::string("\x10\x14", 2));
  ASSERT_NE(at, std::string::npos);
  bytes[at + 1] = 17;
  auto refused = ImportOnnx(bytes, "old.onnx", {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message().rfind("old.onnx: node 1 '/act/Gelu' (Gelu): error: ONNX checker: No Op "
                                             "registered for Gelu with domain_version of 17",
                                             0),
            0u)
      << refused.status().message();
}

TEST(OnnxCheckTest, NodesBeforeTheFirstSetAsideAreStillShapeChecked) {
  OnnxBuilder b(20);
  b.Input("a", kFloat, {2, 3})
      .Input("b", kFloat, {4, 5})
      .Output("y", kFloat, {2, 5})
      .Node({"MatMul", {"a", "b"}, {"c"}, "mm"})
      .Node({"Gelu", {"c"}, {"y"}, "act"});
  auto p = ImportOnnx(b.Build(), "t.onnx", {});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("(op_type:MatMul, node name: mm): [ShapeInferenceError] Incompatible dimensions"),
            std::string::npos)
      << p.status().message();
}

TEST(OnnxCheckTest, OpsetPastTheTableIsNotChecked) {
  OnnxBuilder b(onnx::kNewestTabledOpset + 1);
  b.Input("x", kFloat, {2, 8}).Output("y", kFloat, {2, 8}).Node({"Tanh", {"x"}, {"y"}, "t"});
  auto p = ImportOnnx(b.Build(), "t.onnx", {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->notes[0],
            "onnx: opset 28, IR 8: not checked: ONNX 1.12.0 knows ai.onnx opsets up to 17, and which ops changed "
            "after that only up to opset 27");
}

TEST(OnnxCheckTest, CheckerFailureNamesTheNode) {
  OnnxBuilder b;
  b.Input("x", kFloat, {2, 8})
      .Output("y", kFloat, {2, 8})
      .Node({"Tanh", {"x"}, {"t"}, "ok"})
      .Node({"Softmax", {"t"}, {"y"}, "sm", {AttrInt("axes", 1)}});
  auto p = ImportOnnx(b.Build(), "t.onnx", {});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "t.onnx: node 1 'sm' (Softmax): error: ONNX checker: Unrecognized attribute: axes for operator Softmax  ==> "
            "Context: Bad node spec for node. Name: sm OpType: Softmax");
}

// Shape inference gives the result types of ops imported as custom: ArgMax
// of f32[2,8] over axis 1 without keepdims is i64[2] (not the first input's
// type, which the importer assumed before it had inference).
TEST(OnnxCheckTest, InferredTypesOfCustomOps) {
  OnnxBuilder b;
  b.Input("x", kFloat, {2, 8})
      .Output("y", kInt64, {2})
      .Node({"ArgMax", {"x"}, {"y"}, "am", {AttrInt("axis", 1), AttrInt("keepdims", 0)}});
  auto p = ImportOnnx(b.Build(), "t.onnx", {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(CountOps(p->graph, pir::OpKind::kCustom), 1);
  EXPECT_EQ(p->graph.type(p->graph.outputs()[0]).ToString(), "i64[2]");
  OnnxBuilder inner;
  inner.Input("x", kFloat, {2, 8})
      .Output("z", kFloat, {2, 8})
      .Node({"ArgMax", {"x"}, {"i"}, "am", {AttrInt("axis", 1), AttrInt("keepdims", 1)}})
      .Node({"Cast", {"i"}, {"f"}, "cast", {AttrInt("to", kFloat)}})
      .Node({"Add", {"x", "f"}, {"z"}, "add"});
  auto q = ImportOnnx(inner.Build(), "t.onnx", {});
  ASSERT_TRUE(q.ok()) << q.status().message();
  ASSERT_EQ(q->warnings.size(), 1u);
  // The intermediate "i" has no value_info in the file: inference supplies i64[2,1].
  EXPECT_EQ(q->warnings[0], "t.onnx: node 0 'am' (ArgMax): warning: unsupported op 'ArgMax': imported as custom "
                            "'onnx.ArgMax'");
  const pir::Op* custom = nullptr;
  for (const pir::Op& op : q->graph.ops()) custom = op.kind == pir::OpKind::kCustom ? &op : custom;
  ASSERT_NE(custom, nullptr);
  EXPECT_EQ(q->graph.type(custom->results[0]).ToString(), "i64[2,1]");
}

TEST(OnnxCheckTest, FunctionsCallingEachOtherAreRefused) {
  OnnxBuilder b;
  b.Input("x", kFloat, {4})
      .Output("y", kFloat, {4})
      .Function("local", "Ping", {"a"}, {"out"}, {{"Pong", {"a"}, {"out"}, "p", {}, "local"}})
      .Function("local", "Pong", {"a"}, {"out"}, {{"Ping", {"a"}, {"out"}, "q", {}, "local"}})
      .Node({"Ping", {"x"}, {"y"}, "call", {}, "local"});
  auto p = ImportOnnx(b.Build(), "f.onnx", {});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "f.onnx: function 'Ping': functions nest deeper than 8 levels (or call themselves)");
}

// F1 calls F2 ... calls Fn, which computes Tanh: n levels of functions.
OnnxBuilder FunctionChain(int levels) {
  OnnxBuilder b;
  b.Input("x", kFloat, {4}).Output("y", kFloat, {4});
  for (int level = levels; level >= 1; --level) {
    std::string callee = level == levels ? "Tanh" : "F" + std::to_string(level + 1);
    b.Function("local", "F" + std::to_string(level), {"a"}, {"out"},
               {{callee, {"a"}, {"out"}, "n", {}, level == levels ? "" : "local"}});
  }
  b.Node({"F1", {"x"}, {"y"}, "call", {}, "local"});
  return b;
}

TEST(OnnxCheckTest, FunctionNestingIsBoundedAtEightLevels) {
  auto eight = ImportOnnx(FunctionChain(8).Build(), "f.onnx", {});
  ASSERT_TRUE(eight.ok()) << eight.status().message();
  EXPECT_EQ(CountOps(eight->graph, pir::OpKind::kTanh), 1);
  auto nine = ImportOnnx(FunctionChain(9).Build(), "f.onnx", {});
  ASSERT_FALSE(nine.ok());
  EXPECT_EQ(nine.status().message(), "f.onnx: function 'F1': functions nest deeper than 8 levels (or call themselves)");
}

TEST(OnnxCheckTest, MalformedBytesAreLocated) {
  // A node whose attribute 0 ends in a varint field's tag (field 3, `i`)
  // without its value: protobuf refuses the file, the locator names where.
  std::string attribute = std::string("\x0a\x01k\x18", 4);
  ProtoWriter node;
  node.Bytes(1, "x").Bytes(2, "y").Bytes(4, "Tanh").Bytes(5, attribute);
  ProtoWriter graph;
  graph.Message(1, ProtoWriter().Bytes(4, "Tanh")).Message(1, node);
  ProtoWriter model;
  model.Int(1, 8).Message(7, graph);
  std::string bytes = model.str();
  size_t tag = bytes.find(attribute) + 3;  // the byte of field 3's tag
  auto p = ImportOnnx(bytes, "bad.onnx", {});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(), "bad.onnx: byte " + std::to_string(tag) +
                                      ": ModelProto.graph.node[1].attribute[0].i: truncated or malformed value");
  // A length past the end: the file cut inside the graph. The graph's tag is
  // at byte 2, after ir_version's two bytes.
  auto cut = ImportOnnx(std::string_view(bytes).substr(0, bytes.size() - 3), "cut.onnx", {});
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.status().message().rfind("cut.onnx: byte 2: ModelProto.graph: length ", 0), 0u)
      << cut.status().message();
  // Packed dims (TensorProto field 1) ending inside a varint.
  ProtoWriter tensor;
  tensor.Bytes(1, std::string("\x04\x80", 2)).Int(2, kFloat).Bytes(8, "w");
  ProtoWriter g2;
  g2.Message(5, tensor);
  ProtoWriter m2;
  m2.Int(1, 8).Message(7, g2);
  auto packed = ImportOnnx(m2.str(), "dims.onnx", {});
  ASSERT_FALSE(packed.ok());
  EXPECT_EQ(packed.status().message(), "dims.onnx: byte 6: ModelProto.graph.initializer[0].dims[0]: malformed packed values");
  // IR 10's node metadata_props (field 9, unknown to ONNX 1.12's NodeProto)
  // that is not a StringStringEntryProto (a key of length 5 with 2 bytes).
  ProtoWriter meta_node;
  meta_node.Bytes(4, "Tanh").Bytes(9, std::string("\x0a\x05" "ab", 4));
  ProtoWriter m3;
  m3.Int(1, 10).Message(7, ProtoWriter().Message(1, meta_node));
  auto meta = ImportOnnx(m3.str(), "meta.onnx", {});
  ASSERT_FALSE(meta.ok());
  EXPECT_EQ(meta.status().message(),
            "meta.onnx: ModelProto.graph.node[0]: field 9 is not a valid onnx.StringStringEntryProto");
  // Graphs nested 150 deep through If's then_branch (NodeProto attribute 5,
  // AttributeProto g 6, GraphProto node 1): past protobuf's limit of 100
  // messages, which the located error names.
  ProtoWriter nested = ProtoWriter().Bytes(4, "Tanh");
  for (int level = 0; level < 50; ++level) {
    ProtoWriter attribute = ProtoWriter().Bytes(1, "then_branch").Message(6, ProtoWriter().Message(1, nested));
    nested = ProtoWriter().Bytes(4, "If").Message(5, attribute);
  }
  auto deep = ImportOnnx(ProtoWriter().Int(1, 8).Message(7, ProtoWriter().Message(1, nested)).str(), "deep.onnx", {});
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().message().find("messages nested deeper than protobuf's limit of 100"), std::string::npos)
      << deep.status().message();
  // Bytes that parse but hold no graph.
  auto text = ImportOnnx(ProtoWriter().Int(1, 8).str(), "x.onnx", {});
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().message(), "x.onnx: the model has no graph (field 7); is this an ONNX file?");
}

}  // namespace
}  // namespace az::frontend
