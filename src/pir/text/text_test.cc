// Tests of the PIR text form: the printer's exact output, print -> parse ->
// print round trips (on built graphs and on every golden file), structural
// equality after a round trip, parse errors with their locations, and the
// regressions the fuzzer found.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "pir/build/graph_builder.h"
#include "pir/rules/rule.h"
#include "pir/text/lexer.h"
#include "pir/text/parser.h"
#include "pir/text/printer.h"
#include "support/test_files.h"
#include "support/text_testing.h"

namespace az::pir {
namespace {

namespace fs = std::filesystem;

Graph MustParse(std::string_view text) {
  StatusOr<Graph> graph = ParseGraph(text, "test.pir");
  EXPECT_TRUE(graph.ok()) << graph.status().message() << "\n--- text ---\n" << text;
  return graph.ok() ? std::move(graph).value() : Graph();
}

// Values in the order the text defines them: leaves, then op results.
std::vector<ValueId> DefinitionOrder(const Graph& g) {
  std::vector<ValueId> order;
  for (ValueId id = 0; id < g.num_values(); ++id) {
    if (g.value(id).role != ValueRole::kActivation) order.push_back(id);
  }
  for (const Op& op : g.ops()) order.insert(order.end(), op.results.begin(), op.results.end());
  return order;
}

// Attributes == fails on NaN; compare kinds and canonical texts instead.
void ExpectSameAttrs(const Attributes& a, const Attributes& b) {
  ASSERT_EQ(a.entries().size(), b.entries().size());
  for (size_t i = 0; i < a.entries().size(); ++i) {
    const auto& [key_a, value_a] = a.entries()[i];
    const auto& [key_b, value_b] = b.entries()[i];
    EXPECT_EQ(key_a, key_b);
    EXPECT_EQ(value_a.index(), value_b.index()) << key_a;
    EXPECT_EQ(AttrValueToString(value_a), AttrValueToString(value_b)) << key_a;
  }
}

// Structural equality up to value renumbering: what a round trip must keep.
void ExpectSameGraph(const Graph& a, const Graph& b) {
  ASSERT_EQ(a.name(), b.name());
  ExpectSameAttrs(a.attrs(), b.attrs());
  EXPECT_EQ(a.meshes(), b.meshes());
  std::vector<ValueId> order_a = DefinitionOrder(a);
  std::vector<ValueId> order_b = DefinitionOrder(b);
  ASSERT_EQ(order_a.size(), order_b.size());
  std::vector<int> number_a(static_cast<size_t>(a.num_values()), -1);
  std::vector<int> number_b(static_cast<size_t>(b.num_values()), -1);
  for (size_t i = 0; i < order_a.size(); ++i) {
    number_a[static_cast<size_t>(order_a[i])] = static_cast<int>(i);
    number_b[static_cast<size_t>(order_b[i])] = static_cast<int>(i);
    const Value& va = a.value(order_a[i]);
    const Value& vb = b.value(order_b[i]);
    EXPECT_EQ(va.role, vb.role) << "value " << i;
    EXPECT_EQ(va.type, vb.type) << "value " << i;
    EXPECT_EQ(va.sharding, vb.sharding) << "value " << i;
    if (va.role != ValueRole::kActivation) {
      EXPECT_EQ(va.name, vb.name) << "value " << i;
    }
  }
  auto numbers = [](const std::vector<ValueId>& ids, const std::vector<int>& number) {
    std::vector<int> out;
    for (ValueId id : ids) out.push_back(number[static_cast<size_t>(id)]);
    return out;
  };
  ASSERT_EQ(a.num_ops(), b.num_ops());
  for (OpId i = 0; i < a.num_ops(); ++i) {
    const Op& oa = a.op(i);
    const Op& ob = b.op(i);
    EXPECT_EQ(oa.kind, ob.kind) << oa.name;
    EXPECT_EQ(oa.name, ob.name);
    ExpectSameAttrs(oa.attrs, ob.attrs);
    EXPECT_EQ(numbers(oa.operands, number_a), numbers(ob.operands, number_b)) << oa.name;
    EXPECT_EQ(numbers(oa.results, number_a), numbers(ob.results, number_b)) << oa.name;
  }
  EXPECT_EQ(numbers(a.outputs(), number_a), numbers(b.outputs(), number_b));
}

// print(parse(print(g))) == print(g), and parse(print(g)) is g up to numbering.
void ExpectRoundTrip(const Graph& graph) {
  std::string printed = PrintGraph(graph);
  Graph parsed = MustParse(printed);
  EXPECT_EQ(PrintGraph(parsed), printed);
  ExpectSameGraph(graph, parsed);
}

// ---------------------------------------------------------------- printer

TEST(PirPrinter, ExactTextWithRenumbering) {
  Graph g("tiny");
  g.attrs().Set("cfg", std::string("two-pass"));
  g.attrs().Set("batch", int64_t{2});
  g.AddMesh({"m", {{"x", 2}, {"y", 4}}});
  ValueId x = g.AddLeaf(ValueRole::kInput, "x", {DType::kBF16, {8, 16}});
  g.mutable_value(x).sharding = TensorSharding{"m", {{"x"}, {}}, {"y"}};
  ValueId w = g.AddLeaf(ValueRole::kParameter, "w", {DType::kBF16, {16, 32}});
  Attributes eq;
  eq.Set("eq", std::string("bd,de->be"));
  ValueId q = g.op(g.AddOp(OpKind::kEinsum, "q", {x, w}, {{DType::kBF16, {8, 32}}}, eq)).results[0];
  // A leaf created after an op (ValueId 3) prints with the leaves, as %2.
  ValueId table = g.AddLeaf(ValueRole::kConstant, "table", {DType::kF32, {8, 32}});
  Attributes split_attrs;
  split_attrs.Set("target", std::string("split2"));
  split_attrs.Set("scale", 0.5);
  OpId split =
      g.AddOp(OpKind::kCustom, "split", {q, table}, {{DType::kBF16, {8, 16}}, {DType::kBF16, {8, 16}}}, split_attrs);
  ValueId second = g.op(split).results[1];
  g.mutable_value(second).sharding = TensorSharding{"m", {{}, {"y", "x"}}, {}};
  g.AddOutput(q);
  g.AddOutput(second);

  EXPECT_EQ(PrintGraph(g),
            "graph \"tiny\" attributes {batch = 2, cfg = \"two-pass\"} {\n"
            "  mesh @m = [\"x\"=2, \"y\"=4]\n"
            "  input %0 \"x\" : bf16[8,16] sharding<@m, [{\"x\"}, {}], replicated={\"y\"}>\n"
            "  param %1 \"w\" : bf16[16,32]\n"
            "  const %2 \"table\" : f32[8,32]\n"
            "  %3 = einsum \"q\" (%0, %1) {eq = \"bd,de->be\"} : bf16[8,32]\n"
            "  %4, %5 = custom \"split\" (%3, %2) {scale = 0.5, target = \"split2\"} : bf16[8,16], bf16[8,16] "
            "sharding<@m, [{}, {\"y\", \"x\"}]>\n"
            "  return %3, %5\n"
            "}\n");
  ExpectRoundTrip(g);
}

TEST(PirPrinter, EmptyGraphPrintsBareReturn) {
  EXPECT_EQ(PrintGraph(Graph("g")), "graph \"g\" {\n  return\n}\n");
  ExpectRoundTrip(Graph("g"));
}

TEST(PirPrinter, NamesThatAreNotIdentifiersAreQuoted) {
  Graph g("odd names");
  g.attrs().Set("cfg-mode", std::string("x"));
  g.attrs().Set("", int64_t{1});
  g.AddMesh({"mesh 0", {{"a b", 2}}});
  ValueId x = g.AddLeaf(ValueRole::kInput, "", {DType::kF32, {2}});
  g.mutable_value(x).sharding = TensorSharding{"mesh 0", {{"a b"}}, {}};
  g.AddOutput(x);
  std::string text = PrintGraph(g);
  EXPECT_NE(text.find("attributes {\"\" = 1, \"cfg-mode\" = \"x\"}"), std::string::npos) << text;
  EXPECT_NE(text.find("mesh @\"mesh 0\" = [\"a b\"=2]"), std::string::npos) << text;
  EXPECT_NE(text.find("sharding<@\"mesh 0\", [{\"a b\"}]>"), std::string::npos) << text;
  ExpectRoundTrip(g);
}

TEST(PirPrinter, OpWithoutResultsRoundTrips) {
  Graph g("sink");
  ValueId x = g.AddLeaf(ValueRole::kInput, "x", {DType::kF32, {4}});
  Attributes attrs;
  attrs.Set("target", std::string("print"));
  g.AddOp(OpKind::kCustom, "sink", {x}, {}, attrs);
  EXPECT_NE(PrintGraph(g).find("\n  custom \"sink\" (%0) {target = \"print\"}\n"), std::string::npos);
  ExpectRoundTrip(g);
}

TEST(PirPrinter, BrokenGraphStillPrints) {
  Graph g("broken");
  g.AddOp(OpKind::kNeg, "n", {42}, {{DType::kF32, {4}}});
  g.AddOutput(-1);
  std::string text = PrintGraph(g);
  EXPECT_NE(text.find("neg \"n\" (%?42)"), std::string::npos) << text;
  EXPECT_NE(text.find("return %?-1"), std::string::npos) << text;
  EXPECT_FALSE(ParseGraph(text).ok());
}

// ---------------------------------------------------------------- round trips

// A DiT-style block exercising every builder helper, a mesh and shardings.
Graph BuildTransformerBlock() {
  GraphBuilder b("toy-dit");
  b.graph().attrs().Set("model", std::string("toy \"dit\"\n"));
  b.graph().attrs().Set("layers", int64_t{1});
  b.graph().attrs().Set("guidance", 5.0);
  b.graph().attrs().Set("cfg", true);
  b.graph().AddMesh({"m", {{"dp", 2}, {"tp", 4}}});
  ValueId x = b.Input("latent", DType::kBF16, {2, 16, 64});
  ValueId text = b.Input("text", DType::kBF16, {2, 8, 64});
  ValueId table = b.Constant("rope.table", DType::kF32, {24, 16});
  b.graph().mutable_value(x).sharding = TensorSharding{"m", {{"dp"}, {}, {}}, {"tp"}};
  GraphBuilder::Scope block(b, "blocks.0");
  ValueId h = b.LayerNorm("norm1", x, /*affine=*/false, 1e-6);
  ValueId joint = b.Concat("joint", {h, text}, 1);  // [2,24,64]
  auto heads = [&](const std::string& name) {
    ValueId proj = b.Linear(name, joint, 64);
    ValueId split = b.Reshape(name + ".heads", proj, {2, 24, 4, 16});
    return b.RmsNorm(name + ".norm", split, /*affine=*/true, 1e-6);
  };
  ValueId q = b.Rope("rope_q", heads("q"), table, {8, 8});
  ValueId k = b.Rope("rope_k", heads("k"), table, {8, 8});
  ValueId v = b.Reshape("v.heads", b.Linear("v", joint, 64), {2, 24, 4, 16});
  ValueId attn = b.Attention("attn", q, k, v, "joint", 8);
  ValueId merged = b.Reshape("merge", attn, {2, 24, 64});
  ValueId image = b.SliceAxis("image", merged, 1, 0, 16);
  ValueId out = b.Linear("o", image, 64, /*bias=*/false);
  b.graph().mutable_value(out).sharding = TensorSharding{"m", {{"dp"}, {}, {"tp"}}, {}};
  ValueId swapped = b.Transpose("swap", out, {0, 2, 1});
  ValueId mlp = b.Unary(OpKind::kGeluTanh, "act", b.Linear("fc1", image, 128));
  ValueId noise = b.Custom("noise", "randn", {}, {DType::kF32, {2, 64, 16}}, /*flops=*/7);
  ValueId sum = b.Binary(OpKind::kAdd, "resid", swapped, noise);
  b.Output(sum);
  b.Output(mlp);
  return b.Finish();
}

TEST(PirRoundTrip, BuiltTransformerBlock) {
  Graph g = BuildTransformerBlock();
  ExpectRoundTrip(g);
  // The builder interleaves params with ops: the text lists them first.
  std::string text = PrintGraph(g);
  EXPECT_LT(text.find("param "), text.find(" = layer_norm "));
  EXPECT_EQ(text.rfind("param "), text.rfind("param %"));
}

TEST(PirRoundTrip, FloatsRoundTripBitExact) {
  std::vector<double> values = {0.0,    -0.0, 1e-6,        0.1,      1.0 / 3, 1e300, -1e-300,
                                5e-324, 1e22, 123456789.0, 100000.0, 2.5e-8,  -7.0,  1.7976931348623157e308};
  std::mt19937_64 rng(42);
  for (int i = 0; i < 200; ++i) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    if (std::isfinite(d)) values.push_back(d);
  }
  values.push_back(std::numeric_limits<double>::infinity());
  values.push_back(-std::numeric_limits<double>::infinity());
  Graph g("floats");
  for (size_t i = 0; i < values.size(); ++i) g.attrs().Set("f" + std::to_string(i), values[i]);
  g.attrs().Set("not_a_number", std::numeric_limits<double>::quiet_NaN());
  Graph parsed = MustParse(PrintGraph(g));
  for (size_t i = 0; i < values.size(); ++i) {
    std::optional<double> got = parsed.attrs().GetFloat("f" + std::to_string(i));
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(std::memcmp(&*got, &values[i], sizeof(double)), 0) << values[i];
  }
  EXPECT_TRUE(std::isnan(*parsed.attrs().GetFloat("not_a_number")));
  EXPECT_EQ(PrintGraph(parsed), PrintGraph(g));
}

TEST(PirRoundTrip, StringsHoldEveryByte) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  Graph g(all);
  g.attrs().Set("s", all);
  ValueId x = g.AddLeaf(ValueRole::kInput, all, {DType::kBool, {}});
  g.AddOutput(x);
  Graph parsed = MustParse(PrintGraph(g));
  EXPECT_EQ(parsed.name(), all);
  EXPECT_EQ(parsed.attrs().GetString("s"), all);
  EXPECT_EQ(parsed.value(0).name, all);
  ExpectRoundTrip(g);
}

TEST(PirRoundTrip, IntegerExtremes) {
  Graph g("ints");
  g.attrs().Set("min", std::numeric_limits<int64_t>::min());
  g.attrs().Set("max", std::numeric_limits<int64_t>::max());
  g.attrs().Set("list", std::vector<int64_t>{std::numeric_limits<int64_t>::min(), -1, 0});
  g.attrs().Set("empty", std::vector<int64_t>{});
  ValueId x = g.AddLeaf(ValueRole::kInput, "x", {DType::kF8E4M3, {0, int64_t{1} << 40, 1 << 20}});
  g.AddOutput(x);
  ExpectRoundTrip(g);
}

// ---------------------------------------------------------------- parser

TEST(PirParser, AcceptsCommentsAnyStatementOrderAndSparseNumbers) {
  Graph g = MustParse(R"(// a leading comment
graph "free-form" attributes {} {   // trailing comment
  input %10 "x" : f32[4]
  %7 = neg "n" (%10) : f32[4]   // op before a later leaf
  param %3 "w" : f32[4]
  mesh @m = []
  %2 = add "a" (%7, %3) : f32[4]
  return %2
})");
  EXPECT_EQ(g.num_values(), 4);
  EXPECT_EQ(g.value(2).name, "w");
  EXPECT_EQ(g.op(1).operands, (std::vector<ValueId>{1, 2}));
  EXPECT_EQ(PrintGraph(g),
            "graph \"free-form\" {\n"
            "  mesh @m = []\n"
            "  input %0 \"x\" : f32[4]\n"
            "  param %1 \"w\" : f32[4]\n"
            "  %2 = neg \"n\" (%0) : f32[4]\n"
            "  %3 = add \"a\" (%2, %1) : f32[4]\n"
            "  return %3\n"
            "}\n");
}

TEST(PirParser, SetsLocations) {
  Graph g = MustParse(
      "graph \"g\" {\n  input %0 \"x\" : f32[4]\n\t%1, %2 = custom \"c\" (%0) {target = \"t\"} : "
      "f32[4], f32[4]\n  return %1\n}\n");
  EXPECT_EQ(g.value(0).loc.ToString(), "test.pir:2:3");
  EXPECT_EQ(g.op(0).loc.ToString(), "test.pir:3:2");
  EXPECT_EQ(g.op(0).Location().ToString(), "test.pir:3:2");
  EXPECT_FALSE(g.value(1).loc.is_text());
}

TEST(PirParser, ParsesFloatSpellings) {
  Graph g = MustParse(
      "graph \"g\" attributes {a = 1e5, b = 2.5E-3, c = -inf, d = inf, e = nan, f = 007} {\n"
      "  return\n}\n");
  EXPECT_EQ(g.attrs().GetFloat("a"), 1e5);
  EXPECT_EQ(g.attrs().GetFloat("b"), 2.5e-3);
  EXPECT_EQ(g.attrs().GetFloat("c"), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(g.attrs().GetFloat("d"), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(*g.attrs().GetFloat("e")));
  EXPECT_EQ(g.attrs().GetInt("f"), 7);
  EXPECT_EQ(PrintGraph(g),
            "graph \"g\" attributes {a = 1e+05, b = 0.0025, c = -inf, d = inf, e = nan, f = 7} {\n"
            "  return\n}\n");
}

TEST(PirLexer, SplitsTokens) {
  Lexer lexer("%12 = @m @\"a b\" -inf 1.5e+3 -4 bf16[ ] <>,:{}() \"q\\x41\" // done");
  std::vector<TokenKind> kinds;
  std::vector<std::string> texts;
  for (Token t = lexer.Next(); t.kind != TokenKind::kEof; t = lexer.Next()) {
    ASSERT_NE(t.kind, TokenKind::kError) << t.text;
    kinds.push_back(t.kind);
    texts.push_back(t.text.empty() ? std::string(t.spelling) : t.text);
  }
  using K = TokenKind;
  EXPECT_EQ(kinds, (std::vector<K>{K::kValueRef, K::kEqual, K::kMeshRef, K::kMeshRef, K::kFloat, K::kFloat, K::kInt,
                                   K::kIdent, K::kLBracket, K::kRBracket, K::kLAngle, K::kRAngle, K::kComma, K::kColon,
                                   K::kLBrace, K::kRBrace, K::kLParen, K::kRParen, K::kString}));
  EXPECT_EQ(texts[0], "12");
  EXPECT_EQ(texts[3], "a b");
  EXPECT_EQ(texts[4], "-inf");
  EXPECT_EQ(texts[18], "qA");
}

// Parses `text`, expects an error at line:col containing `message`.
void ExpectParseError(std::string_view text, int line, int col, const std::string& message,
                      StatusCode code = StatusCode::kParseError) {
  StatusOr<Graph> graph = ParseGraph(text, "bad.pir");
  ASSERT_FALSE(graph.ok()) << "parsed:\n" << text;
  std::string rendered = graph.status().message();
  EXPECT_EQ(graph.status().code(), code) << rendered;
  std::string prefix = "bad.pir:" + std::to_string(line) + ":" + std::to_string(col) + ": error: ";
  EXPECT_EQ(rendered.rfind(prefix, 0), 0u) << rendered;
  EXPECT_NE(rendered.find(message), std::string::npos) << rendered;
  // The rendering ends with the source line and a caret under the column.
  size_t caret = rendered.rfind('\n');
  ASSERT_NE(caret, std::string::npos) << rendered;
  EXPECT_EQ(rendered.substr(caret + 1), "  " + std::string(static_cast<size_t>(col - 1), ' ') + "^") << rendered;
}

constexpr const char* kHead = "graph \"g\" {\n  input %0 \"x\" : f32[4]\n";

TEST(PirParser, Errors) {
  std::string h = kHead;
  ExpectParseError(h + "  %1 = matmul \"m\" (%0) : f32[4]\n  return %1\n}\n", 3, 8, "unknown op kind 'matmul'");
  ExpectParseError(h + "  param %1 \"w\" : f33[4]\n  return\n}\n", 3, 18, "unknown dtype 'f33'");
  ExpectParseError(h + "  %1 = neg \"n\" (%5) : f32[4]\n  return %1\n}\n", 3, 17, "use of undefined value %5");
  ExpectParseError(h + "  %0 = neg \"n\" (%0) : f32[4]\n  return\n}\n", 3, 3, "value %0 is defined twice");
  ExpectParseError(h + "  param %0 \"w\" : f32[4]\n  return\n}\n", 3, 9, "value %0 is defined twice");
  ExpectParseError(h + "  %1, %2 = neg \"n\" (%0) : f32[4]\n  return\n}\n", 3, 3,
                   "op defines 2 result(s) but declares 1 result type(s)");
  ExpectParseError(h + "  %1 = neg \"n\" (%0) : f32[4], f32[4]\n  return\n}\n", 3, 3,
                   "op defines 1 result(s) but declares 2 result type(s)");
  ExpectParseError(h + "  %1 = neg \"n (%0) : f32[4]\n  return\n}\n", 3, 12, "unterminated string");
  ExpectParseError(h + "  %1 = neg \"n\" (%0) {a = 1.} : f32[4]\n  return\n}\n", 3, 26,
                   "bad number: expected a digit after '.'");
  ExpectParseError(h + "  %1 = neg \"n\" (%0) {a = 1e} : f32[4]\n  return\n}\n", 3, 26,
                   "bad number: expected exponent digits");
  ExpectParseError(h + "  %1 = neg \"n\" (%0) {a = -x} : f32[4]\n  return\n}\n", 3, 26, "expected a digit after '-'");
  ExpectParseError(h + "  return %0\n", 3, 12, "expected '}' to end the graph after 'return', found end of input");
  ExpectParseError("graph \"g\" {\n  return\n", 2, 9, "expected '}'");
  ExpectParseError("graph \"g\" ", 1, 10, "expected '{' to start the graph body, found end of input");
  ExpectParseError(h + "  %1 = neg \"n\" (%0) {a = 1, b = 2, a = 3} : f32[4]\n  return\n}\n", 3, 36,
                   "duplicate attribute key 'a'");
  ExpectParseError(h + "  %1 = neg \"n\" (%0) {\"a\" = 1, a = 3} : f32[4]\n  return\n}\n", 3, 31,
                   "duplicate attribute key 'a'");
  ExpectParseError(h + "  param %1 \"w\" : f32[8589934592,8589934592]\n  return\n}\n", 3, 33,
                   "tensor shape exceeds the limit of 2^62 elements", StatusCode::kResourceExhausted);
  ExpectParseError(h + "  param %1 \"w\" : f32[99999999999999999999]\n  return\n}\n", 3, 22,
                   "integer literal out of range");
  ExpectParseError(h + "  %1 = neg \"n\" (%99999999999999999999) : f32[4]\n  return\n}\n", 3, 17,
                   "integer literal out of range");
  ExpectParseError(h + "  %1 = neg \"n\" (%x) : f32[4]\n  return\n}\n", 3, 17, "expected a value number after '%'");
  ExpectParseError(h + "  return\n} / ", 4, 3, "unexpected character '/'");
  ExpectParseError(h + "  return\n} \x01", 4, 3, "unexpected character 0x01");
  ExpectParseError(h + "  mesh @m = [\"x\"=2,]\n  return\n}\n", 3, 20, "expected a mesh axis name");
  ExpectParseError(h + "  mesh m = []\n  return\n}\n", 3, 8, "expected a mesh name such as @m");
  ExpectParseError(h + "  %1 = neg \"n\" (%0) : f32[4] sharding<@m, [{\"x\"}], replicated>\n  return\n}\n", 3, 62,
                   "expected '=' after 'replicated'");
  ExpectParseError(h + "  %1 = neg \"n\" (%0 %0) : f32[4]\n  return\n}\n", 3, 20, "expected ')' to end the operands");
  ExpectParseError(h + "  %1 = neg \"n\" (%0) {a = \"\x02\"} : f32[4]\n  return\n}\n", 3, 27,
                   "control character 0x02 in a string");
  ExpectParseError(h + "  %1 = neg \"n\" (%0) {a = \"\\x4\"} : f32[4]\n  return\n}\n", 3, 27,
                   "\\x must be followed by two hex digits");
}

// The first error wins even when a lexical error follows it.
TEST(PirParser, ReportsFirstErrorInTextOrder) {
  ExpectParseError(std::string(kHead) + "  %1 = neg \"n\" (%3) : f32[4]\n  \"unterminated\n", 3, 17,
                   "use of undefined value %3");
}

// ---------------------------------------------------------------- golden files

TEST(PirGolden, EveryFileRoundTripsByteIdentical) {
  std::vector<fs::path> files = GoldenFiles("pir");
  ASSERT_GE(files.size(), 4u) << GoldenDir("pir");
  ExpectGoldenFilesRoundTrip(
      files, [](const std::string& text, const std::string& name) { return ParseGraph(text, name); }, PrintGraph,
      [](const Graph& graph) { ExpectRoundTrip(graph); });
}

// Golden graphs are meant to be valid programs, not only valid syntax: every
// declared result type is the inferred one (the verifier's main check).
TEST(PirGolden, EveryFileIsWellTyped) {
  for (const fs::path& path : GoldenFiles("pir")) {
    SCOPED_TRACE(path.filename().string());
    StatusOr<Graph> graph = ParseGraph(testing::ReadTextFile(path), path.filename().string());
    ASSERT_TRUE(graph.ok()) << graph.status().message();
    for (const Op& op : graph->ops()) {
      auto inferred = InferResultTypes(op.kind, OperandTypes(*graph, op), op.attrs, ResultTypes(*graph, op));
      ASSERT_TRUE(inferred.ok()) << op.name << ": " << inferred.status().message();
      EXPECT_EQ(*inferred, ResultTypes(*graph, op)) << op.name;
    }
  }
}

TEST(PirGolden, ErrorFilesReportTheExpectedDiagnostic) {
  std::vector<fs::path> files = GoldenFiles("pir", "errors");
  ASSERT_GE(files.size(), 10u);
  ForEachGoldenErrorFile(files, [](const std::string& text, const std::string& name, const ExpectedError& expected) {
    StatusOr<Graph> graph = ParseGraph(text, name);
    ASSERT_FALSE(graph.ok());
    ExpectDiagnostic(graph.status().message(), name, expected);
  });
}

// The fuzz target's property, on seeded random edits of the golden files (a
// cheap stand-in for libFuzzer in every test run): any input parses or fails
// with a located error, and a parsed graph prints to a fixed point.
TEST(PirParser, SeededMutationsKeepTheFuzzProperty) {
  std::mt19937 rng(7);
  int parsed_count = ExpectMutantsParseOrFailLocated(
      GoldenFiles("pir"), rng, "%@\"{}[]()<>,:=-.e0123456789 \n/\\x", "mutant.pir",
      [](const std::string& text, const std::string& name) { return ParseGraph(text, name); }, PrintGraph,
      [](const Graph&) {});
  // Some edits (inside a name, a digit of a dim) keep the text valid.
  EXPECT_GT(parsed_count, 0);
}

}  // namespace
}  // namespace az::pir
