// Tests of the CIR text form: the printer's exact output, print -> parse ->
// print round trips (on a built program and on every golden file), parse and
// verify errors with their locations, resource limits, the lexer's XLA
// spellings, and the regressions the fuzzer found.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "cir/testing.h"
#include "cir/text/lexer.h"
#include "cir/text/parser.h"
#include "cir/text/printer.h"
#include "support/test_files.h"
#include "support/text_testing.h"

namespace az::cir {
namespace {

namespace fs = std::filesystem;
using pir::DType;

Program MustParse(std::string_view text) {
  StatusOr<Program> program = ParseProgram(text, "test.cir");
  EXPECT_TRUE(program.ok()) << program.status().message() << "\n--- text ---\n" << text;
  return program.ok() ? std::move(program).value() : Program();
}

void ExpectRoundTrip(const Program& program) {
  std::string first = PrintProgram(program);
  StatusOr<Program> parsed = ParseProgram(first, "printed.cir");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message() << "\n--- printed ---\n" << first;
  EXPECT_EQ(PrintProgram(*parsed), first);
}

// The text the brief of the CIR library starts from, built in code.
Program UlyssesProgram() {
  Program p;
  p.name = "wan2.1-t2v-14b:ulysses=y";
  p.num_devices = 8;
  p.mesh = "x=2,y=4";
  auto buffer = [&](std::string name, BufferKind kind, pir::Shape shape) {
    return p.AddBuffer(MakeBuffer(std::move(name), kind, std::move(shape), DType::kBF16));
  };
  int latent = buffer("latent", BufferKind::kInput, {1, 9450, 5120});
  int weight = buffer("blocks.0.q.weight", BufferKind::kParameter, {5120, 5120});
  int q = buffer("blocks.0.q", BufferKind::kActivation, {1, 9450, 5120});
  int a2a = buffer("a2a.0", BufferKind::kCommunication, {1, 75600, 640});

  Instruction kernel = Kernel("blocks.0.self_attn.q", {latent, weight}, {q}, 123);
  kernel.origin = "blocks.0.self_attn.q";
  kernel.bytes_read = Bytes(456);
  kernel.bytes_written = Bytes(789);
  p.AddInstruction(kernel);
  int start = p.AddInstruction(Collective(InstrKind::kCollectiveStart, CollectiveKind::kAllToAll, "a2a.0",
                                                    {q}, {a2a}, 1000, {{0, 1, 2, 3}, {4, 5, 6, 7}}));
  p.AddInstruction(Done(CollectiveKind::kAllToAll, "a2a.0.done", start));
  p.AddInstruction(Collective(InstrKind::kCollective, CollectiveKind::kAllReduce, "ar.1", {a2a}, {a2a},
                                        1000, {{0, 1, 2, 3}, {4, 6}, {5, 7}}));
  Instruction permute =
      Collective(InstrKind::kCollective, CollectiveKind::kCollectivePermute, "cp.2", {q}, {a2a}, 10, {});
  permute.pairs = {{0, 1}, {1, 0}};
  p.AddInstruction(permute);

  p.outputs = {a2a};
  return p;
}

constexpr char kUlyssesText[] =
    "program \"wan2.1-t2v-14b:ulysses=y\" devices = 8 mesh = \"x=2,y=4\" {\n"
    "  buffer %0 \"latent\" input bf16[1,9450,5120]\n"
    "  buffer %1 \"blocks.0.q.weight\" param bf16[5120,5120]\n"
    "  buffer %2 \"blocks.0.q\" activation bf16[1,9450,5120]\n"
    "  buffer %3 \"a2a.0\" communication bf16[1,75600,640]\n"
    "  kernel \"blocks.0.self_attn.q\" matmul (%0, %1) -> (%2) {flops = 123, read = 456, written = 789, origin = "
    "\"blocks.0.self_attn.q\"}\n"
    "  all-to-all-start \"a2a.0\" (%2) -> (%3) {bytes = 1000, groups = [2,4]<=[8]}\n"
    "  all-to-all-done \"a2a.0.done\" start = \"a2a.0\"\n"
    "  all-reduce \"ar.1\" (%3) -> (%3) {bytes = 1000, groups = {{0,1,2,3},{4,6},{5,7}}}\n"
    "  collective-permute \"cp.2\" (%2) -> (%3) {bytes = 10, pairs = {{0,1},{1,0}}}\n"
    "  outputs (%3)\n"
    "}\n";

TEST(CirPrinter, PrintsBuiltProgramExactly) {
  Program p = UlyssesProgram();
  ASSERT_TRUE(VerifyProgram(p).ok()) << VerifyProgram(p).message();
  EXPECT_EQ(PrintProgram(p), kUlyssesText);
}

TEST(CirPrinter, RoundTripKeepsEveryField) {
  Program built = UlyssesProgram();
  ExpectRoundTrip(built);
  Program parsed = MustParse(PrintProgram(built));
  EXPECT_EQ(parsed.name, built.name);
  EXPECT_EQ(parsed.num_devices, built.num_devices);
  EXPECT_EQ(parsed.mesh, built.mesh);
  EXPECT_EQ(parsed.outputs, built.outputs);
  ASSERT_EQ(parsed.buffers.size(), built.buffers.size());
  for (size_t i = 0; i < built.buffers.size(); ++i) {
    EXPECT_EQ(parsed.buffers[i].name, built.buffers[i].name);
    EXPECT_EQ(parsed.buffers[i].kind, built.buffers[i].kind);
    EXPECT_EQ(parsed.buffers[i].dtype, built.buffers[i].dtype);
    EXPECT_EQ(parsed.buffers[i].shape, built.buffers[i].shape);
    EXPECT_EQ(parsed.buffers[i].loc.ToString(), "test.cir:" + std::to_string(i + 2) + ":3");
  }
  ASSERT_EQ(parsed.instructions.size(), built.instructions.size());
  for (size_t i = 0; i < built.instructions.size(); ++i) {
    const Instruction& a = parsed.instructions[i];
    const Instruction& b = built.instructions[i];
    SCOPED_TRACE(b.name);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.origin, b.origin);
    EXPECT_EQ(a.operands, b.operands);
    EXPECT_EQ(a.results, b.results);
    EXPECT_EQ(a.kernel, b.kernel);
    EXPECT_EQ(a.flops, b.flops);
    EXPECT_EQ(a.bytes_read, b.bytes_read);
    EXPECT_EQ(a.bytes_written, b.bytes_written);
    EXPECT_EQ(a.collective, b.collective);
    EXPECT_EQ(a.collective_bytes, b.collective_bytes);
    EXPECT_EQ(a.groups, b.groups);
    EXPECT_EQ(a.pairs, b.pairs);
    EXPECT_EQ(a.start, b.start);
    EXPECT_EQ(a.loc.ToString(), "test.cir:" + std::to_string(i + 6) + ":3");
  }
}

// The printer never fails, even on a program that breaks the invariants.
TEST(CirPrinter, PrintsInvalidPrograms) {
  Program p = UlyssesProgram();
  p.instructions[0].operands = {-1, 99};
  p.instructions[2].start = 42;
  p.outputs = {7};
  std::string text = PrintProgram(p);
  EXPECT_NE(text.find("matmul (%?-1, %?99) -> (%2)"), std::string::npos) << text;
  EXPECT_NE(text.find("all-to-all-done \"a2a.0.done\" start = ?42\n"), std::string::npos) << text;
  EXPECT_NE(text.find("outputs (%?7)"), std::string::npos) << text;
  EXPECT_FALSE(ParseProgram(text).ok());
}

// ---------------------------------------------------------------- parser

TEST(CirParser, AcceptsAnyAttributeOrderCommentsAndSpacing) {
  Program p = MustParse(
      "// a comment\n"
      "program \"p\" devices=2{buffer %7 \"a\" param f32[2] // the weights\n"
      "buffer %3 \"b\" activation f32[2]\n"
      "kernel \"k\" copy(%7)->(%3){origin=\"o\",written=8,flops=0,read=8}\n"
      "all-reduce \"ar\" (%3) -> (%3) {groups = {{1,0}}, bytes = 8}\n"
      "outputs(%3)}");
  EXPECT_EQ(PrintProgram(p),
            "program \"p\" devices = 2 {\n"
            "  buffer %0 \"a\" param f32[2]\n"
            "  buffer %1 \"b\" activation f32[2]\n"
            "  kernel \"k\" copy (%0) -> (%1) {flops = 0, read = 8, written = 8, origin = \"o\"}\n"
            "  all-reduce \"ar\" (%1) -> (%1) {bytes = 8, groups = {{1,0}}}\n"
            "  outputs (%1)\n"
            "}\n");
}

TEST(CirParser, ExpandsIotaGroups) {
  Program p = MustParse(
      "program \"p\" devices = 8 {\n"
      "  buffer %0 \"a\" param f32[2]\n"
      "  all-gather \"plain\" (%0) -> (%0) {bytes = 8, groups = [2,4]<=[8]}\n"
      "  all-gather \"transposed\" (%0) -> (%0) {bytes = 8, groups = [4,2]<=[2,4]T(1,0)}\n"
      "  all-gather \"three\" (%0) -> (%0) {bytes = 8, groups = [1,8]<=[2,2,2]T(2,1,0)}\n"
      "  all-gather \"partial\" (%0) -> (%0) {bytes = 8, groups = [2,2]<=[4]}\n"
      "  outputs ()\n"
      "}\n");
  ASSERT_EQ(p.instructions.size(), 4u);
  using Groups = std::vector<std::vector<int>>;
  EXPECT_EQ(p.instructions[0].groups.groups, (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(p.instructions[1].groups.groups, (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  EXPECT_EQ(p.instructions[2].groups.groups, (Groups{{0, 4, 2, 6, 1, 5, 3, 7}}));
  EXPECT_EQ(p.instructions[3].groups.groups, (Groups{{0, 1}, {2, 3}}));
  std::string printed = PrintProgram(p);
  EXPECT_NE(printed.find("\"three\" (%0) -> (%0) {bytes = 8, groups = [1,8]<=[2,2,2]T(2,1,0)}"), std::string::npos);
  EXPECT_NE(printed.find("\"partial\" (%0) -> (%0) {bytes = 8, groups = [2,2]<=[4]}"), std::string::npos);
  ExpectRoundTrip(p);
}

TEST(CirParser, DoneMayPrecedeItsStartTextually) {
  const char* text =
      "program \"p\" devices = 2 {\n"
      "  buffer %0 \"a\" param f32[2]\n"
      "  buffer %1 \"b\" communication f32[4]\n"
      "  all-gather-done \"ag.done\" start = \"ag\"\n"
      "  all-gather-start \"ag\" (%0) -> (%1) {bytes = 16, groups = [1,2]<=[2]}\n"
      "  outputs ()\n"
      "}\n";
  Program p = MustParse(text);
  EXPECT_EQ(p.instructions[0].start, 1);
  ExpectRoundTrip(p);
  // The verifier, run against the text, says what is wrong and where.
  StatusOr<Program> verified = ParseAndVerifyProgram(text, "order.cir");
  ASSERT_FALSE(verified.ok());
  EXPECT_EQ(verified.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(verified.status().message(),
            "order.cir:4:3: error: all-gather-done comes before its start 'ag'\n"
            "    all-gather-done \"ag.done\" start = \"ag\"\n"
            "    ^\n"
            "order.cir:5:3: error: all-gather-start 'ag' has no matching done\n"
            "    all-gather-start \"ag\" (%0) -> (%1) {bytes = 16, groups = [1,2]<=[2]}\n"
            "    ^");
}

TEST(CirParser, ErrorIsRenderedWithSourceLineAndCaret) {
  StatusOr<Program> p = ParseProgram(
      "program \"p\" devices = 2 {\n"
      "  buffer %0 \"a\" param f32[2]\n"
      "  kernel \"k\" copy (%0) -> (%4) {flops = 0, read = 8, written = 8}\n"
      "  outputs ()\n"
      "}\n",
      "bad.cir");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kParseError);
  EXPECT_EQ(p.status().message(),
            "bad.cir:3:28: error: use of undefined buffer %4\n"
            "    kernel \"k\" copy (%0) -> (%4) {flops = 0, read = 8, written = 8}\n"
            "                             ^");
}

TEST(CirParser, ParseAndVerifyAcceptsAValidProgram) {
  StatusOr<Program> p = ParseAndVerifyProgram(kUlyssesText);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->instructions.size(), 5u);
}

TEST(CirParser, DoneWithListsAndOrigin) {
  const char* text =
      "program \"p\" devices = 2 {\n"
      "  buffer %0 \"a\" param f32[2]\n"
      "  buffer %1 \"b\" communication f32[2]\n"
      "  collective-permute-start \"cp\" (%0) -> (%1) {bytes = 8, pairs = {{0,1},{1,0}}}\n"
      "  collective-permute-done \"cp.done\" (%1) -> (%1) start = \"cp\" {origin = \"halo\"}\n"
      "  outputs (%1)\n"
      "}\n";
  StatusOr<Program> p = ParseAndVerifyProgram(text);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(PrintProgram(*p), text);
  EXPECT_EQ(p->instructions[1].origin, "halo");
  EXPECT_EQ(p->instructions[1].operands, std::vector<int>{1});
}

std::string Header(int64_t devices = 8) { return "program \"p\" devices = " + std::to_string(devices) + " {\n"; }

// Input over a limit gets kResourceExhausted, located at the statement that
// crosses it: `text`, parsed as `file`, fails with a message that starts with `error`.
void ExpectOverLimit(const std::string& text, const std::string& file, const std::string& error) {
  StatusOr<Program> program = ParseProgram(text, file);
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(program.status().message().rfind(error, 0), 0u) << program.status().message().substr(0, 200);
}

TEST(CirParser, BufferLimit) {
  // 10^6 buffers parse; one more does not.
  std::string many_buffers = Header();
  many_buffers.reserve(40'000'000);
  for (int i = 0; i <= 1'000'000; ++i) many_buffers += "buffer %" + std::to_string(i) + " \"\" param f32[]\n";
  many_buffers += "outputs ()\n}\n";
  ExpectOverLimit(many_buffers, "big.cir", "big.cir:1000002:1: error: more than 1000000 buffers");
}

TEST(CirParser, InstructionLimit) {
  std::string many_instructions = Header();
  many_instructions.reserve(60'000'000);
  for (int i = 0; i <= 1'000'000; ++i) {
    many_instructions += "kernel \"" + std::to_string(i) + "\" custom () -> () {flops=0,read=0,written=0}\n";
  }
  many_instructions += "outputs ()\n}\n";
  ExpectOverLimit(many_instructions, "big.cir", "big.cir:1000002:1: error: more than 1000000 instructions");
}

TEST(CirParser, GroupIdLimit) {
  // 2^22 group ids in all: 4 collectives over 2^20 devices fit, a 5th does not.
  std::string many_ids = Header(1 << 20) + "buffer %0 \"a\" param f32[]\n";
  for (int i = 0; i < 5; ++i) {
    many_ids += "all-reduce \"" + std::to_string(i) + "\" (%0) -> (%0) {bytes = 4, groups = [1,1048576]<=[1048576]}\n";
  }
  many_ids += "outputs ()\n}\n";
  ExpectOverLimit(many_ids, "ids.cir",
                  "ids.cir:7:50: error: the program's replica groups and pairs exceed the limit of 2^22 device ids");
}

TEST(CirParser, LargestIotaRoundTrips) {
  Program p = MustParse(Header(1 << 20) +
                        "buffer %0 \"a\" param f32[]\n"
                        "all-reduce \"ar\" (%0) -> (%0) {bytes = 4, groups = [1024,1024]<=[1024,1024]T(1,0)}\n"
                        "outputs ()\n}\n");
  ASSERT_EQ(p.instructions[0].groups.groups.size(), 1024u);
  EXPECT_EQ(p.instructions[0].groups.groups[1][1], 1025);
  EXPECT_TRUE(VerifyProgram(p).ok());
  EXPECT_NE(PrintProgram(p).find("groups = [1024,1024]<=[1024,1024]T(1,0)}"), std::string::npos);

  // 20 dims of 2, reversed: nothing merges, and the printed form, at the rank
  // limit, parses back.
  std::string dims = "[2", perm = "T(19";
  for (int i = 1; i < 20; ++i) {
    dims += ",2";
    perm += "," + std::to_string(19 - i);
  }
  std::string groups = "[1024,1024]<=" + dims + "]" + perm + ")";
  Program deep = MustParse(Header(1 << 20) + "buffer %0 \"a\" param f32[]\n" +
                           "all-reduce \"ar\" (%0) -> (%0) {bytes = 4, groups = " + groups + "}\noutputs ()\n}\n");
  EXPECT_NE(PrintProgram(deep).find("groups = " + groups + "}"), std::string::npos);
  ExpectRoundTrip(deep);
}

// ---------------------------------------------------------------- lexer

TEST(CirLexer, XlaSpellings) {
  Lexer lexer("all-gather-start x->(%12) [2,1]<=[2]T(1,0) -7 a-1");
  std::vector<std::pair<TokenKind, std::string>> tokens;
  for (Token t = lexer.Next(); t.kind != TokenKind::kEof && t.kind != TokenKind::kError; t = lexer.Next()) {
    tokens.emplace_back(t.kind, std::string(t.spelling));
  }
  std::vector<std::pair<TokenKind, std::string>> expected = {
      {TokenKind::kIdent, "all-gather-start"},
      {TokenKind::kIdent, "x"},
      {TokenKind::kArrow, "->"},
      {TokenKind::kLParen, "("},
      {TokenKind::kBufferRef, "%12"},
      {TokenKind::kRParen, ")"},
      {TokenKind::kLBracket, "["},
      {TokenKind::kInt, "2"},
      {TokenKind::kComma, ","},
      {TokenKind::kInt, "1"},
      {TokenKind::kRBracket, "]"},
      {TokenKind::kLessEqual, "<="},
      {TokenKind::kLBracket, "["},
      {TokenKind::kInt, "2"},
      {TokenKind::kRBracket, "]"},
      {TokenKind::kIdent, "T"},
      {TokenKind::kLParen, "("},
      {TokenKind::kInt, "1"},
      {TokenKind::kComma, ","},
      {TokenKind::kInt, "0"},
      {TokenKind::kRParen, ")"},
      {TokenKind::kInt, "-7"},
      {TokenKind::kIdent, "a"},
      {TokenKind::kInt, "-1"},
  };
  EXPECT_EQ(tokens, expected);
}

TEST(CirLexer, ErrorsStayPut) {
  Lexer lexer("  <");
  Token t = lexer.Next();
  EXPECT_EQ(t.kind, TokenKind::kError);
  EXPECT_EQ(t.text, "unexpected character '<'");
  EXPECT_EQ(t.col, 3);
  Lexer dash("- x");
  EXPECT_EQ(dash.Next().text, "expected a digit or '>' after '-'");
}

// ---------------------------------------------------------------- golden files

TEST(CirGolden, EveryFileRoundTripsByteIdenticalAndVerifies) {
  std::vector<fs::path> files = GoldenFiles("cir");
  ASSERT_GE(files.size(), 4u) << GoldenDir("cir");
  ExpectGoldenFilesRoundTrip(
      files, [](const std::string& text, const std::string& name) { return ParseAndVerifyProgram(text, name); },
      PrintProgram, [](const Program& program) { ExpectRoundTrip(program); });
}

// The golden Ulysses step, summarized: the numbers follow from its text.
TEST(CirGolden, UlyssesSummary) {
  StatusOr<Program> program = ParseAndVerifyProgram(testing::ReadTextFile(GoldenDir("cir") / "ulysses.cir"));
  ASSERT_TRUE(program.ok()) << program.status().message();
  ProgramSummary s = Summarize(*program);
  EXPECT_EQ(s.kernels, 2);
  EXPECT_EQ(s.flops, Flops(495452160000 + 14633472000000));
  EXPECT_EQ(s.parameter_bytes, Bytes(int64_t{5120} * 5120 * 2));
  ASSERT_EQ(s.collectives.size(), 3u);
  EXPECT_EQ(s.collectives[0], std::make_tuple(CollectiveKind::kAllReduce, 1, Bytes(96768000)));
  EXPECT_EQ(s.collectives[1], std::make_tuple(CollectiveKind::kAllToAll, 2, Bytes(2 * 96768000)));
  EXPECT_EQ(s.collectives[2], std::make_tuple(CollectiveKind::kCollectivePermute, 1, Bytes(163840)));
  // Every activation and communication buffer but the halo is 96,768,000 B
  // (48,384,000 bf16 elements); the halo is 163,840 B; static: latent
  // 96,768,000 + weight 52,428,800 = 149,196,800 B. Live sets per instruction:
  //   0 q kernel   {q}                 1 a2a.0 start {q, a2a.0}
  //   2 a2a.0 done {q, a2a.0}          3 attention   {a2a.0, attn}
  //   4 a2a.1      {attn, a2a.1}       5 ar.0        {a2a.1, ar.0}
  //   6 halo       {ar.0, halo}  (ar.0 and halo are outputs)
  // The peak is two big buffers on top of the static ones.
  EXPECT_EQ(s.peak_memory, Bytes(149196800 + 2 * 96768000));
}

// First line of each file: "// expected-error@LINE:COL: message". Files named
// verify_* parse and fail the verifier; the others fail to parse.
TEST(CirGolden, ErrorFilesReportTheExpectedDiagnostic) {
  std::vector<fs::path> files = GoldenFiles("cir", "errors");
  ASSERT_GE(files.size(), 30u);
  ForEachGoldenErrorFile(files, [](const std::string& text, const std::string& name, const ExpectedError& expected) {
    bool verify = name.rfind("verify_", 0) == 0;
    EXPECT_EQ(ParseProgram(text, name).ok(), verify);
    StatusOr<Program> program = ParseAndVerifyProgram(text, name);
    ASSERT_FALSE(program.ok());
    // The first diagnostic: "file:L:C: error: message", the source line, the caret.
    std::string rendered = program.status().message();
    StatusCode expected_code = verify ? StatusCode::kInvalidArgument
                               : expected.message.find("limit") != std::string::npos ? StatusCode::kResourceExhausted
                                                                           : StatusCode::kParseError;
    EXPECT_EQ(program.status().code(), expected_code) << rendered;
    ExpectDiagnostic(rendered, name, expected);
  });
}

// The fuzz target's property, on seeded random edits of the golden files (a
// cheap stand-in for libFuzzer in every test run): any input parses or fails
// with a located error, and a parsed program verifies or not, summarizes, and
// prints to a fixed point.
TEST(CirParser, SeededMutationsKeepTheFuzzProperty) {
  std::mt19937 rng(11);
  int parsed_count = ExpectMutantsParseOrFailLocated(
      GoldenFiles("cir"), rng, "%\"{}[]()<>,=-T0123456789 \n/\\x", "mutant.cir",
      [](const std::string& text, const std::string& name) { return ParseProgram(text, name); }, PrintProgram,
      [](const Program& program) {
        (void)VerifyProgram(program);
        (void)Summarize(program);
      });
  EXPECT_GT(parsed_count, 0);
}

}  // namespace
}  // namespace az::cir
