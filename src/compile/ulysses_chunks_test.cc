// Chunked Ulysses attention (CompileOptions::ulysses_chunks, MaxDiffusion's
// ulysses_attention_chunks): the head ranges, the collectives of a chunked
// self-attention derived by hand, exact FLOPs, the schedule's overlap and
// the refusal for training steps.
#include <gtest/gtest.h>

#include "compile/pipeline.h"
#include "compile/spmd/spmd_compiler.h"
#include "frontend/zoo/zoo.h"

namespace az::compile {
namespace {

using Ranges = std::vector<std::pair<int64_t, int64_t>>;

// MaxDiffusion's _ulysses_head_chunk_ranges: groups = heads / shards, each
// chunk floor(groups / chunks) groups, the last the remainder.
TEST(UlyssesHeadChunks, MaxDiffusionsRanges) {
  // 40 heads over 4 shards: 10 groups; 4 chunks of floor(10/4) = 2 groups,
  // the last 10 - 6 = 4: 8, 8, 8 and 16 heads.
  EXPECT_EQ(UlyssesHeadChunks(40, 4, 4), (Ranges{{0, 8}, {8, 16}, {16, 24}, {24, 40}}));
  // 3 chunks of 10 groups: 3, 3, 4 groups = 12, 12, 16 heads.
  EXPECT_EQ(UlyssesHeadChunks(40, 4, 3), (Ranges{{0, 12}, {12, 24}, {24, 40}}));
  // 12 heads over 4: 3 groups, 3 chunks of one group (4 heads).
  EXPECT_EQ(UlyssesHeadChunks(12, 4, 3), (Ranges{{0, 4}, {4, 8}, {8, 12}}));
  // More chunks than groups: capped at the groups (min(8, 3) = 3).
  EXPECT_EQ(UlyssesHeadChunks(12, 4, 8), (Ranges{{0, 4}, {4, 8}, {8, 12}}));
  // One chunk, or heads the shards do not divide: the whole.
  EXPECT_EQ(UlyssesHeadChunks(40, 4, 1), (Ranges{{0, 40}}));
  EXPECT_EQ(UlyssesHeadChunks(12, 8, 2), (Ranges{{0, 12}}));
  // Every range a multiple of the shards, together the whole.
  for (int64_t chunks = 1; chunks <= 12; ++chunks) {
    const Ranges r = UlyssesHeadChunks(48, 4, chunks);
    EXPECT_EQ(r.front().first, 0);
    EXPECT_EQ(r.back().second, 48);
    for (size_t i = 0; i < r.size(); ++i) {
      EXPECT_EQ((r[i].second - r[i].first) % 4, 0);
      if (i > 0) {
        EXPECT_EQ(r[i].first, r[i - 1].second);
      }
    }
  }
}

StatusOr<cir::Program> Compile(const std::string& model, const std::string& mesh_text, const std::string& spec,
                               int64_t chunks, const std::string& graph_kind = "forward") {
  zoo::ModelOptions options;
  // 256 x 256, 5 frames: 2 x 16 x 16 = 512 tokens.
  options.width = 256;
  options.height = 256;
  options.frames = 5;
  options.cfg = zoo::CfgMode::kNone;
  AZ_ASSIGN_OR_RETURN(zoo::ModelConfig config, zoo::ResolveConfig(model, options));
  pir::Graph graph;
  if (graph_kind == "train") {
    zoo::TrainOptions train;
    AZ_ASSIGN_OR_RETURN(graph, zoo::BuildTrainStep(config, train));
  } else {
    AZ_ASSIGN_OR_RETURN(graph, zoo::BuildForward(config));
  }
  AZ_ASSIGN_OR_RETURN(shard::Mesh mesh, shard::Mesh::Parse(mesh_text));
  SpmdCompiler compiler;
  CompileOptions compile_options;
  compile_options.ulysses_chunks = chunks;
  return CompileTemplate(compiler, graph, mesh, spec, compile_options);
}

struct Found {
  std::string name;
  cir::CollectiveKind kind;
  int64_t bytes;
  cir::ReplicaGroups groups;
};

// Collectives (blocking or -start) whose origin op starts with `prefix`, in order.
std::vector<Found> CollectivesFrom(const cir::Program& p, const std::string& prefix) {
  std::vector<Found> out;
  for (const cir::Instruction& in : p.instructions) {
    if (in.kind != cir::InstrKind::kCollective && in.kind != cir::InstrKind::kCollectiveStart) continue;
    if (in.origin.rfind(prefix, 0) == 0) out.push_back({in.name, in.collective, in.collective_bytes.value(), in.groups});
  }
  return out;
}

double KernelFlops(const cir::Program& p, const std::string& origin) {
  double flops = 0;
  for (const cir::Instruction& in : p.instructions) {
    if (in.kind == cir::InstrKind::kKernel && in.origin == origin) flops += in.flops.value();
  }
  return flops;
}

int Index(const cir::Program& p, const std::string& name, cir::InstrKind kind) {
  for (size_t i = 0; i < p.instructions.size(); ++i) {
    if (p.instructions[i].name == name && p.instructions[i].kind == kind) return static_cast<int>(i);
  }
  return -1;
}

// Wan 2.1 1.3B (12 heads of 128, 512 tokens) with ulysses=4 on 4 devices.
// Unchunked: per self-attention the all-to-alls of q, k and v (sequence
// split -> heads split) and of the output back, each of a device's
// [1, 512/4, 12, 128] bf16 = 128 * 12 * 128 * 2 = 393,216 bytes, over the
// one group {0,1,2,3}. With 3 chunks: 12 heads / 4 = 3 groups, 3 chunks of
// 4 heads; per chunk the three all-to-alls in and one out, each of
// [1, 128, 4, 128] bf16 = 131,072 bytes (a third); 12 all-to-alls, the same
// group, together the unchunked bytes. Nothing else in the block changes.
TEST(ChunkedUlysses, ThreeChunksAreTwelveAllToAllsOfAThird) {
  auto whole = Compile("wan2.1-t2v-1.3b", "sp=4", "ulysses=sp", 1);
  auto chunked = Compile("wan2.1-t2v-1.3b", "sp=4", "ulysses=sp", 3);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  ASSERT_TRUE(chunked.ok()) << chunked.status().ToString();
  const cir::ReplicaGroups group{{{0, 1, 2, 3}}};
  const std::vector<Found> before = CollectivesFrom(*whole, "blocks.3.self_attn.");
  ASSERT_EQ(before.size(), 4u);
  for (const Found& f : before) {
    EXPECT_EQ(f.kind, cir::CollectiveKind::kAllToAll);
    EXPECT_EQ(f.bytes, 393'216);
    EXPECT_EQ(f.groups, group);
  }
  const std::vector<Found> after = CollectivesFrom(*chunked, "blocks.3.self_attn.");
  ASSERT_EQ(after.size(), 12u);
  for (const Found& f : after) {
    EXPECT_EQ(f.kind, cir::CollectiveKind::kAllToAll) << f.name;
    EXPECT_EQ(f.bytes, 131'072) << f.name;
    EXPECT_EQ(f.groups, group) << f.name;
  }
  // Per chunk, its three inputs (q, k, v) then, after every chunk's kernel, the outputs.
  for (int c = 0; c < 3; ++c) {
    const std::string tag = ".ulysses-chunk" + std::to_string(c);
    int inputs = 0, outputs = 0;
    for (const Found& f : after) {
      if (f.name.find(tag + ".output") != std::string::npos) {
        ++outputs;
      } else if (f.name.find(tag) != std::string::npos) {
        ++inputs;
      }
    }
    EXPECT_EQ(inputs, 3) << c;
    EXPECT_EQ(outputs, 1) << c;
  }
  // The rest of the block is untouched: cross-attention and FFN as before.
  EXPECT_EQ(CollectivesFrom(*chunked, "blocks.3.cross_attn.").size(),
            CollectivesFrom(*whole, "blocks.3.cross_attn.").size());
  EXPECT_EQ(CollectivesFrom(*chunked, "blocks.3.ffn.").size(), CollectivesFrom(*whole, "blocks.3.ffn.").size());
}

// The attention's FLOPs are linear in its heads: the three chunks' kernels
// (4 heads each) sum exactly to the one kernel of 12 heads, and so does the
// whole program's.
TEST(ChunkedUlysses, FlopsSumToTheUnchunkedKernel) {
  auto whole = Compile("wan2.1-t2v-1.3b", "sp=4", "ulysses=sp", 1);
  auto chunked = Compile("wan2.1-t2v-1.3b", "sp=4", "ulysses=sp", 3);
  ASSERT_TRUE(whole.ok() && chunked.ok());
  const double one = KernelFlops(*whole, "blocks.3.self_attn.attention");
  ASSERT_GT(one, 0);
  EXPECT_EQ(KernelFlops(*chunked, "blocks.3.self_attn.attention"), one);
  EXPECT_EQ(cir::Summarize(*chunked).flops.value(), cir::Summarize(*whole).flops.value());
  int kernels = 0;
  for (const cir::Instruction& in : chunked->instructions) {
    if (in.kind == cir::InstrKind::kKernel && in.origin == "blocks.3.self_attn.attention") {
      ++kernels;
      // [heads, queries, keys, head dim]: each chunk's 4 heads / 4 devices = 1
      // head, over all 512 queries and keys once the all-to-alls gathered the sequence.
      EXPECT_EQ(in.dims, (std::vector<int64_t>{1, 512, 512, 128})) << in.name;
    }
  }
  EXPECT_EQ(kernels, 3);
}

// ScheduleAsync (one resharding collective in flight) overlaps chunk 1's
// first all-to-all with chunk 0's kernel: its start sits before the kernel
// and its done after it. Unchunked, nothing but the queries' all-to-all can
// start before its own kernel's inputs are complete.
TEST(ChunkedUlysses, NextChunksAllToAllOverlapsThisChunksKernel) {
  auto chunked = Compile("wan2.1-t2v-1.3b", "sp=4", "ulysses=sp", 3);
  ASSERT_TRUE(chunked.ok());
  const cir::Program& p = *chunked;
  const int kernel0 = Index(p, "blocks.3.self_attn.attention.ulysses-chunk0", cir::InstrKind::kKernel);
  ASSERT_GE(kernel0, 0);
  int start = -1, done = -1;
  for (size_t i = 0; i < p.instructions.size(); ++i) {
    const cir::Instruction& in = p.instructions[i];
    if (in.origin.rfind("blocks.3.self_attn.", 0) != 0 || in.name.find(".ulysses-chunk1") == std::string::npos) continue;
    if (in.kind == cir::InstrKind::kCollectiveStart && start < 0) start = static_cast<int>(i);
    if (in.kind == cir::InstrKind::kCollectiveDone && done < 0) done = static_cast<int>(i);
  }
  ASSERT_GE(start, 0);
  EXPECT_LT(start, kernel0);
  EXPECT_GT(done, kernel0);
}

// A smaller buffer in flight: the compiled peak is what it is (no hand
// adjustment); it never exceeds the unchunked one here, where the
// attention's resharded q, k, v are the block's largest live set.
TEST(ChunkedUlysses, PeakIsTheCompiledOnes) {
  auto whole = Compile("wan2.1-t2v-1.3b", "sp=4", "ulysses=sp", 1);
  auto chunked = Compile("wan2.1-t2v-1.3b", "sp=4", "ulysses=sp", 3);
  ASSERT_TRUE(whole.ok() && chunked.ok());
  EXPECT_LE(cir::Summarize(*chunked).peak_memory.value(), cir::Summarize(*whole).peak_memory.value());
}

// USP (ring 2 x ulysses 2): each chunk's all-to-alls, then its own ring (one
// kv permute between its two block kernels). 12 heads / (2 ulysses) = 6
// groups, 2 chunks of 6 heads: per chunk 3 all-to-alls in, 1 out, 1 permute.
TEST(ChunkedUlysses, UspChunksRunTheirOwnRing) {
  auto whole = Compile("wan2.1-t2v-1.3b", "r=2,u=2", "usp:ulysses=u,ring=r", 1);
  auto chunked = Compile("wan2.1-t2v-1.3b", "r=2,u=2", "usp:ulysses=u,ring=r", 2);
  ASSERT_TRUE(whole.ok() && chunked.ok()) << chunked.status().ToString();
  auto count = [](const std::vector<Found>& found, cir::CollectiveKind kind, int64_t* bytes) {
    int n = 0;
    for (const Found& f : found) {
      if (f.kind != kind) continue;
      ++n;
      *bytes += f.bytes;
    }
    return n;
  };
  int64_t whole_a2a = 0, chunked_a2a = 0, whole_permute = 0, chunked_permute = 0;
  const auto before = CollectivesFrom(*whole, "blocks.3.self_attn.");
  const auto after = CollectivesFrom(*chunked, "blocks.3.self_attn.");
  EXPECT_EQ(count(before, cir::CollectiveKind::kAllToAll, &whole_a2a), 4);
  EXPECT_EQ(count(after, cir::CollectiveKind::kAllToAll, &chunked_a2a), 8);
  EXPECT_EQ(count(before, cir::CollectiveKind::kCollectivePermute, &whole_permute), 1);
  EXPECT_EQ(count(after, cir::CollectiveKind::kCollectivePermute, &chunked_permute), 2);
  EXPECT_EQ(chunked_a2a, whole_a2a);
  EXPECT_EQ(chunked_permute, whole_permute);
  EXPECT_EQ(KernelFlops(*chunked, "blocks.3.self_attn.attention"), KernelFlops(*whole, "blocks.3.self_attn.attention"));
}

// Without Ulysses nothing is chunked; a training step refuses chunks.
TEST(ChunkedUlysses, NoUlyssesNoChunksAndTrainingRefuses) {
  auto ring = Compile("wan2.1-t2v-1.3b", "sp=4", "ring=sp", 3);
  auto plain = Compile("wan2.1-t2v-1.3b", "sp=4", "ring=sp", 1);
  ASSERT_TRUE(ring.ok() && plain.ok());
  EXPECT_EQ(ring->instructions.size(), plain->instructions.size());
  auto train = Compile("wan2.1-t2v-1.3b", "sp=4", "ulysses=sp", 2, "train");
  ASSERT_FALSE(train.ok());
  EXPECT_EQ(train.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(train.status().message().find("chunked Ulysses attention is lowered for inference"), std::string::npos);
}

}  // namespace
}  // namespace az::compile
