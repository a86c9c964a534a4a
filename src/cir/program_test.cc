// Tests of the CIR program model: kind names, the verifier's checks on built
// programs (exact messages, located by instruction name), and Summarize.
#include "cir/program.h"

#include <gtest/gtest.h>

#include <limits>

#include "cir/testing.h"

namespace az::cir {
namespace {

using pir::DType;

// 4 devices: w, x -> fc -> h; all-gather(h) -> g asynchronously, overlapped
// with side(x) -> y; proj(g, y) -> z; all-reduce(z) in place; output z.
Program AsyncProgram() {
  Program p;
  p.name = "async";
  p.num_devices = 4;
  p.AddBuffer(MakeBuffer("w", BufferKind::kParameter, {256}));       // %0: 1024 B
  p.AddBuffer(MakeBuffer("x", BufferKind::kInput, {64}));            // %1:  256 B
  p.AddBuffer(MakeBuffer("h", BufferKind::kActivation, {128}));      // %2:  512 B
  p.AddBuffer(MakeBuffer("g", BufferKind::kCommunication, {512}));   // %3: 2048 B
  p.AddBuffer(MakeBuffer("y", BufferKind::kActivation, {32}));       // %4:  128 B
  p.AddBuffer(MakeBuffer("z", BufferKind::kActivation, {16}));       // %5:   64 B
  p.AddInstruction(Kernel("fc", {0, 1}, {2}, 32768));                                              // 0
  p.AddInstruction(Collective(InstrKind::kCollectiveStart, CollectiveKind::kAllGather, "ag", {2}, {3}, 2048,
                              {{0, 1, 2, 3}}));                                                     // 1
  p.AddInstruction(Kernel("side", {1}, {4}, 64));                                                  // 2
  p.AddInstruction(Done(CollectiveKind::kAllGather, "ag.done", 1));                                // 3
  p.AddInstruction(Kernel("proj", {3, 4}, {5}, 4096));                                             // 4
  p.AddInstruction(Collective(InstrKind::kCollective, CollectiveKind::kAllReduce, "ar", {5}, {5}, 64,
                              {{0, 1}, {2, 3}}));                                                   // 5
  p.outputs = {5};
  return p;
}

TEST(CirNames, KindsRoundTrip) {
  for (BufferKind kind : {BufferKind::kParameter, BufferKind::kInput, BufferKind::kActivation,
                          BufferKind::kCommunication, BufferKind::kConstant}) {
    EXPECT_EQ(ParseBufferKind(BufferKindName(kind)), kind);
  }
  for (KernelKind kind : {KernelKind::kMatmul, KernelKind::kAttention, KernelKind::kConvolution,
                          KernelKind::kElementwise, KernelKind::kNorm, KernelKind::kReduce, KernelKind::kCopy,
                          KernelKind::kCustom}) {
    EXPECT_EQ(ParseKernelKind(KernelKindName(kind)), kind);
  }
  EXPECT_FALSE(ParseBufferKind("parameter").has_value());
  EXPECT_FALSE(ParseKernelKind("gemm").has_value());
  Instruction start = Done(CollectiveKind::kCollectivePermute, "d", 0);
  EXPECT_EQ(OpcodeName(start), "collective-permute-done");
  start.kind = InstrKind::kCollectiveStart;
  EXPECT_EQ(OpcodeName(start), "collective-permute-start");
  EXPECT_EQ(OpcodeName(Kernel("k", {}, {})), "kernel");
}

TEST(CirVerifier, AcceptsAsyncProgram) {
  Status status = VerifyProgram(AsyncProgram());
  EXPECT_TRUE(status.ok()) << status.message();
}

// Each broken program yields exactly one error, located by instruction name.
// The verifier fails with `message`: all of it, or with `first_only` its
// first lines (other errors may follow).
void ExpectError(const Program& p, const std::string& message, bool first_only = false) {
  Status status = VerifyProgram(p);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(first_only ? status.message().substr(0, message.size()) : status.message(), message) << status.message();
}

// What the verifier reports when the all-gather 'ag' has no done: proj reads
// its buffer while it is in flight, and the start never completes.
constexpr const char* kGatherNeverDone =
    "op 'proj': error: kernel reads buffer %3 'g' while all-gather-start 'ag' is in flight (before its done)\n"
    "op 'ag': error: all-gather-start 'ag' has no matching done";

TEST(CirVerifier, DoneWithoutStart) {
  Program p = AsyncProgram();
  p.instructions[3].start = -1;
  // The start then has no done, and proj reads g while it is in flight.
  ExpectError(p, std::string("op 'ag.done': error: all-gather-done has no start\n") + kGatherNeverDone);
}

TEST(CirVerifier, DoneNamesAKernel) {
  Program p = AsyncProgram();
  p.AddInstruction(Done(CollectiveKind::kAllReduce, "bogus.done", 0));
  ExpectError(p, "op 'bogus.done': error: all-reduce-done names kernel 'fc', not an all-reduce-start");
}

TEST(CirVerifier, StartWithoutDone) {
  Program p = AsyncProgram();
  p.instructions.erase(p.instructions.begin() + 3);
  ExpectError(p, kGatherNeverDone);
}

TEST(CirVerifier, TwoDonesForOneStart) {
  Program p = AsyncProgram();
  p.AddInstruction(Done(CollectiveKind::kAllGather, "ag.done.again", 1));
  ExpectError(p, "op 'ag.done.again': error: all-gather-done names start 'ag', which 'ag.done' already completes");
}

TEST(CirVerifier, DoneBeforeItsStart) {
  Program p = AsyncProgram();
  std::swap(p.instructions[1], p.instructions[3]);  // done at 1, start at 3
  p.instructions[1].start = 3;
  ExpectError(p, "op 'ag.done': error: all-gather-done comes before its start 'ag'\n", /*first_only=*/true);
}

TEST(CirVerifier, DoneOfAnotherKind) {
  Program p = AsyncProgram();
  p.instructions[3].collective = CollectiveKind::kReduceScatter;
  ExpectError(p, "op 'ag.done': error: reduce-scatter-done names all-gather-start 'ag', not a reduce-scatter-start",
              /*first_only=*/true);
}

TEST(CirVerifier, ReadBeforeWrite) {
  Program p = AsyncProgram();
  std::swap(p.instructions[0], p.instructions[2]);  // side, ag(h), then fc writes h
  ExpectError(p, "op 'ag': error: all-gather-start reads buffer %2 'h' before any instruction writes it");
}

TEST(CirVerifier, WriteWhileInFlight) {
  Program p = AsyncProgram();
  p.instructions[2].results = {3};  // side writes g while the gather fills it
  p.instructions[4].operands = {3};
  ExpectError(p,
              "op 'side': error: kernel writes buffer %3 'g' while all-gather-start 'ag' is in flight (before its "
              "done)");
}

TEST(CirVerifier, GroupOutOfRange) {
  Program p = AsyncProgram();
  p.instructions[5].groups.groups = {{0, 1}, {2, 4}};
  ExpectError(p, "op 'ar': error: all-reduce names device 4 in its replica groups, outside [0, 4)");
}

TEST(CirVerifier, NegativeDeviceId) {
  Program p = AsyncProgram();
  p.instructions[5].groups.groups = {{0, -1}};
  ExpectError(p, "op 'ar': error: all-reduce names device -1 in its replica groups, outside [0, 4)");
}

TEST(CirVerifier, OverlappingGroups) {
  Program p = AsyncProgram();
  p.instructions[5].groups.groups = {{0, 1}, {1, 2}};
  ExpectError(p, "op 'ar': error: all-reduce names device 1 in two replica groups");
}

TEST(CirVerifier, EmptyGroups) {
  Program p = AsyncProgram();
  p.instructions[5].groups.groups = {};
  ExpectError(p, "op 'ar': error: all-reduce has no replica groups");
  p.instructions[5].groups.groups = {{0, 1}, {}};
  ExpectError(p, "op 'ar': error: all-reduce replica group 1 is empty");
}

TEST(CirVerifier, NegativeBytesAndFlops) {
  Program p = AsyncProgram();
  p.instructions[5].collective_bytes = Bytes(-64);
  p.instructions[0].flops = Flops(-1);
  p.instructions[0].bytes_written = Bytes(-2);
  ExpectError(p,
              "op 'fc': error: kernel has negative flops (-1)\n"
              "op 'fc': error: kernel has negative bytes written (-2)\n"
              "op 'ar': error: all-reduce has negative bytes (-64)");
}

TEST(CirVerifier, PermutePairs) {
  Program p = AsyncProgram();
  Instruction& ar = p.instructions[5];
  ar.collective = CollectiveKind::kCollectivePermute;
  ExpectError(p,
              "op 'ar': error: collective-permute has replica groups; it takes pairs\n"
              "op 'ar': error: collective-permute has no source-target pairs");
  ar.groups.groups.clear();
  ar.pairs = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
  EXPECT_TRUE(VerifyProgram(p).ok());
  ar.pairs = {{0, 1}, {2, 1}};
  ExpectError(p, "op 'ar': error: collective-permute has device 1 receive twice");
  ar.pairs = {{0, 1}, {0, 2}};
  ExpectError(p, "op 'ar': error: collective-permute has device 0 send twice");
  ar.pairs = {{0, 9}};
  ExpectError(p, "op 'ar': error: collective-permute names device 9 in its pairs, outside [0, 4)");
  ar.collective = CollectiveKind::kAllReduce;
  ar.groups.groups = {{0, 1, 2, 3}};
  ExpectError(p, "op 'ar': error: all-reduce has source-target pairs; it takes replica groups");
}

TEST(CirVerifier, NamesIdsAndHeader) {
  Program p = AsyncProgram();
  p.num_devices = 0;
  p.instructions[2].name = "fc";
  p.instructions[4].operands = {3, 17};
  p.instructions[0].results = {-1, 2};
  p.outputs = {5, 6};
  ExpectError(p,
              "error: the program has 0 devices; expected 1 to 2^20\n"
              "op 'fc': error: instruction name 'fc' is already used by instruction #0\n"
              "op 'fc': error: kernel result 0 (%-1) is not a buffer\n"
              "op 'proj': error: kernel operand 1 (%17) is not a buffer\n"
              "error: program output %6 is not a buffer");
  p = AsyncProgram();
  p.instructions[2].name = "";
  ExpectError(p, "op '#2': error: kernel #2 has no name");
}

TEST(CirVerifier, BufferShapes) {
  Program p = AsyncProgram();
  p.buffers[4].shape = {2, -3};
  p.buffers[5].shape = {int64_t{1} << 40, int64_t{1} << 40};
  p.AddBuffer(MakeBuffer("huge", BufferKind::kConstant, {int64_t{1} << 30, int64_t{1} << 30}, DType::kF64));
  p.AddBuffer(MakeBuffer("deep", BufferKind::kConstant, pir::Shape(65, 1)));
  ExpectError(p,
              "error: buffer %4 'y' has a negative dimension (-3)\n"
              "error: buffer %5 'z' has more than 2^62 elements\n"
              "error: buffer %6 'huge' has more than 2^62 bytes\n"
              "error: buffer %7 'deep' has rank 65, over the limit of 64");
}

TEST(CirVerifier, OutputsMustBeWrittenAndLanded) {
  Program p = AsyncProgram();
  p.AddBuffer(MakeBuffer("never", BufferKind::kActivation, {1}));
  p.outputs = {5, 3, 6};
  ExpectError(p, "error: program output %6 'never' is never written");
  // g is an output of a gather that never completes.
  p.outputs = {3};
  p.instructions.erase(p.instructions.begin() + 3);
  p.instructions[3].operands = {4};
  ExpectError(p,
              "op 'ag': error: all-gather-start 'ag' has no matching done\n"
              "error: program output %3 'g' is still in flight in all-gather-start 'ag'");
}

TEST(CirVerifier, DoneMayNameItsTransferBuffers) {
  Program p = AsyncProgram();
  p.instructions[3].operands = {3};
  p.instructions[3].results = {3};
  EXPECT_TRUE(VerifyProgram(p).ok()) << VerifyProgram(p).message();
}

// A generator bug can break every instruction; the report stays readable.
TEST(CirVerifier, CapsTheNumberOfRenderedErrors) {
  Program p;
  p.AddBuffer(MakeBuffer("x", BufferKind::kActivation, {1}));
  for (int i = 0; i < 250; ++i) p.AddInstruction(Kernel("k" + std::to_string(i), {0}, {}));
  Status status = VerifyProgram(p);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("op 'k99': error: kernel reads buffer %0 'x' before any instruction writes it\n"
                                  "error: ... and 150 more error(s)"),
            std::string::npos);
  EXPECT_EQ(status.message().find("'k100'"), std::string::npos);
}

// ---------------------------------------------------------------- Summarize

TEST(CirSummary, AsyncProgram) {
  ProgramSummary s = Summarize(AsyncProgram());
  EXPECT_EQ(s.flops, Flops(32768 + 64 + 4096));
  EXPECT_EQ(s.kernels, 3);
  // CollectiveKind order; the done does not count.
  ASSERT_EQ(s.collectives.size(), 2u);
  EXPECT_EQ(s.collectives[0], std::make_tuple(CollectiveKind::kAllReduce, 1, Bytes(64)));
  EXPECT_EQ(s.collectives[1], std::make_tuple(CollectiveKind::kAllGather, 1, Bytes(2048)));
  EXPECT_EQ(s.parameter_bytes, Bytes(1024));
  // Static: w 1024 + x 256 = 1280 B, live throughout. Live ranges:
  //   h [0,3]: written by fc, read by ag's start, kept until ag.done (3);
  //            it dies there, before proj and ar
  //   g [1,4]: the start's result is live from the start (1) to proj (4)
  //   y [2,4], z [4,5] (an output: to the end)
  // Live bytes per instruction:
  //   0 fc       1280 + h 512                         = 1792
  //   1 ag       1280 + h 512 + g 2048                = 3840
  //   2 side     1280 + h 512 + g 2048 + y 128        = 3968
  //   3 ag.done  the same                             = 3968
  //   4 proj     1280 + g 2048 + y 128 + z 64         = 3520
  //   5 ar       1280 + z 64                          = 1344
  EXPECT_EQ(s.peak_memory, Bytes(3968));
}

TEST(CirSummary, KernelTotalsAndDeadStores) {
  Program p = AsyncProgram();
  p.instructions[0].bytes_read = Bytes(1280);
  p.instructions[0].bytes_written = Bytes(512);
  p.instructions[4].bytes_read = Bytes(2176);
  // A buffer written and never read is live only while it is written.
  int dead = p.AddBuffer(MakeBuffer("dead", BufferKind::kActivation, {1000}));  // 4000 B
  p.instructions[5].results.push_back(dead);
  ProgramSummary s = Summarize(p);
  EXPECT_EQ(s.bytes_read, Bytes(1280 + 2176));
  EXPECT_EQ(s.bytes_written, Bytes(512));
  // At ar (5): 1344 + 4000.
  EXPECT_EQ(s.peak_memory, Bytes(5344));
}

TEST(CirSummary, EmptyProgramHoldsItsStaticBuffers) {
  Program p;
  p.AddBuffer(MakeBuffer("w", BufferKind::kParameter, {10}));
  p.AddBuffer(MakeBuffer("c", BufferKind::kConstant, {5}, DType::kBF16));
  p.AddBuffer(MakeBuffer("unused", BufferKind::kActivation, {1000}));
  ProgramSummary s = Summarize(p);
  EXPECT_EQ(s.peak_memory, Bytes(50));
  EXPECT_EQ(s.parameter_bytes, Bytes(40));
  EXPECT_TRUE(s.collectives.empty());
}

// Summarize never overflows, whatever the program: sums saturate.
TEST(CirSummary, SaturatesOnUnverifiedPrograms) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  Program p;
  p.AddBuffer(MakeBuffer("a", BufferKind::kParameter, {int64_t{1} << 40, int64_t{1} << 40}));
  p.AddBuffer(MakeBuffer("b", BufferKind::kParameter, {int64_t{1} << 62}));
  p.AddBuffer(MakeBuffer("neg", BufferKind::kActivation, {-5}));
  p.AddInstruction(Kernel("k0", {0, 7}, {2, -1}, kMax));
  p.AddInstruction(Kernel("k1", {}, {}, kMax));
  Instruction done = Done(CollectiveKind::kAllReduce, "d", 99);
  p.AddInstruction(done);
  ProgramSummary s = Summarize(p);
  EXPECT_EQ(s.flops, Flops(kMax));
  EXPECT_EQ(s.parameter_bytes, Bytes(kMax));
  EXPECT_EQ(s.peak_memory, Bytes(kMax));
}

}  // namespace
}  // namespace az::cir
