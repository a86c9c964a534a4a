#include "compile/spmd/reshard.h"

#include <algorithm>
#include <map>

namespace az::compile {

using shard::Mesh;
using shard::TensorSharding;

cir::ReplicaGroups GroupsOverAxes(const Mesh& mesh, const std::vector<int>& axes) {
  std::map<std::vector<int64_t>, std::vector<std::pair<std::vector<int64_t>, int>>> by_rest;
  for (int64_t device = 0; device < mesh.num_devices(); ++device) {
    std::vector<int64_t> rest, inside;
    for (int a = 0; a < mesh.num_axes(); ++a) {
      if (std::find(axes.begin(), axes.end(), a) == axes.end()) rest.push_back(mesh.Coordinate(device, a));
    }
    for (int a : axes) inside.push_back(mesh.Coordinate(device, a));
    by_rest[rest].push_back({inside, static_cast<int>(device)});
  }
  cir::ReplicaGroups groups;
  for (auto& [rest, members] : by_rest) {
    std::sort(members.begin(), members.end());
    std::vector<int> group;
    for (auto& m : members) group.push_back(m.second);
    groups.groups.push_back(std::move(group));
  }
  return groups;
}

namespace {

int NewBuffer(cir::Program& program, const pir::TensorType& type, const Mesh& mesh, const TensorSharding& s,
              const std::string& name) {
  cir::Buffer b;
  b.name = name;
  b.kind = cir::BufferKind::kCommunication;
  b.dtype = type.dtype;
  b.shape = s.LocalShape(mesh, type.shape);
  return program.AddBuffer(std::move(b));
}

struct Emitter {
  const Mesh& mesh;
  const pir::TensorType& type;
  const std::string& name;
  const std::string& origin;
  cir::Program& program;
  int buffer;
  TensorSharding cur;
  int count = 0;

  Bytes LocalBytes(const TensorSharding& s) const {
    return Bytes(pir::TensorType{type.dtype, s.LocalShape(mesh, type.shape)}.NumBytes());
  }
  void Collective(cir::CollectiveKind kind, const std::vector<int>& axes, Bytes bytes, const TensorSharding& next,
                  const std::string& what) {
    cir::Instruction in;
    in.kind = cir::InstrKind::kCollective;
    in.collective = kind;
    in.collective_bytes = bytes;
    in.groups = GroupsOverAxes(mesh, axes);
    in.name = name + "." + what + "." + std::to_string(count++);
    in.origin = origin;
    in.operands = {buffer};
    int out = NewBuffer(program, type, mesh, next, in.name);
    in.results = {out};
    program.AddInstruction(std::move(in));
    buffer = out;
    cur = next;
  }
};

}  // namespace

ReshardResult EmitReshard(const Mesh& mesh, const pir::TensorType& type, int buffer, const TensorSharding& from,
                          const TensorSharding& to, const std::string& name, const std::string& origin,
                          cir::Program& program) {
  Emitter e{mesh, type, name, origin, program, buffer, from};
  const size_t rank = from.dims.size();
  // 1. Pending partial sums: reduce-scatters first (the all-reduce then sums
  // the smaller shard), and the rest in one all-reduce over all their axes.
  std::vector<int> reduce_axes;
  for (int axis : from.partial) {
    if (std::find(to.partial.begin(), to.partial.end(), axis) != to.partial.end()) continue;
    TensorSharding next = e.cur;
    next.partial.erase(std::find(next.partial.begin(), next.partial.end(), axis));
    int scatter_dim = -1;
    for (size_t d = 0; d < rank; ++d) {
      const auto& want = to.dims[d];
      const auto& have = e.cur.dims[d];
      // `to` shards dim d by `axis` right after what the dim already has.
      if (have.size() < want.size() && std::equal(have.begin(), have.end(), want.begin()) && want[have.size()] == axis) {
        scatter_dim = static_cast<int>(d);
      }
    }
    if (scatter_dim >= 0) {
      next.dims[scatter_dim].push_back(axis);
      e.Collective(cir::CollectiveKind::kReduceScatter, {axis}, e.LocalBytes(e.cur), next, "reduce-scatter");
    } else {
      reduce_axes.push_back(axis);
    }
  }
  if (!reduce_axes.empty()) {
    TensorSharding next = e.cur;
    for (int axis : reduce_axes) next.partial.erase(std::find(next.partial.begin(), next.partial.end(), axis));
    e.Collective(cir::CollectiveKind::kAllReduce, reduce_axes, e.LocalBytes(e.cur), next, "all-reduce");
  }
  // 2. Axes moving between dims: all-to-all.
  for (size_t src = 0; src < rank; ++src) {
    while (!e.cur.dims[src].empty()) {
      int axis = e.cur.dims[src].back();
      // Already where `to` wants it?
      if (e.cur.dims[src].size() <= to.dims[src].size() &&
          std::equal(e.cur.dims[src].begin(), e.cur.dims[src].end(), to.dims[src].begin())) {
        break;
      }
      int dst = -1;
      for (size_t d = 0; d < rank; ++d) {
        if (d == src) continue;
        const auto& want = to.dims[d];
        const auto& have = e.cur.dims[d];
        if (have.size() < want.size() && std::equal(have.begin(), have.end(), want.begin()) &&
            want[have.size()] == axis) {
          dst = static_cast<int>(d);
        }
      }
      if (dst < 0) break;
      TensorSharding next = e.cur;
      next.dims[src].pop_back();
      next.dims[dst].push_back(axis);
      e.Collective(cir::CollectiveKind::kAllToAll, {axis}, e.LocalBytes(e.cur), next, "all-to-all");
    }
  }
  // 3. Axes to drop: one all-gather per dim over the axes past the common prefix.
  for (size_t d = 0; d < rank; ++d) {
    const auto& have = e.cur.dims[d];
    const auto& want = to.dims[d];
    size_t common = 0;
    while (common < have.size() && common < want.size() && have[common] == want[common]) ++common;
    if (common == have.size()) continue;
    std::vector<int> axes(have.begin() + static_cast<long>(common), have.end());
    TensorSharding next = e.cur;
    next.dims[d].resize(common);
    e.Collective(cir::CollectiveKind::kAllGather, axes, e.LocalBytes(next), next, "all-gather");
  }
  // 4. Axes to add: a local slice.
  if (e.cur.dims != to.dims) {
    TensorSharding next = e.cur;
    next.dims = to.dims;
    cir::Instruction slice;
    slice.kind = cir::InstrKind::kKernel;
    slice.kernel = cir::KernelKind::kCopy;
    slice.name = name + ".slice." + std::to_string(e.count++);
    slice.origin = origin;
    slice.operands = {e.buffer};
    int out = NewBuffer(program, type, mesh, next, slice.name);
    slice.results = {out};
    slice.bytes_read = e.LocalBytes(next);
    slice.bytes_written = e.LocalBytes(next);
    program.AddInstruction(std::move(slice));
    e.buffer = out;
    e.cur = next;
  }
  return {e.buffer, e.count};
}

}  // namespace az::compile
