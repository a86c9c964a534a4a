// Per-part hybrids (shard/templates.h: "ulysses=x,tp=x@cross_attn+ffn")
// through the built-in compiler on one Wan 2.1 T2V-1.3B block: the set of
// collectives the transitions need, derived by hand, kind, bytes and origin.
//
// The forward: Wan 2.1 1.3B, depth 1, 256x256x9, batch 1, no CFG (latent
// 3x32x32, 2x2 patches: L = 3 * 16 * 16 = 768 video tokens; 512 text tokens),
// d = 1536, 12 heads of 128, FFN hidden f = 8960, bf16. Combining off and
// collectives blocking, so every reshard is one collective. Bytes follow
// cir/program.h: all-gather the gathered result, reduce-scatter and all-reduce
// the unreduced operand, all-to-all the buffer each device sends.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "cir/testing.h"
#include "compile/pipeline.h"
#include "compile/spmd/spmd_compiler.h"
#include "frontend/zoo/zoo.h"

namespace az::compile {
namespace {

// (kind, bytes, origin op, replica groups) of every collective, in program order.
using Collectives = cir::CollectiveRows;

pir::Graph OneBlock() {
  zoo::ModelOptions small;
  small.width = 256;
  small.height = 256;
  small.frames = 9;
  small.cfg = zoo::CfgMode::kNone;
  auto config = zoo::ResolveConfig("wan2.1-t2v-1.3b", small);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  if (!config.ok()) return pir::Graph();
  config->depth_units = 1;
  auto graph = zoo::BuildForward(*config);
  EXPECT_TRUE(graph.ok()) << graph.status().ToString();
  return graph.ok() ? std::move(graph).value() : pir::Graph();
}

Collectives CollectivesOf(const std::string& mesh_text, const std::string& templ) {
  CompileOptions options;
  options.combine_threshold = Bytes(0);
  options.async_collectives = false;
  auto mesh = shard::Mesh::Parse(mesh_text);
  EXPECT_TRUE(mesh.ok());
  SpmdCompiler compiler;
  auto program = CompileTemplate(compiler, OneBlock(), *mesh, templ, options);
  EXPECT_TRUE(program.ok()) << templ << ": " << program.status().ToString();
  if (!program.ok()) return {};
  return cir::CollectiveRowsOf(*program);
}

// Megatron's sequence parallelism on the Ulysses axis: the cross-attention and
// the FFN gather the sequence at their entry and reduce-scatter at their exit.
TEST(HybridCollectives, UlyssesSelfAttentionWithTensorParallelCrossAttentionAndFfn) {
  // Self-attention (Ulysses over x = 4): q and k (after RoPE) and v all-to-all
  //   from the sequence to the heads, the output back: each device sends its
  //   [1, 768/4, 12, 128] (or [1, 768, 12/4, 128]) bf16 = 192 * 12 * 128 * 2 =
  //   589,824 bytes. As under ulysses=x alone.
  // Cross-attention (tp on x): the stream's norm3 output, cast to bf16, is
  //   gathered whole for the column-parallel q: [1, 768, 1536] bf16 =
  //   2,359,296 bytes; q's RMSNorm over the split features sums its squares
  //   over x, f32 per token, 768 * 4 = 3,072 bytes, and k's over the 512 text
  //   rows, 512 * 4 = 2,048 bytes (the text is whole on every device, so k and
  //   v need no gather); o's partial sum is reduce-scattered back to the
  //   sequence split: [1, 768, 1536] bf16 = 2,359,296 bytes, before the
  //   residual (not an all-reduce and a slice).
  // FFN (tp on x): the modulated norm2 output (bf16) gathered for ffn.0,
  //   2,359,296 bytes; ffn.2's partial sum reduce-scattered, 2,359,296 bytes,
  //   before the gate (in bf16, not after it in f32).
  // Outside the block: the head's [1, 768, 64] bf16 output is gathered before
  //   the unpatchify (3 latent frames do not split 4 ways): 98,304 bytes.
  // Each on the one group of the 4 devices.
  const std::string all = "{{0,1,2,3}}";
  const Collectives expected = {
      {"all-to-all", 589824, "blocks.0.self_attn.rope_q", all},
      {"all-to-all", 589824, "blocks.0.self_attn.rope_k", all},
      {"all-to-all", 589824, "blocks.0.self_attn.v_heads", all},
      {"all-to-all", 589824, "blocks.0.self_attn.attention", all},
      {"all-gather", 2359296, "blocks.0.cross_attn.cast", all},
      {"all-reduce", 3072, "blocks.0.cross_attn.norm_q", all},
      {"all-reduce", 2048, "blocks.0.cross_attn.norm_k", all},
      {"reduce-scatter", 2359296, "blocks.0.cross_attn.o", all},
      {"all-gather", 2359296, "blocks.0.ffn.cast", all},
      {"reduce-scatter", 2359296, "blocks.0.ffn.2", all},
      {"all-gather", 98304, "head.head", all},
  };
  EXPECT_EQ(CollectivesOf("x=4", "ulysses=x,tp=x@cross_attn+ffn"), expected);
  // Bound by degree, the per-part tp takes the Ulysses axis: the same program.
  EXPECT_EQ(CollectivesOf("x=4", "ulysses=4,tp=4@ffn+cross_attn"), expected);
}

// Under ulysses x ring the per-part tp takes the minor axis (ulysses, u): the
// FFN gathers u's share of the [r, u] split and reduce-scatters straight back
// to it (the ring's split on r stays), on the u groups {0,1} and {2,3}.
TEST(HybridCollectives, UspFfnGathersAndScattersTheMinorAxisOnly) {
  // [1, 768/2, 1536] bf16 = 384 * 1536 * 2 = 1,179,648 bytes, gathered and
  // then reduce-scattered over u.
  Collectives ffn;
  for (const auto& c : CollectivesOf("r=2,u=2", "usp:ulysses=u,ring=r,tp=u@ffn")) {
    if (std::get<2>(c).rfind("blocks.0.ffn", 0) == 0) ffn.push_back(c);
  }
  const Collectives expected = {
      {"all-gather", 1179648, "blocks.0.ffn.cast", "{{0,1},{2,3}}"},
      {"reduce-scatter", 1179648, "blocks.0.ffn.2", "{{0,1},{2,3}}"},
  };
  EXPECT_EQ(ffn, expected);
}

// The whole block on tp with the stream split by the sequence (Megatron TP
// with sequence parallelism) against plain Megatron: the same bytes (an
// all-reduce of V = a reduce-scatter of V + an all-gather of V), in two
// collectives per part instead of one: 3 gathers and 3 scatters of 2,359,296
// bytes for the 3 all-reduces of tp=x.
TEST(HybridCollectives, WholeBlockTensorParallelTradesAllReducesForGatherAndScatter) {
  int gathers = 0, scatters = 0, all_reduces = 0;
  for (const auto& c : CollectivesOf("x=4", "ring=x,tp=x@cross_attn+ffn+self_attn")) {
    if (std::get<1>(c) != 2359296) continue;
    gathers += std::get<0>(c) == "all-gather";
    scatters += std::get<0>(c) == "reduce-scatter";
  }
  for (const auto& c : CollectivesOf("x=4", "tp=x")) {
    all_reduces += std::get<0>(c) == "all-reduce" && std::get<1>(c) == 2359296;
  }
  EXPECT_EQ(gathers, 3);
  EXPECT_EQ(scatters, 3);
  EXPECT_EQ(all_reduces, 3);
}

}  // namespace
}  // namespace az::compile
