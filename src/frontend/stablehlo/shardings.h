// Sharding annotations of StableHLO files -> PIR meshes and TensorShardings.
//
// Shardy (formats.md §3.4): `sdy.mesh @m = <["x"=2, "y"=4]>` and
// `#sdy.sharding<@m, [{"y", "x"}, {}], replicated={"z"}>` map one to one.
// What PIR cannot hold is dropped with a note the importer turns into a
// warning: sub-axes `"x":(1)2` (the dim is recorded unsharded), `unreduced`,
// explicit `device_ids`. Open dims `{?}`/`{"x", ?}` and priorities `p1` keep
// their axes (PIR shardings are seeds; openness is the planner's default).
//
// GSPMD (`mhlo.sharding = "{devices=[8,1]<=[8]}"`) names devices, not axes.
// We recover axes from the device order: `devices=[a,b]<=[R...]T(perm)` lays
// devices out as iota(N) reshaped to R and transposed by perm; each tile dim
// then covers a run of (possibly split) reshape dims. Those reshape dims, in
// iota order, are mesh axes "d0", "d1", ... of a synthesized mesh. All
// annotations of a file are unified onto one mesh per device count where
// their axis boundaries nest (the cumulative products of their axis sizes
// form a chain under divisibility): `[8,1]<=[8]` and `[2,1,4]<=[8]
// last_tile_dim_replicate` share the mesh d0=2, d1=4, the first sharding
// dim 0 as {"d0","d1"}. Example: `[4,2]<=[2,4]T(1,0)` on mesh d0=2, d1=4
// shards dim 0 by d1 and dim 1 by d0.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/stablehlo/mlir_parser.h"
#include "pir/ir/types.h"
#include "support/status.h"

namespace az::frontend::shlo {

// `<["x"=2, "y"=4]>` (or `#sdy.mesh<...>`) -> a PIR mesh named `name`.
StatusOr<pir::Mesh> MeshFromTrees(const std::string& name, const Trees& value, std::vector<std::string>* notes);

// `#sdy.sharding<@m, [...]>` or `<@m, [...]>`.
StatusOr<pir::TensorSharding> ShardyFromTrees(const Trees& value, std::vector<std::string>* notes);
// `#sdy.sharding_per_value<[<@m, [...]>, ...]>`: one per result.
StatusOr<std::vector<pir::TensorSharding>> ShardyPerValueFromTrees(const Trees& value, std::vector<std::string>* notes);

// One GSPMD sharding, parsed.
struct GspmdSharding {
  enum class Kind { kReplicated, kManual, kMaximal, kTiled };
  Kind kind = Kind::kReplicated;
  int64_t num_devices = 1;
  // kTiled: the device axes in iota order (sizes > 1) and, per tensor dim, the
  // indices of the axes that split it, major to minor.
  std::vector<int64_t> axis_sizes;
  std::vector<std::vector<int>> dim_axes;
  bool explicit_device_order = false;  // a device list that is not iota: approximated by iota
};

// "{devices=[2,1,4]<=[8] last_tile_dim_replicate}"; a tuple "{{...}, {...}}"
// yields one entry per element.
StatusOr<std::vector<GspmdSharding>> ParseGspmd(std::string_view text);

// Collects every GSPMD sharding of a file, then builds the meshes and converts.
class GspmdMeshes {
 public:
  void Add(const GspmdSharding& sharding);
  // The synthesized meshes ("gspmd", "gspmd_1", ...), built on first call.
  const std::vector<pir::Mesh>& Meshes();
  // A tiled/replicated sharding over the meshes; manual and maximal ones
  // convert as replicated. Fails when `rank` differs from the sharding's.
  StatusOr<pir::TensorSharding> Convert(const GspmdSharding& sharding, int64_t rank);

 private:
  struct Group {
    int64_t num_devices;
    std::vector<int64_t> boundaries;  // sorted cumulative products (a chain)
    std::string mesh;
  };
  static bool Merge(std::vector<int64_t>& boundaries, const GspmdSharding& sharding);
  std::vector<GspmdSharding> pending_;
  std::vector<Group> groups_;
  std::vector<pir::Mesh> meshes_;
  bool built_ = false;
};

// Device groups (replica_groups, global device ids) -> the mesh axes whose
// coordinate varies inside a group, in mesh order. Fails when the groups are
// not the orbits of a set of axes (then the caller cannot name them).
StatusOr<std::vector<std::string>> GroupAxes(const pir::Mesh& mesh, const std::vector<std::vector<int64_t>>& groups);

}  // namespace az::frontend::shlo
