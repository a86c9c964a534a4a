// Issue 8's acceptance check: the collectives the built-in SPMD compiler
// produces for a JAX program's own (annotated) sharding, against the
// collectives JAX itself emitted in the file (frontend/stablehlo:
// ListManualCollectives).
//
// The importer rebuilds each shard_map body at global shapes and pins the
// body's operands to its in_shardings; those pins (and the arguments' own
// annotations) are the seeds, propagation fills the rest, and the compiler
// places the collectives.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "compile/spmd/spmd_compiler.h"
#include "frontend/stablehlo/import.h"
#include "shard/propagation.h"
#include "support/test_files.h"

namespace az::compile {
namespace {

using Counts = std::map<std::string, int>;

struct Compared {
  Counts ours, jax;
  std::set<size_t> gather_groups;  // the sizes of our all-gathers' replica groups
};

std::optional<Compared> Compare(const std::string& path) {
  auto program = frontend::ImportStableHloFile(path, {});
  EXPECT_TRUE(program.ok()) << program.status().message();
  if (!program.ok() || program->graph.meshes().empty()) return std::nullopt;
  const pir::Mesh& own = program->graph.meshes()[0];
  std::string mesh_text;
  for (const auto& [axis, size] : own.axes)
    mesh_text += (mesh_text.empty() ? "" : ",") + axis + "=" + std::to_string(size);
  auto mesh = shard::Mesh::Parse(mesh_text);
  EXPECT_TRUE(mesh.ok()) << mesh.status().message();
  if (!mesh.ok()) return std::nullopt;
  shard::Seeds seeds;
  auto convert = [&](const pir::TensorSharding& s) {
    shard::TensorSharding t = shard::TensorSharding::Replicated(static_cast<int>(s.dim_axes.size()));
    for (size_t d = 0; d < s.dim_axes.size(); ++d) {
      for (const std::string& axis : s.dim_axes[d]) {
        // Size-1 axes (x=1 in the dp/fsdp meshes) split nothing.
        if (mesh->axis_size(mesh->AxisIndex(axis)) > 1) t.dims[d].push_back(mesh->AxisIndex(axis));
      }
    }
    return t;
  };
  for (pir::ValueId id = 0; id < program->graph.num_values(); ++id) {
    if (program->graph.value(id).sharding) seeds.values[id] = convert(*program->graph.value(id).sharding);
  }
  for (const auto& [id, s] : program->pinned) seeds.values[id] = convert(s);
  // What the shard_map gathers before use is stored as pinned and used as
  // the gather leaves it: a storage-only seed with its use sharding.
  for (const auto& [id, s] : program->gathered) {
    seeds.storage_only.insert(id);
    seeds.used[id] = convert(s);
  }
  auto plan = shard::Propagate(program->graph, *mesh, seeds);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  if (!plan.ok()) return std::nullopt;
  SpmdCompiler compiler;
  CompileOptions options;
  options.combine_threshold = Bytes(0);  // count collectives one by one, as JAX emitted them
  auto compiled = compiler.Compile(program->graph, *plan, options);
  EXPECT_TRUE(compiled.ok()) << compiled.status().message();
  if (!compiled.ok()) return std::nullopt;
  Compared c;
  for (const cir::Instruction& in : compiled->instructions) {
    if (in.kind != cir::InstrKind::kCollective && in.kind != cir::InstrKind::kCollectiveStart) continue;
    ++c.ours[std::string(cir::CollectiveKindName(in.collective))];
    if (in.collective == cir::CollectiveKind::kAllGather) c.gather_groups.insert(in.groups.groups.at(0).size());
  }
  auto jax = frontend::ListManualCollectives(testing::ReadTextFile(path), path);
  EXPECT_TRUE(jax.ok());
  if (!jax.ok()) return std::nullopt;
  for (const frontend::ManualCollective& m : *jax) {
    std::string kind = m.kind;
    for (char& ch : kind) ch = ch == '_' ? '-' : ch;
    ++c.jax[kind];
  }
  return c;
}

std::string Show(const Counts& counts) {
  std::string out;
  for (const auto& [kind, n] : counts) out += kind + "=" + std::to_string(n) + " ";
  return out;
}

struct Case {
  const char* file;
  Counts ours, jax;
  std::set<size_t> gather_groups;  // JAX's: [[0,4],[1,5],...] is 2, the fsdp files' 8; none without gathers
};

// Per file: what JAX emitted (formats.md §5) and what we produce, with the
// difference explained.
//
// FSDP: the shard_map stores each weight split on the batch axis and
// all_gathers it before use. The importer sees the gathers (every use of the
// body argument is an all_gather) and records how the body uses the weight;
// that is a storage-only seed (shard/propagation.h: "FSDP weights, stored
// sharded and all-gathered before use") with that use sharding.
TEST(StableHloCollectives, CompilerAgainstJax) {
  const Case cases[] = {
      // Data parallel: the loss's mean over the split batch is one all-reduce. Equal.
      {"e2e_dp_shardy", {{"all-reduce", 1}}, {{"all-reduce", 1}}, {}},
      // FSDP over 8 devices: 6 weights + 6 biases gathered, one all-reduce of the loss. Equal.
      {"e2e_fsdp_gspmd", {{"all-gather", 12}, {"all-reduce", 1}}, {{"all-gather", 12}, {"all-reduce", 1}}, {8}},
      {"e2e_fsdp_shardy", {{"all-gather", 12}, {"all-reduce", 1}}, {{"all-gather", 12}, {"all-reduce", 1}}, {8}},
      // Tensor parallel: each row-parallel layer's partial sum is reduce-scattered
      // onto the next layer's split input: 6 reduce-scatters, as JAX. We add one
      // all-reduce: the loss (subtract, square, sum over the y-split features)
      // lies outside the shard_maps, where JAX leaves partitioning to XLA after
      // export, so the file holds no collective for it; our compiler places it.
      {"e2e_tp_gspmd", {{"all-reduce", 1}, {"reduce-scatter", 6}}, {{"reduce-scatter", 6}}, {}},
      {"e2e_tp_shardy", {{"all-reduce", 1}, {"reduce-scatter", 6}}, {{"reduce-scatter", 6}}, {}},
      // FSDP x TP (x=2, y=4): each weight is stored on ("y", "x") and the
      // shard_map gathers it over x only, so the body uses it split on y: the
      // importer records that use (ImportedProgram::gathered), the weights seed
      // storage-only with it (Seeds::used), and propagation keeps the
      // contracted features on y from layer to layer as JAX's body does. Both
      // gather the 12 weights and biases over x, reduce-scatter each layer's
      // partial sum onto y (6) and all-reduce the loss over y and over x (2).
      // Equal.
      {"e2e_fsdp_tp_shardy",
       {{"all-gather", 12}, {"all-reduce", 2}, {"reduce-scatter", 6}},
       {{"all-gather", 12}, {"all-reduce", 2}, {"reduce-scatter", 6}},
       {2}},
  };
  for (const Case& c : cases) {
    AZ_REQUIRE_SHARED_DATA(path, std::string("stablehlo/") + c.file + ".mlir");
    auto compared = Compare(path);
    ASSERT_TRUE(compared) << c.file;
    EXPECT_EQ(compared->jax, c.jax) << c.file << ": JAX " << Show(compared->jax);
    EXPECT_EQ(compared->ours, c.ours) << c.file << ": ours " << Show(compared->ours);
    EXPECT_EQ(compared->gather_groups, c.gather_groups) << c.file;
  }
}

}  // namespace
}  // namespace az::compile
