#include <gtest/gtest.h>

#include "support/csv.h"
#include "support/diagnostic.h"
#include "support/enum_names.h"
#include "support/status.h"
#include "support/units.h"

namespace az {
namespace {

StatusOr<int> Half(int x) {
  if (x % 2) return InvalidArgument("odd");
  return x / 2;
}

Status Chain(int x, int* out) {
  AZ_ASSIGN_OR_RETURN(int h, Half(x));
  AZ_ASSIGN_OR_RETURN(*out, Half(h));
  return Status::Ok();
}

TEST(Status, PropagatesThroughMacros) {
  int out = 0;
  EXPECT_TRUE(Chain(8, &out).ok());
  EXPECT_EQ(out, 2);
  Status s = Chain(6, &out);  // 6 -> 3 -> odd
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.ToString(), "invalid-argument: odd");
}

TEST(Diagnostic, RendersSourceLineAndCaret) {
  auto source = std::make_shared<SourceBuffer>("m.pir", "graph \"g\" {\n  %0 = matmull(%1)\n}\n");
  DiagnosticEngine diag(source);
  diag.Error(SourceLocation::Text("m.pir", 2, 8), "unknown op kind 'matmull'");
  EXPECT_EQ(diag.RenderAll(), "m.pir:2:8: error: unknown op kind 'matmull'\n    %0 = matmull(%1)\n         ^");
  Status s = diag.ToStatus(StatusCode::kParseError);
  EXPECT_EQ(s.code(), StatusCode::kParseError);
  EXPECT_EQ(s.message(), diag.RenderAll());
}

TEST(Diagnostic, OpLocationsNameTheOp) {
  Status s = LocatedError(StatusCode::kInvalidArgument, SourceLocation::Op("blocks.3.self_attn.q"), "bad shape");
  EXPECT_EQ(s.message(), "op 'blocks.3.self_attn.q': error: bad shape");
}

TEST(Diagnostic, OutOfRangeLineHasNoCaret) {
  SourceBuffer source("f", "one line");
  Diagnostic d{Severity::kError, SourceLocation::Text("f", 9, 1), "past the end"};
  EXPECT_EQ(RenderDiagnostic(d, &source), "f:9:1: error: past the end");
  EXPECT_EQ(source.Line(1), "one line");
  EXPECT_EQ(source.Line(0), "");
}

TEST(Units, ArithmeticAndConversions) {
  Bytes b = GiB(1) + MiB(512);
  EXPECT_EQ(b.value(), 1610612736);
  // 1 GB over 100 GB/s is 10 ms.
  Seconds t = Bytes(1'000'000'000) / GBps(100);
  EXPECT_DOUBLE_EQ(t.value(), 0.01);
  // 6.523e15 FLOPs at 197 TFLOP/s (v5e bf16 peak) is 33.1 s.
  Seconds c = Flops(6'523'288'813'568'000) / TFlops(197);
  EXPECT_NEAR(c.value(), 33.113, 0.001);
  EXPECT_EQ(FormatBytes(GiB(26)), "26.00 GiB");
  EXPECT_EQ(FormatFlops(Flops(6'523'288'813'568'000)), "6.523 PFLOP");
  EXPECT_EQ(FormatCount(14'288'491'584), "14.288 B");
  EXPECT_EQ(FormatSeconds(Seconds(0.00125)), "1.250 ms");
  EXPECT_TRUE(Bytes(3) < Bytes(4));
}

// The measurement readers' cells: the whole cell is the number, or nothing.
TEST(Csv, CellsAndLocatedErrors) {
  EXPECT_EQ(support::ParseNumber("2.5e-3"), 2.5e-3);
  EXPECT_EQ(support::ParseNumber("-4"), -4.0);
  for (const char* bad : {"", "12x", "nan", "inf", " 1"}) EXPECT_FALSE(support::ParseNumber(bad).has_value()) << bad;
  EXPECT_EQ(support::ParseInteger("8"), 8);
  for (const char* bad : {"", "8.0", "1e3", "x"}) EXPECT_FALSE(support::ParseInteger(bad).has_value()) << bad;
  // "a,b" header, then a row with one cell too few on line 3 (after a comment).
  auto table = support::ReadCsv("a,b\n# note\n1\n", "m.csv", {"a"});
  ASSERT_FALSE(table.ok());
  EXPECT_NE(table.status().message().find("m.csv:3: error:"), std::string::npos) << table.status().message();
  auto quoted = support::ReadCsv("name,value\n\"a, b\",2\n", "q.csv", {"name", "value"});
  ASSERT_TRUE(quoted.ok()) << quoted.status().message();
  EXPECT_EQ(quoted->rows.at(0).cells.at(quoted->column.at("name")), "a, b");
}

enum class Color { kRed, kGreen, kBlue };
constexpr EnumName<Color> kColorNames[] = {{Color::kRed, "red"}, {Color::kGreen, "green"}, {Color::kBlue, "blue"}};

// Both directions from one table; the error lists every name.
TEST(EnumNames, NameParseAndTheExpectedList) {
  EXPECT_EQ(NameOf(kColorNames, Color::kGreen), "green");
  auto blue = ParseName(kColorNames, "blue", "color");
  ASSERT_TRUE(blue.ok());
  EXPECT_EQ(*blue, Color::kBlue);
  auto bad = ParseName(kColorNames, "pink", "color");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "unknown color 'pink' (expected red, green or blue)");
}

}  // namespace
}  // namespace az
