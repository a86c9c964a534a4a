// Issue 7's comparison: what XLA compiled for nine planner candidates of a
// Wan 2.1 forward against what the built-in SPMD compiler emits for the same
// model, size, depth, CFG mode and candidate.
//
// The dumps (tests/data/xla/README.md says how they were made) are
// `compiled.as_text()` of tests/jax/wan_jax.py, JAX 0.11.2 with Shardy, XLA's
// CPU backend on 8 fake devices: Wan 2.1 T2V-1.3B and T2V-14B, 2 blocks,
// 832x480, 17 frames (5 x 30 x 52 = 7,800 tokens), batch 1, or batch 2 for the
// CFG-parallel candidates (their forward runs both CFG halves as one batch,
// search::ConfigFor). Our side is the same zoo configuration with
// depth_units = 2, compiled by compile::CompileTemplate with the candidate's
// mesh and template (search::Combo::MeshText / Template, written out below
// because compile tests may not include search/).
//
// The dumps are XLA 0.11's text as printed, stack-frame tables and mesh-form
// replica groups included; the importer reads them as they are (its own
// tests in hlo_test.cc cover both forms).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "cir/program.h"
#include "compile/pipeline.h"
#include "compile/spmd/spmd_compiler.h"
#include "compile/xla/hlo_import.h"
#include "frontend/zoo/zoo.h"
#include "shard/sharding.h"
#include "support/test_files.h"

namespace az::compile::xla {
namespace {

// ---------------------------------------------------------------- the candidates

struct Candidate {
  const char* dir;    // under tests/data/xla
  const char* id;     // search::Combo::Id, the dump's name
  const char* model;  // zoo name
  const char* mesh;   // search::Combo::MeshText
  const char* templ;  // search::Combo::Template
  bool cfg_parallel;  // search::ConfigFor: CFG batch2 (the dump's batch is 2)
};

constexpr char k13b[] = "wan13b_832x480x17_2blocks";
constexpr char k14b[] = "wan14b_832x480x17_2blocks";
constexpr char kWan13b[] = "wan2.1-t2v-1.3b";
constexpr char kWan14b[] = "wan2.1-t2v-14b";

constexpr Candidate kCandidates[] = {
    {k13b, "ulysses4-ring2", kWan13b, "ring=2,ulysses=4", "ring=ring,ulysses=ulysses", false},
    {k13b, "ulysses4-cfg2", kWan13b, "cfg=2,ulysses=4", "cfg=cfg,ulysses=ulysses", true},
    {k13b, "cfg2-tp4", kWan13b, "cfg=2,tp=4", "cfg=cfg,tp=tp", true},
    {k13b, "ulysses4-cfg2-fsdp8", kWan13b, "cfg=2,ulysses=4", "cfg=cfg,ulysses=ulysses,fsdp=cfg+ulysses", true},
    {k14b, "ulysses8", kWan14b, "ulysses=8", "ulysses=ulysses", false},
    {k14b, "tp8", kWan14b, "tp=8", "tp=tp", false},
    {k14b, "ulysses2-tp4", kWan14b, "ulysses=2,tp=4", "ulysses=ulysses,tp=tp", false},
    {k14b, "ulysses8-fsdp8", kWan14b, "ulysses=8", "ulysses=ulysses,fsdp=ulysses", false},
    {k14b, "ulysses4-cfg2", kWan14b, "cfg=2,ulysses=4", "cfg=cfg,ulysses=ulysses", true},
};

std::string DumpPath(const Candidate& c) {
#ifdef AZ_SOURCE_DIR
  return std::string(AZ_SOURCE_DIR) + "/tests/data/xla/" + c.dir + "/" + c.id + ".hlo";
#else
  return std::string("tests/data/xla/") + c.dir + "/" + c.id + ".hlo";
#endif
}

std::string Label(const Candidate& c) { return std::string(c.dir).substr(0, 6) + "/" + c.id; }

// Per-device totals of one program, per collective kind in CollectiveKind
// order: all-reduce, all-gather, reduce-scatter, all-to-all, permute.
struct Totals {
  std::array<int, 6> count{};
  std::array<int64_t, 6> bytes{};
  int64_t flops = 0;
  int64_t peak_memory = 0;
};

Totals Summary(const cir::Program& program) {
  cir::ProgramSummary s = cir::Summarize(program);
  Totals t;
  for (const auto& [kind, count, bytes] : s.collectives) {
    t.count[static_cast<size_t>(kind)] = count;
    t.bytes[static_cast<size_t>(kind)] = bytes.value();
  }
  t.flops = s.flops.value();
  t.peak_memory = s.peak_memory.value();
  return t;
}

StatusOr<cir::Program> ImportDump(const Candidate& c) {
  std::string text = testing::ReadTextFile(DumpPath(c));
  if (text.empty()) return NotFound("cannot read " + DumpPath(c));
  AZ_ASSIGN_OR_RETURN(ImportResult imported, ImportHloText(text, DumpPath(c)));
  return std::move(imported.program);
}

StatusOr<cir::Program> CompileOurs(const Candidate& c) {
  zoo::ModelOptions options{.width = 832, .height = 480, .frames = 17};
  AZ_ASSIGN_OR_RETURN(zoo::ModelConfig config, zoo::ResolveConfig(c.model, options));
  if (c.cfg_parallel) config.cfg = zoo::CfgMode::kBatch2;
  config.depth_units = 2;
  AZ_ASSIGN_OR_RETURN(pir::Graph graph, zoo::BuildForward(config));
  AZ_ASSIGN_OR_RETURN(shard::Mesh mesh, shard::Mesh::Parse(c.mesh));
  SpmdCompiler compiler;
  CompileOptions compile_options;
  compile_options.candidate_id = c.id;
  return CompileTemplate(compiler, graph, mesh, c.templ, compile_options);
}

// One compile of each side per candidate, shared by the tests below.
struct Pair {
  Totals xla, ours;
};

const std::vector<Pair>& Pairs() {
  static const std::vector<Pair>* pairs = [] {
    auto* out = new std::vector<Pair>;
    for (const Candidate& c : kCandidates) {
      Pair p;
      auto xla = ImportDump(c);
      if (xla.ok()) {
        p.xla = Summary(*xla);
      } else {
        ADD_FAILURE() << Label(c) << ": " << xla.status().ToString();
      }
      auto ours = CompileOurs(c);
      if (ours.ok()) {
        p.ours = Summary(*ours);
      } else {
        ADD_FAILURE() << Label(c) << ": " << ours.status().ToString();
      }
      out->push_back(p);
    }
    return out;
  }();
  return *pairs;
}

constexpr size_t kAR = 0, kAG = 1, kRS = 2, kA2A = 3, kCP = 4;
constexpr double kMiB = 1 << 20;

void Print(const Candidate& c, const char* side, const Totals& t) {
  std::printf(
      "%-26s %-4s AG %2d AR %2d RS %d A2A %2d CP %2d | MiB AG %7.1f AR %6.1f A2A %6.1f CP %6.1f | GFLOP %7.1f"
      " | peak GiB %5.2f\n",
      Label(c).c_str(), side, t.count[kAG], t.count[kAR], t.count[kRS], t.count[kA2A], t.count[kCP],
      static_cast<double>(t.bytes[kAG]) / kMiB, static_cast<double>(t.bytes[kAR]) / kMiB,
      static_cast<double>(t.bytes[kA2A]) / kMiB, static_cast<double>(t.bytes[kCP]) / kMiB,
      static_cast<double>(t.flops) / 1e9, static_cast<double>(t.peak_memory) / (1 << 30));
}

// Collective instructions per opcode in the text, counted as `grep -c ' OP('`
// would: the opcode follows its result shape after a space, and nowhere else
// in these files is it followed by '(' (names are '%all-to-all.3', op_name
// strings 'jit(forward)/...'). The sync form only: the CPU backend emits no
// -start/-done pairs here (`grep -c -- '-start('` is 0 in every dump).
std::array<int, 6> GrepCounts(const std::string& text) {
  std::array<int, 6> out{};
  const char* ops[] = {" all-reduce(", " all-gather(", " reduce-scatter(", " all-to-all(", " collective-permute("};
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    start = end + 1;
    for (size_t k = 0; k < 5; ++k) {
      if (line.find(ops[k]) != std::string_view::npos) ++out[k];
    }
    EXPECT_EQ(line.find("-start("), std::string_view::npos);
  }
  return out;
}

TEST(WanDumps, XlaCollectiveCountsPerKind) {
  // Counts per kind: all-gather, all-reduce, reduce-scatter, all-to-all,
  // collective-permute, from `grep -c ' all-gather(' FILE` and so on (no
  // while loops: the static counts are the per-step counts). The importer's
  // count (after unrolling nothing) and the grep count must both equal them.
  struct Want {
    int ag, ar, rs, a2a, cp;
  };
  const Want want[] = {
      {5, 0, 0, 6, 0},     // wan13b ulysses4-ring2
      {1, 0, 0, 12, 0},    // wan13b ulysses4-cfg2
      {0, 10, 0, 0, 0},    // wan13b cfg2-tp4
      {30, 2, 0, 14, 0},   // wan13b ulysses4-cfg2-fsdp8
      {1, 0, 0, 12, 0},    // wan14b ulysses8
      {0, 10, 0, 0, 0},    // wan14b tp8
      {1, 10, 0, 12, 12},  // wan14b ulysses2-tp4
      {34, 2, 0, 14, 1},   // wan14b ulysses8-fsdp8
      {1, 0, 0, 12, 0},    // wan14b ulysses4-cfg2
  };
  const auto& pairs = Pairs();
  for (size_t i = 0; i < std::size(kCandidates); ++i) {
    const Candidate& c = kCandidates[i];
    SCOPED_TRACE(Label(c));
    std::array<int, 6> grep = GrepCounts(testing::ReadTextFile(DumpPath(c)));
    const Totals& x = pairs[i].xla;
    EXPECT_EQ(x.count[kAG], want[i].ag);
    EXPECT_EQ(x.count[kAR], want[i].ar);
    EXPECT_EQ(x.count[kRS], want[i].rs);
    EXPECT_EQ(x.count[kA2A], want[i].a2a);
    EXPECT_EQ(x.count[kCP], want[i].cp);
    for (size_t k : {kAG, kAR, kRS, kA2A, kCP}) EXPECT_EQ(x.count[k], grep[k]) << "kind " << k;
  }
}

TEST(WanDumps, FlopsPerDeviceAgree) {
  // FLOPs per device, XLA's (HloCostAnalysis rules, hlo_cost.cc) against ours
  // (pir/rules/cost.h) on the same model and shards. The matmuls dominate
  // and count alike (2mnk); what differs is small: XLA's attention is two
  // dots plus a softmax it counts element by element, ours one attention
  // kernel (4 B H Lq Lkv D) with the softmax folded in, and each side counts
  // converts, RoPE and norms its own way. Measured: XLA 0.13% (14B tp8) to
  // 0.37% (13B ulysses4-cfg2) above ours; bound 0.5%.
  //
  // The exception is 14B ulysses8-fsdp8: XLA computes 8.3% less (1,526 vs
  // 1,664 GFLOP). With the weights FSDP-sharded along their input dim, XLA
  // keeps the text-side projections, whose activations are only 512 rows
  // (text_embedding, and cross_attn.k / .v of both blocks), sharded along the
  // contracting dim and all-reduces the partial products (its one 50 MiB
  // all-reduce, a tuple of five f32 [1,512,5120]). Each device then computes
  // 1/8 of 5 x 2 x 512 x 5120 x 5120 + 2 x 512 x 4096 x 5120 = 155.7 GFLOP,
  // saving 136 GFLOP of the 137 measured. Ours gathers every weight and runs
  // the text side replicated. The 13B fsdp dump does not do this (its text
  // side is small enough that XLA gathers), so its FLOPs agree.
  const auto& pairs = Pairs();
  for (size_t i = 0; i < std::size(kCandidates); ++i) {
    const Candidate& c = kCandidates[i];
    SCOPED_TRACE(Label(c));
    Print(c, "xla", pairs[i].xla);
    Print(c, "ours", pairs[i].ours);
    double xla = static_cast<double>(pairs[i].xla.flops), ours = static_cast<double>(pairs[i].ours.flops);
    ASSERT_GT(ours, 0);
    double gap = (xla - ours) / ours;
    if (std::string(c.id) == "ulysses8-fsdp8") {
      EXPECT_NEAR(gap, -0.0825, 0.005);
      EXPECT_NEAR(ours - xla, 136e9, 3e9);
      continue;
    }
    EXPECT_GE(gap, 0.0);
    EXPECT_LE(gap, 0.005);
  }
}

TEST(WanDumps, CollectiveKindsMatchWhereTheyShould) {
  // Every dump is XLA's CPU program: the CPU backend runs bf16 collectives in
  // f32 (converts are moved across them), so XLA's payloads are twice what
  // the same program moves on a GPU or TPU, and ours (bf16 activations).
  // Neither compiler emits a reduce-scatter anywhere: the residual stream
  // stays replicated over tp (all-reduce), and FSDP only gathers.
  const auto& pairs = Pairs();
  auto find = [&](const char* dir, const char* id) -> const Pair& {
    for (size_t i = 0; i < std::size(kCandidates); ++i) {
      if (std::string(kCandidates[i].dir) == dir && std::string(kCandidates[i].id) == id) return pairs[i];
    }
    AZ_CHECK(false);
    return pairs[0];
  };
  for (const Pair& p : pairs) {
    EXPECT_EQ(p.xla.count[kRS], 0);
    EXPECT_EQ(p.ours.count[kRS], 0);
  }

  // Ulysses: all-to-all on both sides, nothing else but the head's output
  // gather. XLA issues 6 per block to our 4: the RoPE runs in f32 on the
  // (even, odd) halves of q and k, and XLA moves the all-to-all before the
  // rotation, so q and k travel as two halves each (v and the output as one).
  // Same data: XLA's bytes are exactly 2x ours (f32).
  for (auto [dir, id] :
       {std::pair{k13b, "ulysses4-cfg2"}, std::pair{k14b, "ulysses8"}, std::pair{k14b, "ulysses4-cfg2"}}) {
    SCOPED_TRACE(std::string(dir) + "/" + id);
    const Pair& p = find(dir, id);
    EXPECT_EQ(p.xla.count[kA2A], 12);
    EXPECT_EQ(p.ours.count[kA2A], 8);
    EXPECT_EQ(p.xla.bytes[kA2A], 2 * p.ours.bytes[kA2A]);
    EXPECT_EQ(p.xla.count[kAR] + p.xla.count[kCP], 0);
    EXPECT_EQ(p.ours.count[kAR] + p.ours.count[kCP], 0);
    EXPECT_EQ(p.xla.count[kAG], 1);  // head output, f32 [1,7800,64]
    EXPECT_EQ(p.ours.count[kAG], 1);
  }

  // TP: the row-parallel outputs (self o, cross o, ffn.2) all-reduced on both
  // sides, 3 per block. Wan's RMSNorm of q and k normalizes over the whole
  // hidden dim, which tp shards: both sides keep it sharded and all-reduce
  // the per-token sum of squares (pir rule.h, kNormalized), f32 [1,7800] for
  // the video q and k and [1,512] for the text k. XLA's combiner fuses each
  // attention's pair into one tuple all-reduce (2 per block, 5 in all); ours
  // are 4 apart (ours 7 per block). No all-gather on either side. Bytes: XLA's
  // row-parallel sums are f32 (2x ours), the statistics f32 on both sides, so
  // XLA = 2 x ours minus one copy of the statistics (2 blocks x (3 x 7800 +
  // 512) x 4 B = 0.19 MiB), within the 0.5 MiB tolerance.
  for (auto [dir, id] : {std::pair{k13b, "cfg2-tp4"}, std::pair{k14b, "tp8"}}) {
    SCOPED_TRACE(std::string(dir) + "/" + id);
    const Pair& p = find(dir, id);
    EXPECT_EQ(p.xla.count[kAR], 10);
    EXPECT_EQ(p.ours.count[kAR], 14);
    EXPECT_EQ(p.xla.count[kAG], 0);
    EXPECT_EQ(p.ours.count[kAG], 0);
    EXPECT_NEAR(static_cast<double>(p.xla.bytes[kAR]), 2.0 * static_cast<double>(p.ours.bytes[kAR]), 0.5 * kMiB);
    EXPECT_EQ(p.xla.count[kA2A] + p.ours.count[kA2A], 0);
  }

  // Ulysses x TP (14B ulysses2-tp4): all-to-alls and all-reduces on both
  // sides, the same data. Heads go to [tp, ulysses] (tp major): q, k, v stay
  // column-split on tp through the norms and one all-to-all each moves the
  // ulysses axis from the sequence to the heads, and one brings the output
  // back: 4 per block, 76 MiB bf16, exactly half XLA's 152 MiB of f32. XLA
  // splits q and k in RoPE halves (12 all-to-alls) and adds 12
  // collective-permutes of the same 152 MiB: its sub-axis device order puts
  // the tp pairs apart. All-reduces as under TP; the head output's gather on
  // both.
  {
    const Pair& p = find(k14b, "ulysses2-tp4");
    EXPECT_EQ(p.xla.count[kA2A], 12);
    EXPECT_EQ(p.xla.count[kCP], 12);
    EXPECT_EQ(p.xla.count[kAR], 10);
    EXPECT_EQ(p.xla.bytes[kA2A], 2 * p.ours.bytes[kA2A]);
    EXPECT_EQ(p.ours.count[kA2A], 8);
    EXPECT_EQ(p.ours.count[kCP], 0);
    EXPECT_EQ(p.ours.count[kAR], 14);
    EXPECT_EQ(p.ours.count[kAG], 1);
    EXPECT_EQ(p.xla.count[kAG], 1);
  }

  // FSDP: the block weights all-gathered before use on both sides (30 and
  // 34 gathers XLA, 31 ours, f32 on XLA's side), plus the Ulysses
  // all-to-alls. A difference: XLA never gathers the time MLP's weights
  // (time_embedding.2, time_projection.1: 350 MiB bf16 on 14B, 32 MiB on
  // 1.3B). Their input is one row, so it computes them sharded and moves the
  // small outputs instead (the 2 small all-reduces; the [1,6,d] modulation
  // through 2 small all-to-alls on 13B, an all-to-all and a permute on 14B).
  // On 14B it also keeps the text side sharded (FlopsPerDeviceAgree). In bf16
  // terms XLA gathers 195 MiB (13B) and 1,142 MiB (14B) per device, ours 227
  // and 1,785: the built-in compiler gathers weights even for one-row matmuls.
  for (auto [dir, id, xla_gathers] :
       {std::tuple{k13b, "ulysses4-cfg2-fsdp8", 30}, std::tuple{k14b, "ulysses8-fsdp8", 34}}) {
    SCOPED_TRACE(std::string(dir) + "/" + id);
    const Pair& p = find(dir, id);
    EXPECT_EQ(p.xla.count[kAG], xla_gathers);
    EXPECT_EQ(p.ours.count[kAG], 31);
    EXPECT_GT(p.xla.bytes[kAG], p.xla.bytes[kA2A]);  // weights dominate on both sides
    EXPECT_GT(p.ours.bytes[kAG], p.ours.bytes[kA2A]);
    EXPECT_EQ(p.xla.count[kA2A], 14);
    EXPECT_EQ(p.ours.count[kA2A], 8);
  }

  // Ring x Ulysses (13B ulysses4-ring2): different by construction. JAX has
  // no ring-attention primitive, so tests/jax/wan_jax.py leaves k and v
  // unconstrained and XLA all-gathers them over all 8 devices (4 gathers of
  // f32 [1,7800,12,128], 183 MiB) and sends only q (two halves) and the
  // output through all-to-alls. Ours runs ring attention: q, k, v and the
  // output through Ulysses all-to-alls, then one kv-block permute per block
  // (ring = 2).
  {
    const Pair& p = find(k13b, "ulysses4-ring2");
    EXPECT_EQ(p.xla.count[kAG], 5);
    EXPECT_EQ(p.xla.count[kCP], 0);
    EXPECT_EQ(p.xla.count[kA2A], 6);
    EXPECT_EQ(p.ours.count[kCP], 2);
    EXPECT_EQ(p.ours.count[kA2A], 8);
    EXPECT_EQ(p.ours.count[kAG], 1);
  }
}

TEST(WanDumps, PeakMemoryOursBelowXlasCpuProgram) {
  // Peak memory per device by liveness over the schedule (cir::Summarize).
  // XLA's CPU program is far above ours on every candidate (2.3x, 14B
  // ulysses8, to 11.6x, 13B ulysses4-cfg2-fsdp8): its activations are f32 where ours are bf16, and
  // the written-out attention materializes f32 scores [B, H/u, L, L] that a
  // flash-attention kernel never does. Not a like-for-like figure; what is
  // checked is that the ordering holds and both are non-zero.
  const auto& pairs = Pairs();
  for (size_t i = 0; i < std::size(kCandidates); ++i) {
    SCOPED_TRACE(Label(kCandidates[i]));
    EXPECT_GT(pairs[i].ours.peak_memory, 0);
    EXPECT_GT(pairs[i].xla.peak_memory, pairs[i].ours.peak_memory);
  }
}

}  // namespace
}  // namespace az::compile::xla
